import type { GenerationConfig } from '../config/config.js';
import type { ConfiguredEngines } from './engine-router.js';
import { A1111Engine } from './engines/a1111.js';
import { ComfyUIEngine } from './engines/comfyui.js';
import { OpenAIImagesEngine } from './engines/openai.js';

/**
 * The engines the configuration names, built with their settings (engines read no
 * configuration of their own): the model server of STOCKROOM_GENERATION_SERVER, when set.
 */
export function configuredEngines(settings: GenerationConfig): ConfiguredEngines {
  const server = settings.server;
  if (server === undefined) return {};
  const common = { url: server.url, timeoutMs: settings.timeoutSeconds * 1000, apiKey: server.apiKey, model: server.model };
  switch (server.kind) {
    case 'a1111':
      return { server: new A1111Engine(common) };
    case 'comfyui':
      return { server: new ComfyUIEngine(common) };
    case 'openai':
      return { server: new OpenAIImagesEngine(common) };
  }
}
