/*
 * The built-in engine on the hard cases of its quality set, each with a floor the engine before
 * this work did not reach (its figures are in the comments): regular patterns with cells larger
 * than a patch, large holes filled at full resolution, photo-like cut-outs (hair, cast
 * shadows, textured ground) and transparent sources.
 */
import { describe, expect, it } from 'vitest';
import { BuiltinEngine } from '../../../../src/generation/engines/builtin/builtin-engine.js';
import { decodeRgb, encodePng, maskRaster, type Raster } from '../../../../src/generation/engines/builtin/raster.js';
import { detail, extendCases, largeHoleCases, marginMask, meanAbsoluteError, meanColourFill, patternExtendCases, patternHoleCases } from '../../../../src/generation/engines/builtin/quality-set.js';
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

describe('holes and margins larger than the fill’s working size, filled at full resolution', () => {
  // Filled at a reduced scale and carried up level by level: the detail comes from the full-size picture.
  it('keeps a grain’s detail in a 97,000-pixel hole (detail over the truth’s ≥ 0.85; enlarged from the reduced scale: 0.73)', { timeout: 120_000 }, async () => {
    const [grain] = largeHoleCases(1);
    const { width, height } = grain!.picture;
    const filled = await decodeRgb(await onlyPicture({ operation: 'remove_object', source: await png(grain!.picture), mask: await png(maskRaster(grain!.mask, width, height)) }));
    const ratio = detail(filled, grain!.mask) / detail(grain!.truth, grain!.mask);
    expect(ratio).toBeGreaterThan(0.85);
    expect(ratio).toBeLessThan(1.3);
    expect(meanAbsoluteError(filled, grain!.picture, grain!.mask.map((value) => 1 - value))).toBeLessThan(1);
  });

  it('keeps a large hole’s tiles in step at full size (error < 7; before: 9.4)', { timeout: 120_000 }, async () => {
    const tiles = largeHoleCases(3)[2]!;
    const { width, height } = tiles.picture;
    const filled = await decodeRgb(await onlyPicture({ operation: 'remove_object', source: await png(tiles.picture), mask: await png(maskRaster(tiles.mask, width, height)) }));
    expect(meanAbsoluteError(filled, tiles.truth, tiles.mask)).toBeLessThan(7);
  });

  it('gives 259,000 pixels of new margins the source’s grain (detail over the truth’s ≥ 0.8; enlarged: 0.55)', { timeout: 120_000 }, async () => {
    const grain = extendCases(2, 480, 360, 120, 33)[1]!;
    const extended = await decodeRgb(await onlyPicture({ operation: 'extend', source: await png(grain.picture), margins: grain.margins, seed: 1, count: 1 }));
    const margins = marginMask(extended.width, extended.height, grain.margins, 480, 360);
    const ratio = detail(extended, margins) / detail(grain.truth, margins);
    expect(ratio).toBeGreaterThan(0.8);
    expect(ratio).toBeLessThan(1.3);
  });
});
