import { afterAll, describe, expect, it } from 'vitest';
import { BuiltinEngine } from '../../../../src/generation/engines/builtin/builtin-engine.js';
import { encodePng, maskRaster } from '../../../../src/generation/engines/builtin/raster.js';
import { cutOutCases, holeCases } from '../../../../bench/fixtures/builtin-quality-set.js';
import { EngineFailedError, EngineUnavailableError, type EngineImage } from '../../../../src/generation/engines/engine.js';

const inWorker = new BuiltinEngine();
const inProcess = new BuiltinEngine({ worker: false });
afterAll(() => inWorker.close());

describe('the built-in engine on its worker thread', () => {
  const [testCase] = holeCases(1, 128, 128);
  const request = async () => ({
    operation: 'remove_object' as const,
    source: { data: await encodePng(testCase!.picture), mediaType: 'image/png' } satisfies EngineImage,
    mask: { data: await encodePng(maskRaster(testCase!.mask, 128, 128)), mediaType: 'image/png' } satisfies EngineImage,
    seed: 0,
    count: 1,
  });

  it('makes the same pictures as the engine on the caller’s thread', async () => {
    const [threaded, direct] = [await inWorker.run(await request()), await inProcess.run(await request())];
    expect(threaded.pictures).toHaveLength(1);
    expect(Buffer.isBuffer(threaded.pictures[0]!.data)).toBe(true);
    expect(threaded.pictures[0]!.data.equals(direct.pictures[0]!.data)).toBe(true);
  });

  it('runs operations asked for at once one after another, each answered', async () => {
    const source: EngineImage = { data: await encodePng(cutOutCases(1, 96, 96)[0]!.picture), mediaType: 'image/png' };
    const results = await Promise.all([
      inWorker.run({ operation: 'upscale', source, longestSide: 192 }),
      inWorker.run(await request()),
      inWorker.run({ operation: 'extend', source, margins: { left: 8, right: 8, top: 0, bottom: 0 }, seed: 1, count: 2 }),
    ]);
    expect(results.map((result) => result.pictures.length)).toEqual([1, 1, 2]);
  });

  it('brings the engine’s errors back by kind: a failed operation, a declined one', async () => {
    const garbage: EngineImage = { data: Buffer.from('not a picture'), mediaType: 'image/jpeg' };
    await expect(inWorker.run({ operation: 'remove_background', source: garbage })).rejects.toThrow(EngineFailedError);
    await expect(inWorker.run({ operation: 'generate', prompt: 'a fox', seed: 1, count: 1, width: 64, height: 64 })).rejects.toThrow(EngineUnavailableError);
  });

  it('gives up an abandoned operation (the thread is stopped) and runs the next on a new one', async () => {
    const controller = new AbortController();
    const abandoned = inWorker.run(await request(), controller.signal);
    setTimeout(() => controller.abort(new Error('the job was cancelled')), 5);
    await expect(abandoned).rejects.toThrow('the job was cancelled');
    const next = await inWorker.run(await request());
    expect(next.pictures).toHaveLength(1);
  });
});
