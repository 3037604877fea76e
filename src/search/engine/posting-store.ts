import { checkLists, compressLists, hasDocuments, NO_LISTS, runOf, type CompressedLists, type PostingRun } from './compressed-lists.js';
import { BYTE_ESCAPE, codeBytes, ESCAPE, FrequencyTuples, NO_ESCAPES, setCode, withEscape, type CodeEscapes, type TupleCodes } from './frequency-tuples.js';
import { bitCount, ensureCapacity } from './typed-arrays.js';

const NO_CODES = new Uint8Array(0);

/** The lists kept as bitmaps, as a snapshot holds them: their keys, ascending, their bitmaps one after another, and their codes (see PostingStore.denseCodes). */
export interface DenseBitmaps {
  keys: Uint32Array;
  words: Uint32Array;
  /** the ordinals the bitmaps cover */
  docCount: number;
  codes?: Uint8Array;
  escapes?: CodeEscapes;
}

/** log2 of the words of a dense bitmap counted from one 32-bit count (see denseRanks): 8 words hold at most 256 postings, a word's count from its group's start (at most 224) fits a byte */
export const RANK_GROUP_SHIFT = 3;

/**
 * Posting lists (ascending document ordinals per key, with an optional payload per posting:
 * the term frequency in each text field, as the code of its tuple, see frequency-tuples.ts)
 * in two parts:
 *
 * - the base: every list of the last build, frozen: postings counted in one
 *   compressed-sparse-row layout (`baseStart[key]..baseStart[key + 1]`), their documents
 *   bit-packed in `baseLists` (see compressed-lists.ts) and their codes four bits each in
 *   `baseCodes`, or for a dense list a bitmap and codes a byte each in `denseCodes` (a
 *   posting's number is its code's, from codeStartOf); a few flat arrays whatever the number of
 *   keys, cheap to scan and to snapshot;
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
  /** the documents of the base lists but the dense ones (whose bitmap holds them), see baseRun */
  baseLists: CompressedLists = NO_LISTS;
  /** the tuple code of each base posting of a list that is not dense, four bits (see codeAt; empty without payload), numbered from codeStartOf */
  baseCodes: TupleCodes = NO_CODES;
  /** the codes of those postings stored as ESCAPE */
  baseEscapes: CodeEscapes = NO_ESCAPES;
  /**
   * The tuple codes of the dense lists' postings, a byte each (codeAt with shift 0), the
   * lists one after another. Four bits would escape 4.6% of them (a common word is in
   * several fields of a document more often), each found by a binary search: a common word
   * searched alone measured 25% slower; a byte costs 2 MB a million assets more than four
   * bits and the escapes would.
   */
  denseCodes: Uint8Array = NO_CODES;
  /** the codes of the dense lists' postings stored as BYTE_ESCAPE (tuples past the first 255) */
  denseEscapes: CodeEscapes = NO_ESCAPES;
  /** postings of the dense lists before each one (by its place in denseKeys), and of all of them at the end */
  private densePrefix: Uint32Array = new Uint32Array(1);
  tailDocs: (Uint32Array | null)[] = [];
  tailCodes: (TupleCodes | null)[] = [];
  tailEscapes: CodeEscapes[] = [];
  tailLength: Uint32Array = new Uint32Array(0);
  /**
   * A bitmap over ordinals of the base list of every dense key (a term in 1/32 of the
   * documents or more: there a bitmap is no bigger than the list), else null; the key's list
   * keeps no documents in `baseLists` then, only its codes (its posting of the r-th set bit is
   * `codeStartOf(key) + r`, in `denseCodes`). A common term joins a query's candidate bitmap a word at a time
   * instead of a bit per posting. The bitmaps are views of `denseWords`.
   */
  denseBitmaps: (Uint32Array | null)[] = [];
  /** the keys that have a dense bitmap, ascending, and their bitmaps one after another (for snapshots) */
  denseKeys: Uint32Array = new Uint32Array(0);
  denseWords: Uint32Array = new Uint32Array(0);
  /**
   * For each dense bitmap, the number of postings before each of its words: the posting of a
   * document in the list is `start + rankGroups[w >>> RANK_GROUP_SHIFT] + ranks[w] + (set
   * bits of its word below d)` (w = d >>> 5), found in constant time without walking the list.
   * A word's count is kept from its group of 8 words (a byte: at most 224) and each group's
   * count from the start: a byte and a half a word, where a u16 a word from a group of 1,024
   * took two (8.2 MB a million assets then, 6.2 now), with the same two reads a look-up.
   */
  denseRanks: (Uint8Array | null)[] = [];
  denseRankGroups: (Uint32Array | null)[] = [];
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
   * Replaces the base (and empties the tails) with the lists `docs[start[key]..start[key + 1])`,
   * compressed: `byteCodes` are codes of `this.tuples` made by codeOf, a byte a posting (the
   * tuples past the first 255 as BYTE_ESCAPE, their codes in `byteEscapes`; empty without
   * payload), kept as four bits a posting once the tuples are numbered by use (see
   * frequency-tuples.ts). With `denseDocCount` (the ordinals there are), a list in 1/32 of
   * them or more (and 1,024 at least) is kept as a bitmap instead.
   */
  setBase(start: Uint32Array, docs: Uint32Array, byteCodes: Uint8Array, byteEscapes: CodeEscapes = NO_ESCAPES, denseDocCount = 0): void {
    if (start[start.length - 1] !== docs.length) throw new Error('search index: posting documents out of step with the postings');
    if (this.stride > 0 && byteCodes.length !== docs.length) throw new Error('search index: posting codes out of step with the postings');
    this.replaceBase(start);
    const keys = this.baseKeyCount;
    const minimum = denseDocCount > 0 ? Math.max(1024, denseDocCount / 32) : Infinity;
    const dense: number[] = [];
    for (let key = 0; key < keys; key++) if (start[key + 1]! - start[key]! >= minimum) dense.push(key);
    if (dense.length > 0) this.buildDenseBitmaps(dense, docs, denseDocCount);
    if (this.stride > 0) this.packCodes(byteCodes, byteEscapes);
    this.baseLists = compressLists(start, docs, (key) => this.denseBitmaps[key] !== null && this.denseBitmaps[key] !== undefined);
  }

  /**
   * A build's codes (a byte a posting, see setBase) numbered again by use, most used first,
   * as four bits a posting (`baseCodes`) or a byte for the dense lists' (`denseCodes`).
   */
  private packCodes(byteCodes: Uint8Array, byteEscapes: CodeEscapes): void {
    const postings = byteCodes.length;
    const uses = new Float64Array(this.tuples.count);
    for (let i = 0, e = 0; i < postings; i++) {
      const code = byteCodes[i] === BYTE_ESCAPE ? byteEscapes.codes[e++]! : byteCodes[i]!;
      uses[code] = uses[code]! + 1;
    }
    const renumbered = this.tuples.renumberByUse(uses);
    const denseCount = this.densePrefix[this.densePrefix.length - 1]!;
    const codes = new Uint8Array(codeBytes(postings - denseCount));
    const denseCodes = new Uint8Array(denseCount);
    let escapes = NO_ESCAPES;
    let denseEscapes = NO_ESCAPES;
    let escaped = 0;
    for (let key = 0, n = 0; key < this.baseKeyCount; key++) {
      const isDense = n < this.denseKeys.length && this.denseKeys[n] === key;
      let at = isDense ? this.densePrefix[n++]! : this.baseStart[key]! - this.densePrefix[n]!;
      for (let i = this.baseStart[key]!; i < this.baseStart[key + 1]!; i++, at++) {
        const code = renumbered[byteCodes[i] === BYTE_ESCAPE ? byteEscapes.codes[escaped++]! : byteCodes[i]!]!;
        if (isDense) {
          denseCodes[at] = Math.min(code, BYTE_ESCAPE);
          if (code >= BYTE_ESCAPE) denseEscapes = withEscape(denseEscapes, at, code);
        } else {
          setCode(codes, at, code);
          if (code >= ESCAPE) escapes = withEscape(escapes, at, code);
        }
      }
    }
    this.baseCodes = codes;
    this.baseEscapes = trimmed(escapes);
    this.denseCodes = denseCodes;
    this.denseEscapes = trimmed(denseEscapes);
  }

  /**
   * Replaces the base with lists a snapshot kept (see setBase: `codes` four bits a posting,
   * in the numbering of `this.tuples`) and, for the lists kept as bitmaps, their keys, bitmaps
   * (over `docCount` ordinals) and codes; every other list with postings must have its documents.
   */
  restoreBase(start: Uint32Array, lists: CompressedLists, codes: TupleCodes, escapes: CodeEscapes = NO_ESCAPES, dense?: DenseBitmaps): void {
    checkLists(lists, start);
    const keys = start.length - 1;
    const denseKeys = dense?.keys ?? new Uint32Array(0);
    let withoutDocuments = 0;
    for (let key = 0; key < keys; key++) if (!hasDocuments(lists, key) && start[key + 1] !== start[key]) withoutDocuments++;
    for (const key of denseKeys) {
      if (key >= keys || hasDocuments(lists, key)) throw new Error('search index snapshot: a dense list has documents besides its bitmap');
    }
    if (withoutDocuments !== denseKeys.length) throw new Error('search index snapshot: a list has neither documents nor a bitmap');
    this.replaceBase(start);
    this.baseLists = lists;
    if (dense !== undefined) {
      const words = (dense.docCount + 31) >>> 5;
      if (dense.words.length !== denseKeys.length * words) throw new Error('search index snapshot: the dense bitmaps are out of step');
      this.useDenseBitmaps(denseKeys, dense.words, words);
    }
    if (this.stride === 0) return;
    const denseCount = this.densePrefix[this.densePrefix.length - 1]!;
    const denseCodes = dense?.codes ?? NO_CODES;
    if (codes.length !== codeBytes(start[keys]! - denseCount) || denseCodes.length !== denseCount) throw new Error('search index: posting codes out of step with the postings');
    this.checkEscapes(escapes, start[keys]! - denseCount);
    this.checkEscapes(dense?.escapes ?? NO_ESCAPES, denseCount);
    this.baseCodes = codes;
    this.baseEscapes = escapes;
    this.denseCodes = denseCodes;
    this.denseEscapes = dense?.escapes ?? NO_ESCAPES;
  }

  private checkEscapes(escapes: CodeEscapes, postings: number): void {
    for (let e = 0; e < escapes.count; e++) {
      const inOrder = escapes.at[e]! < postings && (e === 0 || escapes.at[e]! > escapes.at[e - 1]!) && escapes.codes[e]! < this.tuples.count;
      if (!inOrder) throw new Error('search index snapshot: the escaped posting codes are out of step');
    }
  }

  private replaceBase(start: Uint32Array): void {
    this.denseBitmaps = [];
    this.denseRanks = [];
    this.denseRankGroups = [];
    this.denseKeys = new Uint32Array(0);
    this.denseWords = new Uint32Array(0);
    this.densePrefix = new Uint32Array(1);
    this.baseStart = start;
    this.baseLists = NO_LISTS;
    this.baseCodes = NO_CODES;
    this.baseEscapes = NO_ESCAPES;
    this.denseCodes = NO_CODES;
    this.denseEscapes = NO_ESCAPES;
    for (const key of this.touched) {
      this.tailDocs[key] = null;
      this.tailCodes[key] = null;
      this.tailEscapes[key] = NO_ESCAPES;
      this.tailLength[key] = 0;
    }
    this.touched = [];
    this.tailPostings = 0;
  }

  /**
   * The number of key `key`'s first base posting among its codes: in `denseCodes` for a dense
   * list, else in `baseCodes` (the postings of the other lists before it).
   */
  codeStartOf(key: number): number {
    const denseKeys = this.denseKeys;
    let low = 0;
    let high = denseKeys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (denseKeys[middle]! < key) low = middle + 1;
      else high = middle;
    }
    return low < denseKeys.length && denseKeys[low] === key ? this.densePrefix[low]! : this.baseStart[key]! - this.densePrefix[low]!;
  }

  /** The code of a tuple of frequencies (see FrequencyTuples.codeOf), added when new. */
  codeOf(frequencies: Uint8Array, offset: number): number {
    return this.tuples.codeOf(frequencies, offset);
  }

  /** The documents of the key's base list (empty for a dense one: its bitmap has them), its postings numbered from codeStartOf(key). */
  baseRun(key: number): PostingRun {
    const start = this.codeStartOf(key);
    return runOf(this.baseLists, key, start, start + this.baseStart[key + 1]! - this.baseStart[key]!);
  }

  /** Builds the bitmaps of the dense lists `dense` (ascending keys) from their documents. */
  private buildDenseBitmaps(dense: readonly number[], docs: Uint32Array, docCount: number): void {
    const words = (docCount + 31) >>> 5;
    const denseWords = new Uint32Array(dense.length * words);
    dense.forEach((key, n) => {
      const bitmap = denseWords.subarray(n * words, (n + 1) * words);
      for (let i = this.baseStart[key]!, end = this.baseStart[key + 1]!; i < end; i++) {
        const d = docs[i]!;
        bitmap[d >>> 5] = bitmap[d >>> 5]! | (1 << (d & 31));
      }
    });
    this.useDenseBitmaps(Uint32Array.from(dense), denseWords, words);
  }

  private useDenseBitmaps(keys: Uint32Array, denseWords: Uint32Array, words: number): void {
    this.denseKeys = keys;
    this.denseWords = denseWords;
    this.denseBitmaps = new Array<Uint32Array | null>(this.baseKeyCount).fill(null);
    this.denseRanks = new Array<Uint8Array | null>(this.baseKeyCount).fill(null);
    this.denseRankGroups = new Array<Uint32Array | null>(this.baseKeyCount).fill(null);
    this.densePrefix = new Uint32Array(keys.length + 1);
    keys.forEach((key, n) => {
      this.densePrefix[n + 1] = this.densePrefix[n]! + this.baseStart[key + 1]! - this.baseStart[key]!;
      const bitmap = denseWords.subarray(n * words, (n + 1) * words);
      const ranks = new Uint8Array(words);
      const groups = new Uint32Array(((words - 1) >>> RANK_GROUP_SHIFT) + 1);
      let before = 0;
      for (let w = 0; w < words; w++) {
        if ((w & ((1 << RANK_GROUP_SHIFT) - 1)) === 0) groups[w >>> RANK_GROUP_SHIFT] = before;
        ranks[w] = before - groups[w >>> RANK_GROUP_SHIFT]!;
        before += bitCount(bitmap[w]!);
      }
      if (before !== this.baseStart[key + 1]! - this.baseStart[key]!) throw new Error('search index: a dense bitmap out of step with its list');
      this.denseBitmaps[key] = bitmap;
      this.denseRanks[key] = ranks;
      this.denseRankGroups[key] = groups;
    });
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
      const codes = ensureCapacity(this.tailCodes[key] ?? new Uint8Array(codeBytes(docs.length)), codeBytes(length + 1));
      setCode(codes, length, code);
      if (code >= ESCAPE) this.tailEscapes[key] = withEscape(this.tailEscapes[key]!, length, code);
      this.tailCodes[key] = codes;
    }
    this.tailLength[key] = length + 1;
    this.tailPostings++;
  }

  /** Bytes held by the lists (not the object headers of tail lists). */
  byteSize(): number {
    let bytes =
      this.baseStart.byteLength +
      listBytes(this.baseLists) +
      this.baseCodes.byteLength +
      2 * this.baseEscapes.at.byteLength +
      this.denseCodes.byteLength +
      2 * this.denseEscapes.at.byteLength +
      this.densePrefix.byteLength +
      this.tailLength.byteLength +
      this.tuples.byteSize();
    bytes += this.denseWords.byteLength + this.denseKeys.byteLength;
    for (let key = 0; key < this.denseRanks.length; key++) bytes += (this.denseRanks[key]?.byteLength ?? 0) + (this.denseRankGroups[key]?.byteLength ?? 0);
    for (const key of this.touched) {
      bytes += (this.tailDocs[key]?.byteLength ?? 0) + (this.tailCodes[key]?.byteLength ?? 0) + 2 * this.tailEscapes[key]!.at.byteLength;
    }
    return bytes;
  }
}

/** The escapes without their spare capacity. */
function trimmed(escapes: CodeEscapes): CodeEscapes {
  return escapes.count === escapes.at.length ? escapes : { at: escapes.at.slice(0, escapes.count), codes: escapes.codes.slice(0, escapes.count), count: escapes.count };
}

function listBytes(lists: CompressedLists): number {
  return lists.blocks.byteLength + lists.blockStart.byteLength + lists.blockShift.byteLength + lists.width.byteLength + lists.wordStart.byteLength + lists.words.byteLength;
}
