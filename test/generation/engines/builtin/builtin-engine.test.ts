import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { BuiltinEngine } from '../../../../src/generation/engines/builtin/builtin-engine.js';
import { decodeRgb, encodePng, maskRaster, type Raster } from '../../../../src/generation/engines/builtin/raster.js';
import {
  cutOutCases,
  detail,
  extendCases,
  fringeError,
  holeCases,
  intersectionOverUnion,
  marginMask,
  meanAbsoluteError,
  meanColourFill,
  seamRatio,
} from '../../../../bench/fixtures/builtin-quality-set.js';
import {
  ENGINE_OPERATIONS,
  EngineFailedError,
  EngineUnavailableError,
  PROMPT_OPERATIONS,
  type EngineImage,
  type EngineRequest,
} from '../../../../src/generation/engines/engine.js';

const engine = new BuiltinEngine();

async function png(raster: Raster): Promise<EngineImage> {
  return { data: await encodePng(raster), mediaType: 'image/png' };
}

async function onlyPicture(request: EngineRequest): Promise<Buffer> {
  const { pictures } = await engine.run(request);
  expect(pictures).toHaveLength(1);
  return pictures[0]!.data;
}

describe('the built-in engine: what it does and what it declines', () => {
  it('does background removal, object removal, extend and upscaling, and no operation that follows a prompt', () => {
    const supported = ENGINE_OPERATIONS.filter((operation) => engine.supports(operation));
    expect(supported.sort()).toEqual(['extend', 'remove_background', 'remove_object', 'upscale']);
    for (const operation of PROMPT_OPERATIONS) expect(engine.supports(operation)).toBe(false);
  });

  it('answers a prompt operation with EngineUnavailableError naming the setting that connects a model server, never a picture', async () => {
    const source = await png(cutOutCases(1, 32, 32)[0]!.picture);
    const requests: EngineRequest[] = [
      { operation: 'generate', prompt: 'a red fox', seed: 1, count: 1, width: 64, height: 64 },
      { operation: 'variations', source, seed: 1, count: 1 },
      { operation: 'refine', source, mask: source, prompt: 'a hat', seed: 1, count: 1 },
      { operation: 'influence_color', reference: source, noiseLevel: 0.5, prompt: 'a boat', seed: 1, count: 1 },
      { operation: 'influence_composition', reference: source, influenceLevel: 0.5, prompt: 'a boat', seed: 1, count: 1 },
      { operation: 'generate_background', source, prompt: 'a beach', seed: 1, count: 1 },
    ];
    for (const request of requests) {
      const failure = await engine.run(request).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EngineUnavailableError);
      expect((failure as EngineUnavailableError).operation).toBe(request.operation);
      expect((failure as Error).message).toMatch(/STOCKROOM_GENERATION_SERVER/);
    }
  });

  it('refuses a source that is not a picture, and a mask that covers everything, with EngineFailedError saying why', async () => {
    const garbage: EngineImage = { data: Buffer.from('not a picture'), mediaType: 'image/png' };
    await expect(engine.run({ operation: 'remove_background', source: garbage })).rejects.toThrow(EngineFailedError);
    await expect(engine.run({ operation: 'upscale', source: garbage, longestSide: 100 })).rejects.toThrow(/not a picture/);
    const picture = cutOutCases(1, 48, 48)[0]!.picture;
    const everything = await png(maskRaster(new Uint8Array(48 * 48).fill(1), 48, 48));
    await expect(engine.run({ operation: 'remove_object', source: await png(picture), mask: everything, seed: 0, count: 1 })).rejects.toThrow(/covers the whole picture/);
    await expect(engine.run({ operation: 'upscale', source: await png(picture), longestSide: 0 })).rejects.toThrow(EngineFailedError);
    await expect(engine.run({ operation: 'upscale', source: await png(picture), longestSide: 20_000 })).rejects.toThrow(/1 to 8192 pixels/);
    await expect(engine.run({ operation: 'extend', source: await png(picture), margins: { left: 9000, right: 0, top: 0, bottom: 9000 }, seed: 1, count: 1 })).rejects.toThrow(/more than the 50 megapixels/);
    await expect(engine.run({ operation: 'extend', source: await png(picture), margins: { left: -1, right: 0, top: 0, bottom: 0 }, seed: 1, count: 1 })).rejects.toThrow(/left margin must be whole pixels/);
  });
});

describe('background removal on the generated set (quality floors)', () => {
  const cases = cutOutCases(5, 200, 160);
  let scores: number[];
  beforeAll(async () => {
    scores = [];
    for (const testCase of cases) {
      const data = await onlyPicture({ operation: 'remove_background', source: await png(testCase.picture) });
      const { data: rgba, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height, info.channels]).toEqual([200, 160, 4]);
      const alpha = new Uint8Array(200 * 160);
      for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3]!;
      scores.push(intersectionOverUnion(alpha, testCase.subject, 128));
    }
  });

  it('finds every subject with IoU ≥ 0.90 against its true mask', () => {
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(0.9);
  });

  it('gives the subject’s edge its own colours, not the old background’s: put on grey, closer to the truth than the source colours are', async () => {
    for (const testCase of cases.slice(0, 3)) {
      const data = await onlyPicture({ operation: 'remove_background', source: await png(testCase.picture) });
      const { data: rgba } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
      const sourceColours = Uint8Array.from(rgba);
      for (let i = 0; i < testCase.subject.length; i++) sourceColours.set(testCase.picture.data.subarray(i * 3, i * 3 + 3), i * 4);
      expect(fringeError(rgba, testCase), testCase.name).toBeLessThan(fringeError(sourceColours, testCase));
    }
  });

  it('finds subjects that run off the bottom of the picture (IoU ≥ 0.90): the border there is not taken for background', async () => {
    for (const testCase of cutOutCases(3, 200, 160, 11, 'cut by the frame')) {
      const data = await onlyPicture({ operation: 'remove_background', source: await png(testCase.picture) });
      const { data: rgba } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
      const alpha = new Uint8Array(200 * 160);
      for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3]!;
      expect(intersectionOverUnion(alpha, testCase.subject, 128), testCase.name).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('keeps the subject opaque and the background transparent where they are plainly one or the other', async () => {
    const testCase = cases[0]!;
    const data = await onlyPicture({ operation: 'remove_background', source: await png(testCase.picture) });
    const { data: rgba } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
    expect(rgba[3]).toBe(0);
    const centre = testCase.subject.findIndex((value, i) => value === 1 && testCase.subject[i + 3] === 1 && testCase.subject[i - 3] === 1 && testCase.subject[i + 600] === 1);
    expect(rgba[centre * 4 + 3]).toBe(255);
  });

  it('refines the cut-out at full size when the picture is larger than the segmentation size', async () => {
    const [big] = cutOutCases(1, 900, 700, 7);
    const data = await onlyPicture({ operation: 'remove_background', source: await png(big!.picture) });
    const { data: rgba, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([900, 700]);
    const alpha = new Uint8Array(900 * 700);
    for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3]!;
    expect(intersectionOverUnion(alpha, big!.subject, 128)).toBeGreaterThanOrEqual(0.95);
  });
});

describe('object removal on the generated set (quality floors)', () => {
  it('fills each hole closer to the true background than a mean-colour fill, with the texture kept', async () => {
    const results = [];
    for (const testCase of holeCases(5, 160, 160)) {
      const data = await onlyPicture({ operation: 'remove_object', source: await png(testCase.picture), mask: await png(maskRaster(testCase.mask, 160, 160)), seed: 0, count: 1 });
      const filled = await decodeRgb(data);
      results.push({
        name: testCase.name,
        error: meanAbsoluteError(filled, testCase.truth, testCase.mask),
        naive: meanAbsoluteError(meanColourFill(testCase.picture, testCase.mask), testCase.truth, testCase.mask),
        detail: detail(filled, testCase.mask) / detail(testCase.truth, testCase.mask),
        outsideUntouched: meanAbsoluteError(filled, testCase.picture, testCase.mask.map((value) => 1 - value)),
      });
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    expect(mean(results.map((result) => result.error))).toBeLessThan(0.75 * mean(results.map((result) => result.naive)));
    for (const result of results) {
      expect(result.detail, result.name).toBeGreaterThan(0.6);
      expect(result.detail, result.name).toBeLessThan(2);
      // Only the hole and its two-pixel border (the object's soft edge) change.
      expect(result.outsideUntouched, result.name).toBeLessThan(1);
    }
  });

  it('makes four different fills of one hole, one per seed, copying other patches each time, each better than a mean-colour fill', async () => {
    // Grain, stripes and tiles: textures where one fill's patches, copied again, would give the same picture.
    for (const testCase of holeCases(5, 160, 160).slice(1, 4)) {
      const request = { operation: 'remove_object' as const, source: await png(testCase.picture), mask: await png(maskRaster(testCase.mask, 160, 160)) };
      const { pictures } = await engine.run({ ...request, seed: 11, count: 4 });
      expect(pictures.map((picture) => picture.seed)).toEqual([11, 12, 13, 14]);
      const fills = await Promise.all(pictures.map((picture) => decodeRgb(picture.data)));
      const naive = meanAbsoluteError(meanColourFill(testCase.picture, testCase.mask), testCase.truth, testCase.mask);
      const outside = testCase.mask.map((value) => 1 - value);
      for (const [n, fill] of fills.entries()) {
        expect(meanAbsoluteError(fill, testCase.truth, testCase.mask), `${testCase.name}, fill ${n}`).toBeLessThan(naive);
        expect(meanAbsoluteError(fill, testCase.picture, outside), `${testCase.name}, fill ${n}`).toBeLessThan(1);
        // Every two fills differ in the hole by more than the grain's own few levels: not copies.
        for (const other of fills.slice(n + 1)) expect(meanAbsoluteError(fill, other, testCase.mask), testCase.name).toBeGreaterThan(2);
      }
    }
  });

  it('stretches a mask of another size over the source, as drawn on a preview', async () => {
    const [testCase] = holeCases(1, 160, 160);
    const smallMask = await sharp(await encodePng(maskRaster(testCase!.mask, 160, 160))).resize(80, 80, { kernel: 'nearest' }).png().toBuffer();
    const data = await onlyPicture({ operation: 'remove_object', source: await png(testCase!.picture), mask: { data: smallMask, mediaType: 'image/png' }, seed: 0, count: 1 });
    const filled = await decodeRgb(data);
    expect([filled.width, filled.height]).toEqual([160, 160]);
    expect(meanAbsoluteError(filled, testCase!.truth, testCase!.mask)).toBeLessThan(meanAbsoluteError(meanColourFill(testCase!.picture, testCase!.mask), testCase!.truth, testCase!.mask));
  });
});

describe('extend on the generated set (quality floors)', () => {
  it('adds the margins from the picture’s own texture, keeps the source exact, and leaves no seam a person would see', async () => {
    const seams = [];
    for (const testCase of extendCases(5, 128, 96, 24)) {
      const { pictures } = await engine.run({ operation: 'extend', source: await png(testCase.picture), margins: testCase.margins, seed: 5, count: 2 });
      expect(pictures.map((picture) => picture.seed)).toEqual([5, 6]);
      const extended = await decodeRgb(pictures[0]!.data);
      expect([extended.width, extended.height]).toEqual([176, 144]);
      const inner = new Uint8Array(176 * 144);
      for (let y = 24; y < 120; y++) inner.fill(1, y * 176 + 24, y * 176 + 152);
      expect(meanAbsoluteError(extended, testCase.truth, inner)).toBe(0);
      const margins = marginMask(176, 144, testCase.margins, 128, 96);
      const texture = detail(extended, margins) / detail(testCase.truth, margins);
      expect(texture, testCase.name).toBeGreaterThan(0.7);
      expect(texture, testCase.name).toBeLessThan(1.6);
      // Where the crop falls on an edge of the truth (a tile's), a step there is the picture continuing, not a seam.
      seams.push(seamRatio(extended, testCase.margins, 128, 96) / Math.max(1, seamRatio(testCase.truth, testCase.margins, 128, 96)));
    }
    expect(seams.reduce((sum, value) => sum + value, 0) / seams.length).toBeLessThan(1.8);
  });

  it('gives different fills for different seeds and the same fill for the same seed', async () => {
    const [testCase] = extendCases(1, 96, 96, 16);
    const request: EngineRequest = { operation: 'extend', source: await png(testCase!.picture), margins: { left: 16, right: 0, top: 0, bottom: 16 }, seed: 9, count: 1 };
    const first = await onlyPicture(request);
    const again = await onlyPicture(request);
    const other = await onlyPicture({ ...request, seed: 10 });
    expect(first.equals(again)).toBe(true);
    expect(first.equals(other)).toBe(false);
  });
});

describe('upscale', () => {
  it('makes the longest side the size asked (Lanczos), keeping the proportions and any transparency', async () => {
    const source = await sharp({ create: { width: 120, height: 60, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.5 } } }).png().toBuffer();
    const data = await onlyPicture({ operation: 'upscale', source: { data: source, mediaType: 'image/png' }, longestSide: 480 });
    const metadata = await sharp(data).metadata();
    expect([metadata.format, metadata.width, metadata.height, metadata.hasAlpha]).toEqual(['png', 480, 240, true]);
    const portrait = await sharp({ create: { width: 60, height: 90, channels: 3, background: '#336699' } }).jpeg().toBuffer();
    const tall = await sharp(await onlyPicture({ operation: 'upscale', source: { data: portrait, mediaType: 'image/jpeg' }, longestSide: 300 })).metadata();
    expect([tall.width, tall.height]).toEqual([200, 300]);
  });
});
