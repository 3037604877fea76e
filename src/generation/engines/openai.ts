/*
 * OpenAI-compatible Images APIs (OpenAI itself, and servers that copy its shapes: LocalAI and the
 * like): POST /v1/images/generations (JSON), /v1/images/edits and /v1/images/variations
 * (multipart), pictures back as `data[].b64_json`. An edit's mask is a PNG whose fully transparent
 * pixels are the area to change, so our white-is-edit mask is turned round into alpha. These APIs
 * take a few fixed sizes: a picture goes in fitted on a canvas of the nearest one, and what comes
 * back is cut out of it again at the picture's own size.
 */
import sharp from 'sharp';
import { EngineFailedError } from './engine.js';
import type { EngineOperation, EngineRequest, EngineResult, GenerationEngine } from './engine.js';
import { Deadline, cutOutSubject, ModelServerClient, OBJECT_REMOVAL_PROMPT, binaryMask, bytesOfBase64, coverTo, flattened, maskOfTransparency, outpaintCanvas, pngOf, promptWithStyle, sizeForAspect, sizeOf } from './model-server.js';
import type { ModelServerOptions, PictureSize } from './model-server.js';

export interface OpenAIImagesOptions extends ModelServerOptions {
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey?: string | undefined;
  model?: string | undefined;
  /** The sizes the server accepts ("1024x1024", …); unset: those of a known OpenAI model, else any size in steps of 64. */
  sizes?: string[] | undefined;
}

interface ModelTraits {
  sizes?: readonly string[];
  /** The most pictures one request may ask for (`n`). */
  perRequest: number;
  /** Whether `response_format` may be sent (gpt-image models always answer base64 and refuse it). */
  responseFormat: boolean;
  edits: boolean;
  variations: boolean;
}

/** What OpenAI's own models accept; a server of another name is taken to accept the whole API at any size. */
const MODEL_TRAITS: Record<string, ModelTraits> = {
  'dall-e-2': { sizes: ['256x256', '512x512', '1024x1024'], perRequest: 10, responseFormat: true, edits: true, variations: true },
  'dall-e-3': { sizes: ['1024x1024', '1792x1024', '1024x1792'], perRequest: 1, responseFormat: true, edits: false, variations: false },
  'gpt-image-1': { sizes: ['1024x1024', '1536x1024', '1024x1536'], perRequest: 10, responseFormat: false, edits: true, variations: false },
};
const OTHER_SERVER: ModelTraits = { perRequest: 10, responseFormat: true, edits: true, variations: true };

export const OPENAI_DEFAULTS = { model: 'gpt-image-1', largestFreeSide: 1024 } as const;

const EDIT_OPERATIONS: ReadonlySet<EngineOperation> = new Set(['refine', 'remove_object', 'extend', 'generate_background']);

/** Where the picture sits on the canvas sent to the server. */
interface Placement {
  canvas: PictureSize;
  /** The picture's own size, which results are brought back to. */
  original: PictureSize;
  left: number;
  top: number;
  width: number;
  height: number;
}

export class OpenAIImagesEngine implements GenerationEngine {
  readonly name = 'openai';
  private readonly client: ModelServerClient;
  private readonly model: string;
  private readonly traits: ModelTraits;

  constructor(private readonly options: OpenAIImagesOptions) {
    // The base URL may or may not end in /v1, as OpenAI's own clients allow.
    const url = /\/v1\/?$/.test(options.url) ? options.url : `${options.url.replace(/\/$/, '')}/v1`;
    this.client = new ModelServerClient(this.name, url, { apiKey: options.apiKey, scheme: 'Bearer' }, options.requestTimeoutMs);
    this.model = options.model ?? OPENAI_DEFAULTS.model;
    const known = MODEL_TRAITS[this.model] ?? OTHER_SERVER;
    this.traits = options.sizes ? { ...known, sizes: options.sizes } : known;
    for (const size of this.traits.sizes ?? []) {
      if (!/^\d+x\d+$/.test(size)) throw new Error(`OpenAI-compatible engine: size "${size}" is not WIDTHxHEIGHT`);
    }
  }

  supports(operation: EngineOperation): boolean {
    if (operation === 'generate') return true;
    if (operation === 'variations') return this.traits.variations;
    return EDIT_OPERATIONS.has(operation) && this.traits.edits;
  }

  async run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    if (!this.supports(request.operation)) {
      throw new EngineFailedError(`${this.name} (${this.model}) does not serve ${request.operation}`);
    }
    const deadline = new Deadline(this.options.timeoutMs, signal);
    switch (request.operation) {
      case 'generate': {
        const size = this.nearestSize(request);
        const prompt = withNegative(promptWithStyle(request.prompt, request.style), request.negativePrompt);
        const pictures = await this.inBatches(request.count, (n) =>
          this.client.postJson('images/generations', { model: this.model, prompt, n, size: sizeText(size), ...this.responseFormat() }, deadline),
        );
        return { pictures: await Promise.all(pictures.map(async (png) => ({ data: await coverTo(png, request), seed: request.seed }))) };
      }
      case 'variations': {
        const source = await sharp(request.source.data).removeAlpha().png().toBuffer();
        const placement = this.placementFor(await sizeOf(source));
        const image = await placed(source, placement);
        const pictures = await this.inBatches(request.count, (n) =>
          this.client.postForm('images/variations', this.form({ image, n, size: sizeText(placement.canvas) }), deadline),
        );
        return { pictures: await this.cutBack(pictures, placement, request.seed) };
      }
      case 'refine': {
        const size = await sizeOf(request.source);
        const prompt = withNegative(request.prompt, request.negativePrompt);
        return this.edited(await flattened(request.source), await binaryMask(request.mask, size), prompt, request.count, request.seed, deadline);
      }
      case 'remove_object': {
        const size = await sizeOf(request.source);
        return this.edited(await flattened(request.source), await binaryMask(request.mask, size), OBJECT_REMOVAL_PROMPT, request.count, request.seed, deadline);
      }
      case 'extend': {
        const { canvas, mask } = await outpaintCanvas(request.source, request.margins);
        const prompt = withNegative(request.prompt ?? 'continue the picture beyond its edges', request.negativePrompt);
        return this.edited(canvas, mask, prompt, request.count, request.seed, deadline);
      }
      case 'generate_background': {
        const subject = await cutOutSubject(request.source, this.options.cutOut, this.client, signal);
        const prompt = withNegative(promptWithStyle(request.prompt, request.style), request.negativePrompt);
        return this.edited(await flattened(subject), await maskOfTransparency(subject), prompt, request.count, request.seed, deadline);
      }
      default:
        throw new EngineFailedError(`${this.name} does not serve ${request.operation}`);
    }
  }

  /** One edit: the picture and its mask (white is edit) on the canvas, the mask sent as transparency. */
  private async edited(picture: Buffer, editMask: Buffer, prompt: string, count: number, seed: number, deadline: Deadline): Promise<EngineResult> {
    const placement = this.placementFor(await sizeOf(picture));
    const image = await placed(picture, placement);
    const mask = await transparentOnCanvas(image, editMask, placement);
    const pictures = await this.inBatches(count, (n) =>
      this.client.postForm('images/edits', this.form({ image, mask, prompt, n, size: sizeText(placement.canvas) }), deadline),
    );
    return { pictures: await this.cutBack(pictures, placement, seed) };
  }

  private form(fields: { image: Buffer; mask?: Buffer; prompt?: string; n: number; size: string }): FormData {
    const form = new FormData();
    form.append('image', new Blob([fields.image], { type: 'image/png' }), 'image.png');
    if (fields.mask) form.append('mask', new Blob([fields.mask], { type: 'image/png' }), 'mask.png');
    if (fields.prompt !== undefined) form.append('prompt', fields.prompt);
    form.append('model', this.model);
    form.append('n', String(fields.n));
    form.append('size', fields.size);
    const { response_format } = this.responseFormat();
    if (response_format) form.append('response_format', response_format);
    return form;
  }

  private responseFormat(): { response_format?: 'b64_json' } {
    return this.traits.responseFormat ? { response_format: 'b64_json' } : {};
  }

  /** Asks for `count` pictures, at most the model's `n` per request, and decodes them. */
  private async inBatches(count: number, ask: (n: number) => Promise<unknown>): Promise<Buffer[]> {
    const pictures: Buffer[] = [];
    while (pictures.length < count) {
      const n = Math.min(this.traits.perRequest, count - pictures.length);
      const body = (await ask(n)) as { data?: Array<{ b64_json?: unknown; url?: unknown }> } | null;
      const data = Array.isArray(body?.data) ? body.data : [];
      if (data.length < n) throw this.client.failed(`answered ${data.length} pictures where ${n} were asked`);
      for (const [index, item] of data.slice(0, n).entries()) {
        if (item.b64_json === undefined && typeof item.url === 'string') {
          throw this.client.failed('answered a URL instead of b64_json: the server must support response_format=b64_json');
        }
        const what = `picture ${pictures.length + 1}`;
        pictures.push(await pngOf(bytesOfBase64(item.b64_json, this.client, `${what} (b64_json) of answer ${index + 1}`), this.client, what));
      }
    }
    return pictures;
  }

  private async cutBack(pictures: Buffer[], placement: Placement, seed: number): Promise<EngineResult['pictures']> {
    return Promise.all(
      pictures.map(async (png) => {
        const onCanvas = await coverTo(png, placement.canvas);
        const data = await sharp(onCanvas)
          .extract({ left: placement.left, top: placement.top, width: placement.width, height: placement.height })
          .resize(placement.original.width, placement.original.height, { fit: 'fill' })
          .png()
          .toBuffer();
        return { data, seed };
      }),
    );
  }

  /**
   * The accepted size nearest in shape to the one wanted, and of those the smallest that covers it
   * (else the largest); any size in steps of 64 up to 1024 when all are accepted.
   */
  private nearestSize(wanted: PictureSize): PictureSize {
    if (!this.traits.sizes) {
      return sizeForAspect(wanted, Math.min(OPENAI_DEFAULTS.largestFreeSide, Math.max(wanted.width, wanted.height)), 64);
    }
    const aspect = Math.log(wanted.width / wanted.height);
    const sizes = this.traits.sizes.map(parseSize);
    const score = (size: PictureSize) => Math.abs(Math.log(size.width / size.height) - aspect);
    const best = Math.min(...sizes.map(score));
    const shaped = sizes.filter((size) => score(size) - best <= 1e-9).sort((a, b) => a.width * a.height - b.width * b.height);
    return shaped.find((size) => size.width >= wanted.width && size.height >= wanted.height) ?? shaped.at(-1)!;
  }

  /** The picture scaled to fit the nearest accepted size, centred; what it does not fill is margin cut off again. */
  private placementFor(size: PictureSize): Placement {
    const canvas = this.nearestSize(size);
    const scale = Math.min(canvas.width / size.width, canvas.height / size.height);
    const width = Math.min(canvas.width, Math.max(1, Math.round(size.width * scale)));
    const height = Math.min(canvas.height, Math.max(1, Math.round(size.height * scale)));
    return { canvas, original: size, width, height, left: Math.floor((canvas.width - width) / 2), top: Math.floor((canvas.height - height) / 2) };
  }
}

/** The canvas's margins around the picture's place, as sharp's extend takes them. */
function marginsAround(placement: Placement): { left: number; top: number; right: number; bottom: number } {
  return {
    left: placement.left,
    top: placement.top,
    right: placement.canvas.width - placement.width - placement.left,
    bottom: placement.canvas.height - placement.height - placement.top,
  };
}

/** The picture scaled into its place, the margin continuing its edge pixels (nothing there is edited). */
async function placed(picture: Buffer, placement: Placement): Promise<Buffer> {
  return sharp(picture)
    .removeAlpha()
    .resize(placement.width, placement.height, { fit: 'fill' })
    .extend({ ...marginsAround(placement), extendWith: 'copy' })
    .png()
    .toBuffer();
}

/** The canvas with alpha 0 where the mask is white inside the picture's place, opaque everywhere else. */
async function transparentOnCanvas(canvasImage: Buffer, editMask: Buffer, placement: Placement): Promise<Buffer> {
  const inPlace = await binaryMask({ data: editMask, mediaType: 'image/png' }, placement);
  // negate, like removeAlpha, runs after extend in sharp's pipeline: turn the mask round first.
  const keepInPlace = await sharp(inPlace).negate().png().toBuffer();
  const keep = await sharp(keepInPlace)
    .extend({ ...marginsAround(placement), background: '#ffffff' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  // sharp applies removeAlpha after joinChannel, whatever the order of the calls: the colour comes separately.
  const colour = await sharp(canvasImage).removeAlpha().png().toBuffer();
  return sharp(colour)
    .joinChannel(keep, { raw: { ...placement.canvas, channels: 1 } })
    .png()
    .toBuffer();
}

function withNegative(prompt: string, negativePrompt: string | undefined): string {
  return negativePrompt ? `${prompt}. Avoid: ${negativePrompt}` : prompt;
}

function parseSize(text: string): PictureSize {
  const [width, height] = text.split('x').map(Number);
  return { width: width!, height: height! };
}

function sizeText(size: PictureSize): string {
  return `${size.width}x${size.height}`;
}
