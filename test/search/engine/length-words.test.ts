import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { gatherLengthWords } from '../../../src/search/engine/posting-score.js';
import { newBm25Context } from '../../../src/search/engine/query-planner.js';

describe("four fields' length codes gathered as words", () => {
  const random = seededRandom(0x1e9);
  const documents = 5_000;
  const codes = Uint8Array.from({ length: documents * 4 }, () => Math.floor(random() * 256));
  const ordinals = Uint32Array.from({ length: 700 }, () => Math.floor(random() * documents)).sort();
  const expected = Array.from(ordinals, (ordinal) => codes[4 * ordinal]! + 256 * codes[4 * ordinal + 1]! + 65_536 * codes[4 * ordinal + 2]! + 16_777_216 * codes[4 * ordinal + 3]!);

  it('read through a word view of aligned codes, field f in bits 8f to 8f + 7', () => {
    const context = newBm25Context(4, codes);
    expect(context.lengthWords).not.toBeNull();
    expect(Array.from(gatherLengthWords(context, ordinals, ordinals.length).subarray(0, ordinals.length))).toEqual(expected);
  });

  it('assembled from the bytes where the codes sit at an offset no word view can start at', () => {
    const shifted = new Uint8Array(codes.length + 1);
    shifted.set(codes, 1);
    const context = newBm25Context(4, shifted.subarray(1));
    expect(context.lengthWords).toBeNull();
    expect(Array.from(gatherLengthWords(context, ordinals, ordinals.length).subarray(0, ordinals.length))).toEqual(expected);
  });
});
