import { TERM_CODE } from './forward-codes.js';
import type { CompressedLists } from './compressed-lists.js';
import { PostingStore } from './posting-store.js';
import { ensureCapacity } from './typed-arrays.js';

/**
 * Posting lists of adjacent pairs of common terms ("common grams"): for each ordered pair
 * (a, b) of the most frequent terms, the documents where b directly follows a within one
 * value of a text field — what a quoted phrase "a b" needs. A phrase of frequent words is the
 * costly case of phrase search: each word is in a tenth of the catalogue or more, their
 * intersection in tens of thousands of documents, each checked token by token on the forward
 * stream. A pair list is about as long as the phrase's true matches, so the phrase starts from
 * it and the forward stream checks only those.
 *
 * Only pairs of common terms get lists (about 7 million postings, 17 MB compressed, at a million assets
 * with 128 common terms): a phrase with a rarer word is already cheap, as that word's list is
 * short. The lists are derived from the forward stream — rebuilt with the term lists at a
 * compaction, and kept up for appended documents in tail lists; a snapshot stores them as they
 * are (a second and more of a load at a million documents, for 17 MB of file). The common terms
 * are chosen at each rebuild.
 */

/** At most this many common terms: pair keys fit a rank × rank table. */
export const MAX_COMMON_TERMS = 128;
/** A common term is in at least this share of the documents. */
const MIN_COMMON_SHARE = 1 / 64;

export class CommonPairs {
  readonly postings = new PostingStore(0);
  /** term id → its rank among the common terms, or -1 (ids past the end: -1) */
  private rankOf: Int32Array = new Int32Array(0);
  /** per pair key, the last ordinal added to its tail list (a pair twice in a document is listed once) */
  private lastTailDoc: Int32Array = new Int32Array(MAX_COMMON_TERMS * MAX_COMMON_TERMS).fill(-1);
  /** scratch: one document's pair keys */
  private keys: Uint32Array = new Uint32Array(256);

  /**
   * Rebuilds the base lists from every document of the forward stream, fed by the caller (a
   * compaction reads each document once for all its lists): the common terms chosen from the
   * base term lists (`termStart`, a term's list length is its document frequency), then each
   * document's codes, in order, given to `count`, after `allocate` the same again to `write`,
   * and `finish` makes them the base lists.
   */
  beginRebuild(termStart: Uint32Array, docCount: number): PairListBuild {
    const termCount = termStart.length - 1;
    const minimum = Math.max(2, Math.ceil(docCount * MIN_COMMON_SHARE));
    const frequent: number[] = [];
    for (let t = 0; t < termCount; t++) if (termStart[t + 1]! - termStart[t]! >= minimum) frequent.push(t);
    frequent.sort((a, b) => termStart[b + 1]! - termStart[b]! - (termStart[a + 1]! - termStart[a]!) || a - b);
    const rankOf = new Int32Array(termCount).fill(-1);
    frequent.slice(0, MAX_COMMON_TERMS).forEach((term, rank) => (rankOf[term] = rank));
    this.rankOf = rankOf;
    return new PairListBuild(rankOf, (start, docs) => {
      this.postings.setBase(start, docs, new Uint8Array(0));
      this.lastTailDoc.fill(-1);
    });
  }

  /** The common terms' ranks and the base lists, for a snapshot (after a compaction: no tail lists). */
  snapshot(): { rankOf: Int32Array; start: Uint32Array; lists: CompressedLists } {
    return { rankOf: this.rankOf, start: this.postings.baseStart, lists: this.postings.baseLists };
  }

  /** Takes the ranks and base lists a snapshot kept (see snapshot). */
  restore(rankOf: Int32Array, start: Uint32Array, lists: CompressedLists): void {
    // (an index never built has no lists at all: one start)
    if (start.length !== 1 && start.length !== MAX_COMMON_TERMS * MAX_COMMON_TERMS + 1) {
      throw new Error('search index snapshot: the phrase pair lists are out of step');
    }
    this.rankOf = rankOf;
    this.postings.restoreBase(start, lists, new Uint8Array(0));
    this.lastTailDoc.fill(-1);
  }

  /** Adds the pairs of an appended document (an ordinal past every listed one), its `codes[0..codeCount)`, to the tail lists. */
  addDocument(codes: Uint32Array, codeCount: number, ordinal: number): void {
    this.keys = ensureCapacity(this.keys, codeCount);
    const count = pairKeysOf(codes, codeCount, this.rankOf, this.keys);
    for (let i = 0; i < count; i++) {
      const key = this.keys[i]!;
      if (this.lastTailDoc[key] === ordinal) continue;
      this.lastTailDoc[key] = ordinal;
      this.postings.add(key, ordinal, null, 0);
    }
  }

  /** The key of the pair "a b" (term ids), or -1 when either term is not common. */
  keyOf(a: number, b: number): number {
    const rankA = a < this.rankOf.length ? this.rankOf[a]! : -1;
    const rankB = b < this.rankOf.length ? this.rankOf[b]! : -1;
    return rankA < 0 || rankB < 0 ? -1 : rankA * MAX_COMMON_TERMS + rankB;
  }

  byteSize(): number {
    return this.postings.byteSize() + this.rankOf.byteLength + this.lastTailDoc.byteLength;
  }
}

/**
 * The key of each adjacent pair of common terms among a document's `codes[0..codeCount)` (a
 * pair twice is listed twice), into `keys`; returns how many. Markers and other terms break
 * a pair, as they break a phrase.
 */
function pairKeysOf(codes: Uint32Array, codeCount: number, rankOf: Int32Array, keys: Uint32Array): number {
  let count = 0;
  let previous = -1;
  for (let i = 0; i < codeCount; i++) {
    const term = codes[i]! - TERM_CODE;
    const rank = term >= 0 && term < rankOf.length ? rankOf[term]! : -1;
    if (rank >= 0 && previous >= 0) keys[count++] = previous * MAX_COMMON_TERMS + rank;
    previous = rank;
  }
  return count;
}

/**
 * The base pair lists of a rebuild (see CommonPairs.beginRebuild), made in two passes over
 * the documents in order: each document's pairs, once per document, counted, then written.
 */
export class PairListBuild {
  private readonly start = new Uint32Array(MAX_COMMON_TERMS * MAX_COMMON_TERMS + 1);
  private readonly lastDoc = new Int32Array(MAX_COMMON_TERMS * MAX_COMMON_TERMS).fill(-1);
  private cursor: Uint32Array = new Uint32Array(0);
  private docs: Uint32Array = new Uint32Array(0);
  private keys: Uint32Array = new Uint32Array(256);

  constructor(
    private readonly rankOf: Int32Array,
    private readonly done: (start: Uint32Array, docs: Uint32Array) => void,
  ) {}

  /** The first pass: document `d`'s codes. */
  count(codes: Uint32Array, codeCount: number, d: number): void {
    const count = this.keysOf(codes, codeCount);
    const keys = this.keys;
    const lastDoc = this.lastDoc;
    const start = this.start;
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
      if (lastDoc[key] === d) continue;
      lastDoc[key] = d;
      start[key + 1]!++;
    }
  }

  /** Between the passes. */
  allocate(): void {
    const start = this.start;
    const keys = start.length - 1;
    for (let key = 0; key < keys; key++) start[key + 1] = start[key + 1]! + start[key]!;
    this.docs = new Uint32Array(start[keys]!);
    this.cursor = start.slice(0, keys);
    this.lastDoc.fill(-1);
  }

  /** The second pass: document `d`'s codes again. */
  write(codes: Uint32Array, codeCount: number, d: number): void {
    const count = this.keysOf(codes, codeCount);
    const keys = this.keys;
    const lastDoc = this.lastDoc;
    const cursor = this.cursor;
    const docs = this.docs;
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
      if (lastDoc[key] === d) continue;
      lastDoc[key] = d;
      docs[cursor[key]!++] = d;
    }
  }

  finish(): void {
    const start = this.start;
    for (let key = 0; key < this.cursor.length; key++) {
      if (this.cursor[key] !== start[key + 1]) throw new Error('search index: phrase pair lists written out of step with their counts');
    }
    this.done(start, this.docs);
  }

  private keysOf(codes: Uint32Array, codeCount: number): number {
    this.keys = ensureCapacity(this.keys, codeCount);
    return pairKeysOf(codes, codeCount, this.rankOf, this.keys);
  }
}
