import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../src/config/config.js';
import { configuredEngines } from '../../../../src/generation/configured-engines.js';
import type { ConfiguredEngines } from '../../../../src/generation/engine-router.js';
import type { EngineImage, GenerationEngine } from '../../../../src/generation/engines/engine.js';
import { startA1111Server, type A1111TestServer } from './a1111-server.js';
import { startComfyUIServer, type ComfyUITestServer } from './comfyui-server.js';
import { startOpenAIServer, TEST_API_KEY, type OpenAITestServer } from './openai-server.js';
import { cutOut, jpegMask, pictureOf } from './test-server.js';

/*
 * The model-server tuning settings, from the environment to the wire: the configuration read as
 * `stockroom serve` reads it, the engines built from it as the generation module builds them, and
 * what each adapter then sends, as the test servers (which speak the real request shapes) record it.
 */

const BASE_ENV = { STOCKROOM_DATA_DIR: '/nonexistent/stockroom-tuning-test', STOCKROOM_LOG_LEVEL: 'silent' };

let built: ConfiguredEngines[] = [];
function enginesFor(env: Record<string, string>): GenerationEngine {
  const engines = configuredEngines(loadConfig({ ...BASE_ENV, ...env }).generation);
  built.push(engines);
  return engines.server!;
}
afterEach(async () => {
  for (const engines of built) await engines.builtin?.close?.();
  built = [];
});

const png = async (width: number, height: number): Promise<EngineImage> => ({ data: await pictureOf(width, height), mediaType: 'image/png' });

describe('model-server tuning reaches AUTOMATIC1111 / Forge', () => {
  let server: A1111TestServer;
  beforeAll(async () => {
    server = await startA1111Server({ delayMs: (body) => (body.prompt === 'slow' ? 2500 : 0) });
  });
  afterAll(() => server.close());
  const last = () => server.calls.at(-1)!;

  it('sends the steps, sampler, guidance, checkpoint, per-operation denoising strengths, ControlNet units and upscaler it is given', async () => {
    const engine = enginesFor({
      STOCKROOM_GENERATION_SERVER: 'a1111',
      STOCKROOM_GENERATION_SERVER_URL: server.url,
      STOCKROOM_GENERATION_MODEL: 'sdxl-base.safetensors',
      STOCKROOM_GENERATION_STEPS: '12',
      STOCKROOM_GENERATION_SAMPLER: 'Euler a',
      STOCKROOM_GENERATION_CFG_SCALE: '5.5',
      STOCKROOM_GENERATION_DENOISE_VARIATIONS: '0.3',
      STOCKROOM_GENERATION_DENOISE_REFINE: '0.5',
      STOCKROOM_GENERATION_DENOISE_OBJECT_REMOVAL: '0.95',
      STOCKROOM_GENERATION_DENOISE_EXTEND: '0.7',
      STOCKROOM_GENERATION_DENOISE_BACKGROUND: '0.8',
      STOCKROOM_GENERATION_CONTROLNET_COMPOSITION_MODEL: 'control_v11f1p_sd15_depth',
      STOCKROOM_GENERATION_CONTROLNET_COMPOSITION_MODULE: 'depth_midas',
      STOCKROOM_GENERATION_CONTROLNET_COLOR_MODEL: 'coadapter-color-sd15v1',
      STOCKROOM_GENERATION_CONTROLNET_COLOR_MODULE: 'color',
      STOCKROOM_GENERATION_UPSCALER: 'Lanczos',
    });
    await engine.run({ operation: 'generate', prompt: 'a harbour', seed: 3, count: 1, width: 512, height: 512 });
    expect(last().body).toMatchObject({
      steps: 12,
      sampler_name: 'Euler a',
      cfg_scale: 5.5,
      override_settings: { sd_model_checkpoint: 'sdxl-base.safetensors' },
    });
    const source = await png(256, 192);
    const mask = { data: await jpegMask(256, 192, { left: 32, top: 32, width: 64, height: 64 }), mediaType: 'image/jpeg' as const };
    await engine.run({ operation: 'variations', source, seed: 1, count: 1 });
    expect(last().body).toMatchObject({ denoising_strength: 0.3, steps: 12 });
    await engine.run({ operation: 'refine', source, mask, prompt: 'a kite', seed: 1, count: 1 });
    expect(last().body).toMatchObject({ denoising_strength: 0.5 });
    await engine.run({ operation: 'remove_object', source, mask, seed: 0, count: 1 });
    expect(last().body).toMatchObject({ denoising_strength: 0.95 });
    await engine.run({ operation: 'extend', source, margins: { left: 32, right: 0, top: 0, bottom: 0 }, seed: 1, count: 1 });
    expect(last().body).toMatchObject({ denoising_strength: 0.7 });
    await engine.run({ operation: 'generate_background', source: { data: await cutOut(256, 192), mediaType: 'image/png' }, prompt: 'a beach', seed: 1, count: 1 });
    expect(last().body).toMatchObject({ denoising_strength: 0.8 });
    const unit = () => ((last().body.alwayson_scripts as { controlnet: { args: Array<Record<string, unknown>> } }).controlnet.args[0]!);
    await engine.run({ operation: 'influence_composition', reference: source, prompt: 'a tower', influenceLevel: 0.5, seed: 1, count: 1 });
    expect(unit()).toMatchObject({ module: 'depth_midas', model: 'control_v11f1p_sd15_depth' });
    await engine.run({ operation: 'influence_color', reference: source, prompt: 'a tower', noiseLevel: 0.5, seed: 1, count: 1 });
    expect(unit()).toMatchObject({ module: 'color', model: 'coadapter-color-sd15v1' });
    await engine.run({ operation: 'upscale', source, longestSide: 512 });
    expect(last()).toMatchObject({ endpoint: 'extra-single-image', body: { upscaler_1: 'Lanczos' } });
  });

  it('keeps the adapter’s defaults for what is not set, and pairs a ControlNet model given alone with the default preprocessor', async () => {
    const engine = enginesFor({
      STOCKROOM_GENERATION_SERVER: 'a1111',
      STOCKROOM_GENERATION_SERVER_URL: server.url,
      STOCKROOM_GENERATION_CONTROLNET_COMPOSITION_MODEL: 'control_sdxl_canny',
    });
    const source = await png(256, 192);
    await engine.run({ operation: 'variations', source, seed: 1, count: 1 });
    expect(last().body).toMatchObject({ steps: 30, sampler_name: 'DPM++ 2M', cfg_scale: 7, denoising_strength: 0.6 });
    expect(last().body.override_settings).toBeUndefined();
    await engine.run({ operation: 'influence_composition', reference: source, prompt: 'a tower', influenceLevel: 0.5, seed: 1, count: 1 });
    expect((last().body.alwayson_scripts as { controlnet: { args: Array<Record<string, unknown>> } }).controlnet.args[0]).toMatchObject({
      module: 'canny',
      model: 'control_sdxl_canny',
    });
  });

  it('STOCKROOM_GENERATION_REQUEST_TIMEOUT ends one call that takes longer, saying which setting did', async () => {
    const engine = enginesFor({ STOCKROOM_GENERATION_SERVER: 'a1111', STOCKROOM_GENERATION_SERVER_URL: server.url, STOCKROOM_GENERATION_REQUEST_TIMEOUT: '1' });
    await expect(engine.run({ operation: 'generate', prompt: 'slow', seed: 1, count: 1, width: 256, height: 256 })).rejects.toThrow(
      /no answer to POST \/sdapi\/v1\/txt2img within 1 s \(STOCKROOM_GENERATION_REQUEST_TIMEOUT, one call\)/,
    );
    // Without it, the operation's own limit (STOCKROOM_GENERATION_TIMEOUT) is the only one.
    const patient = enginesFor({ STOCKROOM_GENERATION_SERVER: 'a1111', STOCKROOM_GENERATION_SERVER_URL: server.url });
    const result = await patient.run({ operation: 'generate', prompt: 'slow', seed: 1, count: 1, width: 256, height: 256 });
    expect(result.pictures).toHaveLength(1);
  });
});

describe('model-server tuning reaches ComfyUI', () => {
  let server: ComfyUITestServer;
  beforeAll(async () => {
    server = await startComfyUIServer();
  });
  afterAll(() => server.close());
  type Node = { class_type: string; inputs: Record<string, unknown> };
  const node = (classType: string) => Object.values(server.prompts.at(-1)! as Record<string, Node>).find((candidate) => candidate.class_type === classType)!;

  it('fills the workflows with the checkpoint, steps, sampler, scheduler, guidance, variation denoise, ControlNet and upscale model it is given', async () => {
    const engine = enginesFor({
      STOCKROOM_GENERATION_SERVER: 'comfyui',
      STOCKROOM_GENERATION_SERVER_URL: server.url,
      STOCKROOM_GENERATION_MODEL: 'dreamshaper_8.safetensors',
      STOCKROOM_GENERATION_STEPS: '18',
      STOCKROOM_GENERATION_SAMPLER: 'euler_ancestral',
      STOCKROOM_GENERATION_SCHEDULER: 'normal',
      STOCKROOM_GENERATION_CFG_SCALE: '6',
      STOCKROOM_GENERATION_DENOISE_VARIATIONS: '0.45',
      STOCKROOM_GENERATION_CONTROLNET_COMPOSITION_MODEL: 'control_v11p_sd15_lineart.pth',
      STOCKROOM_GENERATION_UPSCALER: '4x-UltraSharp.pth',
      STOCKROOM_GENERATION_POLL_INTERVAL_MS: '20',
    });
    await engine.run({ operation: 'generate', prompt: 'a harbour', seed: 3, count: 1, width: 512, height: 512 });
    expect(node('CheckpointLoaderSimple').inputs).toMatchObject({ ckpt_name: 'dreamshaper_8.safetensors' });
    expect(node('KSampler').inputs).toMatchObject({ steps: 18, sampler_name: 'euler_ancestral', scheduler: 'normal', cfg: 6 });
    const source = await png(256, 192);
    await engine.run({ operation: 'variations', source, seed: 1, count: 1 });
    expect(node('KSampler').inputs).toMatchObject({ denoise: 0.45, steps: 18 });
    await engine.run({ operation: 'influence_composition', reference: source, prompt: 'a tower', influenceLevel: 0.5, seed: 1, count: 1 });
    expect(node('ControlNetLoader').inputs).toMatchObject({ control_net_name: 'control_v11p_sd15_lineart.pth' });
    await engine.run({ operation: 'upscale', source, longestSide: 512 });
    expect(node('UpscaleModelLoader').inputs).toMatchObject({ model_name: '4x-UltraSharp.pth' });
  });
});

describe('ComfyUI workflow files of the operator', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-tuning-'));
  });
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const comfyui = { STOCKROOM_GENERATION_SERVER: 'comfyui', STOCKROOM_GENERATION_SERVER_URL: 'http://gpu-box:8188' };

  it('STOCKROOM_GENERATION_COMFYUI_WORKFLOW_<OPERATION> replaces an operation’s workflow; a wrong name or file stops the start', async () => {
    type Node = { class_type: string; inputs: Record<string, unknown> };
    const builtIn = JSON.parse(fs.readFileSync(new URL('../../../../src/generation/engines/comfyui-workflows/upscale.json', import.meta.url), 'utf8')) as Record<string, Node>;
    const own = path.join(scratch, 'upscale.json');
    fs.writeFileSync(own, JSON.stringify({ ...builtIn, '4': { ...builtIn['4']!, inputs: { ...builtIn['4']!.inputs, filename_prefix: 'operator-own' } } }));
    const server = await startComfyUIServer();
    try {
      const engine = enginesFor({ STOCKROOM_GENERATION_SERVER: 'comfyui', STOCKROOM_GENERATION_SERVER_URL: server.url, STOCKROOM_GENERATION_POLL_INTERVAL_MS: '20', STOCKROOM_GENERATION_COMFYUI_WORKFLOW_UPSCALE: own });
      await engine.run({ operation: 'upscale', source: await png(64, 48), longestSide: 128 });
      expect((server.prompts.at(-1)! as Record<string, Node>)['4']).toMatchObject({ class_type: 'SaveImage', inputs: { filename_prefix: 'operator-own' } });
    } finally {
      await server.close();
    }
    expect(() => enginesFor({ ...comfyui, STOCKROOM_GENERATION_COMFYUI_WORKFLOW_OBJECT_REMOVAL: own })).toThrow(
      /^STOCKROOM_GENERATION_COMFYUI_WORKFLOW_OBJECT_REMOVAL names no operation ComfyUI runs a workflow for: GENERATE, .*REMOVE_OBJECT/,
    );
    fs.writeFileSync(path.join(scratch, 'broken.json'), '{"1": "not a node"}');
    expect(() => enginesFor({ ...comfyui, STOCKROOM_GENERATION_COMFYUI_WORKFLOW_REFINE: path.join(scratch, 'broken.json') })).toThrow(/ComfyUI workflow for refine: node 1 of .*broken\.json has no class_type/);
    expect(() => loadConfig({ ...BASE_ENV, STOCKROOM_GENERATION_SERVER: 'a1111', STOCKROOM_GENERATION_SERVER_URL: 'http://gpu-box:7860', STOCKROOM_GENERATION_COMFYUI_WORKFLOW_REFINE: own })).toThrow(
      /read by the comfyui server only/,
    );
  });
});

describe('model-server tuning reaches an OpenAI-compatible server', () => {
  let server: OpenAITestServer;
  beforeAll(async () => {
    server = await startOpenAIServer();
  });
  afterAll(() => server.close());

  it('asks for the model it is given at the nearest of the sizes it is told the server takes', async () => {
    const engine = enginesFor({
      STOCKROOM_GENERATION_SERVER: 'openai',
      STOCKROOM_GENERATION_SERVER_URL: server.url,
      STOCKROOM_GENERATION_API_KEY: TEST_API_KEY,
      STOCKROOM_GENERATION_MODEL: 'local-diffusion',
      STOCKROOM_GENERATION_OPENAI_SIZES: '512x512, 768x512',
    });
    const result = await engine.run({ operation: 'generate', prompt: 'a harbour', seed: 3, count: 1, width: 1024, height: 768 });
    expect(server.calls.at(-1)).toMatchObject({ endpoint: 'generations', fields: { model: 'local-diffusion', size: '768x512' } });
    expect(result.pictures).toHaveLength(1);
  });
});

describe('model-server tuning is checked at start', () => {
  const refused = (env: Record<string, string>) => {
    try {
      loadConfig({ ...BASE_ENV, ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  };
  const a1111 = { STOCKROOM_GENERATION_SERVER: 'a1111', STOCKROOM_GENERATION_SERVER_URL: 'http://gpu-box:7860' };
  const comfyui = { STOCKROOM_GENERATION_SERVER: 'comfyui', STOCKROOM_GENERATION_SERVER_URL: 'http://gpu-box:8188' };
  const openai = { STOCKROOM_GENERATION_SERVER: 'openai', STOCKROOM_GENERATION_SERVER_URL: 'http://gpu-box:8080' };

  it('refuses values out of range or of the wrong form, naming the setting and what it takes', () => {
    expect(refused({ ...a1111, STOCKROOM_GENERATION_STEPS: '0' })).toBe("STOCKROOM_GENERATION_STEPS must be a whole number from 1 to 150, got '0'");
    expect(refused({ ...a1111, STOCKROOM_GENERATION_STEPS: '20.5' })).toMatch(/^STOCKROOM_GENERATION_STEPS must be a whole number/);
    expect(refused({ ...a1111, STOCKROOM_GENERATION_CFG_SCALE: 'high' })).toBe("STOCKROOM_GENERATION_CFG_SCALE must be a number from 1 to 30, got 'high'");
    expect(refused({ ...a1111, STOCKROOM_GENERATION_DENOISE_REFINE: '1.5' })).toBe("STOCKROOM_GENERATION_DENOISE_REFINE must be a number above 0 and at most 1, got '1.5'");
    expect(refused({ ...a1111, STOCKROOM_GENERATION_DENOISE_VARIATIONS: '0' })).toMatch(/above 0/);
    expect(refused({ ...a1111, STOCKROOM_GENERATION_SAMPLER: 'Euler\ta' })).toMatch(/^STOCKROOM_GENERATION_SAMPLER must be a name of at most 200 printable characters/);
    expect(refused({ ...openai, STOCKROOM_GENERATION_OPENAI_SIZES: '1024x1024,big' })).toMatch(/^STOCKROOM_GENERATION_OPENAI_SIZES must list sizes as WIDTHxHEIGHT.*got 'big'$/);
    expect(refused({ ...a1111, STOCKROOM_GENERATION_REQUEST_TIMEOUT: '600' })).toBe(
      'STOCKROOM_GENERATION_REQUEST_TIMEOUT (600 s, one call to the server) must be at most STOCKROOM_GENERATION_TIMEOUT (300 s, a whole operation)',
    );
    expect(refused({ ...comfyui, STOCKROOM_GENERATION_POLL_INTERVAL_MS: '5' })).toMatch(/from 20 to 60000/);
  });

  it('refuses a setting the configured server would not read, or any when no server is configured', () => {
    expect(refused({ STOCKROOM_GENERATION_STEPS: '20' })).toMatch(/^STOCKROOM_GENERATION_STEPS tunes a model server, and none is configured/);
    expect(refused({ ...a1111, STOCKROOM_GENERATION_SCHEDULER: 'karras' })).toBe(
      'STOCKROOM_GENERATION_SCHEDULER is read by the comfyui server only; STOCKROOM_GENERATION_SERVER is a1111, so leave it out',
    );
    expect(refused({ ...comfyui, STOCKROOM_GENERATION_DENOISE_REFINE: '0.5' })).toMatch(/read by the a1111 server only; STOCKROOM_GENERATION_SERVER is comfyui/);
    expect(refused({ ...openai, STOCKROOM_GENERATION_STEPS: '20' })).toMatch(/read by the a1111 and comfyui servers only/);
    expect(refused({ ...a1111, STOCKROOM_GENERATION_OPENAI_SIZES: '1024x1024' })).toMatch(/read by the openai server only/);
  });

  it('takes them when they fit, and leaves every one unset by default', () => {
    expect(loadConfig({ ...BASE_ENV, ...a1111, STOCKROOM_GENERATION_STEPS: '20', STOCKROOM_GENERATION_DENOISE_EXTEND: '.8' }).generation.tuning).toMatchObject({
      steps: 20,
      denoisingStrength: { extend: 0.8 },
    });
    const none = loadConfig({ ...BASE_ENV }).generation.tuning;
    expect(none).toMatchObject({ steps: undefined, sampler: undefined, cfgScale: undefined, requestTimeoutMs: undefined, openAiSizes: undefined });
  });
});
