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
  /**
   * The documents of the base lists but the dense ones (whose bitmap holds them):
   * `baseDocs[baseDocStart[key]..baseDocStart[key + 1])`. A posting `i` of a key's list (in
   * `baseStart`'s numbering, which the codes keep) has its document at `i - shiftOf(key)`.
   */
  baseDocs: Uint32Array = new Uint32Array(0);
  baseDocStart: Uint32Array = new Uint32Array(1);
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
   * documents or more: there a bitmap is no bigger than the list), else null; the key's list
   * keeps no documents in `baseDocs` then, only its codes (its posting of the r-th set bit is
   * `baseStart[key] + r`). A common term joins a query's candidate bitmap a word at a time
   * instead of a bit per posting. The bitmaps are views of `denseWords`.
   */
  denseBitmaps: (Uint32Array | null)[] = [];
  /** the keys that have a dense bitmap, ascending, and their bitmaps one after another (for snapshots) */
  denseKeys: Uint32Array = new Uint32Array(0);
  denseWords: Uint32Array = new Uint32Array(0);
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
   * `this.tuples`, made by codeOf or restored with them (empty without payload). `docStart`
   * is where each key's documents start in `docs` when some lists have none there (restored
   * with their bitmaps, see restoreDenseBitmaps); without it every list has its documents.
   */
  setBase(start: Uint32Array, docs: Uint32Array, codes: TupleCodes, escapes: CodeEscapes = NO_ESCAPES, docStart: Uint32Array = start): void {
    if (this.stride > 0 && codes.length !== start[start.length - 1]) throw new Error('search index: posting codes out of step with the postings');
    if (docStart.length !== start.length || docStart[docStart.length - 1] !== docs.length) throw new Error('search index: posting documents out of step with the postings');
    this.denseBitmaps = [];
    this.denseRanks = [];
    this.denseKeys = new Uint32Array(0);
    this.denseWords = new Uint32Array(0);
    this.baseStart = start;
    this.baseDocs = docs;
    this.baseDocStart = docStart;
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

  /**
   * The postings before the key's list that have no document in `baseDocs` (the dense lists'
   * before it): its posting `i` has its document at `baseDocs[i - shiftOf(key)]`.
   */
  shiftOf(key: number): number {
    return this.baseStart[key]! - this.baseDocStart[key]!;
  }

  /**
   * Builds the bitmaps of the dense base lists (`docCount` ordinals) and drops those lists'
   * documents from `baseDocs`: the bitmap and its ranks answer everything the list did.
   */
  buildDenseBitmaps(docCount: number): void {
    const keys = this.baseKeyCount;
    const words = (docCount + 31) >>> 5;
    const minimum = Math.max(1024, docCount / 32);
    const dense: number[] = [];
    for (let key = 0; key < keys; key++) if (this.baseStart[key + 1]! - this.baseStart[key]! >= minimum) dense.push(key);
    const denseWords = new Uint32Array(dense.length * words);
    dense.forEach((key, n) => {
      const bitmap = denseWords.subarray(n * words, (n + 1) * words);
      const docs = this.baseDocs;
      for (let i = this.baseDocStart[key]!, end = this.baseDocStart[key + 1]!; i < end; i++) {
        const d = docs[i]!;
        bitmap[d >>> 5] = bitmap[d >>> 5]! | (1 << (d & 31));
      }
    });
    this.dropDenseDocs(dense);
    this.useDenseBitmaps(Uint32Array.from(dense), denseWords, words);
  }

  /** Takes the dense keys and their bitmaps a snapshot kept (after setBase with the documents of the other lists). */
  restoreDenseBitmaps(keys: Uint32Array, denseWords: Uint32Array, docCount: number): void {
    const words = (docCount + 31) >>> 5;
    if (denseWords.length !== keys.length * words) throw new Error('search index snapshot: the dense bitmaps are out of step');
    for (const key of keys) {
      if (key >= this.baseKeyCount || this.baseDocStart[key + 1] !== this.baseDocStart[key]) throw new Error('search index snapshot: a dense list has documents besides its bitmap');
    }
    this.useDenseBitmaps(keys, denseWords, words);
  }

  private useDenseBitmaps(keys: Uint32Array, denseWords: Uint32Array, words: number): void {
    this.denseKeys = keys;
    this.denseWords = denseWords;
    this.denseBitmaps = new Array<Uint32Array | null>(this.baseKeyCount).fill(null);
    this.denseRanks = new Array<Uint32Array | null>(this.baseKeyCount).fill(null);
    keys.forEach((key, n) => {
      const bitmap = denseWords.subarray(n * words, (n + 1) * words);
      const ranks = new Uint32Array(words);
      let before = 0;
      for (let w = 0; w < words; w++) {
        ranks[w] = before;
        before += bitCount(bitmap[w]!);
      }
      if (before !== this.baseStart[key + 1]! - this.baseStart[key]!) throw new Error('search index: a dense bitmap out of step with its list');
      this.denseBitmaps[key] = bitmap;
      this.denseRanks[key] = ranks;
    });
  }

  /** Copies `baseDocs` without the documents of the given keys' lists (ascending keys). */
  private dropDenseDocs(dense: readonly number[]): void {
    if (dense.length === 0) return;
    const keys = this.baseKeyCount;
    const from = this.baseDocStart;
    const docStart = new Uint32Array(keys + 1);
    let dropped = 0;
    for (const key of dense) dropped += from[key + 1]! - from[key]!;
    const docs = new Uint32Array(this.baseDocs.length - dropped);
    let next = 0;
    let write = 0;
    for (let key = 0; key < keys; key++) {
      docStart[key] = write;
      if (next < dense.length && dense[next] === key) {
        next++;
        continue;
      }
      docs.set(this.baseDocs.subarray(from[key]!, from[key + 1]!), write);
      write += from[key + 1]! - from[key]!;
    }
    docStart[keys] = write;
    this.baseDocs = docs;
    this.baseDocStart = docStart;
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
      this.baseStart.byteLength + this.baseDocs.byteLength + (this.baseDocStart === this.baseStart ? 0 : this.baseDocStart.byteLength) + this.baseCodes.byteLength + 2 * this.baseEscapes.at.byteLength + this.tailLength.byteLength + this.tuples.byteSize();
    bytes += 2 * this.denseWords.byteLength + this.denseKeys.byteLength; // and the ranks
    for (const key of this.touched) {
      bytes += (this.tailDocs[key]?.byteLength ?? 0) + (this.tailCodes[key]?.byteLength ?? 0) + 2 * this.tailEscapes[key]!.at.byteLength;
    }
    return bytes;
  }
}
