import sharp from 'sharp';
import { seededRandom } from '../../../platform/seeded-random.js';
import {
  EngineFailedError,
  EngineUnavailableError,
  PROMPT_OPERATIONS,
  type EngineOperation,
  type EngineRequest,
  type EngineResult,
} from '../engine.js';
import { extendPicture, removeObject, type CopiedFrom, type FillResult } from './fill-operations.js';
import { decodeMask, decodeRgb, encodePng } from './raster.js';
import { subjectAlpha, subjectColours } from './remove-background.js';
import { decodeSource, withTransparency, type DecodedSource } from './transparency.js';

/** Longest side `upscale` makes: twice the largest download size (4k), and a bound on memory. */
export const MAX_UPSCALED_SIDE = 8192;
/** Largest picture `extend` makes, in pixels: a bound on memory (about 150 MB of RGB). */
export const MAX_EXTENDED_PIXELS = 50_000_000;

export const BUILTIN_OPERATIONS: ReadonlySet<EngineOperation> = new Set(['remove_background', 'remove_object', 'extend', 'upscale']);

/** Runs one operation of the built-in engine here, on this thread (the engine's worker calls it). */
export async function runBuiltinOperation(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
  try {
    return await runOperation(request, signal);
  } catch (error) {
    if (error instanceof EngineFailedError || error instanceof EngineUnavailableError || signal?.aborted) throw error;
    // A picture the algorithms cannot work on (a mask leaving no whole patch to copy) fails the job and says why.
    throw new EngineFailedError(`the built-in engine could not ${request.operation.replace('_', ' ')}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function runOperation(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
  signal?.throwIfAborted();
  switch (request.operation) {
    case 'remove_background': {
      const source = await decodeRgb(request.source);
      const alpha = await subjectAlpha(source);
      const colours = subjectColours(source, alpha);
      const rgba = Buffer.alloc(source.width * source.height * 4);
      for (let i = 0; i < alpha.length; i++) {
        rgba[i * 4] = colours[i * 3]!;
        rgba[i * 4 + 1] = colours[i * 3 + 1]!;
        rgba[i * 4 + 2] = colours[i * 3 + 2]!;
        rgba[i * 4 + 3] = Math.round(alpha[i]! * 255);
      }
      const data = await sharp(rgba, { raw: { width: source.width, height: source.height, channels: 4 } }).png().toBuffer();
      return { pictures: [{ data, seed: 0 }] };
    }
    case 'remove_object': {
      const source = await decodeSource(request.source);
      const { width, height } = source.picture;
      const hole = await decodeMask(request.mask, width, height);
      if (hole.every((value) => value === 1)) throw new EngineFailedError('the mask covers the whole picture: there is nothing left to fill it from');
      // Each fill samples its candidates with its own seed and copies no patch an earlier fill copied: four different fills.
      const copiedFrom: CopiedFrom = { pixels: new Uint8Array(0) };
      const pictures = [];
      for (let n = 0; n < Math.max(1, request.count); n++) {
        signal?.throwIfAborted();
        const seed = (request.seed + n) >>> 0;
        const result = await removeObject(source.picture, hole, seededRandom(seed), source.transparency?.alpha, copiedFrom);
        pictures.push({ data: await encodeResult(result, source), seed });
      }
      return { pictures };
    }
    case 'extend': {
      const { left, right, top, bottom } = request.margins;
      for (const [side, value] of Object.entries(request.margins)) {
        if (!Number.isInteger(value) || value < 0) throw new EngineFailedError(`the ${side} margin must be whole pixels, 0 or more, got ${value}`);
      }
      const source = await decodeSource(request.source);
      const { width, height } = source.picture;
      const extendedPixels = (width + left + right) * (height + top + bottom);
      if (extendedPixels > MAX_EXTENDED_PIXELS) {
        throw new EngineFailedError(`the extended picture would be ${width + left + right}×${height + top + bottom} pixels, more than the ${MAX_EXTENDED_PIXELS / 1_000_000} megapixels the engine makes`);
      }
      const pictures = [];
      for (let n = 0; n < Math.max(1, request.count); n++) {
        signal?.throwIfAborted();
        const seed = (request.seed + n) >>> 0;
        const result = await extendPicture(source.picture, { left, right, top, bottom }, seededRandom(seed), source.transparency?.alpha);
        pictures.push({ data: await encodeResult(result, source, left, top), seed });
      }
      return { pictures };
    }
    case 'upscale': {
      const side = request.longestSide;
      if (!Number.isInteger(side) || side < 1 || side > MAX_UPSCALED_SIDE) {
        throw new EngineFailedError(`the longest side must be 1 to ${MAX_UPSCALED_SIDE} pixels, got ${side}`);
      }
      try {
        const { width = 0, height = 0, orientation = 1 } = await sharp(request.source.data).metadata();
        // EXIF orientations 5 to 8 turn the picture a quarter: its longest side is the other one.
        const landscape = orientation >= 5 ? height >= width : width >= height;
        const data = await sharp(request.source.data, { limitInputPixels: 50_000_000 })
          .rotate()
          .resize({ ...(landscape ? { width: side } : { height: side }), kernel: 'lanczos3' })
          .png()
          .toBuffer();
        return { pictures: [{ data, seed: 0 }] };
      } catch (error) {
        throw new EngineFailedError(`the source is not a picture the engine can read: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    default:
      throw new EngineUnavailableError(request.operation, declined(request.operation));
  }
}

/** The result as a PNG: with its alpha when the source had transparency, the source's own pixels kept exactly. */
async function encodeResult(result: FillResult, source: DecodedSource, left = 0, top = 0): Promise<Buffer> {
  if (!source.transparency || !result.alpha) return encodePng(result.picture);
  return encodePng(withTransparency(result.picture, result.alpha, result.changed, source.transparency.original, left, top));
}

function declined(operation: EngineOperation): string {
  const reason = PROMPT_OPERATIONS.has(operation) ? 'follows a prompt, which needs a model' : 'is not one of its operations';
  return `the built-in engine does background removal, object removal, extend and upscaling; ${operation} ${reason}: set STOCKROOM_GENERATION_SERVER (a1111, comfyui or openai) and STOCKROOM_GENERATION_SERVER_URL`;
}
