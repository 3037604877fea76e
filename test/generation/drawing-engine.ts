import sharp from 'sharp';
import { EngineFailedError, type EngineOperation, type EngineRequest, type EngineResult, type GenerationEngine } from '../../src/generation/engines/engine.js';

/**
 * A small real engine for the module's tests: it draws a picture for a prompt (a gradient whose
 * colours follow the seed) and removes a background by making the border colour transparent.
 * It declares only those two operations, so the router's 503 is exercised by the rest. A prompt
 * containing "fail" makes it answer as a broken server does.
 */
export class DrawingEngine implements GenerationEngine {
  readonly name = 'drawing';
  runs = 0;

  constructor(private readonly operations: readonly EngineOperation[] = ['generate', 'remove_background'], private readonly delayMs = 0) {}

  supports(operation: EngineOperation): boolean {
    return this.operations.includes(operation);
  }

  async run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    this.runs += 1;
    if (this.delayMs > 0) await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, this.delayMs);
      signal?.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
    });
    if (request.operation === 'generate') {
      if (/\bfail\b/.test(request.prompt)) throw new EngineFailedError('the test server refused the prompt');
      const pictures = [];
      for (let index = 0; index < request.count; index += 1) {
        const seed = request.seed + index;
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${request.width}" height="${request.height}"><defs><linearGradient id="g"><stop offset="0" stop-color="hsl(${seed % 360},70%,50%)"/><stop offset="1" stop-color="hsl(${(seed * 7) % 360},70%,30%)"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
        pictures.push({ data: await sharp(Buffer.from(svg)).png().toBuffer(), seed });
      }
      return { pictures };
    }
    if (request.operation === 'remove_background') {
      const { data, info } = await sharp(request.source.data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const [r, g, b] = [data[0]!, data[1]!, data[2]!];
      for (let offset = 0; offset < data.length; offset += 4) {
        if (Math.abs(data[offset]! - r) + Math.abs(data[offset + 1]! - g) + Math.abs(data[offset + 2]! - b) < 30) data[offset + 3] = 0;
      }
      const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } }).png().toBuffer();
      return { pictures: [{ data: png, seed: 0 }] };
    }
    throw new EngineFailedError(`the drawing engine does not do ${request.operation}`);
  }
}
