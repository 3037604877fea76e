import { ESCAPE, FrequencyTuples, NO_ESCAPES, withEscape, type CodeEscapes, type TupleCodes } from './frequency-tuples.js';
import { bitCount, ensureCapacity } from './typed-arrays.js';

const NO_CODES = new Uint8Array(0);

/**
 * Posting lists (ascending document ordinals per key, with an optional payload per posting:
 * the term frequency in each text field, as the code of its tuple, see frequency-tuples.ts)
 * in two parts:
 *
 * - the base: every list of the last build, frozen in one compressed-sparse-row layout
 *   (`baseStart[key]..baseStart[key + 1]` indexes `baseDocs` and `baseCodes`); a few flat
 *   arrays whatever the number of keys, cheap to scan and to snapshot;
 * - the tail: one small doubling list per key touched since, for live upserts. Ordinals only
 *   grow between builds, so a tail list continues its base list in ascending order.
 *
 * The index rebuilds the base (folding the tail in) when the tail grows large.
 */
export class PostingStore {
  /** text fields per posting (0: no payload, a list of documents only) */
  readonly stride: number;
  /** the distinct frequency tuples the codes stand for */
  readonly tuples: FrequencyTuples;
  baseStart: Uint32Array = new Uint32Array(1);
  baseDocs: Uint32Array = new Uint32Array(0);
  /** each base posting's tuple code (empty without payload) */
  baseCodes: TupleCodes = NO_CODES;
  /** the codes of the base postings stored as ESCAPE */
  baseEscapes: CodeEscapes = NO_ESCAPES;
  tailDocs: (Uint32Array | null)[] = [];
  tailCodes: (TupleCodes | null)[] = [];
  tailEscapes: CodeEscapes[] = [];
  tailLength: Uint32Array = new Uint32Array(0);
  /**
   * A bitmap over ordinals of the base list of every dense key (a term in 1/32 of the
   * documents or more: there a bitmap is no bigger than the list), else null. A common term
   * then joins a query's candidate bitmap a word at a time instead of a bit per posting.
   */
  denseBitmaps: (Uint32Array | null)[] = [];
  /**
   * For each dense bitmap, the number of postings before each of its words: the posting of a
   * document in the list is `start + ranks[d >>> 5] + (set bits of its word below d)`, found
   * in constant time without walking the list.
   */
  denseRanks: (Uint32Array | null)[] = [];
  /** postings held in tail lists */
  tailPostings = 0;
  private touched: number[] = [];

  constructor(stride: number) {
    this.stride = stride;
    this.tuples = new FrequencyTuples(stride);
  }

  /** keys covered by the base (later keys have only tail postings) */
  get baseKeyCount(): number {
    return this.baseStart.length - 1;
  }

  /**
   * Replaces the base (and empties the tails): `codes` and `escapes` are codes of
   * `this.tuples`, made by codeOf or restored with them (empty without payload).
   */
  setBase(start: Uint32Array, docs: Uint32Array, codes: TupleCodes, escapes: CodeEscapes = NO_ESCAPES): void {
    if (this.stride > 0 && codes.length !== docs.length) throw new Error('search index: posting codes out of step with the postings');
    this.denseBitmaps = [];
    this.denseRanks = [];
    this.baseStart = start;
    this.baseDocs = docs;
    this.baseCodes = this.stride > 0 ? codes : NO_CODES;
    this.baseEscapes = this.stride > 0 ? escapes : NO_ESCAPES;
    for (const key of this.touched) {
      this.tailDocs[key] = null;
      this.tailCodes[key] = null;
      this.tailEscapes[key] = NO_ESCAPES;
      this.tailLength[key] = 0;
    }
    this.touched = [];
    this.tailPostings = 0;
  }

  /** The code of a tuple of frequencies (see FrequencyTuples.codeOf), added when new. */
  codeOf(frequencies: Uint8Array, offset: number): number {
    return this.tuples.codeOf(frequencies, offset);
  }

  /** Builds the bitmaps of the dense base lists (`docCount` ordinals). */
  buildDenseBitmaps(docCount: number): void {
    const keys = this.baseKeyCount;
    const words = (docCount + 31) >>> 5;
    const minimum = Math.max(1024, docCount / 32);
    this.denseBitmaps = new Array<Uint32Array | null>(keys).fill(null);
    this.denseRanks = new Array<Uint32Array | null>(keys).fill(null);
    for (let key = 0; key < keys; key++) {
      const start = this.baseStart[key]!;
      const end = this.baseStart[key + 1]!;
      if (end - start < minimum) continue;
      const bitmap = new Uint32Array(words);
      for (let i = start; i < end; i++) {
        const d = this.baseDocs[i]!;
        bitmap[d >>> 5] = bitmap[d >>> 5]! | (1 << (d & 31));
      }
      this.denseBitmaps[key] = bitmap;
      const ranks = new Uint32Array(words);
      let before = 0;
      for (let w = 0; w < words; w++) {
        ranks[w] = before;
        before += bitCount(bitmap[w]!);
      }
      this.denseRanks[key] = ranks;
    }
  }

  /** Appends `doc` (greater than every ordinal already in the list) to the key's tail list. */
  add(key: number, doc: number, payload: Uint8Array | null, payloadOffset: number): void {
    while (this.tailDocs.length <= key) {
      this.tailDocs.push(null);
      this.tailCodes.push(null);
      this.tailEscapes.push(NO_ESCAPES);
    }
    this.tailLength = ensureCapacity(this.tailLength, key + 1);
    const length = this.tailLength[key]!;
    let docs = this.tailDocs[key]!;
    if (length === 0) {
      if (docs === null) this.touched.push(key);
      docs = ensureCapacity(docs ?? new Uint32Array(2), 1);
    }
    if (length === docs.length) docs = ensureCapacity(docs, length + 1);
    this.tailDocs[key] = docs;
    docs[length] = doc;
    if (this.stride > 0 && payload !== null) {
      const code = this.codeOf(payload, payloadOffset);
      const codes = ensureCapacity(this.tailCodes[key] ?? new Uint8Array(docs.length), docs.length);
      if (code < ESCAPE) {
        codes[length] = code;
      } else {
        codes[length] = ESCAPE;
        this.tailEscapes[key] = withEscape(this.tailEscapes[key]!, length, code);
      }
      this.tailCodes[key] = codes;
    }
    this.tailLength[key] = length + 1;
    this.tailPostings++;
  }

  /** Bytes held by the lists (not the object headers of tail lists). */
  byteSize(): number {
    let bytes =
      this.baseStart.byteLength + this.baseDocs.byteLength + this.baseCodes.byteLength + 2 * this.baseEscapes.at.byteLength + this.tailLength.byteLength + this.tuples.byteSize();
    for (const bitmap of this.denseBitmaps) bytes += 2 * (bitmap?.byteLength ?? 0); // and its ranks
    for (const key of this.touched) {
      bytes += (this.tailDocs[key]?.byteLength ?? 0) + (this.tailCodes[key]?.byteLength ?? 0) + 2 * this.tailEscapes[key]!.at.byteLength;
    }
    return bytes;
  }
}
