import { ConfigError, type GenerationConfig } from '../config/config.js';
import type { ConfiguredEngines } from './engine-router.js';
import { A1111_DEFAULTS, A1111Engine } from './engines/a1111.js';
import { BuiltinEngine } from './engines/builtin/builtin-engine.js';
import { ComfyUIEngine, WORKFLOW_VALUES } from './engines/comfyui.js';
import { EngineFailedError, type EngineOperation, type GenerationEngine } from './engines/engine.js';
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
  const tuning = settings.tuning;
  const common = {
    url: server.url,
    timeoutMs: settings.timeoutSeconds * 1000,
    requestTimeoutMs: tuning.requestTimeoutMs,
    apiKey: server.apiKey,
    model: server.model,
    cutOut: backgroundRemover(builtin),
  };
  const sampling = { steps: tuning.steps };
  switch (server.kind) {
    case 'a1111':
      return {
        server: new A1111Engine({
          ...common,
          ...sampling,
          samplerName: tuning.sampler,
          cfgScale: tuning.cfgScale,
          upscaler: tuning.upscaler,
          denoise: tuning.denoisingStrength,
          // A ControlNet unit needs its preprocessor and model together: a setting given alone is paired with the other's default.
          controlNet: {
            composition: {
              module: tuning.compositionControlNet.module ?? A1111_DEFAULTS.composition.module,
              model: tuning.compositionControlNet.model ?? A1111_DEFAULTS.composition.model,
            },
            color: {
              module: tuning.colorControlNet.module ?? A1111_DEFAULTS.color.module,
              model: tuning.colorControlNet.model ?? A1111_DEFAULTS.color.model,
            },
          },
        }),
        builtin,
      };
    case 'comfyui':
      return {
        server: new ComfyUIEngine({
          ...common,
          ...sampling,
          sampler: tuning.sampler,
          scheduler: tuning.scheduler,
          cfg: tuning.cfgScale,
          controlNetModel: tuning.compositionControlNet.model,
          upscaleModel: tuning.upscaler,
          variationDenoise: tuning.denoisingStrength.variations,
          pollIntervalMs: tuning.pollIntervalMs,
          workflows: comfyuiWorkflows(tuning.comfyuiWorkflows),
        }),
        builtin,
      };
    case 'openai':
      return { server: new OpenAIImagesEngine({ ...common, sizes: tuning.openAiSizes === undefined ? undefined : [...tuning.openAiSizes] }), builtin };
  }
}

/** STOCKROOM_GENERATION_COMFYUI_WORKFLOW_<OPERATION> files by operation; a name ComfyUI runs no workflow for is refused at start. */
function comfyuiWorkflows(files: Readonly<Record<string, string>>): Partial<Record<EngineOperation, string>> {
  const operations = Object.keys(WORKFLOW_VALUES);
  for (const operation of Object.keys(files)) {
    if (!operations.includes(operation)) {
      throw new ConfigError(
        `STOCKROOM_GENERATION_COMFYUI_WORKFLOW_${operation.toUpperCase()} names no operation ComfyUI runs a workflow for: ${operations.map((name) => name.toUpperCase()).join(', ')}`,
      );
    }
  }
  return files as Partial<Record<EngineOperation, string>>;
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
