/*
 * How the model server is asked (STOCKROOM_GENERATION_STEPS, …_SAMPLER, …): the tuning an
 * operator of a GPU machine adjusts to their checkpoint, read and checked at start. Each setting
 * is read by some kinds of server only; one set for a server that would not read it is refused
 * with the reason, rather than left to do nothing.
 */
import { ConfigError, type GenerationServerKind } from './config.js';

type Env = Record<string, string | undefined>;

/** How far img2img may move from its source, by operation (0 keeps it, 1 repaints it all). */
export interface DenoisingStrengths {
  readonly variations?: number | undefined;
  readonly refine?: number | undefined;
  readonly removeObject?: number | undefined;
  readonly extend?: number | undefined;
  readonly background?: number | undefined;
}

/** Each unset value keeps the adapter's own default (docs/generation-engines-servers.md lists them). */
export interface GenerationTuning {
  /** Sampling steps (a1111, comfyui). */
  readonly steps?: number | undefined;
  /** The sampler, as the server names it: "DPM++ 2M" in the web UI, "dpmpp_2m" in ComfyUI's KSampler. */
  readonly sampler?: string | undefined;
  /** ComfyUI's KSampler scheduler (karras, normal, …). */
  readonly scheduler?: string | undefined;
  /** Classifier-free guidance scale (a1111, comfyui). */
  readonly cfgScale?: number | undefined;
  readonly denoisingStrength: DenoisingStrengths;
  /** ControlNet for influence by composition: the model (a1111, comfyui) and the preprocessor module (a1111). */
  readonly compositionControlNet: { readonly model?: string | undefined; readonly module?: string | undefined };
  /** ControlNet (or T2I adapter) for influence by colour (a1111). */
  readonly colorControlNet: { readonly model?: string | undefined; readonly module?: string | undefined };
  /** The upscaler: a name from the web UI's /sdapi/v1/upscalers, or a file of ComfyUI's models/upscale_models. */
  readonly upscaler?: string | undefined;
  /** The sizes an OpenAI-compatible server accepts ("1024x1024", …), when its model is not one the adapter knows. */
  readonly openAiSizes?: readonly string[] | undefined;
  /**
   * ComfyUI workflow files replacing the built-in ones, by the operation named in the variable
   * (STOCKROOM_GENERATION_COMFYUI_WORKFLOW_REFINE → refine); the engine checks the names and files at start.
   */
  readonly comfyuiWorkflows: Readonly<Record<string, string>>;
  /** How often ComfyUI's history is polled while a workflow runs. */
  readonly pollIntervalMs?: number | undefined;
  /** How long one HTTP call to the server may take (within the operation's STOCKROOM_GENERATION_TIMEOUT). */
  readonly requestTimeoutMs?: number | undefined;
}

const A1111: readonly GenerationServerKind[] = ['a1111'];
const COMFYUI: readonly GenerationServerKind[] = ['comfyui'];
const OPENAI: readonly GenerationServerKind[] = ['openai'];
const DIFFUSION: readonly GenerationServerKind[] = ['a1111', 'comfyui'];
const ALL: readonly GenerationServerKind[] = ['a1111', 'comfyui', 'openai'];

/**
 * The tuning settings, checked against the server STOCKROOM_GENERATION_SERVER names
 * (`server` undefined: none is configured, and no tuning setting may be given).
 */
export function generationTuning(env: Env, server: GenerationServerKind | undefined, operationTimeoutSeconds: number): GenerationTuning {
  const given = (name: string, readers: readonly GenerationServerKind[]): string | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    if (server === undefined) {
      throw new ConfigError(`${name} tunes a model server, and none is configured: set STOCKROOM_GENERATION_SERVER and STOCKROOM_GENERATION_SERVER_URL, or leave ${name} out`);
    }
    if (!readers.includes(server)) {
      throw new ConfigError(`${name} is read by the ${readers.join(' and ')} server${readers.length > 1 ? 's' : ''} only; STOCKROOM_GENERATION_SERVER is ${server}, so leave it out`);
    }
    return raw;
  };
  const whole = (name: string, readers: readonly GenerationServerKind[], min: number, max: number): number | undefined => {
    const raw = given(name, readers);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got '${raw}'`);
    return value;
  };
  const decimal = (name: string, readers: readonly GenerationServerKind[], min: number, max: number, { aboveMin = false } = {}): number | undefined => {
    const raw = given(name, readers);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    const inRange = aboveMin ? value > min && value <= max : value >= min && value <= max;
    if (!/^\d*\.?\d+$/.test(raw) || !Number.isFinite(value) || !inRange) {
      throw new ConfigError(`${name} must be a number ${aboveMin ? 'above' : 'from'} ${min} ${aboveMin ? 'and at most' : 'to'} ${max}, got '${raw}'`);
    }
    return value;
  };
  const name = (setting: string, readers: readonly GenerationServerKind[]): string | undefined => {
    const raw = given(setting, readers);
    // Names go into JSON bodies and workflow files as they are; a control character is a typing slip, never a model's name.
    if (raw !== undefined && ([...raw].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f) || raw.length > 200)) {
      throw new ConfigError(`${setting} must be a name of at most 200 printable characters, got '${raw.slice(0, 40)}'`);
    }
    return raw;
  };
  const strength = (suffix: string, readers: readonly GenerationServerKind[]) => decimal(`STOCKROOM_GENERATION_DENOISE_${suffix}`, readers, 0, 1, { aboveMin: true });

  const requestTimeoutSeconds = whole('STOCKROOM_GENERATION_REQUEST_TIMEOUT', ALL, 1, 3600);
  if (requestTimeoutSeconds !== undefined && requestTimeoutSeconds > operationTimeoutSeconds) {
    throw new ConfigError(
      `STOCKROOM_GENERATION_REQUEST_TIMEOUT (${requestTimeoutSeconds} s, one call to the server) must be at most STOCKROOM_GENERATION_TIMEOUT (${operationTimeoutSeconds} s, a whole operation)`,
    );
  }
  const sizes = given('STOCKROOM_GENERATION_OPENAI_SIZES', OPENAI);
  let openAiSizes: string[] | undefined;
  if (sizes !== undefined) {
    openAiSizes = sizes
      .split(',')
      .map((size) => size.trim())
      .filter((size) => size !== '');
    const wrong = openAiSizes.find((size) => !/^[1-9]\d{1,4}x[1-9]\d{1,4}$/.test(size));
    if (wrong !== undefined || openAiSizes.length === 0) {
      throw new ConfigError(`STOCKROOM_GENERATION_OPENAI_SIZES must list sizes as WIDTHxHEIGHT, comma-separated (such as 1024x1024,1536x1024), got '${wrong ?? sizes}'`);
    }
  }
  const workflows: Record<string, string> = {};
  for (const variable of Object.keys(env).sort()) {
    const operation = /^STOCKROOM_GENERATION_COMFYUI_WORKFLOW_([A-Z_]+)$/.exec(variable)?.[1];
    const file = operation === undefined ? undefined : given(variable, COMFYUI);
    if (operation !== undefined && file !== undefined) workflows[operation.toLowerCase()] = file;
  }
  return Object.freeze({
    steps: whole('STOCKROOM_GENERATION_STEPS', DIFFUSION, 1, 150),
    sampler: name('STOCKROOM_GENERATION_SAMPLER', DIFFUSION),
    scheduler: name('STOCKROOM_GENERATION_SCHEDULER', COMFYUI),
    cfgScale: decimal('STOCKROOM_GENERATION_CFG_SCALE', DIFFUSION, 1, 30),
    denoisingStrength: Object.freeze({
      variations: strength('VARIATIONS', DIFFUSION),
      // ComfyUI's inpainting workflows encode the masked area blank (VAEEncodeForInpaint), which only full denoising paints.
      refine: strength('REFINE', A1111),
      removeObject: strength('OBJECT_REMOVAL', A1111),
      extend: strength('EXTEND', A1111),
      background: strength('BACKGROUND', A1111),
    }),
    compositionControlNet: Object.freeze({
      model: name('STOCKROOM_GENERATION_CONTROLNET_COMPOSITION_MODEL', DIFFUSION),
      module: name('STOCKROOM_GENERATION_CONTROLNET_COMPOSITION_MODULE', A1111),
    }),
    colorControlNet: Object.freeze({
      model: name('STOCKROOM_GENERATION_CONTROLNET_COLOR_MODEL', A1111),
      module: name('STOCKROOM_GENERATION_CONTROLNET_COLOR_MODULE', A1111),
    }),
    upscaler: name('STOCKROOM_GENERATION_UPSCALER', DIFFUSION),
    openAiSizes: openAiSizes === undefined ? undefined : Object.freeze(openAiSizes),
    comfyuiWorkflows: Object.freeze(workflows),
    pollIntervalMs: whole('STOCKROOM_GENERATION_POLL_INTERVAL_MS', COMFYUI, 20, 60_000),
    requestTimeoutMs: requestTimeoutSeconds === undefined ? undefined : requestTimeoutSeconds * 1000,
  });
}
