import { describe, expect, it } from 'vitest';
import {
  CLASS_COUNT,
  classOf,
  codeLengths,
  ELEMENT_BREAK,
  FIELD_END,
  ForwardCode,
  MAX_CODE_LENGTH,
  MAX_TERMS,
  STREAM_PADDING,
  TERM_CODE,
} from '../../../src/search/engine/forward-codes.js';
import { seededRandom } from '../../../src/platform/seeded-random.js';

/*
 * The forward stream's codes (forward-codes.ts): a prefix code over classes of code values
 * (each value below 64 its own class, then quarters of each power of two), made from the
 * classes' counts, then the value's offset in its class in plain bits. A document is read
 * from its first byte to its last FIELD_END.
 */

const LARGEST_CODE = MAX_TERMS - 1 + TERM_CODE;

/** Encodes documents back to back (each ends with `fields` FIELD_ENDs); returns the bytes and starts. */
function encodeAll(code: ForwardCode, documents: readonly number[][]): { bytes: Uint8Array; starts: number[] } {
  const bytes = new Uint8Array(documents.reduce((sum, codes) => sum + ForwardCode.maxBytes(codes.length), 0)).fill(0xaa);
  const starts = [0];
  for (const codes of documents) starts.push(code.encode(Uint32Array.from(codes), codes.length, bytes, starts.at(-1)!));
  return { bytes, starts };
}

function decodeAll(code: ForwardCode, bytes: Uint8Array, starts: readonly number[]): number[][] {
  const out = new Uint32Array(8 * bytes.length);
  return starts.slice(0, -1).map((start) => Array.from(out.subarray(0, code.decode(bytes, start, out))));
}

/** Zipf-like code values of `fields` fields: markers a fifth of them, a term's chance falling with its id. */
function zipfDocuments(count: number, fields: number, terms: number, seed: number): number[][] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const codes: number[] = [];
    for (let f = 0; f < fields; f++) {
      const tokens = Math.floor(random() * 30);
      for (let t = 0; t < tokens; t++) {
        if (t > 0 && random() < 0.2) codes.push(ELEMENT_BREAK);
        codes.push(TERM_CODE + Math.floor(terms ** random()) - 1);
      }
      codes.push(FIELD_END);
    }
    return codes;
  });
}

describe('the forward codes', () => {
  it('give each value below 64 its own class and split each power of two beyond in four', () => {
    expect(CLASS_COUNT).toBe(64 + 4 * 26);
    const classes: [number, number][] = [
      [0, 0],
      [63, 63],
      [64, 64],
      [79, 64],
      [80, 65],
      [127, 67],
      [128, 68],
      [2 ** 31, 64 + 4 * 25],
      [2 ** 32 - 1, CLASS_COUNT - 1],
    ];
    for (const [value, expected] of classes) expect(classOf(value), `value ${value}`).toBe(expected);
  });

  it('read back every value at a class edge, under the initial code and one made from counts', () => {
    const edges = [ELEMENT_BREAK, TERM_CODE, 63, 64, 65, 79, 80, 127, 128, 255, 256, 30_847, 30_848, 2 ** 24 - 1, 2 ** 24, 2 ** 27 - 1, 2 ** 27, 2 ** 31, LARGEST_CODE, 2 ** 32 - 1];
    const counts = new Float64Array(CLASS_COUNT);
    counts[classOf(2 ** 31)] = 1_000_000;
    for (const code of [ForwardCode.initial(2), ForwardCode.fromCounts(2, counts)]) {
      // (FIELD_END, value 1, ends a field: two end each document)
      const documents = [[...edges, FIELD_END, FIELD_END], [FIELD_END, ...edges.slice().reverse(), FIELD_END]];
      const { bytes, starts } = encodeAll(code, documents);
      expect(decodeAll(code, bytes, starts)).toEqual(documents);
      // each document takes its bits rounded up to a byte, and nothing is written past it
      for (let d = 0; d < documents.length; d++) {
        const bits = documents[d]!.reduce((sum, value) => sum + code.classBits(classOf(value)), 0);
        expect(starts[d + 1]! - starts[d]!).toBe(Math.ceil(bits / 8));
      }
      expect(bytes[starts.at(-1)!]).toBe(0xaa);
    }
  });

  it('stop a document at its last FIELD_END, whatever follows, and read a document with no fields as empty', () => {
    const code = ForwardCode.initial(1);
    const bytes = new Uint8Array(16 + STREAM_PADDING).fill(0xff);
    const end = code.encode(Uint32Array.of(TERM_CODE + 5, FIELD_END), 2, bytes, 0);
    const out = new Uint32Array(64);
    expect(code.decode(bytes, 0, out)).toBe(2);
    expect(Array.from(out.subarray(0, 2))).toEqual([TERM_CODE + 5, FIELD_END]);
    expect(end).toBeLessThanOrEqual(2);
    expect(new ForwardCode(0, ForwardCode.initial(0).lengths).decode(bytes, 0, out)).toBe(0);
  });

  it('keep every class code within the table, for skewed and empty counts alike', () => {
    const skewed = new Float64Array(CLASS_COUNT);
    skewed[FIELD_END] = 1e9;
    skewed[TERM_CODE] = 1;
    for (const counts of [skewed, new Float64Array(CLASS_COUNT), Float64Array.from({ length: CLASS_COUNT }, (_, c) => 2 ** (c % 40))]) {
      const lengths = codeLengths(counts);
      expect(Math.max(...lengths)).toBeLessThanOrEqual(MAX_CODE_LENGTH);
      expect(Math.min(...lengths)).toBeGreaterThanOrEqual(1);
      // a complete code: the constructor checks it
      expect(() => new ForwardCode(1, lengths)).not.toThrow();
    }
    expect(() => new ForwardCode(1, new Uint8Array(CLASS_COUNT).fill(MAX_CODE_LENGTH))).toThrow(/not complete/);
    expect(() => new ForwardCode(1, new Uint8Array(CLASS_COUNT).fill(MAX_CODE_LENGTH + 1))).toThrow(/out of range/);
  });

  it('come within 5% of the stream\'s order-0 entropy when made from its own counts', () => {
    const documents = zipfDocuments(3_000, 4, 100_000, 7);
    const counts = new Float64Array(CLASS_COUNT);
    const values = new Map<number, number>();
    let total = 0;
    for (const codes of documents) {
      for (const value of codes) {
        counts[classOf(value)]!++;
        values.set(value, (values.get(value) ?? 0) + 1);
        total++;
      }
    }
    let entropyBits = 0;
    for (const n of values.values()) entropyBits -= n * Math.log2(n / total);
    const code = ForwardCode.fromCounts(4, counts);
    const { bytes, starts } = encodeAll(code, documents);
    expect(decodeAll(code, bytes, starts)).toEqual(documents);
    // a byte's rounding per document aside; the sample's entropy is below its source's (many
    // values are seen once), which no code made from classes can follow
    const bits = 8 * starts.at(-1)! - 4 * documents.length;
    expect(bits / entropyBits).toBeLessThan(1.05);
    // and well below the initial code's guess for the same stream
    const initial = encodeAll(ForwardCode.initial(4), documents);
    expect(starts.at(-1)!).toBeLessThan(initial.starts.at(-1)!);
  });
});
