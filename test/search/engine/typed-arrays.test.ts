import { describe, expect, it } from 'vitest';
import { ensureCapacity, fitted } from '../../../src/search/engine/typed-arrays.js';

describe('fitted', () => {
  it('cuts an array to exactly the length asked, keeping the values, and leaves a short enough one as it is', () => {
    const array = Float64Array.from({ length: 100 }, (_, i) => i / 2);
    const cut = fitted(array, 40);
    expect(cut.length).toBe(40);
    expect([...cut]).toEqual([...array.subarray(0, 40)]);
    expect(fitted(array, 100)).toBe(array);
    expect(fitted(array, 120)).toBe(array);
  });

  it('leaves room to grow again through ensureCapacity', () => {
    const grown = ensureCapacity(fitted(new Uint8Array(4096), 10), 100);
    expect(grown.length).toBeGreaterThanOrEqual(100);
  });
});
