import type { GenerationConfig } from '../config/config.js';
import { EngineUnavailableError, PROMPT_OPERATIONS, type EngineOperation, type GenerationEngine } from './engines/engine.js';

/** What an operation is called in a message to the person who configures the server. */
const OPERATION_NAMES: Readonly<Record<EngineOperation, string>> = {
  generate: 'text to image',
  variations: 'variations',
  refine: 'refine',
  extend: 'extend',
  remove_background: 'background removal',
  remove_object: 'object removal',
  influence_color: 'influence by colour',
  influence_composition: 'influence by composition',
  generate_background: 'background generation',
  upscale: 'upscaling',
};

export interface ConfiguredEngines {
  /** The model server the configuration names (STOCKROOM_GENERATION_SERVER), when there is one. */
  server?: GenerationEngine | undefined;
  /** The built-in CPU engine. */
  builtin?: GenerationEngine | undefined;
}

/**
 * Which engine runs an operation: the model server when one is configured and supports it,
 * else the built-in engine when it does, else none — and the API answers 503 naming the
 * setting that would make it possible. Never a picture from an engine that cannot make it.
 */
export class EngineRouter {
  constructor(
    private readonly engines: ConfiguredEngines,
    private readonly server: GenerationConfig['server'],
  ) {}

  /** The engine for the operation; EngineUnavailableError (503) when none of the configured ones can. */
  engineFor(operation: EngineOperation): GenerationEngine {
    const { server, builtin } = this.engines;
    if (server?.supports(operation)) return server;
    if (builtin?.supports(operation)) return builtin;
    throw new EngineUnavailableError(operation, this.unavailableMessage(operation));
  }

  /** Every operation and the engine that would run it (for logs and docs); undefined: none. */
  table(): Record<EngineOperation, string | undefined> {
    const names = {} as Record<EngineOperation, string | undefined>;
    for (const operation of Object.keys(OPERATION_NAMES) as EngineOperation[]) {
      try {
        names[operation] = this.engineFor(operation).name;
      } catch {
        names[operation] = undefined;
      }
    }
    return names;
  }

  private unavailableMessage(operation: EngineOperation): string {
    const name = OPERATION_NAMES[operation];
    if (this.server !== undefined) {
      return `${name} is not something the configured ${this.server.kind} server (STOCKROOM_GENERATION_SERVER) can do, nor the built-in engine; configure a server that does`;
    }
    if (PROMPT_OPERATIONS.has(operation)) {
      return `${name} needs a model server: set STOCKROOM_GENERATION_SERVER (a1111, comfyui or openai) and STOCKROOM_GENERATION_SERVER_URL`;
    }
    return `${name} needs a model server or the built-in engine: set STOCKROOM_GENERATION_SERVER and STOCKROOM_GENERATION_SERVER_URL`;
  }
}
