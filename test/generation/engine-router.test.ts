import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { EngineRouter } from '../../src/generation/engine-router.js';
import { configuredEngines } from '../../src/generation/configured-engines.js';
import { EngineUnavailableError } from '../../src/generation/engines/engine.js';
import { DrawingEngine } from './drawing-engine.js';
import { startA1111Server, type A1111TestServer } from './engines/model-servers/a1111-server.js';
import { decode, pictureOf, strictBase64 } from './engines/model-servers/test-server.js';

const settings = (env: Record<string, string>) => loadConfig({ STOCKROOM_DATA_DIR: '/tmp/unused', ...env }).generation;

describe('the engine router', () => {
  it('builds the model server the configuration names, with its key and model', () => {
    for (const kind of ['a1111', 'comfyui', 'openai']) {
      const engines = configuredEngines(settings({ STOCKROOM_GENERATION_SERVER: kind, STOCKROOM_GENERATION_SERVER_URL: 'http://gpu.test:7860', STOCKROOM_GENERATION_MODEL: 'm' }));
      expect(engines.server?.name).toBe(kind);
    }
    expect(configuredEngines(settings({})).server).toBeUndefined();
    expect(() => settings({ STOCKROOM_GENERATION_SERVER: 'dalle' , STOCKROOM_GENERATION_SERVER_URL: 'http://x.test' })).toThrow(/STOCKROOM_GENERATION_SERVER must be one of a1111, comfyui, openai/);
    expect(() => settings({ STOCKROOM_GENERATION_SERVER_URL: 'http://x.test' })).toThrow(/STOCKROOM_GENERATION_SERVER/);
    expect(() => settings({ STOCKROOM_GENERATION_SERVER: 'a1111' })).toThrow(/STOCKROOM_GENERATION_SERVER_URL must be set/);
  });

  it('sends an operation to the server when it does it, else to the built-in engine, else refuses naming the setting', () => {
    const server = new DrawingEngine(['generate']);
    const builtin = new DrawingEngine(['remove_background', 'generate']);
    const config = settings({ STOCKROOM_GENERATION_SERVER: 'a1111', STOCKROOM_GENERATION_SERVER_URL: 'http://gpu.test' });
    const router = new EngineRouter({ server, builtin }, config.server);
    expect(router.engineFor('generate')).toBe(server);
    expect(router.engineFor('remove_background')).toBe(builtin);
    expect(() => router.engineFor('refine')).toThrow(EngineUnavailableError);
    const alone = new EngineRouter({ builtin }, undefined);
    expect(() => alone.engineFor('influence_color')).toThrow(/influence by colour needs a model server: set STOCKROOM_GENERATION_SERVER/);
    expect(alone.table()).toMatchObject({ generate: 'drawing', remove_background: 'drawing', refine: undefined });
  });

  it('without a model server the built-in engine does background removal, object removal, extend and upscaling, and nothing that follows a prompt', () => {
    const engines = configuredEngines(settings({}));
    const router = new EngineRouter(engines, undefined);
    expect(router.table()).toEqual({
      generate: undefined,
      variations: undefined,
      refine: undefined,
      extend: 'builtin',
      remove_background: 'builtin',
      remove_object: 'builtin',
      influence_color: undefined,
      influence_composition: undefined,
      generate_background: undefined,
      upscale: 'builtin',
    });
    expect(() => router.engineFor('generate')).toThrow(/text to image needs a model server: set STOCKROOM_GENERATION_SERVER/);
  });

  it('beside a model server, the built-in engine takes only what the server does not do', () => {
    const a1111 = settings({ STOCKROOM_GENERATION_SERVER: 'a1111', STOCKROOM_GENERATION_SERVER_URL: 'http://gpu.test:7860' });
    expect(new EngineRouter(configuredEngines(a1111), a1111.server).table()).toMatchObject({
      generate: 'a1111',
      remove_object: 'a1111',
      extend: 'a1111',
      upscale: 'a1111',
      remove_background: 'builtin',
    });
    const openai = settings({ STOCKROOM_GENERATION_SERVER: 'openai', STOCKROOM_GENERATION_SERVER_URL: 'http://gpu.test/v1', STOCKROOM_GENERATION_MODEL: 'dall-e-2' });
    expect(new EngineRouter(configuredEngines(openai), openai.server).table()).toMatchObject({ generate: 'openai', remove_background: 'builtin', upscale: 'builtin' });
  });
});

describe('a configured model server', () => {
  let server: A1111TestServer;
  beforeAll(async () => {
    server = await startA1111Server();
  });
  afterAll(() => server.close());

  it("cuts an opaque subject out with the built-in engine's background removal for background generation, and repaints only the background", async () => {
    const config = settings({ STOCKROOM_GENERATION_SERVER: 'a1111', STOCKROOM_GENERATION_SERVER_URL: server.url });
    const engine = new EngineRouter(configuredEngines(config), config.server).engineFor('generate_background');
    expect(engine.name).toBe('a1111');
    // A yellow disc on a blue ground, opaque: the subject is the disc.
    const opaque = { data: await pictureOf(240, 240), mediaType: 'image/png' as const };
    const result = await engine.run({ operation: 'generate_background', source: opaque, prompt: 'a beach', seed: 5, count: 1 });
    expect(result.pictures).toHaveLength(1);
    const mask = await decode(strictBase64(server.calls.at(-1)!.body.mask));
    const at = (x: number, y: number) => mask.pixels[(y * mask.width + x) * mask.channels];
    // White is repainted: the ground at the corners and edges; the disc's centre is kept.
    expect([at(5, 5), at(234, 234), at(120, 10), at(120, 120), at(100, 130)]).toEqual([255, 255, 255, 0, 0]);
  });
});
