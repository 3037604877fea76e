import { describe, expect, it } from 'vitest';
import { exemplarFill } from '../../../../src/generation/engines/builtin/exemplar-fill.js';
import { dilate } from '../../../../src/generation/engines/builtin/fill-operations.js';
import { patternOffsets } from '../../../../src/generation/engines/builtin/pattern-offsets.js';
import { boxMean, connectedRegions, guidedFilter } from '../../../../src/generation/engines/builtin/filters.js';
import { emptyRaster } from '../../../../src/generation/engines/builtin/raster.js';
import { transparentHoleCases } from '../../../../bench/fixtures/builtin-quality-set.js';
import { seededRandom } from '../../../../src/platform/seeded-random.js';

describe('box mean', () => {
  it('is the mean of the window clipped to the picture, as a direct sum gives', () => {
    const width = 13;
    const height = 7;
    const random = seededRandom(4);
    const values = Float32Array.from({ length: width * height }, () => random());
    const radius = 2;
    const fast = boxMean(values, width, height, radius);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let sum = 0;
        let count = 0;
        for (let v = Math.max(0, y - radius); v <= Math.min(height - 1, y + radius); v++) {
          for (let u = Math.max(0, x - radius); u <= Math.min(width - 1, x + radius); u++) {
            sum += values[v * width + u]!;
            count++;
          }
        }
        expect(fast[y * width + x]).toBeCloseTo(sum / count, 5);
      }
    }
  });
});

describe('guided filter', () => {
  it('moves a blocky edge onto the guide’s edge', () => {
    const width = 40;
    const height = 8;
    const guide = new Float32Array(width * height);
    const input = new Float32Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        guide[y * width + x] = x < 17 ? 0.9 : 0.1;
        input[y * width + x] = x < 19 ? 1 : 0;
      }
    }
    const out = guidedFilter(guide, input, width, height, 4, 1e-3);
    const row = Array.from(out.subarray(4 * width, 5 * width));
    // Where the alpha falls through one half: the input's edge is at 19, the guide's at 17.
    const crossing = row.findIndex((value) => value < 0.5);
    expect(crossing).toBeGreaterThanOrEqual(17);
    expect(crossing).toBeLessThan(19);
    expect(row[10]!).toBeGreaterThan(0.95);
    expect(row[30]!).toBeLessThan(0.05);
  });
});

describe('connected regions', () => {
  it('labels 4-connected regions and counts their pixels', () => {
    // Two regions touching only at a corner are two.
    const mask = Uint8Array.from([1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1]);
    const { labels, sizes } = connectedRegions(mask, 4);
    expect(sizes.slice(1).sort()).toEqual([3, 3]);
    expect(labels[0]).toBe(labels[4]);
    expect(labels[10]).toBe(labels[15]);
    expect(labels[0]).not.toBe(labels[10]);
  });
});

describe('exemplar fill', () => {
  it('restores an exactly periodic pattern pixel for pixel', () => {
    const width = 96;
    const height = 64;
    const image = emptyRaster(width, height, 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const p = (y * width + x) * 3;
        image.data[p] = (x % 8) * 30;
        image.data[p + 1] = (y % 6) * 40;
        image.data[p + 2] = 90;
      }
    }
    const truth = image.data.slice();
    const hole = new Uint8Array(width * height);
    for (let y = 20; y < 44; y++) hole.fill(1, y * width + 30, y * width + 62);
    for (let i = 0; i < hole.length; i++) if (hole[i]) image.data.fill(0, i * 3, i * 3 + 3);
    exemplarFill(image, hole, { patchRadius: 4, random: seededRandom(1) });
    expect(Buffer.from(image.data).equals(Buffer.from(truth))).toBe(true);
  });

  it('refuses a hole that leaves no whole patch to copy from', () => {
    const image = emptyRaster(12, 12, 3);
    const hole = new Uint8Array(144);
    for (let y = 0; y < 12; y++) hole[y * 12 + 6] = 1;
    expect(() => exemplarFill(image, hole, { patchRadius: 4, random: seededRandom(1) })).toThrow(/no whole patch/);
  });

  it('grows a mask by its radius in every direction (a square)', () => {
    const mask = new Uint8Array(49);
    mask[24] = 1;
    const grown = dilate(mask, 7, 7, 2);
    expect(grown.reduce((sum, value) => sum + value, 0)).toBe(25);
    expect(grown[8]).toBe(1);
    expect(grown[0]).toBe(0);
  });
});

describe('pattern offsets', () => {
  /** Grey levels `at` gives, in a raster. */
  const drawn = (width: number, height: number, at: (x: number, y: number) => number) => {
    const image = emptyRaster(width, height, 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) image.data.fill(at(x, y), (y * width + x) * 3, (y * width + x) * 3 + 3);
    return image;
  };
  const random = seededRandom(30);
  const checkerboard = (width: number, height: number, cell: number) =>
    drawn(width, height, (x, y) => ((Math.floor(x / cell) + Math.floor(y / cell)) % 2 ? 70 + random() * 20 : 180 + random() * 20));
  const noHole = (image: { width: number; height: number }) => new Uint8Array(image.width * image.height);

  it('finds a checkerboard’s repeats (a cell across and down, two cells along a side), shortest first', () => {
    const image = checkerboard(240, 200, 30);
    const offsets = patternOffsets(image, noHole(image)).map(({ dx, dy }) => `${Math.abs(dx)},${Math.abs(dy)}`);
    expect(offsets.slice(0, 2)).toEqual(['30,30', '30,30']);
    expect(offsets).toContain('60,0');
    expect(offsets).toContain('0,60');
  });

  it('finds none on grain, nor on a cut-out subject on a plain background (a plain area matches itself at every offset, which is no repeat)', () => {
    const grain = drawn(160, 120, () => random() * 255);
    expect(patternOffsets(grain, noHole(grain))).toEqual([]);
    // A cut-out subject put on grey, in the middle of margins to extend (the hole): before edges counted, the
    // plain grey matching itself made the subject shifted off itself look like a repeat, and copies of it were extended into the margins.
    const [cutOut] = transparentHoleCases(1, 200, 150, 8);
    const margin = 30;
    const canvas = emptyRaster(260, 210, 3);
    const margins = new Uint8Array(260 * 210).fill(1);
    for (let y = 0; y < 150; y++) {
      for (let x = 0; x < 200; x++) {
        const i = y * 200 + x;
        const alpha = cutOut!.truth.data[i * 4 + 3]! / 255;
        const at = (y + margin) * 260 + x + margin;
        for (let c = 0; c < 3; c++) canvas.data[at * 3 + c] = Math.round(cutOut!.truth.data[i * 4 + c]! * alpha + 128 * (1 - alpha));
        margins[at] = 0;
      }
    }
    expect(patternOffsets(canvas, margins)).toEqual([]);
  });
});
