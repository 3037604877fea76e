import type { Margins } from '../engine.js';
import { exemplarFill } from './exemplar-fill.js';
import { carryFillToFullSize } from './full-size-fill.js';
import { crop, emptyRaster, maskRaster, resize, type Raster } from './raster.js';

/**
 * The exemplar fill works at a scale where the hole holds at most this many pixels (about a
 * second on one core); a larger hole is filled at a reduced scale and that fill carried up to
 * the full size, level by level (full-size-fill.ts).
 */
export const MAX_FILLED_PIXELS = 60_000;
/** And the picture it searches for patches at most this many. */
const MAX_WORKING_PIXELS = 400_000;
/**
 * The fill is carried up to full size over at most this many pixels of picture (about 60 bytes
 * each of working memory); past it, up to this size and enlarged from there.
 */
const MAX_CARRIED_PIXELS = 6_000_000;

/** A filled picture and, when the source had one, its alpha channel filled alike (one byte a pixel). */
export interface Filled {
  picture: Raster;
  alpha: Uint8Array | undefined;
}

/** What `removeObject` and `extendPicture` give back: the filled picture, and 1 where its pixels are new. */
export interface FillResult extends Filled {
  changed: Uint8Array;
}

/**
 * Where the fills of one hole copied their patches from, at the scale the hole is filled at (1
 * for a pixel copied). A later fill given it copies from elsewhere: a different fill, not a copy.
 */
export interface CopiedFrom {
  pixels: Uint8Array;
}


/**
 * `source` with the pixels where `hole` is 1 filled from the rest of the picture (a new raster).
 * With `alpha`, each filled pixel also takes the alpha of the pixel its colour came from, so a
 * transparent picture's outline runs on through the hole.
 */
export async function removeObject(source: Raster, hole: Uint8Array, random: () => number, alpha?: Uint8Array, copiedFrom?: CopiedFrom): Promise<FillResult> {
  const { width, height } = source;
  const grown = dilate(hole, width, height, 2);
  let left = width;
  let top = height;
  let right = -1;
  let bottom = -1;
  let holePixels = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!grown[y * width + x]) continue;
      holePixels++;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      if (y > bottom) bottom = y;
    }
  }
  const result: Raster = { ...source, data: source.data.slice() };
  const resultAlpha = alpha?.slice();
  if (holePixels === 0) return { picture: result, alpha: resultAlpha, changed: grown };

  // The picture around the hole, as far again as the hole is wide, is where its patches come from.
  const reach = Math.max(24, Math.round(Math.max(right - left, bottom - top) * 0.9));
  const region = {
    left: Math.max(0, left - reach),
    top: Math.max(0, top - reach),
    right: Math.min(width - 1, right + reach),
    bottom: Math.min(height - 1, bottom + reach),
  };
  const regionWidth = region.right - region.left + 1;
  const regionHeight = region.bottom - region.top + 1;
  const scale = Math.min(1, Math.sqrt(MAX_FILLED_PIXELS / holePixels), Math.sqrt(MAX_WORKING_PIXELS / (regionWidth * regionHeight)));

  const regionPicture = crop(source, region.left, region.top, regionWidth, regionHeight);
  const regionHole = crop({ width, height, channels: 1, data: grown }, region.left, region.top, regionWidth, regionHeight).data;
  const regionAlpha = alpha && crop({ width, height, channels: 1, data: alpha }, region.left, region.top, regionWidth, regionHeight).data;
  const filled = await fillLarge(regionPicture, regionHole, scale, random, regionAlpha, copiedFrom);
  for (let y = 0; y < regionHeight; y++) {
    for (let x = 0; x < regionWidth; x++) {
      const at = (region.top + y) * width + region.left + x;
      if (!grown[at]) continue;
      const from = y * regionWidth + x;
      result.data[at * 3] = filled.picture.data[from * 3]!;
      result.data[at * 3 + 1] = filled.picture.data[from * 3 + 1]!;
      result.data[at * 3 + 2] = filled.picture.data[from * 3 + 2]!;
      if (resultAlpha && filled.alpha) resultAlpha[at] = filled.alpha[from]!;
    }
  }
  return { picture: result, alpha: resultAlpha, changed: grown };
}

/**
 * `source` with new pixels on each side, synthesised from its own patches (a new raster). With
 * `alpha`, the new pixels take the alpha of the pixels their colours came from.
 */
export async function extendPicture(source: Raster, margins: Margins, random: () => number, alpha?: Uint8Array): Promise<FillResult> {
  if (margins.left + margins.right + margins.top + margins.bottom === 0) return { picture: source, alpha, changed: new Uint8Array(source.width * source.height) };
  const width = source.width + margins.left + margins.right;
  const height = source.height + margins.top + margins.bottom;
  const added = width * height - source.width * source.height;
  const scale = Math.min(1, Math.sqrt(MAX_FILLED_PIXELS / Math.max(1, added)), Math.sqrt(MAX_WORKING_PIXELS / (width * height)));
  const small = {
    left: Math.round(margins.left * scale),
    top: Math.round(margins.top * scale),
    width: Math.max(8, Math.round(source.width * scale)),
    height: Math.max(8, Math.round(source.height * scale)),
  };
  const workWidth = small.left + small.width + Math.round(margins.right * scale);
  const workHeight = small.top + small.height + Math.round(margins.bottom * scale);
  const inner = scale < 1 ? await resize(source, small.width, small.height, 'cubic') : source;
  const canvas = emptyRaster(workWidth, workHeight, 3);
  const hole = new Uint8Array(workWidth * workHeight).fill(1);
  for (let y = 0; y < small.height; y++) {
    canvas.data.set(inner.data.subarray(y * small.width * 3, (y + 1) * small.width * 3), ((small.top + y) * workWidth + small.left) * 3);
    hole.fill(0, (small.top + y) * workWidth + small.left, (small.top + y) * workWidth + small.left + small.width);
  }
  const sources = await fillAtScales(canvas, hole, random);
  // The whole canvas at full size, the source in place and the margins to fill.
  const fullCanvas = emptyRaster(width, height, 3);
  const fullHole = new Uint8Array(width * height).fill(1);
  const fullAlpha = alpha && new Uint8Array(width * height);
  for (let y = 0; y < source.height; y++) {
    const row = (margins.top + y) * width + margins.left;
    fullCanvas.data.set(source.data.subarray(y * source.width * 3, (y + 1) * source.width * 3), row * 3);
    fullHole.fill(0, row, row + source.width);
    fullAlpha?.set(alpha!.subarray(y * source.width, (y + 1) * source.width), row);
  }
  const filled = scale < 1 ? await carryUp(fullCanvas, fullHole, canvas, sources, random, fullAlpha) : { picture: canvas, alpha: fullAlpha && (await copyAlpha(fullAlpha, fullHole, width, height, sources, width, height)) };
  const result = filled.picture;
  for (let y = 0; y < source.height; y++) {
    result.data.set(source.data.subarray(y * source.width * 3, (y + 1) * source.width * 3), ((margins.top + y) * width + margins.left) * 3);
  }
  evenOutJoins(result, margins, source.width, source.height);
  return { ...filled, changed: fullHole };
}

/**
 * Takes out what is left of a step where the margins meet the source: along each join, the
 * difference between the source's edge pixel and the new pixel beside it, averaged along the
 * join (so the texture's own steps stay), is added to the new pixels and fades out within a few
 * pixels. Corners take the corrections of both sides that reach them.
 */
function evenOutJoins(picture: Raster, margins: Margins, sourceWidth: number, sourceHeight: number): void {
  const { width, data } = picture;
  const clamped = new Uint8ClampedArray(data.buffer, data.byteOffset, data.length);
  // A large step is structure that does not continue (a hill's edge meeting sky), not a shade to even out.
  const bounded = (step: number) => Math.max(-MAX_JOIN_CORRECTION, Math.min(MAX_JOIN_CORRECTION, step));
  const fade = Math.max(4, Math.round(Math.min(sourceWidth, sourceHeight) / 40));
  const along = Math.max(3, fade);
  const sides = [
    { size: margins.left, length: sourceHeight, at: (i: number, d: number) => (margins.top + i) * width + margins.left - 1 - d, edge: (i: number) => (margins.top + i) * width + margins.left },
    { size: margins.right, length: sourceHeight, at: (i: number, d: number) => (margins.top + i) * width + margins.left + sourceWidth + d, edge: (i: number) => (margins.top + i) * width + margins.left + sourceWidth - 1 },
    { size: margins.top, length: sourceWidth, at: (i: number, d: number) => (margins.top - 1 - d) * width + margins.left + i, edge: (i: number) => margins.top * width + margins.left + i },
    { size: margins.bottom, length: sourceWidth, at: (i: number, d: number) => (margins.top + sourceHeight + d) * width + margins.left + i, edge: (i: number) => (margins.top + sourceHeight - 1) * width + margins.left + i },
  ];
  for (const side of sides) {
    if (side.size === 0) continue;
    const steps = new Float32Array(side.length * 3);
    for (let i = 0; i < side.length; i++) {
      for (let c = 0; c < 3; c++) steps[i * 3 + c] = data[side.edge(i) * 3 + c]! - data[side.at(i, 0) * 3 + c]!;
    }
    for (let i = 0; i < side.length; i++) {
      const sums = [0, 0, 0];
      let count = 0;
      for (let j = Math.max(0, i - along); j <= Math.min(side.length - 1, i + along); j++) {
        for (let c = 0; c < 3; c++) sums[c]! += steps[j * 3 + c]!;
        count++;
      }
      for (let d = 0; d < Math.min(side.size, 3 * fade); d++) {
        const weight = Math.exp(-d / fade);
        const p = side.at(i, d) * 3;
        for (let c = 0; c < 3; c++) clamped[p + c] = data[p + c]! + bounded(sums[c]! / count) * weight;
      }
    }
  }
}

/**
 * Fills `picture`'s hole (a new raster): in place when `scale` is 1, else at `scale` and the fill
 * carried up to full size.
 */
async function fillLarge(picture: Raster, hole: Uint8Array, scale: number, random: () => number, alpha: Uint8Array | undefined, copiedFrom?: CopiedFrom): Promise<Filled> {
  if (scale >= 1) {
    const work: Raster = { ...picture, data: picture.data.slice() };
    const sources = await fillAtScales(work, hole, random, copiedFrom);
    return { picture: work, alpha: alpha && (await copyAlpha(alpha, hole, picture.width, picture.height, sources, picture.width, picture.height)) };
  }
  const workWidth = Math.max(8, Math.round(picture.width * scale));
  const workHeight = Math.max(8, Math.round(picture.height * scale));
  const work = await resize(picture, workWidth, workHeight, 'cubic');
  // Any trace of the hole at the small scale is hole: none of the object may be copied back in.
  const workHole = (await resize(maskRaster(hole, picture.width, picture.height), workWidth, workHeight, 'cubic')).data.map((value) => (value > 0 ? 1 : 0));
  const sources = await fillAtScales(work, workHole, random, copiedFrom);
  return carryUp(picture, hole, work, sources, random, alpha);
}

/** The small fill carried up to `picture`'s size, or to MAX_CARRIED_PIXELS and enlarged from there. */
async function carryUp(picture: Raster, hole: Uint8Array, small: Raster, smallSources: Int32Array, random: () => number, alpha: Uint8Array | undefined): Promise<Filled> {
  const { width, height } = picture;
  const carried = Math.min(1, Math.sqrt(MAX_CARRIED_PIXELS / (width * height)));
  if (carried >= 1) {
    const { filled, sources } = await carryFillToFullSize(picture, hole, small, smallSources, random);
    return { picture: filled, alpha: alpha && (await copyAlpha(alpha, hole, width, height, sources, width, height)) };
  }
  const targetWidth = Math.round(width * carried);
  const targetHeight = Math.round(height * carried);
  const target = await resize(picture, targetWidth, targetHeight, 'cubic');
  const targetHole = (await resize(maskRaster(hole, width, height), targetWidth, targetHeight, 'cubic')).data.map((value) => (value > 0 ? 1 : 0));
  const { filled, sources } = await carryFillToFullSize(target, targetHole, small, smallSources, random);
  return {
    picture: await resize(filled, width, height, 'cubic'),
    alpha: alpha && (await copyAlpha(alpha, hole, width, height, sources, targetWidth, targetHeight)),
  };
}

/**
 * `alpha` (`width`×`height`) with each hole pixel taking the alpha of the pixel its colour was
 * copied from, as `sources` says (each pixel's own index where it was known). When the fill was
 * made at a smaller size (`sourcesWidth`×`sourcesHeight`), the alpha is copied at that size and
 * enlarged; the known pixels keep their own alpha either way.
 */
async function copyAlpha(alpha: Uint8Array, hole: Uint8Array, width: number, height: number, sources: Int32Array, sourcesWidth: number, sourcesHeight: number): Promise<Uint8Array> {
  const sameSize = sourcesWidth === width && sourcesHeight === height;
  const working = sameSize ? alpha : (await resize({ width, height, channels: 1, data: alpha }, sourcesWidth, sourcesHeight, 'cubic')).data;
  let copied: Uint8Array = new Uint8Array(working.length);
  for (let i = 0; i < copied.length; i++) copied[i] = working[sources[i]!]!;
  if (!sameSize) copied = (await resize({ width: sourcesWidth, height: sourcesHeight, channels: 1, data: copied }, width, height, 'cubic')).data;
  const out = alpha.slice();
  for (let i = 0; i < out.length; i++) if (hole[i]) out[i] = copied[i]!;
  return out;
}

/** Below this shorter side there is no coarser scale worth filling first. */
const COARSEST_SIDE = 64;

/**
 * Fills the hole coarse to fine: at half the size first (recursively), where a picture's large
 * structures fit in a patch, then here, each patch matched against that rough fill as well as
 * its known pixels, after Wexler, Shechtman and Irani's multi-scale completion.
 */
async function fillAtScales(picture: Raster, hole: Uint8Array, random: () => number, copiedFrom?: CopiedFrom): Promise<Int32Array> {
  let guide: Raster | undefined;
  const coarseWidth = Math.round(picture.width / 2);
  const coarseHeight = Math.round(picture.height / 2);
  if (Math.min(coarseWidth, coarseHeight) >= COARSEST_SIDE) {
    const coarse = await resize(picture, coarseWidth, coarseHeight, 'cubic');
    const coarseHole = (await resize(maskRaster(hole, picture.width, picture.height), coarseWidth, coarseHeight, 'cubic')).data.map((value) => (value > 0 ? 1 : 0));
    await fillAtScales(coarse, coarseHole, random);
    guide = await resize(coarse, picture.width, picture.height, 'cubic');
  }
  const size = picture.width * picture.height;
  // The first fill of a hole starts the record; the picture and hole are the same for every fill of it, so the scale is too.
  if (copiedFrom && copiedFrom.pixels.length !== size) copiedFrom.pixels = new Uint8Array(size);
  const sources = exemplarFill(picture, hole, { patchRadius: patchRadiusFor(picture), random, guide, avoid: copiedFrom?.pixels });
  if (copiedFrom) {
    for (let i = 0; i < size; i++) if (hole[i] && sources[i]! >= 0) copiedFrom.pixels[sources[i]!] = 1;
  }
  return sources;
}

/** The largest correction (per channel, of 255) a join takes. */
const MAX_JOIN_CORRECTION = 16;

/** 9×9 patches for small pictures up to 13×13 for large ones: big enough to carry a texture's structure. */
function patchRadiusFor(picture: Raster): number {
  return Math.max(4, Math.min(6, Math.round(Math.min(picture.width, picture.height) / 80)));
}

/** The mask grown by `radius` pixels (a square structuring element), so an object's soft edge goes with it. */
export function dilate(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  // A square is separable: grown along the rows, then along the columns.
  return dilateAlong(dilateAlong(mask, width, height, radius, 1, 0), width, height, radius, 0, 1);
}

/** The mask grown by `radius` pixels along one axis: (stepX, stepY) is (1, 0) for rows, (0, 1) for columns. */
function dilateAlong(mask: Uint8Array, width: number, height: number, radius: number, stepX: number, stepY: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let d = -radius; d <= radius; d++) {
        const nx = x + d * stepX;
        const ny = y + d * stepY;
        if (nx >= 0 && nx < width && ny >= 0 && ny < height && mask[ny * width + nx]) {
          out[y * width + x] = 1;
          break;
        }
      }
    }
  }
  return out;
}
