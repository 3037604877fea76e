import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { decode, formOf, pictureOf, startTestServer } from './test-server.js';
import type { Reply, TestServer } from './test-server.js';

/*
 * ComfyUI's API as server.py and execution.py answer it: POST /upload/image (multipart `image`,
 * `type`, `overwrite`) → {name, subfolder, type}; POST /prompt checks the workflow as
 * validate_prompt does (known node classes, their required inputs, links to existing outputs, an
 * output node) → {prompt_id, number, node_errors} or 400 {error, node_errors}; GET /history/{id}
 * answers {} until the run is over, then {id: {prompt, outputs, status}}; GET /view serves what
 * SaveImage wrote. "Running" a workflow works out the size of the picture each node would make.
 */

/** Built-in node classes: their required inputs and how many outputs they have. */
const NODES: Record<string, { inputs: string[]; outputs: number; output?: boolean }> = {
  CheckpointLoaderSimple: { inputs: ['ckpt_name'], outputs: 3 },
  CLIPTextEncode: { inputs: ['text', 'clip'], outputs: 1 },
  EmptyLatentImage: { inputs: ['width', 'height', 'batch_size'], outputs: 1 },
  KSampler: { inputs: ['seed', 'steps', 'cfg', 'sampler_name', 'scheduler', 'denoise', 'model', 'positive', 'negative', 'latent_image'], outputs: 1 },
  VAEDecode: { inputs: ['samples', 'vae'], outputs: 1 },
  VAEEncode: { inputs: ['pixels', 'vae'], outputs: 1 },
  VAEEncodeForInpaint: { inputs: ['pixels', 'vae', 'mask', 'grow_mask_by'], outputs: 1 },
  LoadImage: { inputs: ['image'], outputs: 2 },
  LoadImageMask: { inputs: ['image', 'channel'], outputs: 1 },
  ImagePadForOutpaint: { inputs: ['image', 'left', 'top', 'right', 'bottom', 'feathering'], outputs: 2 },
  Canny: { inputs: ['image', 'low_threshold', 'high_threshold'], outputs: 1 },
  ControlNetLoader: { inputs: ['control_net_name'], outputs: 1 },
  ControlNetApplyAdvanced: { inputs: ['positive', 'negative', 'control_net', 'image', 'strength', 'start_percent', 'end_percent'], outputs: 2 },
  UpscaleModelLoader: { inputs: ['model_name'], outputs: 1 },
  ImageUpscaleWithModel: { inputs: ['upscale_model', 'image'], outputs: 1 },
  SaveImage: { inputs: ['filename_prefix', 'images'], outputs: 0, output: true },
};

const INTEGER_INPUTS = new Set(['seed', 'steps', 'width', 'height', 'batch_size', 'left', 'top', 'right', 'bottom', 'feathering', 'grow_mask_by']);
const FLOAT_INPUTS = new Set(['cfg', 'denoise', 'strength', 'start_percent', 'end_percent', 'low_threshold', 'high_threshold']);

type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown> }>;

export interface ComfyUITestServer extends TestServer {
  /** Workflows queued, in order. */
  prompts: Workflow[];
  /** Prompt ids taken out of the queue with POST /queue {delete}. */
  deleted: string[];
  /** Uploaded files by the name LoadImage knows them by. */
  uploads: Map<string, Buffer>;
  control: RunControl;
}

export interface RunControl {
  /** How many history polls answer {} before a run is over. */
  pollsUntilDone: number;
  /** Runs queued from now fail in this node with this message, as an execution error. */
  failRunsWith?: { nodeType: string; message: string } | undefined;
}

export async function startComfyUIServer(): Promise<ComfyUITestServer> {
  const prompts: Workflow[] = [];
  const uploads = new Map<string, Buffer>();
  const deleted: string[] = [];
  const outputs = new Map<string, Buffer>();
  const runs = new Map<string, { workflow: Workflow; polls: number; entry: unknown }>();
  let number = 0;

  const control: RunControl = { pollsUntilDone: 1 };

  const server = await startTestServer({
    'POST /upload/image': async (request) => {
      const form = await formOf(request);
      const image = form.get('image');
      if (!(image instanceof File) || image.name === '') return { status: 400 };
      if (form.get('type') !== null && !['input', 'temp', 'output'].includes(String(form.get('type')))) return { status: 400 };
      const data = Buffer.from(await image.arrayBuffer());
      await sharp(data).metadata();
      const subfolder = String(form.get('subfolder') ?? '');
      uploads.set(subfolder ? `${subfolder}/${image.name}` : image.name, data);
      return { json: { name: image.name, subfolder, type: String(form.get('type') ?? 'input') } };
    },
    'POST /prompt': async (request) => {
      const body = JSON.parse(request.body.toString('utf8')) as { prompt?: Workflow; client_id?: unknown };
      if (!body.prompt) return { status: 400, json: { error: { type: 'no_prompt', message: 'No prompt provided', details: '', extra_info: {} }, node_errors: {} } };
      const problems = await validate(body.prompt, uploads);
      if (problems.length > 0) {
        return {
          status: 400,
          json: {
            error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: problems.join('\n'), extra_info: {} },
            node_errors: {},
          },
        };
      }
      prompts.push(body.prompt);
      const promptId = randomUUID();
      const fail = control.failRunsWith;
      runs.set(promptId, { workflow: body.prompt, polls: 0, entry: undefined });
      const entry = fail
        ? {
            prompt: [number, promptId, body.prompt, {}, []],
            outputs: {},
            status: {
              status_str: 'error',
              completed: false,
              messages: [
                ['execution_start', { prompt_id: promptId, timestamp: Date.now() }],
                ['execution_error', { prompt_id: promptId, node_id: '1', node_type: fail.nodeType, exception_message: fail.message, exception_type: 'RuntimeError', traceback: [] }],
              ],
            },
          }
        : await execute(promptId, number, body.prompt, uploads, outputs);
      runs.get(promptId)!.entry = entry;
      number += 1;
      return { json: { prompt_id: promptId, number: number - 1, node_errors: {} } };
    },
    'POST /queue': (request) => {
      const body = JSON.parse(request.body.toString('utf8')) as { delete?: unknown; clear?: unknown };
      if (Array.isArray(body.delete)) deleted.push(...body.delete.map(String));
      return { body: '' };
    },
    'GET /history/:id': (request) => {
      const promptId = decodeURIComponent(request.path.slice('/history/'.length));
      const run = runs.get(promptId);
      if (!run) return { json: {} };
      run.polls += 1;
      if (run.polls <= control.pollsUntilDone) return { json: {} };
      return { json: { [promptId]: run.entry } };
    },
    'GET /view': (request): Reply => {
      const filename = request.query.get('filename') ?? '';
      if (filename.startsWith('/') || filename.includes('..')) return { status: 400 };
      if (request.query.get('type') !== 'output') return { status: 404 };
      const data = outputs.get(filename);
      return data ? { body: data, contentType: 'image/png' } : { status: 404 };
    },
  });
  return Object.assign(server, { prompts, uploads, deleted, control });
}

async function validate(workflow: Workflow, uploads: Map<string, Buffer>): Promise<string[]> {
  const problems: string[] = [];
  let outputNodes = 0;
  for (const [id, node] of Object.entries(workflow)) {
    const spec = NODES[node.class_type];
    if (!spec) {
      problems.push(`Cannot execute because node ${node.class_type} does not exist.: Node ID '#${id}'`);
      continue;
    }
    if (spec.output) outputNodes += 1;
    for (const input of spec.inputs) {
      const value = node.inputs[input];
      if (value === undefined) problems.push(`Required input is missing: ${input} (node ${id})`);
      else if (Array.isArray(value)) {
        const [from, slot] = value as [string, number];
        const source = workflow[from];
        const sourceSpec = source && NODES[source.class_type];
        if (!sourceSpec || !Number.isInteger(slot) || slot >= sourceSpec.outputs) problems.push(`Bad link ${JSON.stringify(value)} into ${input} (node ${id})`);
      } else if (INTEGER_INPUTS.has(input) && !Number.isInteger(value)) problems.push(`Failed to convert an input value to a INT value: ${input}, ${String(value)}`);
      else if (FLOAT_INPUTS.has(input) && typeof value !== 'number') problems.push(`Failed to convert an input value to a FLOAT value: ${input}, ${String(value)}`);
      else if (typeof value === 'string' && /\{\{\w+\}\}/.test(value)) problems.push(`Value not in list: ${input}: '${value}'`);
    }
    if ((node.class_type === 'LoadImage' || node.class_type === 'LoadImageMask') && !uploads.has(String(node.inputs.image))) {
      problems.push(`Invalid image file: ${String(node.inputs.image)}`);
    }
    if (node.class_type === 'LoadImageMask' && !['alpha', 'red', 'green', 'blue'].includes(String(node.inputs.channel))) {
      problems.push(`Value not in list: channel: '${String(node.inputs.channel)}'`);
    }
  }
  if (outputNodes === 0) problems.push('Prompt has no outputs');
  return problems;
}

/** "Runs" the workflow: each SaveImage writes a real picture of the size its input would have. */
async function execute(promptId: string, number: number, workflow: Workflow, uploads: Map<string, Buffer>, outputs: Map<string, Buffer>) {
  const sizeOf = async (link: unknown): Promise<{ width: number; height: number }> => {
    const [from] = link as [string, number];
    const node = workflow[from]!;
    const inputs = node.inputs;
    switch (node.class_type) {
      case 'LoadImage':
      case 'LoadImageMask': {
        const picture = await decode(uploads.get(String(inputs.image))!);
        return { width: picture.width, height: picture.height };
      }
      case 'EmptyLatentImage':
        return { width: inputs.width as number, height: inputs.height as number };
      case 'ImagePadForOutpaint': {
        const inner = await sizeOf(inputs.image);
        return { width: inner.width + (inputs.left as number) + (inputs.right as number), height: inner.height + (inputs.top as number) + (inputs.bottom as number) };
      }
      case 'ImageUpscaleWithModel': {
        const inner = await sizeOf(inputs.image);
        return { width: inner.width * 4, height: inner.height * 4 };
      }
      case 'VAEEncode':
      case 'VAEEncodeForInpaint':
        return sizeOf(inputs.pixels);
      case 'KSampler':
        return sizeOf(inputs.latent_image);
      case 'VAEDecode':
        return sizeOf(inputs.samples);
      case 'Canny':
        return sizeOf(inputs.image);
      default:
        throw new Error(`no picture comes out of ${node.class_type}`);
    }
  };
  const saved: Record<string, { images: Array<{ filename: string; subfolder: string; type: string }> }> = {};
  for (const [id, node] of Object.entries(workflow)) {
    if (node.class_type !== 'SaveImage') continue;
    const { width, height } = await sizeOf(node.inputs.images);
    const filename = `${String(node.inputs.filename_prefix)}_${String(outputs.size + 1).padStart(5, '0')}_.png`;
    outputs.set(filename, await pictureOf(width, height));
    saved[id] = { images: [{ filename, subfolder: '', type: 'output' }] };
  }
  return {
    prompt: [number, promptId, workflow, {}, Object.keys(saved)],
    outputs: saved,
    status: {
      status_str: 'success',
      completed: true,
      messages: [
        ['execution_start', { prompt_id: promptId, timestamp: Date.now() }],
        ['execution_success', { prompt_id: promptId, timestamp: Date.now() }],
      ],
    },
  };
}
