import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComfyUIEngine } from '../../../../src/generation/engines/comfyui.js';
import { EngineFailedError } from '../../../../src/generation/engines/engine.js';
import { startComfyUIServer } from './comfyui-server.js';
import type { ComfyUITestServer } from './comfyui-server.js';
import { closedPortUrl, expectPng } from './expectations.js';
import { cutOut, decode, jpegMask, pictureOf } from './test-server.js';

let server: ComfyUITestServer;
let engine: ComfyUIEngine;
let scratch: string;

beforeAll(async () => {
  server = await startComfyUIServer();
  engine = new ComfyUIEngine({ url: server.url, timeoutMs: 10_000, pollIntervalMs: 20, model: 'sd15.safetensors' });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-comfyui-'));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

type Node = { class_type: string; inputs: Record<string, unknown> };
const nodesOf = (workflow: Record<string, Node>, classType: string) => Object.values(workflow).filter((node) => node.class_type === classType);
const lastPrompt = () => server.prompts.at(-1)!;

describe('ComfyUI engine', () => {
  it('text to image queues one workflow per picture, seeds counting up, and returns what SaveImage wrote', async () => {
    const before = server.prompts.length;
    const result = await engine.run({
      operation: 'generate',
      prompt: 'a lighthouse at dusk',
      negativePrompt: 'people',
      style: { lensType: 'telephoto' },
      seed: 40,
      count: 2,
      width: 1000,
      height: 600,
    });
    const queued = server.prompts.slice(before);
    expect(queued).toHaveLength(2);
    expect(queued.map((workflow) => nodesOf(workflow, 'KSampler')[0]!.inputs.seed)).toEqual([40, 41]);
    const texts = nodesOf(queued[0]!, 'CLIPTextEncode').map((node) => node.inputs.text);
    expect(texts).toEqual(['a lighthouse at dusk, telephoto lens', 'people']);
    expect(nodesOf(queued[0]!, 'EmptyLatentImage')[0]!.inputs).toMatchObject({ width: 1000, height: 600 });
    expect(nodesOf(queued[0]!, 'CheckpointLoaderSimple')[0]!.inputs.ckpt_name).toBe('sd15.safetensors');
    expect(result.pictures.map((picture) => picture.seed)).toEqual([40, 41]);
    for (const picture of result.pictures) await expectPng(picture.data, 1000, 600);
  });

  it('variations upload the source and encode it for a partial denoise, one run per picture', async () => {
    const before = server.prompts.length;
    const source = { data: await pictureOf(300, 200), mediaType: 'image/png' as const };
    const result = await engine.run({ operation: 'variations', source, seed: 5, count: 2 });
    const queued = server.prompts.slice(before);
    expect(queued.map((workflow) => nodesOf(workflow, 'KSampler')[0]!.inputs)).toEqual([
      expect.objectContaining({ seed: 5, denoise: 0.6 }),
      expect.objectContaining({ seed: 6, denoise: 0.6 }),
    ]);
    const uploaded = await decode(server.uploads.get(String(nodesOf(queued[0]!, 'LoadImage')[0]!.inputs.image))!);
    expect([uploaded.width, uploaded.height]).toEqual([300, 200]);
    for (const picture of result.pictures) await expectPng(picture.data, 300, 200);
  });

  it('refine uploads the source and an exact black-and-white mask, which LoadImageMask reads by its red channel', async () => {
    const source = { data: await pictureOf(320, 240, '#556b2f', 'jpeg'), mediaType: 'image/jpeg' as const };
    const mask = { data: await jpegMask(320, 240, { left: 40, top: 40, width: 80, height: 60 }), mediaType: 'image/jpeg' as const };
    const result = await engine.run({ operation: 'refine', source, mask, prompt: 'a red kite', seed: 9, count: 1 });
    const maskNode = nodesOf(lastPrompt(), 'LoadImageMask')[0]!;
    expect(maskNode.inputs.channel).toBe('red');
    const uploaded = await decode(server.uploads.get(String(maskNode.inputs.image))!);
    expect([uploaded.width, uploaded.height]).toEqual([320, 240]);
    expect(new Set(uploaded.pixels)).toEqual(new Set([0, 255]));
    expect(uploaded.pixels[(70 * 320 + 80) * uploaded.channels]).toBe(255);
    expect(uploaded.pixels[(200 * 320 + 200) * uploaded.channels]).toBe(0);
    expect(nodesOf(lastPrompt(), 'VAEEncodeForInpaint')).toHaveLength(1);
    await expectPng(result.pictures[0]!.data, 320, 240);
  });

  it('object removal runs its own workflow with the removal prompt', async () => {
    const source = { data: await pictureOf(256, 256), mediaType: 'image/png' as const };
    const mask = { data: await jpegMask(256, 256, { left: 96, top: 96, width: 64, height: 64 }), mediaType: 'image/jpeg' as const };
    const result = await engine.run({ operation: 'remove_object', source, mask, seed: 9, count: 4 });
    expect(nodesOf(lastPrompt(), 'CLIPTextEncode')[0]!.inputs.text).toMatch(/background/);
    // One run per picture, each at its own seed: four different fills.
    expect(result.pictures.map((picture) => picture.seed)).toEqual([9, 10, 11, 12]);
  });

  it('extend pads the picture for outpainting by the margins and returns the grown picture', async () => {
    const source = { data: await pictureOf(200, 100), mediaType: 'image/png' as const };
    const result = await engine.run({ operation: 'extend', source, margins: { left: 40, right: 8, top: 0, bottom: 20 }, seed: 1, count: 1 });
    expect(nodesOf(lastPrompt(), 'ImagePadForOutpaint')[0]!.inputs).toMatchObject({ left: 40, right: 8, top: 0, bottom: 20 });
    await expectPng(result.pictures[0]!.data, 248, 120);
  });

  it('background generation uploads the cut-out with its transparency, which LoadImage turns into the mask', async () => {
    const source = { data: await cutOut(240, 240), mediaType: 'image/png' as const };
    await engine.run({ operation: 'generate_background', source, prompt: 'a beach', seed: 5, count: 1 });
    const encode = nodesOf(lastPrompt(), 'VAEEncodeForInpaint')[0]!;
    const [loader] = encode.inputs.mask as [string, number];
    expect(encode.inputs.mask).toEqual([loader, 1]);
    const uploaded = await decode(server.uploads.get(String(lastPrompt()[loader]!.inputs.image))!);
    expect(uploaded.channels).toBe(4);
    const opaque = { data: await pictureOf(64, 64), mediaType: 'image/png' as const };
    await expect(engine.run({ operation: 'generate_background', source: opaque, prompt: 'a beach', seed: 5, count: 1 })).rejects.toThrow(/transparent/);
  });

  it('composition conditions on the reference’s Canny edges through the configured ControlNet at influence_level', async () => {
    const reference = { data: await pictureOf(300, 200), mediaType: 'image/png' as const };
    const result = await engine.run({ operation: 'influence_composition', reference, influenceLevel: 0.7, prompt: 'a cat', seed: 3, count: 1 });
    expect(nodesOf(lastPrompt(), 'ControlNetApplyAdvanced')[0]!.inputs.strength).toBe(0.7);
    expect(nodesOf(lastPrompt(), 'ControlNetLoader')[0]!.inputs.control_net_name).toBe('control_v11p_sd15_canny.pth');
    await expectPng(result.pictures[0]!.data, 1024, 680);
  });

  it('colour starts from the reference reduced to a colour grid; a higher noise_level denoises more', async () => {
    const reference = { data: await pictureOf(256, 256), mediaType: 'image/png' as const };
    await engine.run({ operation: 'influence_color', reference, noiseLevel: 0, prompt: 'a vase', seed: 2, count: 1 });
    const calm = nodesOf(lastPrompt(), 'KSampler')[0]!.inputs.denoise as number;
    const grid = await decode(server.uploads.get(String(nodesOf(lastPrompt(), 'LoadImage')[0]!.inputs.image))!);
    expect([grid.width, grid.height]).toEqual([1024, 1024]);
    // Nearest-neighbour cells: every pixel of a 64-pixel cell is the same colour.
    expect(grid.pixels.subarray(0, 3)).toEqual(grid.pixels.subarray(63 * grid.channels, 63 * grid.channels + 3));
    await engine.run({ operation: 'influence_color', reference, noiseLevel: 1, prompt: 'a vase', seed: 2, count: 1 });
    expect(nodesOf(lastPrompt(), 'KSampler')[0]!.inputs.denoise).toBeGreaterThan(calm);
  });

  it('upscale runs the upscale model and delivers the longest side wanted', async () => {
    const source = { data: await pictureOf(300, 200), mediaType: 'image/png' as const };
    const result = await engine.run({ operation: 'upscale', source, longestSide: 900 });
    expect(nodesOf(lastPrompt(), 'UpscaleModelLoader')[0]!.inputs.model_name).toBe('RealESRGAN_x4plus.pth');
    await expectPng(result.pictures[0]!.data, 900, 600);
  });

  it('an operator’s workflow file replaces the built-in one for its operation', async () => {
    const file = path.join(scratch, 'generate.json');
    const builtIn = JSON.parse(fs.readFileSync(new URL('../../../../src/generation/engines/comfyui-workflows/generate.json', import.meta.url), 'utf8')) as Record<string, Node>;
    builtIn['5']!.inputs.sampler_name = 'euler_ancestral';
    fs.writeFileSync(file, JSON.stringify(builtIn));
    const custom = new ComfyUIEngine({ url: server.url, timeoutMs: 10_000, pollIntervalMs: 20, workflows: { generate: file } });
    await custom.run({ operation: 'generate', prompt: 'x', seed: 1, count: 1, width: 64, height: 64 });
    expect(nodesOf(lastPrompt(), 'KSampler')[0]!.inputs.sampler_name).toBe('euler_ancestral');
  });

  it('a workflow file that is not API-format JSON, or uses a value its operation does not fill in, is refused at construction', () => {
    const broken = path.join(scratch, 'broken.json');
    fs.writeFileSync(broken, '{"nodes": [], "links": []}');
    expect(() => new ComfyUIEngine({ url: server.url, timeoutMs: 1000, workflows: { refine: broken } })).toThrow(/refine: node nodes of .*broken\.json has no class_type/);
    const stray = path.join(scratch, 'stray.json');
    fs.writeFileSync(stray, JSON.stringify({ '1': { class_type: 'LoadImage', inputs: { image: '{{mask}}' } } }));
    expect(() => new ComfyUIEngine({ url: server.url, timeoutMs: 1000, workflows: { upscale: stray } })).toThrow(/uses \{\{mask\}\}, which upscale does not fill in/);
    expect(() => new ComfyUIEngine({ url: server.url, timeoutMs: 1000, workflows: { upscale: path.join(scratch, 'missing.json') } })).toThrow(/cannot read/);
  });

  it('serves every operation but background removal', () => {
    expect(engine.supports('remove_background')).toBe(false);
    expect(engine.supports('generate')).toBe(true);
    expect(engine.supports('influence_color')).toBe(true);
  });
});

describe('ComfyUI engine failures', () => {
  const request = { operation: 'generate' as const, prompt: 'x', seed: 1, count: 1, width: 64, height: 64 };

  it('a workflow the server refuses fails with its validation message', async () => {
    const bad = path.join(scratch, 'bad-node.json');
    fs.writeFileSync(bad, JSON.stringify({ '1': { class_type: 'NoSuchNode', inputs: {} }, '2': { class_type: 'SaveImage', inputs: { filename_prefix: 'x', images: ['1', 0] } } }));
    const failure = await new ComfyUIEngine({ url: server.url, timeoutMs: 5000, workflows: { generate: bad } }).run(request).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EngineFailedError);
    expect((failure as Error).message).toMatch(/answered 400 to POST \/prompt: Prompt outputs failed validation: .*NoSuchNode does not exist/);
  });

  it('a run that fails on the server fails with the node and its exception', async () => {
    server.control.failRunsWith = { nodeType: 'KSampler', message: 'CUDA out of memory' };
    try {
      await expect(engine.run(request)).rejects.toThrow(/comfyui at http:\/\/127\.0\.0\.1:\d+: the workflow failed: KSampler: CUDA out of memory/);
    } finally {
      server.control.failRunsWith = undefined;
    }
  });

  it('a run still going at the time limit fails saying so and is taken out of the queue; the caller’s abort passes its reason through', async () => {
    server.control.pollsUntilDone = 1_000_000;
    try {
      const impatient = new ComfyUIEngine({ url: server.url, timeoutMs: 300, pollIntervalMs: 20 });
      const before = server.prompts.length;
      const deletedBefore = server.deleted.length;
      await expect(impatient.run({ ...request, count: 2 })).rejects.toThrow(/prompt [0-9a-f-]+ did not finish within 0\.3 s|no answer to GET \/history/);
      expect(server.prompts.length - before).toBe(2);
      expect(server.deleted.length - deletedBefore).toBe(2);
      const controller = new AbortController();
      const reason = new Error('job cancelled');
      setTimeout(() => controller.abort(reason), 100);
      await expect(engine.run(request, controller.signal)).rejects.toBe(reason);
    } finally {
      server.control.pollsUntilDone = 1;
    }
  });

  it('a history answer that is not JSON fails naming the call', async () => {
    const original = server.routes.get('GET /history/:id')!;
    server.routes.set('GET /history/:id', () => ({ body: 'Internal Server Error', status: 200 }));
    try {
      await expect(engine.run(request)).rejects.toThrow(/GET \/history\/[0-9a-f-]+ with a body that is not JSON: Internal Server Error/);
    } finally {
      server.routes.set('GET /history/:id', original);
    }
  });

  it('an unreachable server fails naming its URL', async () => {
    const url = await closedPortUrl();
    await expect(new ComfyUIEngine({ url, timeoutMs: 5000 }).run(request)).rejects.toThrow(`comfyui at ${url}: cannot be reached (POST /prompt: ECONNREFUSED)`);
  });
});
