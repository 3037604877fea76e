import { describe, expect, it } from 'vitest';
import { exemplarFill } from '../../../../src/generation/engines/builtin/exemplar-fill.js';
import { dilate } from '../../../../src/generation/engines/builtin/fill-operations.js';
import { boxMean, connectedRegions, guidedFilter } from '../../../../src/generation/engines/builtin/filters.js';
import { emptyRaster } from '../../../../src/generation/engines/builtin/raster.js';
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
