import { parseQuery, renderQuery, tokenize } from './analyzer.js';
import type { QueryClause } from './analyzer.js';
import { CandidateSet, LOOKUP_RATIO } from './candidate-set.js';
import { CommonPairs } from './common-pairs.js';
import { PhraseTerms } from './phrase-match.js';
import type { Bm25Context, DocumentFilter, Segment, TermPlan } from './query-plan.js';
import { codeAt, ELEMENT_BREAK, FIELD_END, MAX_TERMS, TERM_CODE, unitsOf, writeCode } from './forward-codes.js';
import { KeywordColumn } from './keyword-column.js';
import { PostingStore } from './posting-store.js';
import { SnapshotReader, SnapshotWriter, type SnapshotSource } from './snapshot-format.js';
import { bestByComparator, buildOrder, compareOrdinals, takeInOrder } from './sorted-order.js';
import type { OrderLevel } from './sorted-order.js';
import { keysFromColumn, selectTop } from './top-k.js';
import type { Placement, TieBreak } from './top-k.js';
import { ensureCapacity, hashString, idOrderKey, mix32, trimmed } from './typed-arrays.js';
import type { FacetCount, IndexDocument, IndexSchema, SearchFilter, SearchQuery, SearchResult, SortNumbers } from './types.js';
import { VARIANT_FACTOR, Vocabulary } from './vocabulary.js';

export type {
  FacetCount,
  IndexDocument,
  IndexSchema,
  KeywordFilter,
  RangeFilter,
  SearchFilter,
  SearchQuery,
  SearchResult,
  SearchSort,
  SortNumbers,
} from './types.js';


const K1 = 1.2;
const B = 0.75;
const MAX_TERM_FREQUENCY = 0xff;
const DEFAULT_LIMIT = 30;
/** Phrase positions are bits of a 32-bit state. */
const MAX_PHRASE_TOKENS = 31;
/** A keyword filter drives the search (its documents are the first candidates) when it is this much more selective. */
const FILTER_DRIVER_RATIO = 4;
/** A driver starts as a list (no bitmap) when its postings are at most a 1/LIST_FIRST_RATIO of the bitmap's words ... */
const LIST_FIRST_RATIO = 2;

const byCost = (a: TermPlan, b: TermPlan): number => a.cost - b.cost;
/** ... and, when they come in several lists that must be merged by sorting, at most this many. */
const MAX_SORTED_LIST_FIRST = 1024;
/**
 * Automatic compaction (O(index): seconds at a million documents, so rare): when deleted
 * documents are this share of all ordinals ...
 */
const DEAD_SHARE_TO_COMPACT = 0.25;
const MIN_DOCS_TO_COMPACT = 1_000;
/** ... or the tail (documents added since the last build) has outgrown the base, and has this many. */
const TAIL_SHARE_TO_REBUILD = 1;
const MIN_TAIL_TO_REBUILD = 50_000;
/** upsertMany rebuilds the base rather than appending to tails when the batch is this share of the index. */
const BULK_SHARE_TO_REBUILD = 0.1;
/** A phrase's word pair narrows through pair lists when it has at most this many variant pairs. */
const MAX_PAIR_COMBINATIONS = 16;
const NO_BYTES = new Uint8Array(0);
const NO_COEFFICIENTS = new Float64Array(0);

const DEFAULT_SORT_NUMBERS: SortNumbers = { date: 'date', popularity: 'popularity', quality: 'quality' };
/** A level of a sort: the relevance score, or a numeric attribute (by its role in SortNumbers) with its sign (1: higher first). */
type SortLevel = 'relevance' | { number: keyof SortNumbers; sign: 1 | -1 };
/** The levels of each sort but random, most significant first; the id settles what they leave tied. */
const SORT_LEVELS: Readonly<Record<string, readonly SortLevel[]>> = {
  best_match: ['relevance', { number: 'quality', sign: 1 }, { number: 'popularity', sign: 1 }],
  newest: [{ number: 'date', sign: 1 }, 'relevance'],
  oldest: [{ number: 'date', sign: -1 }, 'relevance'],
  most_popular: [{ number: 'popularity', sign: 1 }, 'relevance'],
};
/** Every sort: those with levels, and random. */
const SORTS: ReadonlySet<string> = new Set([...Object.keys(SORT_LEVELS), 'random']);

/** `keys[c]`: a hash of the document's id hash and the seed, for the random sort. */
function randomKeys(keys: Float64Array, idHash: Uint32Array, seed: number, ordinals: Uint32Array, count: number): void {
  for (let c = 0; c < count; c++) keys[c] = mix32(idHash[ordinals[c]!]! ^ seed);
  return;
}

/**
 * Field lengths are stored in a byte, like Lucene's norms: exact up to 127 tokens, then on a
 * geometric scale (4% steps, up to ~18,000 tokens). A byte per field per document keeps the
 * lengths of a million documents in 3 MB — scoring reads them for every matching posting, in
 * no predictable order, so their size is what it costs.
 */
const LENGTH_OF_CODE = Float64Array.from({ length: 256 }, (_, code) => (code < 128 ? code : Math.round(128 * Math.pow(1.04, code - 128))));

function encodeLength(length: number): number {
  if (length < 128) return length;
  return Math.min(255, 128 + Math.round(Math.log(length / 128) / Math.log(1.04)));
}

/** The length a field of t tokens is stored as (rounded past 127), for t < 256: what score bounds may assume. */
const LENGTH_OF_COUNT = Float64Array.from({ length: 256 }, (_, count) => LENGTH_OF_CODE[encodeLength(count)]!);

/** A count from a caller: a finite number ≥ 0, rounded down; the fallback otherwise. */
/** Writes `codes[0..count)` at `at`; returns the end. */
function encodeCodes(codes: Uint32Array, count: number, out: Uint16Array, at: number): number {
  let w = at;
  for (let i = 0; i < count; i++) w = writeCode(out, w, codes[i]!);
  return w;
}

function wholeNumber(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.floor(value)) : fallback;
}

interface CompiledKeywordFilter {
  column: KeywordColumn;
  allowed: Uint8Array;
  valueIds: number[];
  exclude: boolean;
  /** live documents having one of the values */
  cost: number;
  /** the values' bitmaps when every value has one (dense values), else undefined */
  bitmaps: Uint32Array[] | undefined;
}

interface CompiledRangeFilter {
  column: Float64Array;
  min: number;
  max: number;
}

/** Allowed term ids per position of a phrase. */
type PhrasePositions = number[][];

/**
 * An in-process full-text and attribute index over document ordinals and typed arrays.
 *
 * Layout (ordinals are dense and given in arrival order; an upsert of a known id deletes the
 * old ordinal and appends a new one, so every list only ever grows at its end):
 * - forward token stream: each document's term ids, field after field (FIELD_END after each,
 *   ELEMENT_BREAK between list values). Phrases are verified on it, deletions read it, and
 *   the inverted lists are rebuilt from it.
 * - inverted lists (PostingStore; payload = term frequency per field, a byte each): a frozen
 *   base plus per-term tails for live upserts, folded together by `compact()` — which also
 *   drops deleted documents and unused terms — once deletions or the tail pass a share.
 * - field lengths (a byte per field per document, exact to 127) with live sums for BM25's
 *   average lengths; live document frequencies per term (Vocabulary); a bitmap of the live
 *   ordinals (a deleted document's bit is its tombstone until the next compaction).
 * - keyword columns (KeywordColumn: per document, per value, dense values as bitmaps) and
 *   numeric columns (Float64Array, NaN = missing).
 *
 * A query (see `search`) narrows a bitmap of candidates — the cheapest requirement's lists,
 * AND the other tokens' lists, AND dense filter values, per-document checks for the rest —
 * then lists the survivors and scores, counts facets and ranks only those (CandidateSet).
 *
 * Scores depend on live documents only (frequencies and lengths are kept for live ones) and
 * every ordering ends on the id, so a search answers the same before and after a compaction
 * or a snapshot round trip.
 */
export class SearchIndex {
  private readonly schema: IndexSchema;
  private readonly fieldNames: readonly string[];
  private readonly fieldWeights: Float64Array;
  private readonly fields: number;
  private readonly columns: KeywordColumn[];
  private readonly columnByName: Map<string, KeywordColumn>;
  private readonly numericNames: readonly string[];
  private numbers: Float64Array[];

  // documents
  private docCount = 0;
  private liveCount = 0;
  private deadCount = 0;
  /** ordinals below this are in the base posting lists, later ones in the tails */
  private baseDocCount = 0;
  /** ordinals below this are in the posting lists (base or tails); later ones wait (upsertMany) */
  private indexedDocCount = 0;
  private ids: string[] = [];
  private ordinalOf = new Map<string, number>();
  private live: Uint32Array = new Uint32Array(1);
  private idHash: Uint32Array = new Uint32Array(16);
  /** idOrderKey of each id: cheap id comparisons for ties */
  private idKey: Float64Array = new Float64Array(16);
  /** field lengths, a byte each (see encodeLength), interleaved by document */
  private lengths: Uint8Array;
  private readonly lengthSums: Float64Array;
  /** per field, the smallest length code ever stored (a lower bound of every live length) */
  private readonly minLengthCode: Uint8Array;
  /** where each document's codes start in `forward` (in units) */
  private forwardStart: Uint32Array = new Uint32Array(16);
  /** each document's tokens as codes (see forward-codes.ts) */
  private forward: Uint16Array = new Uint16Array(4096);
  /** scratch: the codes of the document being appended, before they are encoded */
  private docCodes: Uint32Array = new Uint32Array(1024);

  // terms
  private readonly vocabulary = new Vocabulary();
  private readonly postings: PostingStore;
  /** lists of adjacent common terms, for phrases (see common-pairs.ts) */
  private readonly pairs = new CommonPairs();

  // scratch: distinct terms of one document
  private termMark: Uint32Array = new Uint32Array(1024);
  private termSlot: Uint32Array = new Uint32Array(1024);
  private markGeneration = 0;
  private docTerms: Uint32Array = new Uint32Array(256);
  private docTermTfs: Uint8Array = new Uint8Array(256);
  private docTermCount = 0;
  /** tokens written by the last appendText */
  private appendedTokens = 0;

  // scratch: one query at a time (search is synchronous)
  private readonly candidates = new CandidateSet();
  private readonly bm25: Bm25Context;
  /** presorted base ordinals for browsing, by sort levels (see sorted-order.ts); emptied when ordinals change */
  private readonly sortedOrders = new Map<string, Uint32Array>();
  /** the inverse of a sorted order (base ordinal → its place), by the same key; emptied with them */
  private readonly sortedRanks = new Map<string, Uint32Array>();
  /** best_match's placement with the default sort numbers (see placeForBestMatch), for the base of the last rebuild */
  private defaultPlacement: Placement | undefined;

  constructor(schema: IndexSchema) {
    this.schema = {
      textFields: { ...schema.textFields },
      keywordAttributes: [...schema.keywordAttributes],
      numericAttributes: [...schema.numericAttributes],
    };
    this.fieldNames = Object.keys(schema.textFields);
    this.fields = this.fieldNames.length;
    this.fieldWeights = new Float64Array(this.fieldNames.map((name) => schema.textFields[name]!));
    for (const weight of this.fieldWeights) {
      if (!(weight >= 0)) throw new RangeError('search index: text field weights must be numbers ≥ 0');
    }
    for (const names of [schema.keywordAttributes, schema.numericAttributes]) {
      if (new Set(names).size !== names.length) throw new RangeError(`search index: an attribute is named twice in ${names.join(', ')}`);
    }
    this.columns = schema.keywordAttributes.map((name) => new KeywordColumn(name));
    this.columnByName = new Map(this.columns.map((column) => [column.name, column]));
    this.numericNames = [...schema.numericAttributes];
    this.numbers = this.numericNames.map(() => new Float64Array(16).fill(NaN));
    this.lengths = new Uint8Array(16 * Math.max(1, this.fields));
    this.lengthSums = new Float64Array(this.fields);
    this.minLengthCode = new Uint8Array(this.fields).fill(255);
    this.postings = new PostingStore(this.fields);
    this.bm25 = {
      fields: this.fields,
      lengths: this.lengths,
      lengthNorms: new Float64Array(this.fields * 256),
      lengthOfCount: LENGTH_OF_COUNT,
      minLengths: new Float64Array(this.fields),
      normConstant: K1 * (1 - B),
      normPerLength: new Float64Array(this.fields),
    };
  }

  /** Live documents. */
  get size(): number {
    return this.liveCount;
  }

  has(id: string): boolean {
    return this.ordinalOf.has(id);
  }

  /** Adds a document, replacing the one with its id; searchable at once. */
  upsert(doc: IndexDocument): void {
    this.indexPending();
    const existing = this.ordinalOf.get(doc.id);
    if (existing !== undefined) this.tombstone(existing);
    const ordinal = this.append(doc);
    this.indexTail(ordinal);
    this.indexedDocCount = this.docCount;
    this.compactIfDue();
  }

  /**
   * Adds many documents (the boot-time build, large batches, pages of a store scan): each is
   * only appended to the forward stream and the columns. Their posting lists are made when
   * the index is next searched or upserted into (or by `compact()`): all in one counting pass
   * over the stream when they are many, so a build fed page by page costs one bulk build.
   */
  upsertMany(docs: Iterable<IndexDocument>): void {
    for (const doc of docs) {
      const existing = this.ordinalOf.get(doc.id);
      if (existing !== undefined) this.tombstone(existing);
      this.append(doc);
    }
  }

  /**
   * Puts the documents appended by upsertMany into the posting lists: a rebuild of the base
   * when they are a large share of the index (or there is no base yet), else the tails.
   */
  private indexPending(): void {
    const pending = this.docCount - this.indexedDocCount;
    if (pending === 0) return;
    if (this.baseDocCount === 0 || pending >= BULK_SHARE_TO_REBUILD * this.liveCount) {
      this.compact();
      return;
    }
    for (let ordinal = this.indexedDocCount; ordinal < this.docCount; ordinal++) {
      if (this.isLive(ordinal)) this.indexTail(ordinal);
    }
    this.indexedDocCount = this.docCount;
    this.compactIfDue();
  }

  /** Deletes a document (nothing happens for an unknown id). */
  remove(id: string): void {
    const ordinal = this.ordinalOf.get(id);
    if (ordinal === undefined) return;
    this.tombstone(ordinal);
    this.compactIfDue();
  }

  // ---------------------------------------------------------------------------------------
  // Writing

  private append(doc: IndexDocument): number {
    if (typeof doc.id !== 'string') throw new TypeError('search index: a document needs a string id');
    const ordinal = this.docCount;
    const fields = this.fields;
    if (ordinal + 2 > this.forwardStart.length) this.growDocumentArrays(ordinal + 2);

    let position = 0;
    for (let f = 0; f < fields; f++) {
      const value = doc.text[this.fieldNames[f]!];
      let length = 0;
      if (typeof value === 'string') {
        position = this.appendText(value, position, false);
        length = this.appendedTokens;
      } else if (value !== undefined && value !== null) {
        for (const text of value) {
          if (typeof text !== 'string') continue;
          position = this.appendText(text, position, length > 0);
          length += this.appendedTokens;
        }
      }
      this.docCodes = ensureCapacity(this.docCodes, position + 1);
      this.docCodes[position++] = FIELD_END;
      const code = encodeLength(length);
      this.lengths[ordinal * fields + f] = code;
      if (code < this.minLengthCode[f]!) this.minLengthCode[f] = code;
      this.lengthSums[f] = this.lengthSums[f]! + LENGTH_OF_CODE[code]!;
    }
    this.forwardStart[ordinal + 1] = this.encodeDocument(this.forwardStart[ordinal]!, position);

    for (const column of this.columns) column.append(ordinal, doc.keywords[column.name]);
    for (let n = 0; n < this.numbers.length; n++) {
      const value = doc.numbers[this.numericNames[n]!];
      this.numbers[n]![ordinal] = typeof value === 'number' && Number.isFinite(value) ? value : NaN;
    }
    this.idHash[ordinal] = hashString(doc.id);
    this.idKey[ordinal] = idOrderKey(doc.id);
    this.live[ordinal >>> 5] = this.live[ordinal >>> 5]! | (1 << (ordinal & 31));
    this.ids.push(doc.id);
    this.ordinalOf.set(doc.id, ordinal);
    this.docCount++;
    this.liveCount++;

    this.countDocumentTerms(ordinal);
    return ordinal;
  }

  /** Makes room in every per-document array for `needed` ordinals (checked once per document, not per array). */
  private growDocumentArrays(needed: number): void {
    this.forwardStart = ensureCapacity(this.forwardStart, needed);
    const capacity = this.forwardStart.length;
    this.live = ensureCapacity(this.live, (capacity + 31) >>> 5);
    this.idHash = ensureCapacity(this.idHash, capacity);
    this.idKey = ensureCapacity(this.idKey, capacity);
    this.lengths = ensureCapacity(this.lengths, capacity * Math.max(1, this.fields));
    for (let n = 0; n < this.numbers.length; n++) this.numbers[n] = ensureCapacity(this.numbers[n]!, capacity, NaN);
  }

  /**
   * Writes the term ids of one text value to the forward stream at `position` (after an
   * ELEMENT_BREAK when `separate` and the value has a token); returns the new position.
   * ASCII text is tokenized in place by the rules of `tokenize` and looked up without making
   * a string per token; other text goes through `tokenize`.
   */
  private appendText(text: string, position: number, separate: boolean): number {
    const n = text.length;
    // n + 2 bounds the tokens of ASCII text and the break
    this.docCodes = ensureCapacity(this.docCodes, position + n + 2);
    const codes = this.docCodes;
    const vocabulary = this.vocabulary;
    let p = position;
    let start = -1;
    let apostrophes = false;
    let count = 0;
    for (let i = 0; i <= n; i++) {
      const code = i < n ? text.charCodeAt(i) : 32;
      if (code > 127) return this.appendTokens(tokenize(text), position, separate);
      if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90)) {
        if (start < 0) start = i;
      } else if (code === 39 || code === 96) {
        if (start >= 0) apostrophes = true;
      } else if (start >= 0) {
        let id: number;
        if (apostrophes) {
          id = this.termId(text.slice(start, i).replace(/['`]/g, '').toLowerCase());
          apostrophes = false;
        } else {
          id = vocabulary.findRange(text, start, i);
          if (id < 0) id = this.termId(text.slice(start, i).toLowerCase());
        }
        if (count === 0 && separate) codes[p++] = ELEMENT_BREAK;
        codes[p++] = id + TERM_CODE;
        count++;
        start = -1;
      }
    }
    this.appendedTokens = count;
    return p;
  }

  private appendTokens(tokens: readonly string[], position: number, separate: boolean): number {
    this.docCodes = ensureCapacity(this.docCodes, position + tokens.length + 1);
    let p = position;
    if (separate && tokens.length > 0) this.docCodes[p++] = ELEMENT_BREAK;
    for (const token of tokens) this.docCodes[p++] = this.termId(token) + TERM_CODE;
    this.appendedTokens = tokens.length;
    return p;
  }

  /** Writes `docCodes[0..count)` to the forward stream at byte `at`; returns the end. */
  private encodeDocument(at: number, count: number): number {
    this.forward = ensureCapacity(this.forward, at + 3 * count);
    return encodeCodes(this.docCodes, count, this.forward, at);
  }

  private termId(token: string): number {
    const id = this.vocabulary.idOf(token);
    if (id >= MAX_TERMS) throw new RangeError(`search index: more than ${MAX_TERMS} distinct terms`);
    if (id >= this.termMark.length) {
      this.termMark = ensureCapacity(this.termMark, id + 1);
      this.termSlot = ensureCapacity(this.termSlot, id + 1);
    }
    return id;
  }

  private nextMark(): number {
    if (this.markGeneration >= 0xfffffff0) {
      this.termMark.fill(0);
      this.markGeneration = 0;
    }
    return ++this.markGeneration;
  }

  /** Adds one to the live frequency of each distinct term of a document. */
  private countDocumentTerms(ordinal: number): void {
    const mark = this.nextMark();
    const forward = this.forward;
    const termMark = this.termMark;
    const frequency = this.vocabulary.frequency;
    for (let j = this.forwardStart[ordinal]!, end = this.forwardStart[ordinal + 1]!; j < end; ) {
      const code = codeAt(forward, j);
      j += unitsOf(code);
      const term = code - TERM_CODE;
      if (term >= 0 && termMark[term] !== mark) {
        termMark[term] = mark;
        frequency[term]!++;
      }
    }
    return;
  }

  /** Fills docTerms / docTermTfs with the distinct terms of a document and their frequency per field. */
  private collectDocumentTerms(ordinal: number): void {
    const fields = this.fields;
    const mark = this.nextMark();
    const forward = this.forward;
    const termMark = this.termMark;
    const termSlot = this.termSlot;
    const start = this.forwardStart[ordinal]!;
    const end = this.forwardStart[ordinal + 1]!;
    // a document has at most one code per unit
    this.docTerms = ensureCapacity(this.docTerms, end - start);
    this.docTermTfs = ensureCapacity(this.docTermTfs, (end - start) * fields);
    const docTerms = this.docTerms;
    const tfs = this.docTermTfs;
    let count = 0;
    let field = 0;
    for (let j = start; j < end; ) {
      const code = codeAt(forward, j);
      j += unitsOf(code);
      const term = code - TERM_CODE;
      if (term < 0) {
        if (code === FIELD_END) field++;
        continue;
      }
      let slot: number;
      if (termMark[term] !== mark) {
        termMark[term] = mark;
        slot = count++;
        termSlot[term] = slot;
        docTerms[slot] = term;
        tfs.fill(0, slot * fields, slot * fields + fields);
      } else {
        slot = termSlot[term]!;
      }
      const p = slot * fields + field;
      if (tfs[p]! < MAX_TERM_FREQUENCY) tfs[p]!++;
    }
    this.docTermCount = count;
  }

  private indexTail(ordinal: number): void {
    this.collectDocumentTerms(ordinal);
    for (let i = 0; i < this.docTermCount; i++) {
      this.postings.add(this.docTerms[i]!, ordinal, this.docTermTfs, i * this.fields);
    }
    this.pairs.addDocument(this.forward, this.forwardStart[ordinal]!, this.forwardStart[ordinal + 1]!, ordinal);
    for (const column of this.columns) column.indexTail(ordinal);
  }

  private isLive(ordinal: number): boolean {
    return (this.live[ordinal >>> 5]! & (1 << (ordinal & 31))) !== 0;
  }

  private tombstone(ordinal: number): void {
    if (!this.isLive(ordinal)) return;
    this.live[ordinal >>> 5] = this.live[ordinal >>> 5]! & ~(1 << (ordinal & 31));
    this.liveCount--;
    this.deadCount++;
    const fields = this.fields;
    for (let f = 0; f < fields; f++) this.lengthSums[f] = this.lengthSums[f]! - LENGTH_OF_CODE[this.lengths[ordinal * fields + f]!]!;
    this.collectDocumentTerms(ordinal);
    const frequency = this.vocabulary.frequency;
    for (let i = 0; i < this.docTermCount; i++) frequency[this.docTerms[i]!]!--;
    for (const column of this.columns) column.release(ordinal);
    const id = this.ids[ordinal]!;
    if (this.ordinalOf.get(id) === ordinal) this.ordinalOf.delete(id);
  }

  /** Sets the live bits of ordinals 0..count-1. */
  private markAllLive(count: number): void {
    this.live.fill(0xffffffff, 0, count >>> 5);
    if ((count & 31) !== 0) this.live[count >>> 5] = (1 << (count & 31)) - 1;
  }

  private compactIfDue(): void {
    const tail = this.docCount - this.baseDocCount;
    if (
      (this.docCount >= MIN_DOCS_TO_COMPACT && this.deadCount > DEAD_SHARE_TO_COMPACT * this.docCount) ||
      (tail >= MIN_TAIL_TO_REBUILD && tail > TAIL_SHARE_TO_REBUILD * this.baseDocCount)
    ) {
      this.compact();
    }
  }

  /**
   * Drops deleted documents (renumbering ordinals) and terms no live document uses, and
   * rebuilds every inverted list as one frozen base. Runs by itself when deletions or the
   * tail pass a share of the index; O(size of the index).
   */
  compact(): void {
    const fields = this.fields;
    // 1. Documents: each live one moves down to its new ordinal, in place.
    let next = 0;
    let write = 0;
    const columnWrites = this.columns.map(() => 0);
    for (let old = 0; old < this.docCount; old++) {
      if (!this.isLive(old)) continue;
      const from = this.forwardStart[old]!;
      const to = this.forwardStart[old + 1]!;
      if (write !== from) this.forward.copyWithin(write, from, to);
      this.forwardStart[next] = write;
      write += to - from;
      for (let c = 0; c < this.columns.length; c++) {
        columnWrites[c] = this.columns[c]!.compactInto(old, next, columnWrites[c]!);
      }
      if (next !== old) {
        const id = this.ids[old]!;
        this.ids[next] = id;
        this.ordinalOf.set(id, next);
        this.idHash[next] = this.idHash[old]!;
        this.idKey[next] = this.idKey[old]!;
        this.lengths.copyWithin(next * fields, old * fields, old * fields + fields);
        for (const column of this.numbers) column[next] = column[old]!;
      }
      next++;
    }
    this.forwardStart[next] = write;
    // Growth left room for appends; a compacted index keeps only a little of it.
    this.forward = trimmed(this.forward, write);
    for (let c = 0; c < this.columns.length; c++) this.columns[c]!.finishCompaction(next, columnWrites[c]!);
    this.ids.length = next;
    this.live.fill(0);
    this.markAllLive(next);
    this.docCount = next;
    this.liveCount = next;
    this.deadCount = 0;
    for (const column of this.numbers) column.fill(NaN, next);

    // 2. Terms: renumber those still in use (keeping their order).
    this.dropUnusedTerms();

    // 3. Inverted lists from the forward stream (the live frequencies are the list lengths).
    this.buildTermPostings();
    for (const column of this.columns) column.buildPostings(next);
    this.baseDocCount = next;
    this.indexedDocCount = next;
    this.sortedOrders.clear();
    this.sortedRanks.clear();
    this.placeForBestMatch();
  }

  /**
   * Sorts the base for best_match's tie-breaks now (see placement), with the rest of a rebuild,
   * rather than in the first search that needs it: a third of a second at a million documents.
   */
  private placeForBestMatch(): void {
    this.defaultPlacement = this.baseDocCount > 0 ? this.placement(this.orderLevels({})) : undefined;
  }

  /** The placement of best_match's tie-breaks: kept for the default sort numbers, else looked up. */
  private bestMatchPlacement(query: SearchQuery): Placement {
    if (query.sortNumbers === undefined && this.defaultPlacement !== undefined) return this.defaultPlacement;
    return this.placement(this.orderLevels(query));
  }

  private dropUnusedTerms(): void {
    const vocabulary = this.vocabulary;
    const termCount = vocabulary.size;
    const frequency = vocabulary.frequency;
    let used = 0;
    for (let t = 0; t < termCount; t++) if (frequency[t] !== 0) used++;
    if (used === termCount) {
      vocabulary.sortedIds();
      return;
    }
    const renumber = new Uint32Array(termCount);
    const terms: string[] = [];
    const kept = new Uint32Array(used);
    for (let t = 0; t < termCount; t++) {
      if (frequency[t] === 0) continue;
      renumber[t] = terms.length;
      kept[terms.length] = frequency[t]!;
      terms.push(vocabulary.terms[t]!);
    }
    this.renumberForward(renumber);
    vocabulary.reset(terms, kept);
    this.termMark = new Uint32Array(Math.max(1024, used));
    this.termSlot = new Uint32Array(Math.max(1024, used));
    this.markGeneration = 0;
  }

  /**
   * Rewrites every code with its term's new id, in place: ids only shrink, so a code never
   * takes more units than before and the writing never overtakes the reading.
   */
  private renumberForward(renumber: Uint32Array): void {
    const forward = this.forward;
    const forwardStart = this.forwardStart;
    let write = 0;
    let read = forwardStart[0]!;
    for (let d = 0; d < this.docCount; d++) {
      const end = forwardStart[d + 1]!;
      forwardStart[d] = write;
      while (read < end) {
        const code = codeAt(forward, read);
        read += unitsOf(code);
        write = writeCode(forward, write, code >= TERM_CODE ? renumber[code - TERM_CODE]! + TERM_CODE : code);
      }
    }
    forwardStart[this.docCount] = write;
    return;
  }

  private buildTermPostings(): void {
    const fields = this.fields;
    const termCount = this.vocabulary.size;
    const frequency = this.vocabulary.frequency;
    const start = new Uint32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) start[t + 1] = start[t]! + frequency[t]!;
    const total = start[termCount]!;
    const docs = new Uint32Array(total);
    const payload = new Uint8Array(total * fields);
    const cursor = start.slice(0, termCount);
    const forward = this.forward;
    const forwardStart = this.forwardStart;
    const termMark = this.termMark;
    const termSlot = this.termSlot;
    for (let d = 0; d < this.docCount; d++) {
      const mark = this.nextMark();
      let field = 0;
      const end = forwardStart[d + 1]!;
      for (let j = forwardStart[d]!; j < end; ) {
        const code = codeAt(forward, j);
        j += unitsOf(code);
        const term = code - TERM_CODE;
        if (term < 0) {
          if (code === FIELD_END) field++;
          continue;
        }
        let slot: number;
        if (termMark[term] !== mark) {
          termMark[term] = mark;
          slot = cursor[term]!++;
          termSlot[term] = slot;
          docs[slot] = d;
        } else {
          slot = termSlot[term]!;
        }
        const p = slot * fields + field;
        if (payload[p]! < MAX_TERM_FREQUENCY) payload[p]!++;
      }
    }
    for (let t = 0; t < termCount; t++) {
      if (cursor[t] !== start[t + 1]) throw new Error('search index: term frequencies out of step with the forward stream');
    }
    this.postings.setBase(start, docs, payload);
    this.postings.buildDenseBitmaps(this.docCount);
    this.pairs.rebuild(start, forward, forwardStart, this.docCount);
  }

  // ---------------------------------------------------------------------------------------
  // Searching

  private planFor(variants: Map<number, number>): TermPlan {
    const fields = this.fields;
    const postings = this.postings;
    const frequency = this.vocabulary.frequency;
    // idf of the word as written (its exact and stem forms), else of its most frequent variant
    let literalFrequency = 0;
    let anyFrequency = 0;
    for (const [id, factor] of variants) {
      const f = frequency[id]!;
      if (factor >= VARIANT_FACTOR.stem && f > literalFrequency) literalFrequency = f;
      if (f > anyFrequency) anyFrequency = f;
    }
    const df = literalFrequency > 0 ? literalFrequency : anyFrequency;
    const idf = Math.log(1 + (this.liveCount - df + 0.5) / (df + 0.5));
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
        for (let f = 0; f < fields; f++) coefficients[f] = factor * idf * this.fieldWeights[f]! * (K1 + 1);
        coefficientsOf.set(factor, coefficients);
      }
      if (id < postings.baseKeyCount) {
        const start = postings.baseStart[id]!;
        const end = postings.baseStart[id + 1]!;
        if (end > start) {
          const bitmap = postings.denseBitmaps[id] ?? null;
          const ranks = postings.denseRanks[id] ?? null;
          segments.push({ docs: postings.baseDocs, start, end, bitmap, ranks, tfs: postings.basePayload, coefficients });
        }
        cost += end - start;
      }
      const tailLength = id < postings.tailLength.length ? postings.tailLength[id]! : 0;
      if (tailLength > 0) {
        segments.push({ docs: postings.tailDocs[id]!, start: 0, end: tailLength, bitmap: null, ranks: null, tfs: postings.tailPayload[id]!, coefficients });
        cost += tailLength;
      }
    }
    return { segments, cost };
  }

  /** BM25's context for the index as it is now: one object, refreshed in place for each search. */
  private bm25Context(): Bm25Context {
    const context = this.bm25;
    for (let f = 0; f < this.fields; f++) {
      const average = this.liveCount > 0 ? this.lengthSums[f]! / this.liveCount : 0;
      const perLength = average > 0 ? (K1 * B) / average : 0;
      // the table follows the average, which any write may move (both start at 0)
      if (perLength !== context.normPerLength[f]) {
        context.normPerLength[f] = perLength;
        for (let code = 0; code < 256; code++) context.lengthNorms[f * 256 + code] = perLength * LENGTH_OF_CODE[code]!;
      }
      context.minLengths[f] = LENGTH_OF_CODE[this.minLengthCode[f]!]!;
    }
    context.lengths = this.lengths;
    return context;
  }

  private compileFilters(filters: readonly SearchFilter[]): { keyword: CompiledKeywordFilter[]; range: CompiledRangeFilter[] } {
    const keyword: CompiledKeywordFilter[] = [];
    const range: CompiledRangeFilter[] = [];
    for (const filter of filters) {
      if ('anyOf' in filter) {
        const column = this.columnByName.get(filter.attribute);
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
        if (exclude ? cost === 0 : column.singleValued && cost === this.liveCount && this.liveCount > 0) continue;
        const bitmaps = valueIds.map((id) => column.bitmaps[id]);
        const dense = valueIds.length > 0 && bitmaps.every((bitmap) => bitmap !== undefined && bitmap !== null);
        keyword.push({ column, allowed, valueIds, exclude, cost, bitmaps: dense ? (bitmaps as Uint32Array[]) : undefined });
      } else {
        const index = this.numericNames.indexOf(filter.attribute);
        if (index === -1) throw new RangeError(`search index: ${filter.attribute} is not a numeric attribute`);
        const min = typeof filter.min === 'number' && !Number.isNaN(filter.min) ? filter.min : -Infinity;
        const max = typeof filter.max === 'number' && !Number.isNaN(filter.max) ? filter.max : Infinity;
        range.push({ column: this.numbers[index]!, min, max });
      }
    }
    return { keyword, range };
  }

  private documentFilters(keyword: readonly CompiledKeywordFilter[], range: readonly CompiledRangeFilter[]): DocumentFilter[] {
    const filters: DocumentFilter[] = [];
    for (const { column, allowed, exclude } of keyword) {
      if (column.singleValued) {
        const shifted = new Uint8Array(allowed.length + 1);
        shifted.set(allowed, 1);
        filters.push({ kind: 'single', single: column.single, allowed: shifted, exclude });
      } else {
        filters.push({ kind: 'multi', starts: column.docStart, values: column.docValues, allowed, exclude });
      }
    }
    for (const { column, min, max } of range) filters.push({ kind: 'range', column, min, max });
    return filters;
  }

  /**
   * Runs a query: every required token (and each token of a required phrase) must match,
   * each through any of its variants; excluded tokens and phrases must not; filters must
   * pass. The cheapest requirement drives (its documents are the first candidates), the
   * others narrow the set, phrases are verified last on the forward stream of the few left.
   */
  search(query: SearchQuery): SearchResult {
    this.indexPending();
    const enhanced = (query.mode ?? 'enhanced') !== 'precise';
    const parsed = parseQuery(query.phrase ?? '');
    const offset = wholeNumber(query.offset, 0);
    const limit = wholeNumber(query.limit, DEFAULT_LIMIT);
    const compiled = this.compileFilters(query.filters ?? []);
    if (query.sort !== undefined && !SORTS.has(query.sort)) throw new RangeError(`search index: unknown sort ${String(query.sort)}`);
    const facetRequests = query.facets ?? [];
    for (const request of facetRequests) {
      if (!this.columnByName.has(request.attribute)) throw new RangeError(`search index: ${request.attribute} is not a keyword attribute`);
    }
    const vocabulary = this.vocabulary;

    // One plan per required token (phrase tokens included), one per excluded token.
    const required: TermPlan[] = [];
    const excluded: TermPlan[] = [];
    const phrases: PhrasePositions[] = [];
    const excludedPhrases: PhrasePositions[] = [];
    let unmatched: Set<string> | undefined;
    for (const clause of parsed.clauses) {
      const tokens = clause.tokens.slice(0, MAX_PHRASE_TOKENS);
      const literal = clause.quoted || tokens.length > 1;
      if (clause.excluded) {
        const positions = tokens.map((token) => vocabulary.variantsOf(token, enhanced, false));
        if (positions.some((variants) => variants.size === 0)) continue; // cannot match anything
        if (tokens.length === 1) excluded.push(this.planFor(positions[0]!));
        else excludedPhrases.push(positions.map((variants) => [...variants.keys()]));
        continue;
      }
      const positions: PhrasePositions = [];
      for (const token of tokens) {
        const variants = vocabulary.variantsOf(token, enhanced, !literal);
        if (variants.size === 0) (unmatched ??= new Set()).add(token);
        if (tokens.length > 1) positions.push([...variants.keys()]);
        required.push(this.planFor(variants));
      }
      if (tokens.length > 1) phrases.push(positions);
    }

    const facets: Record<string, FacetCount[]> = {};
    if (unmatched !== undefined) {
      for (const request of facetRequests) facets[request.attribute] = [];
      const result: SearchResult = { total: 0, ids: [], facets };
      const corrections = this.correct(parsed.clauses, unmatched);
      if (corrections !== undefined) result.corrections = corrections;
      return result;
    }
    // a filter that names no value any document has matches nothing
    if (compiled.keyword.some((filter) => !filter.exclude && filter.valueIds.length === 0)) {
      for (const request of facetRequests) facets[request.attribute] = [];
      return { total: 0, ids: [], facets };
    }

    // Filters: broad ones (every value dense) become bitmap ANDs, the rest per-document checks.
    const perDocument = compiled.keyword.filter((filter) => filter.bitmaps === undefined && !(filter.exclude && filter.valueIds.length === 0));
    const bitmapFilters = compiled.keyword.filter((filter) => filter.bitmaps !== undefined);

    // What narrows the set: the required tokens (scored later), and each pair of adjacent
    // common words of a phrase through its pair list (common-pairs.ts), far shorter than theirs.
    if (required.length > 1) required.sort(byCost);
    // A two-word phrase with a pair list needs no check on the forward stream: the list is its matches.
    const conditions = [...required];
    const phrasesToCheck: PhrasePositions[] = [];
    for (const positions of phrases) {
      let everyPair = true;
      for (let i = 0; i + 1 < positions.length; i++) {
        const plan = this.pairPlanFor(positions[i]!, positions[i + 1]!);
        if (plan !== undefined) conditions.push(plan);
        else everyPair = false;
      }
      if (!(everyPair && positions.length === 2)) phrasesToCheck.push(positions);
    }
    if (conditions.length > 1) conditions.sort(byCost);

    // The driver (the first candidates): the cheapest condition — or a selective filter.
    let filterDriver: CompiledKeywordFilter | undefined;
    for (const filter of perDocument) {
      if (!filter.exclude && (filterDriver === undefined || filter.cost < filterDriver.cost)) filterDriver = filter;
    }
    const driverCost = conditions.length > 0 ? conditions[0]!.cost : this.docCount;
    if (filterDriver !== undefined && !(filterDriver.cost * FILTER_DRIVER_RATIO < driverCost)) filterDriver = undefined;
    const filters = this.documentFilters(
      perDocument.filter((filter) => filter !== filterDriver),
      compiled.range,
    );

    const set = this.candidates;
    set.reset(this.docCount);
    let rest = conditions;
    const sort = query.sort ?? 'best_match';
    const driver = conditions[0];
    // one list and nothing else to check: the list is the match set, whatever its length
    const alone =
      driver !== undefined &&
      driver.segments.length === 1 &&
      conditions.length === 1 &&
      excluded.length === 0 &&
      bitmapFilters.length === 0 &&
      filters.length === 0 &&
      this.deadCount === 0;
    if (filterDriver === undefined && driver !== undefined && (alone || this.listFirst(driver))) {
      // A short driver: straight to the list; every other step checks the few documents in it.
      set.listFromPlan(driver);
      if (this.deadCount > 0) set.keepInAnyOf([this.live], false);
      for (const filter of bitmapFilters) set.keepInAnyOf(filter.bitmaps!, filter.exclude);
      for (const filter of filters) set.keepByFilter(filter);
      for (const plan of conditions.slice(1)) if (set.count > 0) set.verify(plan, true);
      for (const plan of excluded) if (set.count > 0) set.verify(plan, false);
      return this.finish(query, set, required, phrasesToCheck, excludedPhrases, facetRequests, facets, offset, limit, sort, false);
    }
    if (filterDriver !== undefined) {
      set.fillFromLists(this.valueLists(filterDriver));
      if (this.deadCount > 0) set.andWith(this.live, false);
    } else if (driver !== undefined) {
      set.fillFromPlan(driver);
      if (this.deadCount > 0) set.andWith(this.live, false);
      rest = conditions.slice(1);
    } else {
      set.fillFromBitmap(this.live);
    }
    for (const filter of bitmapFilters) set.andAnyOf(filter.bitmaps!, filter.exclude);
    // Other tokens: AND-ed as bitmaps, or — much commoner than the set — verified per candidate later.
    const toVerify: TermPlan[] = [];
    const toVerifyAbsent: TermPlan[] = [];
    // the set's size: one list's length while nothing else narrowed it, else counted (a pass)
    let known = filterDriver === undefined && driver !== undefined && driver.segments.length === 1 && bitmapFilters.length === 0 && this.deadCount === 0 ? driver.cost : -1;
    for (const plan of rest) {
      if ((known >= 0 ? known : set.population()) * LOOKUP_RATIO < plan.cost) {
        toVerify.push(plan);
      } else {
        set.andPlan(plan, false);
        known = -1;
      }
    }
    for (const plan of excluded) {
      if ((known >= 0 ? known : set.population()) * LOOKUP_RATIO < plan.cost) {
        toVerifyAbsent.push(plan);
      } else {
        set.andPlan(plan, true);
        known = -1;
      }
    }
    for (const filter of filters) set.refine(filter);

    const everything = required.length === 0 && compiled.keyword.length === 0 && compiled.range.length === 0 && excluded.length === 0 && excludedPhrases.length === 0;
    if (required.length === 0 && toVerifyAbsent.length === 0 && excludedPhrases.length === 0 && sort !== 'random') {
      // Browsing: the bitmap is the whole match set.
      const browsed = this.browse(query, offset, limit, facetRequests, facets, everything);
      if (browsed !== undefined) return browsed;
    }

    set.extract();
    for (const plan of toVerify) if (set.count > 0) set.verify(plan, true);
    for (const plan of toVerifyAbsent) if (set.count > 0) set.verify(plan, false);
    return this.finish(query, set, required, phrasesToCheck, excludedPhrases, facetRequests, facets, offset, limit, sort, everything);
  }

  /**
   * Facet counts over exactly the listed documents (ids not in the index are skipped): for a
   * result set chosen outside the index, such as the nearest neighbours of a search by image.
   */
  facetsOf(ids: Iterable<string>, requests: ReadonlyArray<{ attribute: string; limit: number }>): Record<string, FacetCount[]> {
    this.indexPending();
    const facets: Record<string, FacetCount[]> = {};
    if (requests.length === 0) return facets;
    const found: number[] = [];
    for (const id of ids) {
      const ordinal = this.ordinalOf.get(id);
      if (ordinal !== undefined && this.isLive(ordinal)) found.push(ordinal);
    }
    const ordinals = Uint32Array.from(found).sort();
    for (const request of requests) {
      const column = this.columnByName.get(request.attribute);
      if (column === undefined) throw new RangeError(`search index: ${request.attribute} is not a keyword attribute`);
      facets[request.attribute] = column.topValues(ordinals, ordinals.length, wholeNumber(request.limit, 0), false);
    }
    return facets;
  }

  /**
   * Whether a token's lists are short enough to start from as a list (listFromPlan): a
   * bitmap pass costs a word per 32 documents; one list, or a few short ones to sort, cost
   * their length.
   */
  private listFirst(plan: TermPlan): boolean {
    const words = (this.docCount + 31) >>> 5;
    return plan.segments.length === 1 ? plan.cost * LIST_FIRST_RATIO <= words : plan.cost <= MAX_SORTED_LIST_FIRST && plan.cost * LIST_FIRST_RATIO <= words;
  }

  /** Phase 2 of a search, on the list of candidates: phrases, scores, facets and the page. */
  private finish(
    query: SearchQuery,
    set: CandidateSet,
    required: readonly TermPlan[],
    phrases: readonly PhrasePositions[],
    excludedPhrases: readonly PhrasePositions[],
    facetRequests: ReadonlyArray<{ attribute: string; limit: number }>,
    facets: Record<string, FacetCount[]>,
    offset: number,
    limit: number,
    sort: string,
    everything: boolean,
  ): SearchResult {
    for (const positions of phrases) this.keepByPhrase(positions, true);
    for (const positions of excludedPhrases) this.keepByPhrase(positions, false);

    const scored = required.length > 0 && sort !== 'random';
    if (scored) {
      const bm25 = this.bm25Context();
      // sorted by score, only the page's documents need exact scores
      set.scoreAll(required, bm25, sort === 'best_match' ? offset + limit : 0);
    }
    for (const request of facetRequests) {
      const column = this.columnByName.get(request.attribute)!;
      facets[request.attribute] = column.topValues(set.ordinals, set.count, wholeNumber(request.limit, 0), everything);
    }
    const total = set.count;
    set.narrowToExact();
    const ids: string[] = [];
    if (limit > 0 && offset < set.count) {
      const { first, tieBreaks } = this.sortKeys(query, scored);
      // best_match breaks a tie of scores by quality, popularity and id: the browse order of
      // best_match, whose inverse (a place per base ordinal) settles it in one comparison
      const placement = scored && (query.sort ?? 'best_match') === 'best_match' ? this.bestMatchPlacement(query) : null;
      const top = selectTop(set.ordinals, set.count, offset + limit, first, tieBreaks, this.ids, this.idKey, placement);
      for (let i = offset; i < top.length; i++) ids.push(this.ids[top[i]!]!);
    }
    return { total, ids, facets };
  }

  /**
   * A search without a phrase, from the phase 1 bitmap: the page is taken by walking a
   * presorted order of the base ordinals (see sorted-order.ts) and merging in the best of the
   * tail's matches. Undefined when a heap over every match is the cheaper way (a small match
   * set, or one that sits late in the order), to be done by the caller.
   */
  private browse(
    query: SearchQuery,
    offset: number,
    limit: number,
    facetRequests: ReadonlyArray<{ attribute: string; limit: number }>,
    facets: Record<string, FacetCount[]>,
    everything: boolean,
  ): SearchResult | undefined {
    const set = this.candidates;
    const total = everything ? this.liveCount : set.population();
    const k = Math.min(offset + limit, total);
    const base = this.baseDocCount;
    // a walk reads about k × base / total entries; a heap reads every match
    const expectedWalk = total > 0 ? (k * base) / total : Infinity;
    const pageNeeded = limit > 0 && offset < total;
    if (pageNeeded && expectedWalk > total + 4096) return undefined;

    if (facetRequests.length > 0 && !everything) set.extract();
    for (const request of facetRequests) {
      const column = this.columnByName.get(request.attribute)!;
      facets[request.attribute] = column.topValues(set.ordinals, set.count, wholeNumber(request.limit, 0), everything);
    }
    if (!pageNeeded) return { total, ids: [], facets };

    const levels = this.orderLevels(query);
    const order = this.sortedOrder(levels);
    const fromBase = new Uint32Array(k);
    const taken = takeInOrder(order, set.bitmap, k, Math.ceil(4 * expectedWalk) + 4096, fromBase);
    if (taken < 0) return undefined; // the matches sit late in this order: a heap it is
    const bits = set.bitmap;
    const fromTail: number[] = [];
    for (let d = base; d < this.docCount; d++) if ((bits[d >>> 5]! & (1 << (d & 31))) !== 0) fromTail.push(d);
    const compare = (a: number, b: number): number => compareOrdinals(levels, this.idKey, this.ids, a, b);
    const tailBest = bestByComparator(fromTail, k, compare);
    const ids: string[] = [];
    let i = 0;
    let j = 0;
    for (let rank = 0; rank < k && (i < taken || j < tailBest.length); rank++) {
      const next = j >= tailBest.length || (i < taken && compare(fromBase[i]!, tailBest[j]!) < 0) ? fromBase[i++]! : tailBest[j++]!;
      if (rank >= offset) ids.push(this.ids[next]!);
    }
    return { total, ids, facets };
  }

  /** The levels of a sort without relevance (browsing): as `sortKeys` gives them unscored. */
  private orderLevels(query: SearchQuery): OrderLevel[] {
    const levels: OrderLevel[] = [];
    for (const level of this.sortLevels(query.sort ?? 'best_match')) {
      if (level === 'relevance') continue;
      const values = this.numberColumn((query.sortNumbers ?? DEFAULT_SORT_NUMBERS)[level.number]);
      if (values !== undefined) levels.push({ values, sign: level.sign });
    }
    return levels;
  }

  private sortLevels(sort: string): readonly SortLevel[] {
    const levels = SORT_LEVELS[sort];
    if (levels === undefined) throw new RangeError(`search index: no presorted order for ${sort}`);
    return levels;
  }

  /** A numeric attribute's column; undefined for a name the schema lacks (every document ties on it). */
  private numberColumn(name: string): Float64Array | undefined {
    const index = this.numericNames.indexOf(name);
    return index === -1 ? undefined : this.numbers[index];
  }

  private orderKey(levels: readonly OrderLevel[]): string {
    return levels.map((level) => `${this.numbers.indexOf(level.values)}${level.sign > 0 ? '+' : '-'}`).join(',');
  }

  /** The base ordinals in the order of `levels`, sorted on first use and kept until ordinals change. */
  private sortedOrder(levels: readonly OrderLevel[]): Uint32Array {
    const key = this.orderKey(levels);
    let order = this.sortedOrders.get(key);
    if (order === undefined) {
      order = buildOrder(levels, this.idKey, this.ids, this.baseDocCount);
      this.sortedOrders.set(key, order);
    }
    return order;
  }

  /** The base ordinals in the order of `levels` (see sortedOrder) and each one's place in it, kept as long as the order. */
  private placement(levels: readonly OrderLevel[]): Placement {
    const key = this.orderKey(levels);
    const order = this.sortedOrder(levels);
    let places = this.sortedRanks.get(key);
    if (places === undefined) {
      places = new Uint32Array(order.length);
      for (let i = 0; i < order.length; i++) places[order[i]!] = i;
      this.sortedRanks.set(key, places);
    }
    return { places, order };
  }

  /** The posting lists (base and tail) of a keyword filter's values. */
  private valueLists(filter: CompiledKeywordFilter): Array<readonly [Uint32Array, number, number]> {
    const postings = filter.column.postings;
    const lists: Array<readonly [Uint32Array, number, number]> = [];
    for (const value of filter.valueIds) {
      if (value < postings.baseKeyCount) lists.push([postings.baseDocs, postings.baseStart[value]!, postings.baseStart[value + 1]!]);
      const tail = value < postings.tailLength.length ? postings.tailLength[value]! : 0;
      if (tail > 0) lists.push([postings.tailDocs[value]!, 0, tail]);
    }
    return lists;
  }

  /**
   * The documents where a word of `left` (variant ids) directly precedes one of `right`, from
   * the pair lists; undefined unless every such pair has a list (both words common).
   */
  private pairPlanFor(left: readonly number[], right: readonly number[]): TermPlan | undefined {
    if (left.length * right.length > MAX_PAIR_COMBINATIONS) return undefined;
    const postings = this.pairs.postings;
    const segments: Segment[] = [];
    let cost = 0;
    for (const a of left) {
      for (const b of right) {
        const key = this.pairs.keyOf(a, b);
        if (key < 0) return undefined;
        // never scored: no term frequencies, no coefficients
        const start = postings.baseStart[key]!;
        const end = postings.baseStart[key + 1]!;
        if (end > start) segments.push({ docs: postings.baseDocs, start, end, bitmap: null, ranks: null, tfs: NO_BYTES, coefficients: NO_COEFFICIENTS });
        const tailLength = key < postings.tailLength.length ? postings.tailLength[key]! : 0;
        if (tailLength > 0) segments.push({ docs: postings.tailDocs[key]!, start: 0, end: tailLength, bitmap: null, ranks: null, tfs: NO_BYTES, coefficients: NO_COEFFICIENTS });
        cost += end - start + tailLength;
      }
    }
    return { segments, cost };
  }

  private keepByPhrase(positions: PhrasePositions, keepMatches: boolean): void {
    if (this.candidates.count === 0) return;
    const codes = positions.map((ids) => ids.map((id) => id + TERM_CODE));
    this.candidates.keepByPhrase(new PhraseTerms(codes), positions.length, this.forward, this.forwardStart, keepMatches);
  }


  /**
   * The sort keys of the candidate list, most significant first (then the id breaks ties):
   * best_match is score, quality, popularity (without a phrase: quality, popularity); newest,
   * oldest and most_popular are their number then the score; random is a hash of the id and
   * the seed — a permutation that is the same on every page. The first key is gathered by
   * list position; tie-breaking keys are read on demand (see TieBreak).
   */
  private sortKeys(query: SearchQuery, scored: boolean): { first: Float64Array | null; tieBreaks: TieBreak[] } {
    const set = this.candidates;
    const sort = query.sort ?? 'best_match';
    if (sort === 'random') {
      const keys = set.sortKeys(0);
      randomKeys(keys, this.idHash, mix32(Math.trunc(query.randomSeed ?? 0) ^ 0x9e3779b9), set.ordinals, set.count);
      return { first: keys, tieBreaks: [] };
    }
    const levels: Array<{ values: Float64Array; sign: 1 | -1; byPosition: boolean }> = [];
    for (const level of this.sortLevels(sort)) {
      if (level === 'relevance') {
        if (scored) levels.push({ values: set.scores, sign: 1, byPosition: true });
        continue;
      }
      const values = this.numberColumn((query.sortNumbers ?? DEFAULT_SORT_NUMBERS)[level.number]);
      if (values !== undefined) levels.push({ values, sign: level.sign, byPosition: false }); // absent: every document ties
    }
    const [head, ...rest] = levels;
    let first: Float64Array | null = null;
    if (head !== undefined) {
      if (head.byPosition) {
        first = head.values;
      } else {
        first = set.sortKeys(0);
        keysFromColumn(first, head.values, head.sign, set.ordinals, set.count);
      }
    }
    const tieBreaks = rest.map((level, i): TieBreak => {
      const cache = level.byPosition ? set.sortKeys(1 + i) : set.sortKeys(1 + i).fill(NaN, 0, set.count);
      // written out: an object spread costs a microsecond here
      return { values: level.values, sign: level.sign, byPosition: level.byPosition, cache };
    });
    return { first, tieBreaks };
  }

  /** The phrase with each unmatched term replaced by its closest frequent term, if any changed. */
  private correct(clauses: readonly QueryClause[], unmatched: ReadonlySet<string>): string | undefined {
    let changed = false;
    const corrected = clauses.map((clause) => {
      if (clause.excluded || clause.quoted || clause.tokens.length !== 1 || !unmatched.has(clause.tokens[0]!)) return clause;
      const replacement = this.vocabulary.closestTerm(clause.tokens[0]!);
      if (replacement === undefined) return clause;
      changed = true;
      return { ...clause, tokens: [replacement] };
    });
    return changed ? renderQuery(corrected) : undefined;
  }

  /** Terms of the index that complete a prefix (lower-cased), the most documents first. */
  completions(prefix: string, limit: number): string[] {
    return this.vocabulary.completions(prefix.toLowerCase(), limit);
  }

  /**
   * The vocabulary terms an unquoted query word matches in a mode (see Vocabulary.variantsOf):
   * for diagnostics, and for a reference engine that should find the same documents.
   */
  matchingTerms(word: string, mode: 'enhanced' | 'precise' = 'enhanced'): string[] {
    this.indexPending();
    return [...this.vocabulary.variantsOf(word, mode === 'enhanced', true).keys()].map((id) => this.vocabulary.terms[id]!);
  }

  // ---------------------------------------------------------------------------------------
  // Snapshots

  /** The whole index in a binary form (compacting it first); `fromSnapshot` reads it back. */
  toSnapshot(): Buffer {
    return Buffer.concat(this.toSnapshotChunks());
  }

  /**
   * The snapshot as byte ranges to write in order (see SnapshotWriter.finishChunks): views of
   * the index's arrays, valid until the index next changes.
   */
  toSnapshotChunks(): Uint8Array[] {
    if (this.deadCount > 0 || this.baseDocCount !== this.docCount || this.postings.tailPostings > 0) this.compact();
    const writer = new SnapshotWriter();
    const docCount = this.docCount;
    const fields = this.fields;
    const vocabulary = this.vocabulary;
    writer.addStrings('ids', this.ids);
    writer.add('idHash', this.idHash, docCount);
    writer.add('lengths', this.lengths, docCount * fields);
    writer.add('forwardStart', this.forwardStart, docCount + 1);
    writer.add('forward', this.forward, this.forwardStart[docCount]!);
    writer.addStrings('terms', vocabulary.terms);
    writer.add('frequency', vocabulary.frequency, vocabulary.size);
    writer.add('sortedTerms', vocabulary.sortedIds());
    writer.add('postings.start', this.postings.baseStart);
    writer.add('postings.docs', this.postings.baseDocs);
    writer.add('postings.tfs', this.postings.basePayload);
    this.columns.forEach((column, c) => {
      writer.addStrings(`keyword.${c}.values`, column.values);
      writer.add(`keyword.${c}.liveCounts`, column.liveCounts, column.valueCount);
      const layout = column.layout(docCount);
      if ('single' in layout) {
        writer.add(`keyword.${c}.single`, layout.single);
      } else {
        writer.add(`keyword.${c}.docStart`, layout.docStart);
        writer.add(`keyword.${c}.docValues`, layout.docValues);
      }
      writer.add(`keyword.${c}.postings.start`, column.postings.baseStart);
      writer.add(`keyword.${c}.postings.docs`, column.postings.baseDocs);
    });
    this.numbers.forEach((column, n) => writer.add(`number.${n}`, column, docCount));
    return writer.finishChunks({ schema: this.schema, docCount, lengthSums: [...this.lengthSums] });
  }

  static fromSnapshot(snapshot: Uint8Array | SnapshotSource): SearchIndex {
    const reader = new SnapshotReader(snapshot);
    const meta = reader.meta as { schema: IndexSchema; docCount: number; lengthSums: number[] };
    const index = new SearchIndex(meta.schema);
    index.restore(reader, meta.docCount, meta.lengthSums);
    return index;
  }

  private restore(reader: SnapshotReader, docCount: number, lengthSums: readonly number[]): void {
    this.docCount = docCount;
    this.liveCount = docCount;
    this.deadCount = 0;
    this.baseDocCount = docCount;
    this.indexedDocCount = docCount;
    this.sortedOrders.clear();
    this.sortedRanks.clear();
    this.ids = reader.strings('ids');
    if (this.ids.length !== docCount) throw new Error('search index snapshot: the id count does not match');
    this.ordinalOf = new Map();
    for (let d = 0; d < docCount; d++) this.ordinalOf.set(this.ids[d]!, d);
    this.idHash = reader.u32('idHash');
    this.idKey = new Float64Array(docCount + 16);
    for (let d = 0; d < docCount; d++) this.idKey[d] = idOrderKey(this.ids[d]!);
    this.lengths = reader.u8('lengths');
    this.minLengthCode.fill(255);
    for (let i = 0; i < docCount * this.fields; i++) {
      const code = this.lengths[i]!;
      if (code < this.minLengthCode[i % this.fields]!) this.minLengthCode[i % this.fields] = code;
    }
    lengthSums.forEach((sum, f) => (this.lengthSums[f] = sum));
    this.forwardStart = reader.u32('forwardStart');
    this.forward = reader.u16('forward');
    this.live = new Uint32Array(((docCount + 31) >>> 5) + 1);
    this.markAllLive(docCount);
    const terms = reader.strings('terms');
    this.vocabulary.reset(terms, reader.u32('frequency'), reader.u32('sortedTerms'));
    this.termMark = new Uint32Array(Math.max(1024, terms.length));
    this.termSlot = new Uint32Array(Math.max(1024, terms.length));
    this.markGeneration = 0;
    this.postings.setBase(reader.u32('postings.start'), reader.u32('postings.docs'), reader.u8('postings.tfs'));
    this.postings.buildDenseBitmaps(docCount);
    this.pairs.rebuild(this.postings.baseStart, this.forward, this.forwardStart, docCount);
    this.columns.forEach((column, c) => {
      column.restore(
        reader.strings(`keyword.${c}.values`),
        reader.u32(`keyword.${c}.liveCounts`),
        reader.has(`keyword.${c}.single`)
          ? { single: reader.u32(`keyword.${c}.single`) }
          : { docStart: reader.u32(`keyword.${c}.docStart`), docValues: reader.u32(`keyword.${c}.docValues`) },
        docCount,
      );
      column.postings.setBase(reader.u32(`keyword.${c}.postings.start`), reader.u32(`keyword.${c}.postings.docs`), new Uint8Array(0));
      column.buildBitmaps(docCount);
    });
    this.numbers = this.numbers.map((_, n) => reader.f64(`number.${n}`));
    this.placeForBestMatch();
  }

  /** Bytes held in typed arrays (capacity, scratch included): for diagnostics. */
  byteSize(): number {
    let bytes =
      this.live.byteLength +
      this.idHash.byteLength +
      this.idKey.byteLength +
      this.lengths.byteLength +
      this.forwardStart.byteLength +
      this.forward.byteLength +
      this.vocabulary.frequency.byteLength +
      this.postings.byteSize() +
      this.pairs.byteSize() +
      this.candidates.ordinals.byteLength * 6; // ordinals and stamps (4 bytes each), two score arrays (8 each)
    for (const column of this.columns) {
      bytes += column.byteSize();
    }
    for (const column of this.numbers) bytes += column.byteLength;
    for (const order of this.sortedOrders.values()) bytes += order.byteLength;
    for (const places of this.sortedRanks.values()) bytes += places.byteLength;
    return bytes;
  }
}
