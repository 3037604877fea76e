/*
 * The AUTOMATIC1111 / Forge web-UI API (the web UI started with --api): txt2img and img2img at
 * /sdapi/v1/, pictures as base64 both ways, the seeds in the `info` JSON string of each answer,
 * ControlNet (the sd-webui-controlnet extension, built into Forge) through `alwayson_scripts` for
 * the two influence operations, and /sdapi/v1/extra-single-image for upscaling.
 */
import { EngineFailedError, MODEL_SERVER_OPERATIONS } from './engine.js';
import type { EngineImage, EngineOperation, EngineRequest, EngineResult, GenerationEngine, InfluenceColorRequest, InfluenceCompositionRequest } from './engine.js';
import { Deadline, cutOutSubject, ModelServerClient, OBJECT_REMOVAL_NEGATIVE_PROMPT, OBJECT_REMOVAL_PROMPT, binaryMask, bytesOfBase64, coverTo, flattened, maskOfTransparency, outpaintCanvas, pngOf, promptWithStyle, sizeForAspect, sizeOf, snappedSize } from './model-server.js';
import type { ModelServerOptions, PictureSize } from './model-server.js';

/** One ControlNet unit's preprocessor and model, as the extension's model list names them. */
export interface ControlNetChoice {
  module: string;
  model: string;
}

export interface A1111Options extends ModelServerOptions {
  /** `user:password` of the web UI's --api-auth, sent as HTTP Basic credentials. */
  apiKey?: string | undefined;
  /** A checkpoint title from /sdapi/v1/sd-models; unset keeps the one the web UI has loaded. */
  model?: string | undefined;
  steps?: number | undefined;
  samplerName?: string | undefined;
  cfgScale?: number | undefined;
  /** Longest side of pictures made from a reference (the influence operations). */
  longestSide?: number | undefined;
  /** An upscaler name from /sdapi/v1/upscalers. */
  upscaler?: string | undefined;
  controlNet?: { composition?: ControlNetChoice | undefined; color?: ControlNetChoice | undefined } | undefined;
  /** img2img's denoising_strength by operation; each unset keeps A1111_DEFAULTS.denoise's. */
  denoise?: Partial<Record<keyof typeof A1111_DEFAULTS.denoise, number | undefined>> | undefined;
}

/** The model servers' operations: background removal needs a segmentation model the web UI's API does not offer either. */
const SERVED: ReadonlySet<EngineOperation> = new Set(MODEL_SERVER_OPERATIONS);

export const A1111_DEFAULTS = {
  steps: 30,
  samplerName: 'DPM++ 2M',
  cfgScale: 7,
  longestSide: 1024,
  upscaler: 'R-ESRGAN 4x+',
  /** Canny edges hold the reference's outlines and placement. */
  composition: { module: 'canny', model: 'control_v11p_sd15_canny' },
  /** The T2I colour adapter takes the reference's palette laid out as a coarse grid: colour and its placement. */
  color: { module: 't2ia_color_grid', model: 't2iadapter_color_sd14v1' },
  /** How far img2img may move from its source: variations keep the picture, repaints replace the masked area. */
  denoise: { variations: 0.6, refine: 0.75, removeObject: 0.9, extend: 0.85, background: 1 },
} as const;

/** The web UI's `inpainting_fill`: what the masked area starts from. */
const INPAINT_FILL = { fill: 0, original: 1, latentNoise: 2 } as const;

type Txt2ImgPayload = Record<string, unknown>;

export class A1111Engine implements GenerationEngine {
  readonly name = 'a1111';
  private readonly client: ModelServerClient;

  constructor(private readonly options: A1111Options) {
    this.client = new ModelServerClient(this.name, options.url, { apiKey: options.apiKey, scheme: 'Basic' }, options.requestTimeoutMs);
  }

  supports(operation: EngineOperation): boolean {
    return SERVED.has(operation);
  }

  async run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    const deadline = new Deadline(this.options.timeoutMs, signal);
    switch (request.operation) {
      case 'generate':
        return this.pictures('txt2img', deadline, request.count, request.width, request.height, {
          ...this.common(promptWithStyle(request.prompt, request.style), request.negativePrompt, request.seed, request.count),
          width: snappedSize(request).width,
          height: snappedSize(request).height,
        });
      case 'variations': {
        const size = await sizeOf(request.source);
        return this.pictures('img2img', deadline, request.count, size.width, size.height, {
          ...this.common(request.prompt ?? '', undefined, request.seed, request.count),
          ...snappedSize(size),
          init_images: [base64Of(request.source)],
          denoising_strength: this.denoise('variations'),
        });
      }
      case 'refine': {
        const size = await sizeOf(request.source);
        return this.pictures('img2img', deadline, request.count, size.width, size.height, {
          ...this.common(request.prompt, request.negativePrompt, request.seed, request.count),
          ...this.inpainting(size, base64Of(request.source), (await binaryMask(request.mask, size)).toString('base64')),
          denoising_strength: this.denoise('refine'),
          inpainting_fill: INPAINT_FILL.original,
        });
      }
      case 'remove_object': {
        const size = await sizeOf(request.source);
        return this.pictures('img2img', deadline, request.count, size.width, size.height, {
          ...this.common(OBJECT_REMOVAL_PROMPT, OBJECT_REMOVAL_NEGATIVE_PROMPT, request.seed, request.count),
          ...this.inpainting(size, base64Of(request.source), (await binaryMask(request.mask, size)).toString('base64')),
          denoising_strength: this.denoise('removeObject'),
          inpainting_fill: INPAINT_FILL.fill,
        });
      }
      case 'extend': {
        const { canvas, mask, size } = await outpaintCanvas(request.source, request.margins);
        return this.pictures('img2img', deadline, request.count, size.width, size.height, {
          ...this.common(request.prompt ?? '', request.negativePrompt, request.seed, request.count),
          ...this.inpainting(size, canvas.toString('base64'), mask.toString('base64')),
          denoising_strength: this.denoise('extend'),
          inpainting_fill: INPAINT_FILL.original,
          mask_blur: 8,
        });
      }
      case 'generate_background': {
        const subject = await cutOutSubject(request.source, this.options.cutOut, this.client, signal);
        const size = await sizeOf(subject);
        return this.pictures('img2img', deadline, request.count, size.width, size.height, {
          ...this.common(promptWithStyle(request.prompt, request.style), request.negativePrompt, request.seed, request.count),
          ...this.inpainting(size, (await flattened(subject)).toString('base64'), (await maskOfTransparency(subject)).toString('base64')),
          denoising_strength: this.denoise('background'),
          inpainting_fill: INPAINT_FILL.latentNoise,
        });
      }
      case 'influence_color':
      case 'influence_composition':
        return this.influenced(request, deadline);
      case 'upscale':
        return this.upscaled(request.source, request.longestSide, deadline);
      case 'remove_background':
        throw new EngineFailedError(`${this.name} does not serve ${request.operation}`);
    }
  }

  private denoise(operation: keyof typeof A1111_DEFAULTS.denoise): number {
    return this.options.denoise?.[operation] ?? A1111_DEFAULTS.denoise[operation];
  }

  private common(prompt: string, negativePrompt: string | undefined, seed: number, count: number): Txt2ImgPayload {
    return {
      prompt,
      negative_prompt: negativePrompt ?? '',
      seed,
      batch_size: count,
      n_iter: 1,
      steps: this.options.steps ?? A1111_DEFAULTS.steps,
      sampler_name: this.options.samplerName ?? A1111_DEFAULTS.samplerName,
      cfg_scale: this.options.cfgScale ?? A1111_DEFAULTS.cfgScale,
      send_images: true,
      save_images: false,
      ...(this.options.model ? { override_settings: { sd_model_checkpoint: this.options.model }, override_settings_restore_afterwards: true } : {}),
    };
  }

  /** img2img's inpainting fields: the whole picture at its own size, the mask as given (white is repainted). */
  private inpainting(size: PictureSize, initImage: string, mask: string): Txt2ImgPayload {
    return {
      ...snappedSize(size),
      init_images: [initImage],
      mask,
      mask_blur: 4,
      inpainting_mask_invert: 0,
      inpaint_full_res: false,
      resize_mode: 0,
    };
  }

  private async influenced(request: InfluenceColorRequest | InfluenceCompositionRequest, deadline: Deadline): Promise<EngineResult> {
    const size = sizeForAspect(await sizeOf(request.reference), this.options.longestSide ?? A1111_DEFAULTS.longestSide);
    const choice =
      request.operation === 'influence_color'
        ? (this.options.controlNet?.color ?? A1111_DEFAULTS.color)
        : (this.options.controlNet?.composition ?? A1111_DEFAULTS.composition);
    // noise_level runs the other way from influence_level: higher is less like the reference.
    const weight = request.operation === 'influence_color' ? 1 - request.noiseLevel : request.influenceLevel;
    return this.pictures('txt2img', deadline, request.count, size.width, size.height, {
      ...this.common(promptWithStyle(request.prompt, request.style), request.negativePrompt, request.seed, request.count),
      ...size,
      alwayson_scripts: {
        controlnet: {
          args: [
            {
              enabled: true,
              image: base64Of(request.reference),
              module: choice.module,
              model: choice.model,
              weight: Math.min(2, Math.max(0, weight)),
              resize_mode: 'Crop and Resize',
              control_mode: 'Balanced',
              pixel_perfect: true,
              guidance_start: 0,
              guidance_end: 1,
            },
          ],
        },
      },
    });
  }

  private async upscaled(source: EngineImage, longestSide: number, deadline: Deadline): Promise<EngineResult> {
    const size = await sizeOf(source);
    const target = sizeForAspect(size, longestSide, 1);
    const body = await this.client.postJson(
      'sdapi/v1/extra-single-image',
      {
        image: base64Of(source),
        resize_mode: 1,
        upscaling_resize_w: target.width,
        upscaling_resize_h: target.height,
        upscaling_crop: false,
        upscaler_1: this.options.upscaler ?? A1111_DEFAULTS.upscaler,
        show_extras_results: true,
      },
      deadline,
    );
    const image = (body as { image?: unknown } | null)?.image;
    const png = await pngOf(bytesOfBase64(image, this.client, 'the upscaled image'), this.client, 'the upscaled image');
    return { pictures: [{ data: await coverTo(png, target), seed: 0 }] };
  }

  /**
   * Posts one txt2img or img2img request and reads its pictures and seeds. Extensions may append
   * pictures of their own after the batch (ControlNet's detected maps), so only the first `count`
   * are results.
   */
  private async pictures(
    endpoint: 'txt2img' | 'img2img',
    deadline: Deadline,
    count: number,
    width: number,
    height: number,
    payload: Txt2ImgPayload,
  ): Promise<EngineResult> {
    const body = await this.client.postJson(`sdapi/v1/${endpoint}`, payload, deadline);
    const { images, info } = (body ?? {}) as { images?: unknown; info?: unknown };
    if (!Array.isArray(images) || images.length < count) {
      throw this.client.failed(`answered ${endpoint} with ${Array.isArray(images) ? images.length : 'no'} images where ${count} were asked`);
    }
    const seeds = seedsOf(info, count, payload.seed as number);
    const pictures = [];
    for (let index = 0; index < count; index += 1) {
      const what = `${endpoint} image ${index + 1}`;
      const png = await pngOf(bytesOfBase64(images[index], this.client, what), this.client, what);
      pictures.push({ data: await coverTo(png, { width, height }), seed: seeds[index]! });
    }
    return { pictures };
  }
}

/** The seeds from an answer's `info` (a JSON string: `all_seeds`, else `seed` counting up as the web UI does). */
function seedsOf(info: unknown, count: number, requested: number): number[] {
  let parsed: { all_seeds?: unknown; seed?: unknown } = {};
  if (typeof info === 'string') {
    try {
      parsed = (JSON.parse(info) ?? {}) as typeof parsed;
    } catch {
      parsed = {};
    }
  }
  const all = Array.isArray(parsed.all_seeds) ? parsed.all_seeds.filter((seed): seed is number => Number.isInteger(seed)) : [];
  const first = Number.isInteger(parsed.seed) ? (parsed.seed as number) : requested;
  return Array.from({ length: count }, (_, index) => all[index] ?? first + index);
}

/** The web UI decodes PNG and JPEG alike: pictures go as they came. */
function base64Of(image: EngineImage): string {
  return image.data.toString('base64');
}
