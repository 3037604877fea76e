/*
 * ComfyUI's HTTP API: pictures go up with POST /upload/image, one API-format workflow per picture
 * is queued with POST /prompt, GET /history/{prompt_id} is polled until the run is done, and the
 * saved pictures come back through GET /view. Each operation has a workflow of ComfyUI's built-in
 * nodes (comfyui-workflows/<operation>.json) in which `{{name}}` values are filled in; an operator
 * may name a file of their own for any operation.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import sharp from 'sharp';
import { EngineFailedError, MODEL_SERVER_OPERATIONS, type ModelServerOperation } from './engine.js';
import type { EngineImage, EngineOperation, EngineRequest, EngineResult, GenerationEngine } from './engine.js';
import { Deadline, cutOutSubject, ModelServerClient, OBJECT_REMOVAL_NEGATIVE_PROMPT, OBJECT_REMOVAL_PROMPT, binaryMask, coverTo, pngOf, promptWithStyle, sizeForAspect, sizeOf, snappedSize } from './model-server.js';
import type { ModelServerOptions, PictureSize } from './model-server.js';

export interface ComfyUIOptions extends ModelServerOptions {
  /** Sent as a bearer token, for a ComfyUI behind an authenticating proxy. */
  apiKey?: string | undefined;
  /** A checkpoint file from ComfyUI's models/checkpoints folder. */
  model?: string | undefined;
  /** Files of API-format workflow JSON (ComfyUI's "Export (API)") that replace the built-in ones. */
  workflows?: Partial<Record<EngineOperation, string>> | undefined;
  pollIntervalMs?: number | undefined;
  steps?: number | undefined;
  cfg?: number | undefined;
  sampler?: string | undefined;
  scheduler?: string | undefined;
  /** A file from models/controlnet for composition (a Canny ControlNet for the default workflow). */
  controlNetModel?: string | undefined;
  /** A file from models/upscale_models. */
  upscaleModel?: string | undefined;
  /** Longest side of pictures made from a reference (the influence operations). */
  longestSide?: number | undefined;
  /** How far a variation moves from its source (the variations workflow's {{denoise}}). */
  variationDenoise?: number | undefined;
}

export const COMFYUI_DEFAULTS = {
  model: 'v1-5-pruned-emaonly.safetensors',
  pollIntervalMs: 1000,
  steps: 30,
  cfg: 7,
  sampler: 'dpmpp_2m',
  scheduler: 'karras',
  controlNetModel: 'control_v11p_sd15_canny.pth',
  upscaleModel: 'RealESRGAN_x4plus.pth',
  longestSide: 1024,
  variationDenoise: 0.6,
} as const;

const SAMPLING = ['checkpoint', 'prompt', 'negative_prompt', 'seed', 'steps', 'cfg', 'sampler', 'scheduler'] as const;

/** The `{{name}}` values each operation fills in; a workflow may use any of them and no other. */
export const WORKFLOW_VALUES: Readonly<Record<ModelServerOperation, readonly string[]>> = {
  generate: [...SAMPLING, 'width', 'height'],
  variations: [...SAMPLING, 'image', 'denoise'],
  refine: [...SAMPLING, 'image', 'mask'],
  remove_object: [...SAMPLING, 'image', 'mask'],
  extend: [...SAMPLING, 'image', 'left', 'top', 'right', 'bottom'],
  generate_background: [...SAMPLING, 'image'],
  influence_color: [...SAMPLING, 'image', 'denoise', 'width', 'height'],
  influence_composition: [...SAMPLING, 'image', 'width', 'height', 'strength', 'controlnet'],
  upscale: ['image', 'upscale_model', 'width', 'height'],
};

/** How long taking abandoned runs out of the queue may take, whatever the operation's own deadline. */
const QUEUE_CLEANUP_TIMEOUT_MS = 5000;
/** Cells of the colour grid a reference is reduced to: its palette and where each colour sits, not its shapes. */
const COLOR_GRID_CELLS = 16;

type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown> }>;
type Values = Record<string, string | number>;

const PLACEHOLDER = /^\{\{(\w+)\}\}$/;

export class ComfyUIEngine implements GenerationEngine {
  readonly name = 'comfyui';
  private readonly client: ModelServerClient;
  private readonly workflows: ReadonlyMap<ModelServerOperation, Workflow>;

  /** Reads and checks every workflow now, so that a wrong file stops the server at start, not a job later. */
  constructor(private readonly options: ComfyUIOptions) {
    this.client = new ModelServerClient(this.name, options.url, { apiKey: options.apiKey, scheme: 'Bearer' }, options.requestTimeoutMs);
    const workflows = new Map<ModelServerOperation, Workflow>();
    for (const operation of MODEL_SERVER_OPERATIONS) {
      const file = options.workflows?.[operation];
      workflows.set(operation, loadWorkflow(operation, file ?? new URL(`./comfyui-workflows/${operation}.json`, import.meta.url)));
    }
    this.workflows = workflows;
  }

  supports(operation: EngineOperation): boolean {
    return this.workflows.has(operation as ModelServerOperation);
  }

  async run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    const deadline = new Deadline(this.options.timeoutMs, signal);
    const sampling = (prompt: string, negativePrompt: string | undefined, seed: number): Values => ({
      checkpoint: this.options.model ?? COMFYUI_DEFAULTS.model,
      prompt,
      negative_prompt: negativePrompt ?? '',
      seed,
      steps: this.options.steps ?? COMFYUI_DEFAULTS.steps,
      cfg: this.options.cfg ?? COMFYUI_DEFAULTS.cfg,
      sampler: this.options.sampler ?? COMFYUI_DEFAULTS.sampler,
      scheduler: this.options.scheduler ?? COMFYUI_DEFAULTS.scheduler,
    });
    switch (request.operation) {
      case 'generate': {
        const size = snappedSize(request);
        const values = { ...sampling(promptWithStyle(request.prompt, request.style), request.negativePrompt, request.seed), ...size };
        return this.queued('generate', values, request.seed, request.count, request, deadline);
      }
      case 'variations': {
        const image = await this.upload(request.source.data, deadline);
        const values = { ...sampling(request.prompt ?? '', undefined, request.seed), image, denoise: this.options.variationDenoise ?? COMFYUI_DEFAULTS.variationDenoise };
        return this.queued('variations', values, request.seed, request.count, await sizeOf(request.source), deadline);
      }
      case 'refine':
      case 'remove_object': {
        const size = await sizeOf(request.source);
        const image = await this.upload(request.source.data, deadline);
        const mask = await this.upload(await binaryMask(request.mask, size), deadline);
        if (request.operation === 'remove_object') {
          const values = { ...sampling(OBJECT_REMOVAL_PROMPT, OBJECT_REMOVAL_NEGATIVE_PROMPT, request.seed), image, mask };
          return this.queued('remove_object', values, request.seed, request.count, size, deadline);
        }
        const values = { ...sampling(request.prompt, request.negativePrompt, request.seed), image, mask };
        return this.queued('refine', values, request.seed, request.count, size, deadline);
      }
      case 'extend': {
        const { width, height } = await sizeOf(request.source);
        const { left, top, right, bottom } = request.margins;
        const image = await this.upload(request.source.data, deadline);
        const values = { ...sampling(request.prompt ?? '', request.negativePrompt, request.seed), image, left, top, right, bottom };
        return this.queued('extend', values, request.seed, request.count, { width: width + left + right, height: height + top + bottom }, deadline);
      }
      case 'generate_background': {
        // LoadImage reads a PNG's transparency as its mask: the cut-out's background is what gets painted.
        const subject = await cutOutSubject(request.source, this.options.cutOut, this.client, signal);
        const image = await this.upload(await sharp(subject.data).png().toBuffer(), deadline);
        const values = { ...sampling(promptWithStyle(request.prompt, request.style), request.negativePrompt, request.seed), image };
        return this.queued('generate_background', values, request.seed, request.count, await sizeOf(subject), deadline);
      }
      case 'influence_color': {
        const size = await this.referenceSize(request.reference);
        const image = await this.upload(await colorGrid(request.reference, size), deadline);
        // From the grid, a low denoise keeps its colours where they are; noise_level 1 lets the prompt repaint nearly all.
        const denoise = Math.min(1, 0.55 + 0.45 * request.noiseLevel);
        const values = { ...sampling(promptWithStyle(request.prompt, request.style), request.negativePrompt, request.seed), image, denoise, ...size };
        return this.queued('influence_color', values, request.seed, request.count, size, deadline);
      }
      case 'influence_composition': {
        const size = await this.referenceSize(request.reference);
        const reference = await sharp(request.reference.data).resize(size.width, size.height, { fit: 'cover' }).png().toBuffer();
        const image = await this.upload(reference, deadline);
        const values = {
          ...sampling(promptWithStyle(request.prompt, request.style), request.negativePrompt, request.seed),
          image,
          ...size,
          strength: request.influenceLevel,
          controlnet: this.options.controlNetModel ?? COMFYUI_DEFAULTS.controlNetModel,
        };
        return this.queued('influence_composition', values, request.seed, request.count, size, deadline);
      }
      case 'upscale': {
        const target = sizeForAspect(await sizeOf(request.source), request.longestSide, 1);
        const image = await this.upload(request.source.data, deadline);
        const values = { image, upscale_model: this.options.upscaleModel ?? COMFYUI_DEFAULTS.upscaleModel, ...target };
        return this.queued('upscale', values, 0, 1, target, deadline);
      }
      case 'remove_background':
        throw new EngineFailedError(`${this.name} does not serve ${request.operation}`);
    }
  }

  private async referenceSize(reference: EngineImage): Promise<PictureSize> {
    return sizeForAspect(await sizeOf(reference), this.options.longestSide ?? COMFYUI_DEFAULTS.longestSide);
  }

  /** Uploads a picture to ComfyUI's input folder and answers the name LoadImage knows it by. */
  private async upload(data: Buffer, deadline: Deadline): Promise<string> {
    const form = new FormData();
    form.append('image', new Blob([data], { type: 'image/png' }), `stockroom-${randomUUID()}.png`);
    form.append('type', 'input');
    form.append('overwrite', 'true');
    const body = (await this.client.postForm('upload/image', form, deadline)) as { name?: unknown; subfolder?: unknown } | null;
    if (typeof body?.name !== 'string' || body.name === '') throw this.client.failed('answered an upload without the file name');
    return typeof body.subfolder === 'string' && body.subfolder !== '' ? `${body.subfolder}/${body.name}` : body.name;
  }

  /**
   * Queues one workflow per picture (seed, seed + 1, …: a batch would share one seed, so no picture
   * of it could be made again alone), then waits for each and fetches what it saved.
   */
  private async queued(
    operation: ModelServerOperation,
    values: Values,
    seed: number,
    count: number,
    size: PictureSize,
    deadline: Deadline,
  ): Promise<EngineResult> {
    const clientId = randomUUID();
    const promptIds: string[] = [];
    try {
      for (let index = 0; index < count; index += 1) {
        const workflow = filled(this.workflows.get(operation)!, { ...values, seed: seed + index });
        const body = (await this.client.postJson('prompt', { prompt: workflow, client_id: clientId }, deadline)) as { prompt_id?: unknown } | null;
        if (typeof body?.prompt_id !== 'string') throw this.client.failed('answered POST /prompt without a prompt_id');
        promptIds.push(body.prompt_id);
      }
      const pictures = [];
      for (const [index, promptId] of promptIds.entries()) {
        const saved = await this.finished(promptId, deadline);
        const png = await pngOf(await this.client.getBytes('view', deadline, saved), this.client, `the picture ${saved.filename}`);
        pictures.push({ data: await coverTo(png, size), seed: seed + index });
      }
      return { pictures };
    } catch (error) {
      await this.unqueued(promptIds);
      throw error;
    }
  }

  /**
   * Takes runs nobody waits for any more out of ComfyUI's queue, so that the GPU does not make
   * them; one already running goes on (interrupting it could stop another client's run instead).
   */
  private async unqueued(promptIds: string[]): Promise<void> {
    if (promptIds.length === 0) return;
    await this.client.postJson('queue', { delete: promptIds }, new Deadline(QUEUE_CLEANUP_TIMEOUT_MS), { answerIsJson: false }).catch(() => undefined);
  }

  /** Polls the history until the run is done; answers the first picture it saved. */
  private async finished(promptId: string, deadline: Deadline): Promise<{ filename: string; subfolder: string; type: string }> {
    const interval = this.options.pollIntervalMs ?? COMFYUI_DEFAULTS.pollIntervalMs;
    for (;;) {
      const history = (await this.client.getJson(`history/${encodeURIComponent(promptId)}`, deadline)) as Record<string, HistoryEntry> | null;
      const entry = history?.[promptId];
      if (entry) {
        const status = entry.status;
        if (status?.status_str === 'error') throw this.client.failed(`the workflow failed: ${executionErrorOf(status.messages)}`);
        const saved = savedPictures(entry.outputs);
        // Servers from before the status field answer a history entry only once the run is over.
        if (status === undefined || status.completed === true) {
          const first = saved[0];
          if (!first) throw this.client.failed('the workflow finished without saving a picture (does it end in a SaveImage node?)');
          return first;
        }
      }
      await deadline.sleep(interval, this.client, `prompt ${promptId}`);
    }
  }
}

interface HistoryEntry {
  outputs?: Record<string, { images?: Array<{ filename?: unknown; subfolder?: unknown; type?: unknown }> }>;
  status?: { status_str?: string; completed?: boolean; messages?: Array<[string, Record<string, unknown>]> };
}

function savedPictures(outputs: HistoryEntry['outputs']): Array<{ filename: string; subfolder: string; type: string }> {
  const saved = [];
  for (const output of Object.values(outputs ?? {})) {
    for (const image of output.images ?? []) {
      // PreviewImage writes to the temp folder; only SaveImage's pictures are results.
      if (typeof image.filename === 'string' && image.type === 'output') {
        saved.push({ filename: image.filename, subfolder: typeof image.subfolder === 'string' ? image.subfolder : '', type: 'output' });
      }
    }
  }
  return saved;
}

function executionErrorOf(messages: Array<[string, Record<string, unknown>]> | undefined): string {
  const error = messages?.find(([event]) => event === 'execution_error')?.[1];
  if (!error) return 'no reason given';
  const where = typeof error.node_type === 'string' ? `${error.node_type}: ` : '';
  const message = typeof error.exception_message === 'string' ? error.exception_message.trim() : 'no reason given';
  return `${where}${message.length > 300 ? `${message.slice(0, 300)}…` : message}`;
}

/** The reference reduced to a coarse grid of its colours, at the size of the pictures to make. */
async function colorGrid(reference: EngineImage, size: PictureSize): Promise<Buffer> {
  const cells = sizeForAspect(size, COLOR_GRID_CELLS, 1);
  const grid = await sharp(reference.data).removeAlpha().resize(cells.width, cells.height, { fit: 'cover' }).toBuffer();
  return sharp(grid).resize(size.width, size.height, { kernel: 'nearest' }).png().toBuffer();
}

function loadWorkflow(operation: ModelServerOperation, file: string | URL): Workflow {
  const name = typeof file === 'string' ? file : `the built-in ${operation} workflow`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`ComfyUI workflow for ${operation}: cannot read ${name} as JSON (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`ComfyUI workflow for ${operation}: ${name} is not an API-format workflow (an object of nodes; use "Export (API)")`);
  }
  for (const [id, node] of Object.entries(parsed)) {
    const candidate = node as { class_type?: unknown; inputs?: unknown } | null;
    if (typeof candidate?.class_type !== 'string' || candidate.inputs === null || typeof candidate.inputs !== 'object') {
      throw new Error(`ComfyUI workflow for ${operation}: node ${id} of ${name} has no class_type and inputs (use "Export (API)")`);
    }
  }
  const allowed = new Set(WORKFLOW_VALUES[operation]);
  const unknown = placeholdersIn(parsed).filter((placeholder) => !allowed.has(placeholder));
  if (unknown.length > 0) {
    throw new Error(
      `ComfyUI workflow for ${operation}: ${name} uses ${unknown.map((value) => `{{${value}}}`).join(', ')}, which ${operation} does not fill in; it fills in ${[...allowed].map((value) => `{{${value}}}`).join(', ')}`,
    );
  }
  return parsed as Workflow;
}

function placeholdersIn(value: unknown): string[] {
  if (typeof value === 'string') {
    const match = PLACEHOLDER.exec(value);
    return match ? [match[1]!] : [];
  }
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(placeholdersIn);
  return [];
}

/** The workflow with each `{{name}}` string replaced by its value, numbers staying numbers. */
function filled(workflow: Workflow, values: Values): Workflow {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const match = PLACEHOLDER.exec(value);
      return match && match[1]! in values ? values[match[1]!] : value;
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fill(inner)]));
    return value;
  };
  return fill(workflow) as Workflow;
}
