/*
 * The built-in engine on the hard cases of its quality set, each with a floor the engine before
 * this work did not reach (its figures are in the comments): regular patterns with cells larger
 * than a patch, large holes filled at full resolution, photo-like cut-outs (hair, cast
 * shadows, textured ground) and transparent sources.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { BuiltinEngine } from '../../../../src/generation/engines/builtin/builtin-engine.js';
import { decodeRgb, encodePng, maskRaster, type Raster } from '../../../../src/generation/engines/builtin/raster.js';
import {
  alphaError,
  detail,
  hardCutOutCases,
  intersectionOverUnion,
  extendCases,
  largeHoleCases,
  marginMask,
  meanAbsoluteError,
  meanColourFill,
  patternExtendCases,
  patternHoleCases,
  transparentHoleCases,
} from '../../../../bench/fixtures/builtin-quality-set.js';
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
      const filled = await decodeRgb(await onlyPicture({ operation: 'remove_object', source: await png(testCase.picture), mask: await png(maskRaster(testCase.mask, width, height)), seed: 0, count: 1 }));
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
    const filled = await decodeRgb(await onlyPicture({ operation: 'remove_object', source: await png(grain!.picture), mask: await png(maskRaster(grain!.mask, width, height)), seed: 0, count: 1 }));
    const ratio = detail(filled, grain!.mask) / detail(grain!.truth, grain!.mask);
    expect(ratio).toBeGreaterThan(0.85);
    expect(ratio).toBeLessThan(1.3);
    expect(meanAbsoluteError(filled, grain!.picture, grain!.mask.map((value) => 1 - value))).toBeLessThan(1);
  });

  it('keeps a large hole’s tiles in step at full size (error < 7; before: 9.4)', { timeout: 120_000 }, async () => {
    const tiles = largeHoleCases(3)[2]!;
    const { width, height } = tiles.picture;
    const filled = await decodeRgb(await onlyPicture({ operation: 'remove_object', source: await png(tiles.picture), mask: await png(maskRaster(tiles.mask, width, height)), seed: 0, count: 1 }));
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

describe('transparent sources (PNG with alpha)', () => {
  async function rgbaOf(data: Buffer): Promise<Raster> {
    const { data: pixels, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels, 'the result keeps an alpha channel').toBe(4);
    return { width: info.width, height: info.height, channels: 4, data: new Uint8Array(pixels) };
  }

  it('removes an object across a cut-out’s outline with the alpha filled alike: transparent stays transparent, the subject runs on, the rest is the source exactly', async () => {
    const alphaErrors = [];
    const flattenedErrors = [];
    for (const testCase of transparentHoleCases(4)) {
      const { width, height } = testCase.picture;
      const result = await rgbaOf(await onlyPicture({ operation: 'remove_object', source: await png(testCase.picture), mask: await png(maskRaster(testCase.mask, width, height)), seed: 0, count: 1 }));
      let alphaError = 0;
      let flattenedError = 0;
      let holePixels = 0;
      let changedOutside = 0;
      // The mask grown by the two pixels the engine takes with the object's soft edge.
      const near = (i: number) => {
        const x = i % width;
        const y = (i - x) / width;
        for (let v = Math.max(0, y - 2); v <= Math.min(height - 1, y + 2); v++) for (let u = Math.max(0, x - 2); u <= Math.min(width - 1, x + 2); u++) if (testCase.mask[v * width + u]) return true;
        return false;
      };
      for (let i = 0; i < width * height; i++) {
        if (testCase.mask[i]) {
          alphaError += Math.abs(result.data[i * 4 + 3]! - testCase.truth.data[i * 4 + 3]!);
          flattenedError += 255 - testCase.truth.data[i * 4 + 3]!;
          holePixels++;
        } else if (!near(i) && result.data.subarray(i * 4, i * 4 + 4).some((value, c) => value !== testCase.picture.data[i * 4 + c])) {
          changedOutside++;
        }
      }
      expect(changedOutside, `${testCase.name}: pixels changed away from the hole`).toBe(0);
      alphaErrors.push(alphaError / holePixels);
      flattenedErrors.push(flattenedError / holePixels);
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    // Flattened onto an opaque colour (what the engine did before), the hole's alpha is off by the flattened figure (about 120 here).
    expect(mean(alphaErrors)).toBeLessThan(60);
    expect(mean(alphaErrors)).toBeLessThan(mean(flattenedErrors) / 2);
  });

  it('extends a cut-out with transparent margins where its edges are transparent, the source kept exactly', async () => {
    const [testCase] = transparentHoleCases(1, 160, 160, 8);
    const source = testCase!.truth;
    const margins = { left: 24, right: 24, top: 16, bottom: 16 };
    const result = await rgbaOf(await onlyPicture({ operation: 'extend', source: await png(source), margins, seed: 2, count: 1 }));
    expect([result.width, result.height]).toEqual([208, 192]);
    let marginAlpha = 0;
    let marginPixels = 0;
    for (let y = 0; y < 192; y++) {
      for (let x = 0; x < 208; x++) {
        const inside = x >= 24 && x < 184 && y >= 16 && y < 176;
        const p = (y * 208 + x) * 4;
        if (inside) {
          const from = ((y - 16) * 160 + (x - 24)) * 4;
          expect(Array.from(result.data.subarray(p, p + 4))).toEqual(Array.from(source.data.subarray(from, from + 4)));
        } else {
          marginAlpha += result.data[p + 3]!;
          marginPixels++;
        }
      }
    }
    // The subject stays clear of the source's edges, so its continuation is transparent (opaque margins: 255).
    expect(marginAlpha / marginPixels).toBeLessThan(8);
  });

  it('reads a mask drawn as white strokes on a transparent canvas as the strokes alone', async () => {
    const [testCase] = transparentHoleCases(1, 128, 128, 9);
    const opaque = { ...testCase!.truth, channels: 3 as const, data: new Uint8Array(128 * 128 * 3) };
    for (let i = 0; i < 128 * 128; i++) opaque.data.set(testCase!.truth.data.subarray(i * 4, i * 4 + 3), i * 3);
    const strokes = Buffer.alloc(128 * 128 * 4);
    for (let y = 60; y < 70; y++) for (let x = 60; x < 70; x++) strokes.set([255, 255, 255, 255], (y * 128 + x) * 4);
    const mask: EngineImage = { data: await sharp(strokes, { raw: { width: 128, height: 128, channels: 4 } }).png().toBuffer(), mediaType: 'image/png' };
    const filled = await decodeRgb(await onlyPicture({ operation: 'remove_object', source: await png(opaque), mask, seed: 0, count: 1 }));
    const away = new Uint8Array(128 * 128).fill(1);
    for (let y = 56; y < 74; y++) away.fill(0, y * 128 + 56, y * 128 + 74);
    expect(meanAbsoluteError(filled, opaque, away)).toBe(0);
  });
});

describe('photo-like hard cut-outs: hair, a cast shadow, textured ground', () => {
  const cases = hardCutOutCases(6);
  const results = new Map<string, { iou: number; hardError: number }>();
  async function measured(testCase: (typeof cases)[number]) {
    const known = results.get(testCase.name);
    if (known) return known;
    const data = await onlyPicture({ operation: 'remove_background', source: await png(testCase.picture) });
    const { data: rgba } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
    const alpha = new Uint8Array(testCase.subject.length);
    for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3]!;
    const result = { iou: intersectionOverUnion(alpha, testCase.subject, 128), hardError: alphaError(alpha, testCase.coverage, testCase.hard) };
    results.set(testCase.name, result);
    return result;
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

  it('clears the background seen between strands of hair (alpha error around the strands < 0.185; before: 0.187 and 0.234)', async () => {
    const hair = await Promise.all(cases.filter((testCase) => testCase.name.includes('hair')).map(measured));
    expect(mean(hair.map((result) => result.hardError))).toBeLessThan(0.185);
    for (const result of hair) expect(result.iou).toBeGreaterThan(0.9);
  });

  // The shadow is background. On these two it is left out; the benchmark's ten show the engine keeping about a third of such shadows (docs/generation-engines.md).
  it('leaves a soft shadow cast on a plain ground out of the cut-out: the shadow is background', async () => {
    for (const testCase of cases.filter((candidate) => candidate.name.includes('shadow'))) {
      const result = await measured(testCase);
      expect(result.hardError, testCase.name).toBeLessThan(0.02);
      expect(result.iou, testCase.name).toBeGreaterThan(0.95);
    }
  });

  it('separates a subject standing on coarse gravel from the ground at its feet', async () => {
    for (const testCase of cases.filter((candidate) => candidate.name.includes('ground'))) {
      const result = await measured(testCase);
      expect(result.hardError, testCase.name).toBeLessThan(0.1);
      expect(result.iou, testCase.name).toBeGreaterThan(0.95);
    }
  });
});
