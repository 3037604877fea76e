import { LENGTH_OF_CODE, LENGTH_OF_COUNT } from './field-lengths.js';
import { plainRun, type PostingRun } from './compressed-lists.js';
import { NO_ESCAPES, type CodeEscapes, type TupleCodes } from './frequency-tuples.js';
import type { IndexView } from './index-store.js';
import type { KeywordColumn } from './keyword-column.js';
import type { Bm25Context, DocumentFilter, NumberColumn, Segment, TermPlan } from './query-plan.js';
import type { SearchFilter } from './types.js';
import { VARIANT_FACTOR } from './vocabulary.js';
import type { OrdinalRun } from './value-lists.js';

/*
 * What a search is compiled into before it runs (query-plan.ts holds the types): a plan of
 * posting lists per query word, a phrase's word pairs as pair lists, the caller's filters
 * against the columns, and BM25's context. Pure reads of the index (IndexView).
 */

const K1 = 1.2;
const B = 0.75;
/** A phrase's word pair narrows through pair lists when it has at most this many variant pairs. */
const MAX_PAIR_COMBINATIONS = 16;
const NO_BYTES = new Uint8Array(0);
const NO_COEFFICIENTS = new Float64Array(0);

export interface CompiledKeywordFilter {
  column: KeywordColumn;
  allowed: Uint8Array;
  valueIds: number[];
  exclude: boolean;
  /** live documents having one of the values */
  cost: number;
  /** the values' bitmaps when every value has one (dense values), else undefined */
  bitmaps: Uint32Array[] | undefined;
}

export interface CompiledRangeFilter {
  column: NumberColumn;
  min: number;
  max: number;
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** Four fields' length codes as a word a document, over the same memory; null where the bytes cannot be read so. */
function lengthWordsOf(lengths: Uint8Array, fields: number): Uint32Array | null {
  if (fields !== 4 || !LITTLE_ENDIAN || lengths.byteOffset % 4 !== 0) return null;
  return new Uint32Array(lengths.buffer, lengths.byteOffset, lengths.length >>> 2);
}

/** BM25's context for an index of `fields` text fields, before its first refresh (refreshBm25Context). */
export function newBm25Context(fields: number, lengths: Uint8Array): Bm25Context {
  return {
    fields,
    lengths,
    lengthWords: lengthWordsOf(lengths, fields),
    lengthNorms: new Float64Array(fields * 256),
    lengthOfCount: LENGTH_OF_COUNT,
    minLengths: new Float64Array(fields),
    normConstant: K1 * (1 - B),
    normPerLength: new Float64Array(fields),
  };
}

/** A segment of the run's documents (every segment made here: one object shape for the loops). */
function segmentOf(
  run: PostingRun,
  start: number,
  end: number,
  bitmap: Uint32Array | null,
  ranks: Uint8Array | null,
  rankGroups: Uint32Array | null,
  codes: TupleCodes,
  codeShift: number,
  escapes: CodeEscapes,
  tuples: Uint8Array,
  coefficients: Float64Array,
): Segment {
  return {
    words: run.words,
    wordBase: run.wordBase,
    width: run.width,
    mask: run.mask,
    blocks: run.blocks,
    firstBlock: run.firstBlock,
    blockShift: run.blockShift,
    start,
    end,
    bitmap,
    ranks,
    rankGroups,
    codes,
    codeShift,
    escapes,
    tuples,
    coefficients,
  };
}

export function planFor(index: IndexView, variants: Map<number, number>): TermPlan {
  const fields = index.fields;
  const postings = index.postings;
  const frequency = index.vocabulary.frequency;
  // idf of the word as written (its exact and stem forms), else of its most frequent variant
  let literalFrequency = 0;
  let anyFrequency = 0;
  for (const [id, factor] of variants) {
    const f = frequency[id]!;
    if (factor >= VARIANT_FACTOR.stem && f > literalFrequency) literalFrequency = f;
    if (f > anyFrequency) anyFrequency = f;
  }
  const df = literalFrequency > 0 ? literalFrequency : anyFrequency;
  const idf = Math.log(1 + (index.liveCount - df + 0.5) / (df + 0.5));
  const segments: Segment[] = [];
  let cost = 0;
  const ordered = [...variants.keys()];
  if (ordered.length > 1) ordered.sort((a, b) => a - b);
  // one array per kind of variant (exact, stem, …): lists that share it share a bound table
  const coefficientsOf = new Map<number, Float64Array>();
  for (const id of ordered) {
    const factor = variants.get(id)!;
    let coefficients = coefficientsOf.get(factor);
    if (coefficients === undefined) {
      coefficients = new Float64Array(fields);
      for (let f = 0; f < fields; f++) coefficients[f] = factor * idf * index.fieldWeights[f]! * (K1 + 1);
      coefficientsOf.set(factor, coefficients);
    }
    if (id < postings.baseKeyCount) {
      const start = postings.baseStart[id]!;
      const end = postings.baseStart[id + 1]!;
      if (end > start) {
        // a dense list's run is empty: its bitmap has the documents, its codes are bytes (see PostingStore.denseCodes)
        const bitmap = postings.denseBitmaps[id] ?? null;
        const run = postings.baseRun(id);
        if (bitmap === null) segments.push(segmentOf(run, run.start, run.end, null, null, null, postings.baseCodes, 1, postings.baseEscapes, postings.tuples.bytes, coefficients));
        else segments.push(segmentOf(run, run.start, run.start + end - start, bitmap, postings.denseRanks[id]!, postings.denseRankGroups[id]!, postings.denseCodes, 0, postings.denseEscapes, postings.tuples.bytes, coefficients));
      }
      cost += end - start;
    }
    const tailLength = id < postings.tailLength.length ? postings.tailLength[id]! : 0;
    if (tailLength > 0) {
      segments.push(segmentOf(plainRun(postings.tailDocs[id]!, tailLength), 0, tailLength, null, null, null, postings.tailCodes[id]!, 1, postings.tailEscapes[id]!, postings.tuples.bytes, coefficients));
      cost += tailLength;
    }
  }
  return { segments, cost };
}

/** BM25's context for the index as it is now: `context` (one object per index), refreshed in place for each search. */
export function refreshBm25Context(index: IndexView, context: Bm25Context): Bm25Context {
  for (let f = 0; f < index.fields; f++) {
    const average = index.liveCount > 0 ? index.lengthSums[f]! / index.liveCount : 0;
    const perLength = average > 0 ? (K1 * B) / average : 0;
    // the table follows the average, which any write may move (both start at 0)
    if (perLength !== context.normPerLength[f]) {
      context.normPerLength[f] = perLength;
      for (let code = 0; code < 256; code++) context.lengthNorms[f * 256 + code] = perLength * LENGTH_OF_CODE[code]!;
    }
    context.minLengths[f] = LENGTH_OF_CODE[index.minLengthCode[f]!]!;
  }
  if (context.lengths !== index.lengths) {
    const lengths = index.lengths;
    context.lengths = lengths;
    context.lengthWords = lengthWordsOf(lengths, index.fields);
  }
  return context;
}

export function compileFilters(index: IndexView, filters: readonly SearchFilter[]): { keyword: CompiledKeywordFilter[]; range: CompiledRangeFilter[] } {
  const keyword: CompiledKeywordFilter[] = [];
  const range: CompiledRangeFilter[] = [];
  for (const filter of filters) {
    if ('anyOf' in filter) {
      const column = index.columnByName.get(filter.attribute);
      if (!column) throw new RangeError(`search index: ${filter.attribute} is not a keyword attribute`);
      const allowed = new Uint8Array(Math.max(1, column.valueCount));
      const valueIds: number[] = [];
      let cost = 0;
      for (const value of filter.anyOf) {
        const id = column.idOf(value);
        if (id === undefined || allowed[id] === 1) continue;
        allowed[id] = 1;
        valueIds.push(id);
        cost += column.liveCounts[id]!;
      }
      const exclude = filter.exclude === true;
      // A filter every live document passes changes nothing and costs a pass: excluded values no
      // live document has, or the values of every live document of a one-value-per-document
      // attribute (images only, in a catalogue of images).
      if (exclude ? cost === 0 : column.singleValued && cost === index.liveCount && index.liveCount > 0) continue;
      const bitmaps = valueIds.map((id) => column.bitmaps[id]);
      const dense = valueIds.length > 0 && bitmaps.every((bitmap) => bitmap !== undefined && bitmap !== null);
      keyword.push({ column, allowed, valueIds, exclude, cost, bitmaps: dense ? (bitmaps as Uint32Array[]) : undefined });
    } else {
      const column = index.numericNames.indexOf(filter.attribute);
      if (column === -1) throw new RangeError(`search index: ${filter.attribute} is not a numeric attribute`);
      const min = typeof filter.min === 'number' && !Number.isNaN(filter.min) ? filter.min : -Infinity;
      const max = typeof filter.max === 'number' && !Number.isNaN(filter.max) ? filter.max : Infinity;
      range.push({ column: index.numbers[column]!, min, max });
    }
  }
  return { keyword, range };
}

export function documentFilters(keyword: readonly CompiledKeywordFilter[], range: readonly CompiledRangeFilter[]): DocumentFilter[] {
  const filters: DocumentFilter[] = [];
  for (const { column, allowed, exclude } of keyword) {
    if (column.singleValued) {
      const shifted = new Uint8Array(allowed.length + 1);
      shifted.set(allowed, 1);
      filters.push({ kind: 'single', single: column.single, shape: column.singleShape, allowed: shifted, exclude });
    } else if (column.masked) {
      let bits = 0;
      for (let value = 0; value < allowed.length; value++) if (allowed[value] !== 0) bits |= 1 << value;
      filters.push({ kind: 'masks', masks: column.masks, allowed: bits, exclude });
    } else {
      filters.push({ kind: 'multi', blockStart: column.blockStart, docOffset: column.docOffset, values: column.docValues, allowed, exclude });
    }
  }
  for (const { column, min, max } of range) filters.push({ kind: 'range', column, min, max });
  return filters;
}

/**
 * The documents of a keyword filter's values: the lists (base and tail) of the values that have
 * lists, and the bitmaps of the dense ones, which have no base list (see KeywordColumn).
 */
export function valueLists(filter: CompiledKeywordFilter): { lists: OrdinalRun[]; bitmaps: Uint32Array[] } {
  const column = filter.column;
  const listed: number[] = [];
  const bitmaps: Uint32Array[] = [];
  for (const value of filter.valueIds) {
    const bitmap = column.bitmaps[value];
    // the bitmap has the documents appended since the build too
    if (bitmap) bitmaps.push(bitmap);
    else listed.push(value);
  }
  return { lists: column.lists.listsOf(listed), bitmaps };
}

/**
 * The documents where a word of `left` (variant ids) directly precedes one of `right`, from
 * the pair lists; undefined unless every such pair has a list (both words common).
 */
export function pairPlanFor(index: IndexView, left: readonly number[], right: readonly number[]): TermPlan | undefined {
  if (left.length * right.length > MAX_PAIR_COMBINATIONS) return undefined;
  const postings = index.pairs.postings;
  const segments: Segment[] = [];
  let cost = 0;
  for (const a of left) {
    for (const b of right) {
      const key = index.pairs.keyOf(a, b);
      if (key < 0) return undefined;
      // never scored: no term frequencies, no coefficients
      const start = postings.baseStart[key]!;
      const end = postings.baseStart[key + 1]!;
      if (end > start) {
        const run = postings.baseRun(key);
        segments.push(segmentOf(run, run.start, run.end, null, null, null, NO_BYTES, 1, NO_ESCAPES, NO_BYTES, NO_COEFFICIENTS));
      }
      const tailLength = key < postings.tailLength.length ? postings.tailLength[key]! : 0;
      if (tailLength > 0) segments.push(segmentOf(plainRun(postings.tailDocs[key]!, tailLength), 0, tailLength, null, null, null, NO_BYTES, 1, NO_ESCAPES, NO_BYTES, NO_COEFFICIENTS));
      cost += end - start + tailLength;
    }
  }
  return { segments, cost };
}
