import type { GenerationConfig } from '../config/config.js';
import type { ConfiguredEngines } from './engine-router.js';
import { A1111Engine } from './engines/a1111.js';
import { BuiltinEngine } from './engines/builtin/builtin-engine.js';
import { ComfyUIEngine } from './engines/comfyui.js';
import { EngineFailedError, type GenerationEngine } from './engines/engine.js';
import type { SubjectCutter } from './engines/model-server.js';
import { OpenAIImagesEngine } from './engines/openai.js';

/**
 * The engines the configuration names, built with their settings (engines read no
 * configuration of their own): the built-in CPU engine always, and the model server of
 * STOCKROOM_GENERATION_SERVER when set. The router sends an operation to the server when it
 * does it, else to the built-in engine; the server's background generation cuts an opaque
 * subject out with the built-in engine's background removal.
 */
export function configuredEngines(settings: GenerationConfig): ConfiguredEngines {
  const builtin = new BuiltinEngine();
  const server = settings.server;
  if (server === undefined) return { builtin };
  const common = {
    url: server.url,
    timeoutMs: settings.timeoutSeconds * 1000,
    apiKey: server.apiKey,
    model: server.model,
    cutOut: backgroundRemover(builtin),
  };
  switch (server.kind) {
    case 'a1111':
      return { server: new A1111Engine(common), builtin };
    case 'comfyui':
      return { server: new ComfyUIEngine(common), builtin };
    case 'openai':
      return { server: new OpenAIImagesEngine(common), builtin };
  }
}

/** An engine's background removal as the subject cutter a model server's background generation takes. */
export function backgroundRemover(engine: GenerationEngine): SubjectCutter {
  return async (source, signal) => {
    const { pictures } = await engine.run({ operation: 'remove_background', source }, signal);
    const cut = pictures[0];
    if (!cut) throw new EngineFailedError(`the ${engine.name} engine's background removal returned no picture`);
    return { data: cut.data, mediaType: 'image/png' };
  };
}
