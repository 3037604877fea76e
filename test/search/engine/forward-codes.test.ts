import { describe, expect, it } from 'vitest';
import { codeAt, codeBytes, codeEnd, ELEMENT_BREAK, FIELD_END, MAX_CODE_BYTES, MAX_TERMS, TERM_CODE, writeCode } from '../../../src/search/engine/forward-codes.js';

/*
 * The forward stream's codes (forward-codes.ts) take one byte below 128, two below 30,848,
 * three below 489,600 and five beyond, up to the largest term's code.
 */

const LARGEST_CODE = MAX_TERMS - 1 + TERM_CODE;

describe('the forward codes', () => {
  it('take one, two, three or five bytes, each length from its first code to its last', () => {
    const lengths: [number, number][] = [
      [ELEMENT_BREAK, 1],
      [FIELD_END, 1],
      [TERM_CODE, 1],
      [127, 1],
      [128, 2],
      [255, 2],
      [256, 2],
      [30_847, 2],
      [30_848, 3],
      [95_000, 3],
      [489_599, 3],
      [489_600, 5],
      [2 ** 24, 5],
      [2 ** 31, 5],
      [LARGEST_CODE, 5],
      [2 ** 32 - 1, 5],
    ];
    for (const [code, bytes] of lengths) {
      const out = new Uint8Array(MAX_CODE_BYTES + 2).fill(0xaa);
      expect(writeCode(out, 1, code), `code ${code}`).toBe(1 + bytes);
      expect(codeBytes(code), `code ${code}`).toBe(bytes);
      expect(codeAt(out, 1), `code ${code}`).toBe(code);
      expect(codeEnd(out, 1), `code ${code}`).toBe(1 + bytes);
      // nothing written outside the code's bytes
      expect(out[0]).toBe(0xaa);
      expect(out[1 + bytes]).toBe(0xaa);
    }
  });

  it('read back a run of codes of every length in order', () => {
    const codes = [TERM_CODE, 30_848, FIELD_END, 128, LARGEST_CODE, 489_600, 127, ELEMENT_BREAK, 30_847, 489_599];
    for (let i = 0; i < 2_000; i++) codes.push((i * 2_654_435_761) % 2 ** 32 >>> (i % 32));
    const out = new Uint8Array(codes.length * MAX_CODE_BYTES);
    let end = 0;
    for (const code of codes) end = writeCode(out, end, code);
    const read: number[] = [];
    for (let j = 0; j < end; ) {
      const code = codeAt(out, j);
      j = codeEnd(out, j);
      read.push(code);
    }
    expect(read).toEqual(codes);
  });
});
