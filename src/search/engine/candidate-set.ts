import { andInto, andNotInto, listBits, orInto, population, refineMasks, refineMulti, refineRange, refineSingle, setBits, setRunBits } from './bitmap-loops.js';
import type { DocumentStarts } from './document-starts.js';
import {
  addInto,
  boundTable,
  countFrom,
  keepPositions,
  locateByLookup,
  locateByMerge,
  locateByRank,
  maxBounds,
  positionsAtLeast,
  rankList,
  scoreAt,
  scoreBoundedAt,
  scoreByLookup,
  scoreByMerge,
  scoreByRank,
  scoreByBitmap,
  scoreByRankBounded,
  scoreMarkedByBitmap,
  scoreMarkedByBitmapBounded,
  scoreOneBounded,
  scoreOneBoundedByBitmap,
  settle,
} from './bm25-scoring.js';
import { copyBits, copyRun, dropRepeats, keepByAnyBits, keepByBits, keepByLookup, keepByMasks, keepByMulti, keepByRange, keepBySingle } from './list-loops.js';
import { keepByPhrase, type PhraseTerms } from './phrase-match.js';
import type { ForwardCode } from './forward-codes.js';
import { GatheredDocuments, type ReadStream } from './gathered-documents.js';
import type { OrdinalRun } from './value-lists.js';
import type { Bm25Context, DocumentFilter, Segment, TermPlan } from './query-plan.js';
import { heapScratch } from './top-k.js';
import { ensureCapacity } from './typed-arrays.js';

/*
 * The candidate set holds one query's matches as they narrow and drives the loops over them,
 * which live by role in files of their own: the bitmap's (bitmap-loops.ts), the list's
 * (list-loops.ts), BM25 scoring (bm25-scoring.ts) and phrases (phrase-match.ts). What a query
 * is compiled into for them is query-plan.ts.
 */

/** Bounded scoring pays for its tables (256 entries per field and token) from this many candidates. */
const MIN_BOUNDED_CANDIDATES = 1024;
/** Words with several lists are scored by locating each candidate in each list (scoreLocatedVariants) up to this many lists in all. */
const MAX_LOCATED_SEGMENTS = 10;

/** A step looks each candidate up in a token's lists (galloping) when the lists are this much longer than the set. */
export const LOOKUP_RATIO = 16;

/** What a phrase check reads of the forward stream (the index store's, see IndexStore.forwardBase). */
export interface ForwardView {
  readonly forward: Uint8Array;
  readonly forwardStart: DocumentStarts;
  readonly forwardCode: ForwardCode;
  readonly forwardIsOnDisk: boolean;
  readForward: ReadStream;
}

/**
 * The match set of one query as it narrows, in two phases.
 *
 * 1. A bitmap over ordinals (1M documents: 125 KB, it stays in cache): a token's lists are
 *    OR-ed into a scratch bitmap (a dense term's own bitmap a word at a time) and AND-ed into
 *    the set; dense attribute values and the live documents are AND-ed a word at a time;
 *    per-document filters clear bits in one tight loop each. Setting a bit is all a posting
 *    costs, reading the lists sequentially.
 * 2. The list of ordinals left (ascending). Tokens too common to be worth a bitmap against a
 *    small set are verified here by galloping look-ups, phrases on the forward stream, and only
 *    these documents are scored — for a best_match page, most of them only bounded (scoreAll).
 *
 * Everything per candidate is kept by list position (ordinals, scores, sort keys), so the
 * later steps read sequential memory. All arrays are as long as the index and reused by every
 * query.
 */
export class CandidateSet {
  ordinals: Uint32Array = new Uint32Array(16);
  count = 0;
  /** BM25 score of `ordinals[c]` at `scores[c]` (after scoreAll; a bound below the page for some) */
  scores: Float64Array = new Float64Array(16);
  /** scratch by list position: a token's scores */
  private partial: Float64Array = new Float64Array(16);
  /** scratch by list position: sort keys */
  private keys: Float64Array[] = [];
  private bits: Uint32Array = new Uint32Array(1);
  private scratch: Uint32Array = new Uint32Array(1);
  private words = 0;
  /** candidates at extract(); while the count is this, the bitmap is the list (see rankMarks) */
  private extractedCount = -1;
  /** per word of `scratch` (or of the bitmap, see rankMarks), the candidates before it (scoring by rank), valid while `ranked` */
  private ranks: Uint32Array = new Uint32Array(1);
  private ranked = false;
  /** words of `bits` that may hold set bits (cleared by the next reset) */
  private dirtyWords = 0;
  /**
   * this search's bound tables (see boundTable) by coefficients: the lists of a word's
   * variants of one kind, and a word's base and tail lists, share their coefficients (planFor)
   * and so one table
   */
  private readonly bounds = new Map<Float64Array, Float64Array>();
  /** the bound tables' arrays, the first `bounds.size` in use by this search */
  private readonly boundTables: Float64Array[] = [];
  /** positions given exact scores by scoreAll (-1 count: not in use) */
  private exact: Uint32Array = new Uint32Array(16);
  private exactCount = -1;
  /** scratch by list position, per token: the candidate's posting in the token's list */
  private located: Uint32Array[] = [];
  /** the candidates' bytes of a forward stream on disk, for a phrase check (made at its first) */
  private gathered: GatheredDocuments | null = null;

  /** Bytes of the phrase checks' scratch for a stream on disk (0 before the first): for diagnostics. */
  gatheredByteSize(): number {
    return this.gathered?.byteSize() ?? 0;
  }

  /** Makes room for `docCount` ordinals and empties the set. */
  reset(docCount: number): void {
    this.words = (docCount + 31) >>> 5;
    this.exactCount = -1;
    this.extractedCount = -1;
    this.ranked = false;
    if (this.bounds.size > 0) this.bounds.clear(); // clear() allocates, even on an empty map
    if (this.ordinals.length < docCount + 1) {
      const capacity = ensureCapacity(new Uint32Array(0), docCount + 1).length;
      this.ordinals = new Uint32Array(capacity);
      this.scores = new Float64Array(capacity);
      this.partial = new Float64Array(capacity);
      this.keys = [];
      this.bits = new Uint32Array((capacity + 31) >>> 5);
      this.scratch = new Uint32Array((capacity + 31) >>> 5);
      this.ranks = new Uint32Array((capacity + 31) >>> 5);
    }
    // the bitmap is cleared only as far as the last query wrote it (a list-first query never does)
    if (this.dirtyWords > 0) this.bits.fill(0, 0, this.dirtyWords);
    this.dirtyWords = 0;
    this.count = 0;
  }

  /** Scratch sort keys by list position (i: 0, 1 or 2), as long as the index. */
  sortKeys(i: number): Float64Array {
    while (this.keys.length <= i) this.keys.push(new Float64Array(this.ordinals.length));
    return this.keys[i]!;
  }

  // ---- phase 1: bitmap

  /** Documents in the set (phase 1). */
  population(): number {
    return population(this.bits, this.words);
  }

  /** Sets the bits of a token's documents in a bitmap: a dense list's bitmap a word at a time, others a bit per posting. */
  private markPlan(bits: Uint32Array, plan: TermPlan): void {
    for (const segment of plan.segments) {
      if (segment.bitmap !== null) orInto(bits, segment.bitmap, Math.min(this.words, segment.bitmap.length));
      else setRunBits(bits, segment);
    }
  }

  /** Adds the union of a token's lists. */
  fillFromPlan(plan: TermPlan): void {
    this.dirtyWords = this.words;
    // the bitmap is empty after reset: one dense list is copied, not OR-ed
    const only = plan.segments.length === 1 ? plan.segments[0]!.bitmap : null;
    if (only !== null) {
      const words = Math.min(this.words, only.length);
      this.bits.set(only.subarray(0, words));
      return;
    }
    this.markPlan(this.bits, plan);
  }

  /** Adds the union of lists of documents. */
  fillFromLists(lists: readonly OrdinalRun[]): void {
    this.dirtyWords = this.words;
    for (const [docs, start, end] of lists) setBits(this.bits, docs, start, end);
  }

  /** Adds a bitmap's documents (the live ones). */
  fillFromBitmap(bitmap: Uint32Array): void {
    this.dirtyWords = this.words;
    orInto(this.bits, bitmap, Math.min(this.words, bitmap.length));
  }

  /** Keeps the documents of a token (`negate`: drops them). */
  andPlan(plan: TermPlan, negate: boolean): void {
    // one dense list: its bitmap is the token's documents, AND-ed straight (no copy into the scratch)
    const only = plan.segments.length === 1 ? plan.segments[0]!.bitmap : null;
    if (only !== null) {
      this.andWith(only, negate);
      return;
    }
    const scratch = this.scratch;
    scratch.fill(0, 0, this.words);
    this.markPlan(scratch, plan);
    this.andWith(scratch, negate);
  }

  /** Keeps the documents in any of the bitmaps (`negate`: in none of them). */
  andAnyOf(bitmaps: readonly Uint32Array[], negate: boolean): void {
    if (bitmaps.length === 1) {
      this.andWith(bitmaps[0]!, negate);
      return;
    }
    const scratch = this.scratch;
    scratch.fill(0, 0, this.words);
    for (const bitmap of bitmaps) orInto(scratch, bitmap, Math.min(this.words, bitmap.length));
    this.andWith(scratch, negate);
  }

  /** AND with a bitmap (its words past its end count as zero). */
  andWith(bitmap: Uint32Array, negate: boolean): void {
    const words = Math.min(this.words, bitmap.length);
    if (negate) {
      andNotInto(this.bits, bitmap, words);
    } else {
      this.bits.fill(0, words, this.words);
      andInto(this.bits, bitmap, words);
    }
  }

  /** Clears the documents that fail a per-document filter (one tight loop per filter). */
  refine(filter: DocumentFilter): void {
    if (filter.kind === 'single') refineSingle(this.bits, this.words, filter.single, filter.shape, filter.allowed, filter.exclude);
    else if (filter.kind === 'masks') refineMasks(this.bits, this.words, filter.masks, filter.allowed, filter.exclude);
    else if (filter.kind === 'multi') refineMulti(this.bits, this.words, filter.blockStart, filter.docOffset, filter.values, filter.allowed, filter.exclude);
    else refineRange(this.bits, this.words, filter.column, filter.min, filter.max);
  }

  /** The phase 1 bitmap (valid until the next reset): membership tests for ordered walks. */
  get bitmap(): Uint32Array {
    return this.bits;
  }

  /** Phase 2 starts: lists the set's ordinals, ascending. */
  extract(): void {
    this.count = listBits(this.bits, this.words, this.ordinals, this.ranks);
    this.extractedCount = this.count;
  }

  /**
   * A bitmap of the listed documents whose `ranks` (candidates before each word) are known:
   * the phase 1 bitmap itself while no candidate has left the list since it was extracted
   * (candidates only ever leave: the same count, the same documents), else the listed
   * documents marked in the scratch bitmap and ranked there.
   */
  private rankMarks(): Uint32Array {
    if (this.count === this.extractedCount) return this.bits.subarray(0, this.words);
    if (!this.ranked) {
      this.scratch.fill(0, 0, this.words);
      rankList(this.ordinals, this.count, this.scratch, this.ranks, this.words);
      this.ranked = true;
    }
    return this.scratch.subarray(0, this.words);
  }

  // ---- phase 2: list

  /**
   * Phase 2 straight from a short token's lists, skipping the bitmap (whose passes cost a
   * word per 32 documents, however few match): its documents, ascending, each once. The
   * steps of phase 1 then have list forms: keepLive, keepInAnyOf, keepByFilter, and verify.
   */
  listFromPlan(plan: TermPlan): void {
    this.extractedCount = -1;
    if (plan.segments.length === 1) {
      const segment = plan.segments[0]!;
      // a dense list (a common word searched alone) has its documents in its bitmap only
      if (segment.bitmap !== null) copyBits(this.ordinals, 0, segment.bitmap, Math.min(this.words, segment.bitmap.length));
      else copyRun(this.ordinals, 0, segment);
      this.count = segment.end - segment.start;
      return;
    }
    let count = 0;
    for (const segment of plan.segments) {
      const bitmap = segment.bitmap;
      if (bitmap !== null) count = copyBits(this.ordinals, count, bitmap, Math.min(this.words, bitmap.length));
      else count = copyRun(this.ordinals, count, segment);
    }
    this.ordinals.subarray(0, count).sort();
    this.count = dropRepeats(this.ordinals, count);
  }

  /** Keeps the listed documents in any of the bitmaps (`negate`: in none of them). */
  keepInAnyOf(bitmaps: readonly Uint32Array[], negate: boolean): void {
    this.count = keepByAnyBits(this.ordinals, this.count, bitmaps, negate);
  }

  /** Keeps the listed documents that pass a per-document filter. */
  keepByFilter(filter: DocumentFilter): void {
    if (filter.kind === 'single') this.count = keepBySingle(this.ordinals, this.count, filter.single, filter.shape, filter.allowed, filter.exclude);
    else if (filter.kind === 'masks') this.count = keepByMasks(this.ordinals, this.count, filter.masks, filter.allowed, filter.exclude);
    else if (filter.kind === 'multi') this.count = keepByMulti(this.ordinals, this.count, filter.blockStart, filter.docOffset, filter.values, filter.allowed, filter.exclude);
    else this.count = keepByRange(this.ordinals, this.count, filter.column, filter.min, filter.max);
  }

  /**
   * Keeps the documents a token matches (`keepFound`) or does not match: looked up by
   * galloping when the set is small against the lists, else through the lists marked in the
   * scratch bitmap.
   */
  verify(plan: TermPlan, keepFound: boolean): void {
    if (this.count * LOOKUP_RATIO < plan.cost) {
      this.count = keepByLookup(this.ordinals, this.count, plan.segments, keepFound);
      return;
    }
    const scratch = this.scratch;
    scratch.fill(0, 0, this.words);
    this.markPlan(scratch, plan);
    this.count = keepByBits(this.ordinals, this.count, scratch, keepFound);
  }

  /**
   * Adds a token's BM25 score (its best variant's) to each listed document (`first`: sets
   * it); every listed document is known to match the token. The lists are walked side by side
   * with the candidates, or — when much longer — the candidates are looked up by galloping.
   */
  score(plan: TermPlan, bm25: Bm25Context, first: boolean): void {
    const { ordinals, count } = this;
    const best = first ? this.scores : this.partial;
    best.fill(0, 0, count);
    const lookup = count * LOOKUP_RATIO < plan.cost;
    // several lists (a word's variants): each walked once, candidates found by rank — not
    // every candidate walked once per list
    const byRank = !lookup && plan.segments.length > 1;
    const marks = byRank ? this.rankMarks() : this.scratch;
    for (const segment of plan.segments) {
      const dense = segment.bitmap !== null;
      if (byRank) {
        if (dense) scoreMarkedByBitmap(segment, marks, this.ranks, bm25, best);
        else scoreByRank(segment, marks, this.ranks, bm25, best);
      } else if (dense) {
        scoreByBitmap(segment, ordinals, count, bm25, best);
      } else if (lookup) {
        scoreByLookup(segment, ordinals, count, bm25, best);
      } else {
        scoreByMerge(segment, ordinals, count, bm25, best);
      }
    }
    if (!first) addInto(this.scores, best, count);
  }

  /**
   * `score` for a best_match page of one word with several lists (its variants), bounded as
   * scoreOneBounded is: each list is walked once (candidates found by rank), and a posting
   * whose upper bound is below the k-th best exact score so far (the bar) is not scored.
   * The bar only rises, so whatever such a posting would give is below the final bar: a
   * document whose best exact score reaches that bar has its true score, and every other one
   * is off the page. Each document joins the heap of the k best once, with its first exact
   * score (a lower bound of its true one), so the bar never passes the true k-th best. Returns
   * how many positions got exact scores (written to `exact`), or -1 when all did.
   */
  private scoreVariantsBounded(plan: TermPlan, bm25: Bm25Context, k: number): number {
    const count = this.count;
    const best = this.scores;
    best.fill(0, 0, count);
    const marks = this.rankMarks();
    const heap = heapScratch(k);
    let filled = 0;
    let skipped = 0;
    for (const segment of plan.segments) {
      const bound = this.boundFor(segment, bm25);
      const scored =
        segment.bitmap !== null
          ? scoreMarkedByBitmapBounded(segment, marks, this.ranks, bm25, best, bound, heap, filled, k)
          : scoreByRankBounded(segment, marks, this.ranks, bm25, best, bound, heap, filled, k);
      filled = scored.filled;
      skipped += scored.skipped;
    }
    if (skipped === 0) return -1;
    if (this.exact.length < count) this.exact = new Uint32Array(this.ordinals.length);
    return positionsAtLeast(best, count, heap[0]!, this.exact);
  }

  /**
   * Scores the listed documents: the sum over the required tokens of each one's best variant.
   * `k` > 0 when only the best k documents matter (a best_match page): most then get an upper
   * bound instead of their score (see scoreBoundedAt), and `narrowToExact` can drop them.
   * Tokens of one list each and three text fields take the located path; others `score`.
   */
  scoreAll(plans: readonly TermPlan[], bm25: Bm25Context, k: number): void {
    this.exactCount = -1;
    const count = this.count;
    if (count === 0) return;
    const bounded = k > 0 && 2 * k < count && count >= MIN_BOUNDED_CANDIDATES;
    if (bounded && plans.length === 1 && plans[0]!.segments.length > 1 && !(count * LOOKUP_RATIO < plans[0]!.cost)) {
      this.exactCount = this.scoreVariantsBounded(plans[0]!, bm25, k);
      return;
    }
    const segmentCount = plans.reduce((sum, plan) => sum + plan.segments.length, 0);
    if (bounded && segmentCount <= MAX_LOCATED_SEGMENTS && segmentCount > plans.length) {
      this.exactCount = this.scoreLocatedVariants(plans, bm25, k);
      return;
    }
    if (!plans.every((plan) => plan.segments.length === 1)) {
      this.ranked = false;
      plans.forEach((plan, i) => this.score(plan, bm25, i === 0));
      return;
    }
    const segments = plans.map((plan) => plan.segments[0]!);
    const single = segments.length === 1 ? segments[0]! : undefined;
    if (single !== undefined && bounded && 2 * count >= single.end - single.start) {
      if (this.exact.length < count) this.exact = new Uint32Array(this.ordinals.length);
      const score = single.bitmap !== null ? scoreOneBoundedByBitmap : scoreOneBounded;
      this.exactCount = score(single, this.boundFor(single, bm25), this.ordinals, count, bm25, this.scores, k, this.exact);
      return;
    }
    const ats = segments.map((segment, s) => this.locateEach(segment, s));
    if (bounded) {
      if (this.exact.length < count) this.exact = new Uint32Array(this.ordinals.length);
      const bounds = segments.map((segment) => this.boundFor(segment, bm25));
      this.exactCount = scoreBoundedAt(segments, bounds, ats, this.ordinals, count, bm25, this.scores, k, this.exact);
      return;
    }
    segments.forEach((segment, s) => scoreAt(segment, this.ordinals, count, ats[s]!, bm25, this.scores, s > 0));
  }

  private boundFor(segment: Segment, bm25: Bm25Context): Float64Array {
    let bound = this.bounds.get(segment.coefficients);
    if (bound === undefined) {
      // the tables of earlier searches are filled again (see heapScratch)
      if (this.boundTables.length === this.bounds.size) this.boundTables.push(new Float64Array(bm25.fields * 256));
      bound = boundTable(segment, bm25, this.boundTables[this.bounds.size]!);
      this.bounds.set(segment.coefficients, bound);
    }
    return bound;
  }

  /**
   * locate for a list that holds every candidate (the one list of a required word): a list no
   * longer than the candidates is exactly them — the postings in order, nothing to look for
   * (a rare word's search, straight from its list).
   */
  private locateEach(segment: Segment, slot: number): Uint32Array {
    const count = this.count;
    if (count !== segment.end - segment.start) return this.locate(segment, slot);
    const at = this.locatedSlot(slot);
    countFrom(at, count, segment.start);
    return at;
  }

  private locatedSlot(slot: number): Uint32Array {
    while (this.located.length <= slot) this.located.push(new Uint32Array(0));
    if (this.located[slot]!.length < this.count) this.located[slot] = new Uint32Array(this.ordinals.length);
    return this.located[slot]!;
  }

  /**
   * Each listed document's posting in the list (ABSENT when not in it), into the `slot`-th
   * array of positions: by bitmap rank for a dense list (which keeps no documents beside its
   * bitmap), by a walk when most of the list are candidates (sequential, right nearly every
   * step), by galloping when it is far longer.
   */
  private locate(segment: Segment, slot: number): Uint32Array {
    const count = this.count;
    const at = this.locatedSlot(slot);
    const length = segment.end - segment.start;
    if (segment.ranks !== null) locateByRank(segment, this.ordinals, count, at);
    else if (2 * count >= length) locateByMerge(segment, this.ordinals, count, at);
    else if (count * LOOKUP_RATIO < length) locateByLookup(segment, this.ordinals, count, at);
    else locateByMerge(segment, this.ordinals, count, at);
    return at;
  }

  /**
   * scoreBoundedAt for several words, some with several lists (variants), when the lists are
   * few: each candidate's posting is located in every list, or marked ABSENT (a candidate is
   * in at least one list of each word); a word's bound and score are its best list's.
   */
  private scoreLocatedVariants(plans: readonly TermPlan[], bm25: Bm25Context, k: number): number {
    const count = this.count;
    const segments: Segment[] = [];
    const ats: Uint32Array[] = [];
    // word w's lists are segments[firstOf[w] .. firstOf[w + 1])
    const firstOf = new Uint32Array(plans.length + 1);
    plans.forEach((plan, w) => {
      for (const segment of plan.segments) {
        ats.push(this.locate(segment, segments.length));
        segments.push(segment);
      }
      firstOf[w + 1] = segments.length;
    });
    if (this.partial.length < count) this.partial = new Float64Array(this.ordinals.length);
    plans.forEach((_, w) => {
      // the word's bound: its best list's, in `partial`, then added
      for (let s = firstOf[w]!; s < firstOf[w + 1]!; s++) {
        maxBounds(segments[s]!.codes, segments[s]!.codeShift, segments[s]!.escapes, segments[s]!.tuples, bm25.fields, ats[s]!, this.boundFor(segments[s]!, bm25), this.partial, count, s > firstOf[w]!);
      }
      if (w === 0) this.scores.set(this.partial.subarray(0, count));
      else addInto(this.scores, this.partial, count);
    });
    if (this.exact.length < count) this.exact = new Uint32Array(this.ordinals.length);
    return settle(segments, ats, firstOf, this.ordinals, count, bm25, this.scores, k, this.exact);
  }

  /**
   * After scoreAll (and the facets, which need every match): keeps only the documents given
   * exact scores, the only ones that can be on the page. Returns false when there is nothing
   * to narrow.
   */
  narrowToExact(): boolean {
    if (this.exactCount < 0 || this.exactCount === this.count) return false;
    this.count = keepPositions(this.ordinals, this.scores, this.exact, this.exactCount);
    this.exactCount = -1;
    return true;
  }

  /**
   * Keeps (or, for an excluded phrase, drops) the documents whose forward stream has the phrase
   * (see keepByPhrase): read where it is in memory, else first gathered from disk.
   */
  keepByPhrase(terms: PhraseTerms, length: number, stream: ForwardView, keepMatches: boolean): void {
    const { forwardStart, forwardCode } = stream;
    if (!stream.forwardIsOnDisk) {
      this.count = keepByPhrase(this.ordinals, this.count, terms.seen, terms.keys, terms.masks, terms.shift, length, stream.forward, forwardStart.blockStart, forwardStart.offset, forwardCode, keepMatches);
      return;
    }
    const gathered = (this.gathered ??= new GatheredDocuments());
    const read: ReadStream = (from, to, target, at) => stream.readForward(from, to, target, at);
    const ordinals = this.ordinals;
    const count = this.count;
    let kept = 0;
    for (let first = 0; first < count; ) {
      const end = gathered.gather(ordinals, first, count, forwardStart, read);
      const batchKept = keepByPhrase(gathered.order, end - first, terms.seen, terms.keys, terms.masks, terms.shift, length, gathered.bytes, gathered.blockStart, gathered.offset, forwardCode, keepMatches);
      // the kept positions ascend, each at or after its new place: compacted in place
      for (let c = 0; c < batchKept; c++) ordinals[kept++] = ordinals[first + gathered.order[c]!]!;
      first = end;
    }
    this.count = kept;
  }
}
