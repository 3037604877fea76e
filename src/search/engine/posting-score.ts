import { codeAt } from './frequency-tuples.js';
import type { Bm25Context, Segment } from './query-plan.js';

/**
 * The BM25 contribution of posting `i` to document `d`, summed over text fields (each
 * saturated on its own, then weighted): Σ_f c_f · tf / (tf + k1·(1 − b) + k1·b·len_f / avglen_f).
 */
export function postingScore(segment: Segment, i: number, d: number, bm25: Bm25Context): number {
  const fields = bm25.fields;
  const tuples = segment.tuples;
  const coefficients = segment.coefficients;
  const lengths = bm25.lengths;
  const lengthNorms = bm25.lengthNorms;
  const constant = bm25.normConstant;
  let score = 0;
  const code = codeAt(segment.codes, segment.codeShift, segment.escapes, i);
  const p = code * fields;
  const l = d * fields;
  for (let f = 0; f < fields; f++) {
    const tf = tuples[p + f]!;
    if (tf !== 0) score += (coefficients[f]! * tf) / (tf + constant + lengthNorms[(f << 8) + lengths[l + f]!]!);
  }
  return score;
}

/**
 * The BM25 score of a posting in a schema of four text fields (the asset schema's), the field
 * loop written out: V8 does not unroll it, and its overhead was most of the cost — twice as
 * fast. `p` is the posting's tuple code times four (its frequencies are `tuples[p..p + 3]`),
 * `lengths` the document's four length codes as one word (field f in bits 8f..8f + 7). The sum
 * runs in field order as postingScore's does; a field without the term adds 0, which leaves a
 * sum's bits as they were: the same score to the bit.
 */
export function fourFieldScore(coefficients: Float64Array, tuples: Uint8Array, p: number, lengths: number, lengthNorms: Float64Array, normConstant: number): number {
  const t0 = tuples[p]!;
  const t1 = tuples[p + 1]!;
  const t2 = tuples[p + 2]!;
  const t3 = tuples[p + 3]!;
  return (
    (coefficients[0]! * t0) / (t0 + normConstant + lengthNorms[lengths & 255]!) +
    (coefficients[1]! * t1) / (t1 + normConstant + lengthNorms[256 + ((lengths >>> 8) & 255)]!) +
    (coefficients[2]! * t2) / (t2 + normConstant + lengthNorms[512 + ((lengths >>> 16) & 255)]!) +
    (coefficients[3]! * t3) / (t3 + normConstant + lengthNorms[768 + (lengths >>> 24)]!)
  );
}

/** gatherLengthWords' scratch: each candidate's four length codes as one word (searches run one at a time). */
let gatheredLengths = new Uint32Array(256);

/**
 * Each listed document's four length codes as one word (field f in bits 8f..8f+7), in list
 * order. The documents of a rare word lie far apart: a loop of nothing but these reads keeps
 * many cache misses in flight at once, where the scoring loop's divisions let only a few
 * overlap (a rare word's search 12% faster, measured).
 */
export function gatherLengthWords(bm25: Bm25Context, ordinals: Uint32Array, count: number): Uint32Array {
  if (gatheredLengths.length < count) gatheredLengths = new Uint32Array(Math.max(count, 2 * gatheredLengths.length));
  const gathered = gatheredLengths;
  const words = bm25.lengthWords;
  if (words !== null) {
    for (let c = 0; c < count; c++) gathered[c] = words[ordinals[c]!]!;
    return gathered;
  }
  const lengths = bm25.lengths;
  for (let c = 0; c < count; c++) {
    const l = ordinals[c]! << 2;
    gathered[c] = (lengths[l]! | (lengths[l + 1]! << 8) | (lengths[l + 2]! << 16) | (lengths[l + 3]! << 24)) >>> 0;
  }
  return gathered;
}
