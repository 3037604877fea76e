import { TERM_CODE, type ForwardCode } from './forward-codes.js';
import type { DocumentStarts } from './document-starts.js';
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
   * Chooses the common terms from the base term lists (`termStart`, a term's list length is
   * its document frequency) and lists the pairs of every document of the forward stream.
   */
  rebuild(termStart: Uint32Array, forward: Uint8Array, forwardStart: DocumentStarts, docCount: number, code: ForwardCode): void {
    const termCount = termStart.length - 1;
    const minimum = Math.max(2, Math.ceil(docCount * MIN_COMMON_SHARE));
    const frequent: number[] = [];
    for (let t = 0; t < termCount; t++) if (termStart[t + 1]! - termStart[t]! >= minimum) frequent.push(t);
    frequent.sort((a, b) => termStart[b + 1]! - termStart[b]! - (termStart[a + 1]! - termStart[a]!) || a - b);
    const rankOf = new Int32Array(termCount).fill(-1);
    frequent.slice(0, MAX_COMMON_TERMS).forEach((term, rank) => (rankOf[term] = rank));
    this.rankOf = rankOf;

    const keys = MAX_COMMON_TERMS * MAX_COMMON_TERMS;
    const start = new Uint32Array(keys + 1);
    const lastDoc = new Int32Array(keys).fill(-1);
    listPairs(forward, forwardStart, docCount, code, rankOf, lastDoc, start, null);
    for (let key = 0; key < keys; key++) start[key + 1] = start[key + 1]! + start[key]!;
    const docs = new Uint32Array(start[keys]!);
    const cursor = start.slice(0, keys);
    lastDoc.fill(-1);
    listPairs(forward, forwardStart, docCount, code, rankOf, lastDoc, cursor, docs);
    this.postings.setBase(start, docs, new Uint8Array(0));
    this.lastTailDoc.fill(-1);
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
 * Lists every document's pairs (see pairKeysOf), each once per document: with `docs` null,
 * counts them in `slots[key + 1]`; else writes the document at `slots[key]` (advanced) of
 * `docs`.
 */
function listPairs(
  forward: Uint8Array,
  forwardStart: DocumentStarts,
  docCount: number,
  code: ForwardCode,
  rankOf: Int32Array,
  lastDoc: Int32Array,
  slots: Uint32Array,
  docs: Uint32Array | null,
): void {
  const offset = docs === null ? 1 : 0;
  let keys = new Uint32Array(256);
  let codes = new Uint32Array(1024);
  for (let d = 0; d < docCount; d++) {
    const from = forwardStart.at(d);
    codes = ensureCapacity(codes, 8 * (forwardStart.at(d + 1) - from));
    const codeCount = code.decode(forward, from, codes);
    keys = ensureCapacity(keys, codeCount);
    const count = pairKeysOf(codes, codeCount, rankOf, keys);
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
      if (lastDoc[key] === d) continue;
      lastDoc[key] = d;
      const slot = slots[key + offset]!++;
      if (docs !== null) docs[slot] = d;
    }
  }
  return;
}
