/*
 * What a generative engine does, whatever runs it: a model server on a GPU machine (the
 * AUTOMATIC1111/Forge web-UI API, ComfyUI, an OpenAI-compatible Images API) or the built-in CPU
 * engine, which does for real what classical image processing can (background removal, object
 * removal, extend) and declines what needs a model. The generation module turns API requests
 * into these and stores what comes back; engines know nothing of products, jobs or the store.
 *
 * Pictures travel as encoded files (PNG or JPEG bytes); results are PNG. A mask is white where
 * the operation acts and black elsewhere, the size of its source.
 */

/** What an extension adds on each side of a picture, in pixels. */
export interface Margins {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The operations a model server (ComfyUI, the A1111 web UI) serves: all but background removal, which needs a segmentation model neither API offers. */
export type ModelServerOperation = Exclude<EngineOperation, 'remove_background'>;

/** Every operation of the API's generative endpoints, as an engine sees it. */
export const ENGINE_OPERATIONS = [
  'generate',
  'variations',
  'refine',
  'extend',
  'remove_background',
  'remove_object',
  'influence_color',
  'influence_composition',
  'generate_background',
  'upscale',
] as const;
export type EngineOperation = (typeof ENGINE_OPERATIONS)[number];

export const MODEL_SERVER_OPERATIONS: readonly ModelServerOperation[] = ENGINE_OPERATIONS.filter(
  (operation): operation is ModelServerOperation => operation !== 'remove_background',
);

/** The operations that follow a prompt: only a model can do them. */
export const PROMPT_OPERATIONS: ReadonlySet<EngineOperation> = new Set([
  'generate',
  'variations',
  'refine',
  'influence_color',
  'influence_composition',
  'generate_background',
]);

/** An encoded picture: PNG or JPEG bytes. */
export interface EngineImage {
  data: Buffer;
  mediaType: 'image/png' | 'image/jpeg';
}

/** The look the API's requests may ask for (ImageGenerationsRequest and the influence operations). */
export interface StyleHints {
  mediaType?: 'photography' | 'illustration' | undefined;
  mood?: 'black_and_white' | 'warm' | 'cool' | 'natural' | 'vivid' | 'dramatic' | 'bold' | undefined;
  lensType?: 'wide_angle' | 'telephoto' | undefined;
  depthOfField?: 'shallow' | 'deep' | undefined;
}

interface Prompted {
  prompt: string;
  negativePrompt?: string | undefined;
  style?: StyleHints | undefined;
}

interface Seeded {
  /** The same seed and request give the same pictures where the engine allows it. */
  seed: number;
  /** How many pictures to make. */
  count: number;
}

export interface GenerateRequest extends Prompted, Seeded {
  operation: 'generate';
  width: number;
  height: number;
}

export interface VariationsRequest extends Seeded {
  operation: 'variations';
  source: EngineImage;
  /** The prompt of the generation the source came from, when there was one. */
  prompt?: string | undefined;
}

export interface RefineRequest extends Prompted, Seeded {
  operation: 'refine';
  source: EngineImage;
  mask: EngineImage;
}

export interface ExtendRequest extends Seeded {
  operation: 'extend';
  source: EngineImage;
  /** New pixels on each side, at the source's own scale. */
  margins: Margins;
  prompt?: string | undefined;
  negativePrompt?: string | undefined;
}

export interface RemoveBackgroundRequest {
  operation: 'remove_background';
  source: EngineImage;
}

/** Several fills of one hole (the API asks for four): each a different, equally plausible one. */
export interface RemoveObjectRequest extends Seeded {
  operation: 'remove_object';
  source: EngineImage;
  mask: EngineImage;
}

export interface InfluenceColorRequest extends Prompted, Seeded {
  operation: 'influence_color';
  reference: EngineImage;
  /** 0..1: higher is less like the reference (the API's noise_level). */
  noiseLevel: number;
}

export interface InfluenceCompositionRequest extends Prompted, Seeded {
  operation: 'influence_composition';
  reference: EngineImage;
  /** 0..1: higher is more like the reference (the API's influence_level). */
  influenceLevel: number;
}

export interface GenerateBackgroundRequest extends Prompted, Seeded {
  operation: 'generate_background';
  /** The subject, whose background is replaced by one the prompt describes. */
  source: EngineImage;
}

export interface UpscaleRequest {
  operation: 'upscale';
  source: EngineImage;
  /** The longest side wanted, in pixels. */
  longestSide: number;
}

export type EngineRequest =
  | GenerateRequest
  | VariationsRequest
  | RefineRequest
  | ExtendRequest
  | RemoveBackgroundRequest
  | RemoveObjectRequest
  | InfluenceColorRequest
  | InfluenceCompositionRequest
  | GenerateBackgroundRequest
  | UpscaleRequest;

export interface EnginePicture {
  /** PNG bytes. */
  data: Buffer;
  /** The seed that made it (for engines without one: the request's). */
  seed: number;
}

export interface EngineResult {
  pictures: EnginePicture[];
}

export interface GenerationEngine {
  /** For logs, history and docs: builtin, a1111, comfyui, openai. */
  readonly name: string;
  supports(operation: EngineOperation): boolean;
  /** Runs one operation; an AbortSignal stops waiting (a model server's job may go on). */
  run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult>;
  /** Releases what the engine holds (the built-in engine's worker thread); called when the node closes. */
  close?(): Promise<void>;
}

/**
 * The configured engines cannot do this operation: the API answers 503 naming what to configure
 * (e.g. "text to image needs a model server: set STOCKROOM_GENERATION_SERVER_URL"), never a fake
 * picture.
 */
export class EngineUnavailableError extends Error {
  override name = 'EngineUnavailableError';
  constructor(
    readonly operation: EngineOperation,
    message: string,
  ) {
    super(message);
  }
}

/** The engine answered, but not with pictures (a model server's error, a timeout): the job failed and says why. */
export class EngineFailedError extends Error {
  override name = 'EngineFailedError';
}
