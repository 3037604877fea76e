/**
 * Field lengths are stored in a byte, like Lucene's norms: exact up to 127 tokens, then on a
 * geometric scale (4% steps, up to ~18,000 tokens). A byte per field per document keeps the
 * lengths of a million documents in 3 MB — scoring reads them for every matching posting, in
 * no predictable order, so their size is what it costs.
 */
export const LENGTH_OF_CODE = Float64Array.from({ length: 256 }, (_, code) => (code < 128 ? code : Math.round(128 * Math.pow(1.04, code - 128))));

export function encodeLength(length: number): number {
  if (length < 128) return length;
  return Math.min(255, 128 + Math.round(Math.log(length / 128) / Math.log(1.04)));
}

/** The length a field of t tokens is stored as (rounded past 127), for t < 256: what score bounds may assume. */
export const LENGTH_OF_COUNT = Float64Array.from({ length: 256 }, (_, count) => LENGTH_OF_CODE[encodeLength(count)]!);
