import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { EngineRouter } from '../../src/generation/engine-router.js';
import { configuredEngines } from '../../src/generation/configured-engines.js';
import { EngineUnavailableError } from '../../src/generation/engines/engine.js';
import { DrawingEngine } from './drawing-engine.js';

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
});
