/*
 * What a query is compiled into (by the index's planner) and what the candidate set's loops
 * read: posting lists as segments, a token's plan, BM25's context, per-document filters.
 */

import type { PostingRun } from './compressed-lists.js';
import type { CodeEscapes, TupleCodes } from './frequency-tuples.js';
import type { DocOffsets, DocValues, SingleShape, SingleValues, ValueMasks } from './keyword-column.js';

/**
 * A run of postings `start..end` (see PostingRun for their documents) — or, for a dense list
 * (`bitmap` not null: the run holds no documents), of the documents of the bitmap's set bits,
 * the posting of document d being `start + rankGroups[w >>> RANK_GROUP_SHIFT] + ranks[w] + (set
 * bits of its word below d)`, w = d >>> 5 (see PostingStore.denseRanks).
 * A posting's term frequency in field f is `tuples[code * fields + f]`, its code being
 * `codeAt(codes, codeShift, escapes, posting)` (see frequency-tuples.ts).
 */
export interface Segment extends PostingRun {
  /** the documents as a bitmap, for a dense list (else null) */
  bitmap: Uint32Array | null;
  /** with the bitmap: postings before each of its words, from their group of words, and before each group (see PostingStore.denseRanks) */
  ranks: Uint8Array | null;
  rankGroups: Uint32Array | null;
  codes: TupleCodes;
  /** 1: `codes` four bits a posting; 0: a byte (a dense list's, see PostingStore.denseCodes) */
  codeShift: number;
  escapes: CodeEscapes;
  /** the frequency tuples the codes stand for, `fields` bytes each */
  tuples: Uint8Array;
  /** per field: variant factor × idf × field weight × (k1 + 1) */
  coefficients: Float64Array;
}

/** One query token: the posting lists of all its variants (their union matches it). */
export interface TermPlan {
  segments: Segment[];
  /** postings to read when scanning */
  cost: number;
}

/** What BM25 needs besides the postings: k1·(1 − b), k1·b / average length per field, lengths. */
export interface Bm25Context {
  fields: number;
  /** length codes, `fields` per document */
  lengths: Uint8Array;
  /** the same lengths as one 32-bit word per document, when there are four fields and the bytes are aligned for it */
  lengthWords: Uint32Array | null;
  /**
   * `lengthNorms[f * 256 + code]` = normPerLength[f] × the length of the code: the length's
   * part of a field's denominator, one read per field instead of two and a product
   */
  lengthNorms: Float64Array;
  /**
   * the length a field holding t tokens is stored as, for t < 256: the shortest a field with a
   * term t times can look to scoring (lengths are stored rounded, see encodeLength)
   */
  lengthOfCount: Float64Array;
  /** per field, a length no live document is below (for score upper bounds) */
  minLengths: Float64Array;
  normConstant: number;
  normPerLength: Float64Array;
}

/**
 * A numeric attribute's values by ordinal, in the narrowest of three kinds (see
 * IndexStore.setNumber): two bytes a value while every document has one and every value is a
 * whole number of int16 (a long edge, a rank, a clip's seconds, a count so far); four while
 * every value is a float32 exactly, NaN where missing (counts, sizes, small scores); eight
 * from the first that is not (dates in seconds). Read as numbers, all answer alike: an int16
 * column has no missing value, so NaN keeps meaning "missing" (it fails every range and sorts
 * last) with no sentinel for the readers to check.
 * Not more kinds (a byte for a rank, int32 for a date): a loop that reads columns of more than
 * three element kinds at one site goes megamorphic (a range filter's loop measured 5–8 times
 * slower with five kinds, 1.8 times with four, as fast with three).
 */
export type NumberColumn = Int16Array | Float32Array | Float64Array;

/**
 * A filter checked per document (those that are not bitmaps): a single-valued keyword column
 * (value id + 1 of document d read from `single` as `shape` says; `allowed` shifted by one, so `allowed[0]` is "no value"), a
 * multi-valued one as bitmasks (`allowed`: the bits of the allowed values) or as offsets +
 * values (document d's values from blockStart[d >>> 5] + docOffset[d], see KeywordColumn.startOf),
 * or a numeric range (NaN, a missing value, fails it).
 */
export type DocumentFilter =
  | { kind: 'single'; single: SingleValues; shape: SingleShape; allowed: Uint8Array; exclude: boolean }
  | { kind: 'masks'; masks: ValueMasks; allowed: number; exclude: boolean }
  | { kind: 'multi'; blockStart: Uint32Array; docOffset: DocOffsets; values: DocValues; allowed: Uint8Array; exclude: boolean }
  | { kind: 'range'; column: NumberColumn; min: number; max: number };
