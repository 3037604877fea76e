import { codeAt } from './frequency-tuples.js';
import { fourFieldScore, gatherLengthWords, postingScore } from './posting-score.js';
import type { Bm25Context, Segment } from './query-plan.js';
import { offerToMinHeap } from './top-k.js';

/** Candidates whose exact scores wait, at most: enough misses to overlap, a bar at most this stale. */
const BATCH = 32;

/* The batch's candidates (searches run one at a time): list position, posting, document. */
const batchPositions = new Uint32Array(BATCH);
const batchPostings = new Uint32Array(BATCH);
const batchDocuments = new Uint32Array(BATCH);

/**
 * The page's bar for a bounded walk over a token's list (scoreOneBounded, scoreByRankBounded
 * and their bitmap forms), with the exact scores the walk asks for computed a batch at a time.
 * An exact score reads the document's field lengths, one cache miss each, far apart; asked one
 * by one between the walk's steps, they wait one after another — at ten million assets about
 * 100 ns each, most of a rare word's search. A batch reads its documents' lengths in one loop
 * of loads alone first, so that their misses overlap.
 *
 * A candidate is held against the bar as it was when the last batch ended, which can only be
 * lower than the bar of a walk that scores at once: a few more exact scores, never one fewer,
 * and as before every candidate left with its bound lies below the final k-th best exact score.
 * Each exact score is postingScore's sum in the same order: the same bits.
 */
export class ExactBatch {
  /** the k-th best exact score so far (the root of the min-heap of the k best); -Infinity until k are in */
  bar: number;
  /** positions given exact scores (one-word walks) */
  exactCount = 0;
  private waiting = 0;

  /**
   * `exact`: for a one-word walk, where the positions given exact scores go, ascending (each
   * candidate comes once); null for a word of several lists, whose documents may come once in
   * each: `best` then keeps the highest score, and a document joins the heap with its first.
   */
  constructor(
    private readonly segment: Segment,
    private readonly bm25: Bm25Context,
    /** score by list position: exact, or the bound of a candidate below the bar (0: none yet, for several lists) */
    private readonly best: Float64Array,
    private readonly exact: Uint32Array | null,
    private readonly heap: Float64Array,
    /** entries of the heap in use */
    public filled: number,
    private readonly k: number,
  ) {
    this.bar = filled === k ? heap[0]! : -Infinity;
  }

  /** Candidate `c` (document `d`, posting `i`) needs its exact score: soon, with the rest of its batch. */
  add(c: number, i: number, d: number): void {
    const n = this.waiting;
    batchPositions[n] = c;
    batchPostings[n] = i;
    batchDocuments[n] = d;
    this.waiting = n + 1;
    if (n + 1 === BATCH) this.flush();
  }

  /** Scores the waiting candidates and raises the bar; returns how many positions have exact scores (one-word walks). */
  flush(): number {
    const n = this.waiting;
    if (n === 0) return this.exactCount;
    this.waiting = 0;
    const segment = this.segment;
    const bm25 = this.bm25;
    if (bm25.fields === 4) {
      // the lengths' loads alone first
      const { codes, codeShift, escapes, tuples, coefficients } = segment;
      const lengthWords = gatherLengthWords(bm25, batchDocuments, n);
      for (let j = 0; j < n; j++) {
        const p = codeAt(codes, codeShift, escapes, batchPostings[j]!) << 2;
        this.settle(batchPositions[j]!, fourFieldScore(coefficients, tuples, p, lengthWords[j]!, bm25.lengthNorms, bm25.normConstant));
      }
    } else {
      for (let j = 0; j < n; j++) this.settle(batchPositions[j]!, postingScore(segment, batchPostings[j]!, batchDocuments[j]!, bm25));
    }
    return this.exactCount;
  }

  private settle(c: number, score: number): void {
    const exact = this.exact;
    if (exact !== null) {
      this.best[c] = score;
      exact[this.exactCount++] = c;
    } else {
      const previous = this.best[c]!;
      if (score > previous) this.best[c] = score;
      // 0: no exact score yet (a document scoring 0, in a field of weight 0 only, may join twice:
      // an entry of 0 never raises a bar that bounds, all ≥ 0, must pass)
      if (previous !== 0) return;
    }
    this.filled = offerToMinHeap(this.heap, this.filled, this.k, score);
    if (this.filled === this.k) this.bar = this.heap[0]!;
  }
}
