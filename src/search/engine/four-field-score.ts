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
