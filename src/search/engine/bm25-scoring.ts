import { codeAt, type CodeEscapes, type TupleCodes } from './frequency-tuples.js';
import { bitsAt, documentAt, gallopRun } from './compressed-lists.js';
import { ExactBatch } from './exact-batch.js';
import { fourFieldScore, gatherLengthWords, postingScore } from './posting-score.js';
import { RANK_GROUP_SHIFT } from './posting-store.js';
import type { Bm25Context, Segment } from './query-plan.js';
import { heapScratch, offerToMinHeap } from './top-k.js';
import { bitCount } from './typed-arrays.js';

/*
 * BM25 over the candidate list (see CandidateSet.scoreAll): exact scores, bounds from a table
 * per token, and the top-k bar that lets most candidates keep only their bound. Each loop
 * ends right after it, for the reason bitmap-loops.ts gives.
 */


/**
 * `best[c] = max(best[c], score)` for each listed document (`ordinals[c]`) that the segment
 * holds, walking the two ascending lists side by side: sequential reads and writes only.
 */
export function scoreByMerge(segment: Segment, ordinals: Uint32Array, count: number, bm25: Bm25Context, best: Float64Array): void {
  const { words, wordBase, width, mask, blocks, firstBlock, blockShift, start, end } = segment;
  let c = 0;
  let next = count > 0 ? ordinals[0]! : 0;
  for (let i = start; i < end && c < count; i++) {
    const d = blocks[firstBlock + ((i - start) >>> blockShift)]! + bitsAt(words, wordBase, (i - start) * width, mask);
    if (d < next) continue;
    while (next < d) {
      c++;
      if (c === count) return;
      next = ordinals[c]!;
    }
    if (next !== d) continue;
    const score = postingScore(segment, i, d, bm25);
    if (score > best[c]!) best[c] = score;
    c++;
    if (c === count) return;
    next = ordinals[c]!;
  }
  return;
}

/**
 * scoreByMerge (and scoreByLookup) for a dense list: each listed document's posting found in
 * the list's bitmap by rank, in constant time.
 */
export function scoreByBitmap(segment: Segment, ordinals: Uint32Array, count: number, bm25: Bm25Context, best: Float64Array): void {
  const bitmap = segment.bitmap!;
  const ranks = segment.ranks!;
  const groups = segment.rankGroups!;
  const start = segment.start;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    const w = d >>> 5;
    const word = w < bitmap.length ? bitmap[w]! : 0;
    if ((word & (1 << (d & 31))) === 0) continue;
    const score = postingScore(segment, start + groups[w >>> RANK_GROUP_SHIFT]! + ranks[w]! + bitCount(word & ~(-1 << (d & 31))), d, bm25);
    if (score > best[c]!) best[c] = score;
  }
  return;
}

/*
 * Scoring when every required token has one list (one variant, base or tail only) — the usual
 * case, taken apart for speed: first each candidate's posting is located in each list
 * (`at[c]`), then scores are computed per candidate. Every field is summed branch-free (which
 * fields hold a term is unpredictable): a zero frequency adds 0, the denominator staying
 * ≥ k1·(1 − b) > 0, and the sum runs in field order as postingScore's does, so the same bits.
 */

/** A candidate not in a list (a word with several lists, see scoreLocatedVariants). */
const ABSENT = 0xffffffff;

/** at[c] = posting of ordinals[c] in a dense list, by its bitmap ranks (constant time, no walk), or ABSENT. */
export function locateByRank(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array): void {
  const bitmap = segment.bitmap!;
  const ranks = segment.ranks!;
  const groups = segment.rankGroups!;
  const start = segment.start;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    const w = d >>> 5;
    const word = w < bitmap.length ? bitmap[w]! : 0;
    at[c] = (word & (1 << (d & 31))) === 0 ? ABSENT : start + groups[w >>> RANK_GROUP_SHIFT]! + ranks[w]! + bitCount(word & ~(-1 << (d & 31)));
  }
  return;
}

/** at[c] = from + c. */
export function countFrom(at: Uint32Array, count: number, from: number): void {
  for (let c = 0; c < count; c++) at[c] = from + c;
  return;
}

/** at[c] by walking the list beside the candidates, or ABSENT. */
export function locateByMerge(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array): void {
  const { words, wordBase, width, mask, blocks, firstBlock, blockShift, start, end } = segment;
  let i = start;
  let listed = i < end ? blocks[firstBlock + ((i - start) >>> blockShift)]! + bitsAt(words, wordBase, (i - start) * width, mask) : 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    while (i < end && listed < d) {
      i++;
      if (i < end) listed = blocks[firstBlock + ((i - start) >>> blockShift)]! + bitsAt(words, wordBase, (i - start) * width, mask);
    }
    at[c] = i < end && listed === d ? i : ABSENT;
  }
  return;
}

/** at[c] by galloping, for a list much longer than the candidates, or ABSENT. */
export function locateByLookup(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array): void {
  const end = segment.end;
  let i = segment.start;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    i = gallopRun(segment, i, end, d);
    at[c] = i < end && documentAt(segment, i) === d ? i : ABSENT;
  }
  return;
}

/** `out[c]` = (or += when `add`) the BM25 score of posting `at[c]` of `ordinals[c]`. */
export function scoreAt(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array, bm25: Bm25Context, out: Float64Array, add: boolean): void {
  if (bm25.fields === 4) {
    scoreAtFourFields(segment, ordinals, count, at, bm25, out, add);
    return;
  }
  const { codes, codeShift, escapes, tuples, coefficients } = segment;
  const { fields, lengths, lengthNorms, normConstant } = bm25;
  for (let c = 0; c < count; c++) {
    const code = codeAt(codes, codeShift, escapes, at[c]!);
    const p = code * fields;
    const l = ordinals[c]! * fields;
    let score = 0;
    for (let f = 0; f < fields; f++) {
      const t = tuples[p + f]!;
      score += (coefficients[f]! * t) / (t + normConstant + lengthNorms[(f << 8) + lengths[l + f]!]!);
    }
    out[c] = add ? out[c]! + score : score;
  }
  return;
}

/** scoreAt for four text fields (the asset schema's): see fourFieldScore. */
function scoreAtFourFields(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array, bm25: Bm25Context, out: Float64Array, add: boolean): void {
  const { codes, codeShift, escapes, tuples, coefficients } = segment;
  const { lengthNorms, normConstant } = bm25;
  const lengthWords = gatherLengthWords(bm25, ordinals, count);
  for (let c = 0; c < count; c++) {
    const score = fourFieldScore(coefficients, tuples, codeAt(codes, codeShift, escapes, at[c]!) << 2, lengthWords[c]!, lengthNorms, normConstant);
    out[c] = add ? out[c]! + score : score;
  }
  return;
}

/**
 * bound[f * 256 + t]: a field's term of frequency t in the shortest field it can be in: at
 * least t tokens — as stored, rounded (a field of 130 tokens scores as 128) — and at least the
 * shortest stored.
 */
export function boundTable(segment: Segment, bm25: Bm25Context, bound: Float64Array): Float64Array {
  for (let f = 0; f < bm25.fields; f++) {
    const coefficient = segment.coefficients[f]!;
    const perLength = bm25.normPerLength[f]!;
    const shortest = bm25.minLengths[f]!;
    for (let t = 0; t < 256; t++) bound[f * 256 + t] = (coefficient * t) / (t + bm25.normConstant + perLength * Math.max(bm25.lengthOfCount[t]!, shortest));
  }
  return bound;
}

/**
 * scoreAt for every token when only the best `k` scores matter (a best_match page): a
 * candidate whose upper bound — its term frequencies through the bound tables, no length
 * read, no division — is below the k-th best exact score seen so far cannot make the page,
 * and gets the bound as its score (still below every score of the final page, so it ranks
 * where it would anyway). Most candidates of common words are settled that way. Writes the
 * positions given exact scores to `exact` (ascending) and returns how many: the page is
 * among them. Exact scores are summed in token order, as scoreAt does, to the same bits.
 */
export function scoreBoundedAt(
  segments: readonly Segment[],
  bounds: readonly Float64Array[],
  ats: readonly Uint32Array[],
  ordinals: Uint32Array,
  count: number,
  bm25: Bm25Context,
  out: Float64Array,
  k: number,
  exact: Uint32Array,
): number {
  // the bounds first, a tight pass per token ...
  segments.forEach((segment, s) => addBounds(segment.codes, segment.codeShift, segment.escapes, segment.tuples, bm25.fields, ats[s]!, bounds[s]!, out, count, s > 0));
  // ... then exact scores only where the bound reaches the bar (each token a list of its own)
  const oneListEach = Uint32Array.from({ length: segments.length + 1 }, (_, i) => i);
  return settle(segments, ats, oneListEach, ordinals, count, bm25, out, k, exact);
}

/** `out[c]` = (or += when `add`) the bound of posting `at[c]` (never ABSENT: every candidate is in a one-list word's list). */
function addBounds(codes: TupleCodes, codeShift: number, escapes: CodeEscapes, tuples: Uint8Array, fields: number, at: Uint32Array, bound: Float64Array, out: Float64Array, count: number, add: boolean): void {
  for (let c = 0; c < count; c++) {
    const code = codeAt(codes, codeShift, escapes, at[c]!);
    const p = code * fields;
    let upper = 0;
    for (let f = 0; f < fields; f++) upper += bound[f * 256 + tuples[p + f]!]!;
    out[c] = add ? out[c]! + upper : upper;
  }
  return;
}

/** `out[c]` = (or = max(out[c], …) when `max`) the bound of posting `at[c]`, 0 when ABSENT. */
export function maxBounds(
  codes: TupleCodes,
  codeShift: number,
  escapes: CodeEscapes,
  tuples: Uint8Array,
  fields: number,
  at: Uint32Array,
  bound: Float64Array,
  out: Float64Array,
  count: number,
  max: boolean,
): void {
  for (let c = 0; c < count; c++) {
    const posting = at[c]!;
    let upper = 0;
    if (posting !== ABSENT) {
      const code = codeAt(codes, codeShift, escapes, posting);
      const p = code * fields;
      for (let f = 0; f < fields; f++) upper += bound[f * 256 + tuples[p + f]!]!;
    }
    out[c] = max && out[c]! > upper ? out[c]! : upper;
  }
  return;
}

/**
 * Replaces the bounds that reach the bar of the k best by exact scores (see scoreBoundedAt
 * and scoreLocatedVariants); returns how many. Word w's lists are `segments[firstOf[w] ..
 * firstOf[w + 1])`, its score its best list's (a candidate ABSENT from a list scores nothing
 * there); word scores are summed in word order, the same operations as scoreAt's, so the same
 * bits.
 */
export function settle(
  segments: readonly Segment[],
  ats: readonly Uint32Array[],
  firstOf: Uint32Array,
  ordinals: Uint32Array,
  count: number,
  bm25: Bm25Context,
  out: Float64Array,
  k: number,
  exact: Uint32Array,
): number {
  const { fields, lengths, lengthNorms, normConstant } = bm25;
  const words = firstOf.length - 1;
  const lengthTerms = new Float64Array(fields);
  const heap = heapScratch(k);
  let filled = 0;
  let bar = -Infinity;
  let exactCount = 0;
  for (let c = 0; c < count; c++) {
    if (out[c]! < bar) continue;
    const l = ordinals[c]! * fields;
    for (let f = 0; f < fields; f++) lengthTerms[f] = lengthNorms[(f << 8) + lengths[l + f]!]!;
    let score = 0;
    for (let w = 0; w < words; w++) {
      let wordScore = 0;
      for (let s = firstOf[w]!; s < firstOf[w + 1]!; s++) {
        const posting = ats[s]![c]!;
        if (posting === ABSENT) continue;
        const { codes, codeShift, escapes, tuples, coefficients } = segments[s]!;
        const code = codeAt(codes, codeShift, escapes, posting);
        const p = code * fields;
        let listScore = 0;
        for (let f = 0; f < fields; f++) {
          const t = tuples[p + f]!;
          listScore += (coefficients[f]! * t) / (t + normConstant + lengthTerms[f]!);
        }
        if (listScore > wordScore) wordScore = listScore;
      }
      score = w === 0 ? wordScore : score + wordScore;
    }
    out[c] = score;
    exact[exactCount++] = c;
    filled = offerToMinHeap(heap, filled, k, score);
    if (filled === k) bar = heap[0]!;
  }
  return exactCount;
}


/**
 * scoreBoundedAt for a single token whose list the candidates are most of (a one-word
 * best_match page), fused into one walk of the list: a candidate whose upper bound — its term frequencies
 * through tables that assume the shortest possible fields, no length read — is below the
 * k-th best exact score seen so far (as of the last batch, see ExactBatch) cannot make the page, and gets the bound as its score
 * (still below every score of the final page, so it ranks where it would anyway). Most
 * candidates of a common word are settled that way. Writes the positions given exact scores
 * to `exact` (ascending) and returns how many: the page is among them.
 */
export function scoreOneBounded(
  segment: Segment,
  bound: Float64Array,
  ordinals: Uint32Array,
  count: number,
  bm25: Bm25Context,
  best: Float64Array,
  k: number,
  exact: Uint32Array,
): number {
  const { words, wordBase, width, mask, blocks, firstBlock, blockShift, codes, codeShift, escapes, tuples, start, end } = segment;
  const fields = bm25.fields;
  const page = new ExactBatch(segment, bm25, best, exact, heapScratch(k), 0, k);
  let c = 0;
  let next = count > 0 ? ordinals[0]! : 0;
  for (let i = start; i < end && c < count; i++) {
    const d = blocks[firstBlock + ((i - start) >>> blockShift)]! + bitsAt(words, wordBase, (i - start) * width, mask);
    if (d < next) continue;
    while (next < d) {
      c++;
      if (c === count) return page.flush();
      next = ordinals[c]!;
    }
    if (next !== d) continue;
    const code = codeAt(codes, codeShift, escapes, i);
    const p = code * fields;
    let upper = 0;
    for (let f = 0; f < fields; f++) upper += bound[f * 256 + tuples[p + f]!]!;
    if (upper < page.bar) best[c] = upper;
    else page.add(c, i, d);
    c++;
    if (c === count) return page.flush();
    next = ordinals[c]!;
  }
  return page.flush();
}

/**
 * scoreOneBounded for a dense list: the candidates (all in the list) walked in order, each
 * one's posting found by rank in the list's bitmap — the same postings in the same order, so
 * the same scores, bar and exact positions.
 */
export function scoreOneBoundedByBitmap(
  segment: Segment,
  bound: Float64Array,
  ordinals: Uint32Array,
  count: number,
  bm25: Bm25Context,
  best: Float64Array,
  k: number,
  exact: Uint32Array,
): number {
  const { codes, codeShift, escapes, tuples, start } = segment;
  const bitmap = segment.bitmap!;
  const ranks = segment.ranks!;
  const groups = segment.rankGroups!;
  const fields = bm25.fields;
  // candidates as many as the postings are the list itself (a word searched alone): the c-th
  // is the c-th posting, no rank to count
  const whole = count === segment.end - start;
  const page = new ExactBatch(segment, bm25, best, exact, heapScratch(k), 0, k);
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    let i = start + c;
    if (!whole) {
      const w = d >>> 5;
      const word = w < bitmap.length ? bitmap[w]! : 0;
      if ((word & (1 << (d & 31))) === 0) continue;
      i = start + groups[w >>> RANK_GROUP_SHIFT]! + ranks[w]! + bitCount(word & ~(-1 << (d & 31)));
    }
    const code = codeAt(codes, codeShift, escapes, i);
    const p = code * fields;
    let upper = 0;
    for (let f = 0; f < fields; f++) upper += bound[f * 256 + tuples[p + f]!]!;
    if (upper < page.bar) best[c] = upper;
    else page.add(c, i, d);
  }
  return page.flush();
}

/** The same when the lists are much longer than the set: each listed document found by galloping. */
export function scoreByLookup(segment: Segment, ordinals: Uint32Array, count: number, bm25: Bm25Context, best: Float64Array): void {
  const end = segment.end;
  let i = segment.start;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    i = gallopRun(segment, i, end, d);
    if (i < end && documentAt(segment, i) === d) {
      const score = postingScore(segment, i, d, bm25);
      if (score > best[c]!) best[c] = score;
    }
  }
  return;
}

/** Marks the listed documents in `marks` (clear before) and counts, per word, the marks before it in `ranks`. */
export function rankList(ordinals: Uint32Array, count: number, marks: Uint32Array, ranks: Uint32Array, words: number): void {
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    marks[d >>> 5] = marks[d >>> 5]! | (1 << (d & 31));
  }
  let before = 0;
  for (let w = 0; w < words; w++) {
    ranks[w] = before;
    const word = marks[w]!;
    if (word !== 0) before += bitCount(word); // most words are empty
  }
  return;
}

/**
 * scoreByMerge for one of several lists of a token, walking the list alone: a posting of a
 * listed document finds its list position by rank (see rankList), in constant time.
 */
export function scoreByRank(segment: Segment, marks: Uint32Array, ranks: Uint32Array, bm25: Bm25Context, best: Float64Array): void {
  const { words, wordBase, width, mask, blocks, firstBlock, blockShift, start, end } = segment;
  const markWords = marks.length;
  // the distance's bit moves on by the width each posting (no product per posting)
  for (let i = start, distanceBit = 0; i < end; i++, distanceBit += width) {
    // bitsAt written out: V8 does not inline it into a loop this large
    const distanceWord = wordBase + (distanceBit >>> 5);
    const shift = distanceBit & 31;
    const d = blocks[firstBlock + ((i - start) >>> blockShift)]! + (((words[distanceWord]! >>> shift) | ((words[distanceWord + 1]! << 1) << (31 - shift))) & mask);
    const w = d >>> 5;
    if (w >= markWords) return;
    const word = marks[w]!;
    const bit = 1 << (d & 31);
    if ((word & bit) === 0) continue;
    const c = ranks[w]! + bitCount(word & ~(-1 << (d & 31)));
    const score = postingScore(segment, i, d, bm25);
    if (score > best[c]!) best[c] = score;
  }
  return;
}

/**
 * scoreByRank for a dense list: the words of its bitmap AND the marks give the listed
 * documents it holds, ascending; each one's posting and candidate are found by rank.
 */
export function scoreMarkedByBitmap(segment: Segment, marks: Uint32Array, ranks: Uint32Array, bm25: Bm25Context, best: Float64Array): void {
  const bitmap = segment.bitmap!;
  const postingRanks = segment.ranks!;
  const groups = segment.rankGroups!;
  const start = segment.start;
  const words = Math.min(marks.length, bitmap.length);
  for (let w = 0; w < words; w++) {
    const listed = bitmap[w]!;
    const marked = marks[w]!;
    let both = listed & marked;
    const base = w << 5;
    while (both !== 0) {
      const lowest = both & -both;
      both ^= lowest;
      const below = (lowest - 1) | 0;
      const d = base + 31 - Math.clz32(lowest);
      const c = ranks[w]! + bitCount(marked & below);
      const score = postingScore(segment, start + groups[w >>> RANK_GROUP_SHIFT]! + postingRanks[w]! + bitCount(listed & below), d, bm25);
      if (score > best[c]!) best[c] = score;
    }
  }
  return;
}

/**
 * scoreByRank for scoreVariantsBounded: postings whose bound (`bound`, see boundTable) is
 * below the bar are skipped; a document's first exact score joins the min-heap of the k
 * best (`filled` entries). Returns the heap's new fill and how many postings were skipped.
 */
export function scoreByRankBounded(
  segment: Segment,
  marks: Uint32Array,
  ranks: Uint32Array,
  bm25: Bm25Context,
  best: Float64Array,
  bound: Float64Array,
  heap: Float64Array,
  filled: number,
  k: number,
): { filled: number; skipped: number } {
  const { words, wordBase, width, mask, blocks, firstBlock, blockShift, codes, codeShift, escapes, tuples, start, end } = segment;
  const fields = bm25.fields;
  const markWords = marks.length;
  const page = new ExactBatch(segment, bm25, best, null, heap, filled, k);
  let skipped = 0;
  // the distance's bit moves on by the width each posting (no product per posting)
  for (let i = start, distanceBit = 0; i < end; i++, distanceBit += width) {
    // bitsAt written out: V8 does not inline it into a loop this large
    const distanceWord = wordBase + (distanceBit >>> 5);
    const shift = distanceBit & 31;
    const d = blocks[firstBlock + ((i - start) >>> blockShift)]! + (((words[distanceWord]! >>> shift) | ((words[distanceWord + 1]! << 1) << (31 - shift))) & mask);
    const w = d >>> 5;
    if (w >= markWords) break;
    const word = marks[w]!;
    const bit = 1 << (d & 31);
    if ((word & bit) === 0) continue;
    const code = codeAt(codes, codeShift, escapes, i);
    const p = code * fields;
    let upper = 0;
    for (let f = 0; f < fields; f++) upper += bound[f * 256 + tuples[p + f]!]!;
    if (upper < page.bar) {
      skipped++;
      continue;
    }
    page.add(ranks[w]! + bitCount(word & ~(-1 << (d & 31))), i, d);
  }
  page.flush();
  return { filled: page.filled, skipped };
}

/** scoreByRankBounded for a dense list, its listed documents found as scoreMarkedByBitmap finds them (the same order: ascending). */
export function scoreMarkedByBitmapBounded(
  segment: Segment,
  marks: Uint32Array,
  ranks: Uint32Array,
  bm25: Bm25Context,
  best: Float64Array,
  bound: Float64Array,
  heap: Float64Array,
  filled: number,
  k: number,
): { filled: number; skipped: number } {
  const { codes, codeShift, escapes, tuples, start } = segment;
  const bitmap = segment.bitmap!;
  const postingRanks = segment.ranks!;
  const groups = segment.rankGroups!;
  const fields = bm25.fields;
  const words = Math.min(marks.length, bitmap.length);
  const page = new ExactBatch(segment, bm25, best, null, heap, filled, k);
  let skipped = 0;
  for (let w = 0; w < words; w++) {
    const listed = bitmap[w]!;
    const marked = marks[w]!;
    let both = listed & marked;
    const base = w << 5;
    while (both !== 0) {
      const lowest = both & -both;
      both ^= lowest;
      const below = (lowest - 1) | 0;
      const i = start + groups[w >>> RANK_GROUP_SHIFT]! + postingRanks[w]! + bitCount(listed & below);
      const code = codeAt(codes, codeShift, escapes, i);
      const p = code * fields;
      let upper = 0;
      for (let f = 0; f < fields; f++) upper += bound[f * 256 + tuples[p + f]!]!;
      if (upper < page.bar) {
        skipped++;
        continue;
      }
      page.add(ranks[w]! + bitCount(marked & below), i, base + 31 - Math.clz32(lowest));
    }
  }
  page.flush();
  return { filled: page.filled, skipped };
}

/** Writes the positions whose value is ≥ `bar` to `out`, ascending; returns how many. */
export function positionsAtLeast(values: Float64Array, count: number, bar: number, out: Uint32Array): number {
  let kept = 0;
  for (let c = 0; c < count; c++) if (values[c]! >= bar) out[kept++] = c;
  return kept;
}

/** Compacts the list (ordinals and scores) to the given ascending positions; returns the new count. */
export function keepPositions(ordinals: Uint32Array, scores: Float64Array, positions: Uint32Array, count: number): number {
  for (let j = 0; j < count; j++) {
    const position = positions[j]!;
    ordinals[j] = ordinals[position]!;
    scores[j] = scores[position]!;
  }
  return count;
}

export function addInto(target: Float64Array, source: Float64Array, count: number): void {
  for (let c = 0; c < count; c++) target[c] = target[c]! + source[c]!;
  return;
}
