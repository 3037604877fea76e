import { describe, expect, it } from 'vitest';
import { ensureCapacity, trimmed } from '../../../src/search/engine/typed-arrays.js';

describe('trimmed', () => {
  it('cuts an array that is more than a quarter empty down to its use and an eighth more, keeping the values', () => {
    const array = Uint32Array.from({ length: 1000 }, (_, i) => i);
    const cut = trimmed(array, 400);
    expect(cut.length).toBe(450);
    expect([...cut.subarray(0, 400)]).toEqual([...array.subarray(0, 400)]);
  });

  it('leaves an array that is nearly full as it is (the same array)', () => {
    const array = new Float64Array(1000);
    expect(trimmed(array, 800)).toBe(array);
    expect(trimmed(array, 1000)).toBe(array);
  });

  it('keeps room to grow again through ensureCapacity', () => {
    const cut = trimmed(new Uint8Array(4096), 10);
    expect(cut.length).toBe(16);
    const grown = ensureCapacity(cut, 100);
    expect(grown.length).toBeGreaterThanOrEqual(100);
  });
});
