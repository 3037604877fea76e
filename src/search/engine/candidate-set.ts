import { codeAt, unitsOf } from './forward-codes.js';
import { heapScratch, offerToMinHeap } from './top-k.js';
import { bitCount, ensureCapacity } from './typed-arrays.js';

/** A run of postings: `docs[start..end)`, term frequencies at `tfs[posting * fields + f]`. */
export interface Segment {
  docs: Uint32Array;
  start: number;
  end: number;
  /** the same documents as a bitmap, for a dense list (else null) */
  bitmap: Uint32Array | null;
  /** with the bitmap: postings before each of its words (see PostingStore.denseRanks) */
  ranks: Uint32Array | null;
  tfs: Uint8Array;
  /** per field: variant factor × idf × field weight × (k1 + 1) */
  coefficients: Float64Array;
}

/** One query token: the posting lists of all its variants (their union matches it). */
export interface TermPlan {
  segments: Segment[];
  /** postings to read when scanning */
  cost: number;
}

/** What BM25 needs besides the postings: k1·(1 − b), k1·b / average length per field, lengths. */
export interface Bm25Context {
  fields: number;
  /** length codes, `fields` per document */
  lengths: Uint8Array;
  /**
   * `lengthNorms[f * 256 + code]` = normPerLength[f] × the length of the code: the length's
   * part of a field's denominator, one read per field instead of two and a product
   */
  lengthNorms: Float64Array;
  /**
   * the length a field holding t tokens is stored as, for t < 256: the shortest a field with a
   * term t times can look to scoring (lengths are stored rounded, see encodeLength)
   */
  lengthOfCount: Float64Array;
  /** per field, a length no live document is below (for score upper bounds) */
  minLengths: Float64Array;
  normConstant: number;
  normPerLength: Float64Array;
}

/**
 * A filter checked per document (those that are not bitmaps): a single-valued keyword column
 * (`single[d]` = value id + 1; `allowed` shifted by one, so `allowed[0]` is "no value"), a
 * multi-valued one (offsets + values), or a numeric range (NaN, a missing value, fails it).
 */
export type DocumentFilter =
  | { kind: 'single'; single: Uint32Array; allowed: Uint8Array; exclude: boolean }
  | { kind: 'multi'; starts: Uint32Array; values: Uint32Array; allowed: Uint8Array; exclude: boolean }
  | { kind: 'range'; column: Float64Array; min: number; max: number };

/*
 * The loops are module functions that end right after their loop (`return`, nothing else):
 * V8 compiles a hot loop on the fly (on-stack replacement) on its first long run, before the
 * code after the loop has ever run, and code compiled without type feedback deoptimizes there
 * — on every later call too, as the compiled loop is cached. Nothing after a loop, no deopt.
 */

/** First index in `[low, high)` whose value is ≥ target (exponential, then binary search). */
function gallop(docs: Uint32Array, low: number, high: number, target: number): number {
  if (low >= high || docs[low]! >= target) return low;
  let previous = low;
  let step = 1;
  let probe = low + 1;
  while (probe < high && docs[probe]! < target) {
    previous = probe;
    step *= 2;
    probe = low + step;
  }
  let a = previous + 1;
  let b = Math.min(probe, high);
  while (a < b) {
    const middle = (a + b) >>> 1;
    if (docs[middle]! < target) a = middle + 1;
    else b = middle;
  }
  return a;
}


function population(bits: Uint32Array, words: number): number {
  let total = 0;
  for (let i = 0; i < words; i++) total += bitCount(bits[i]!);
  return total;
}

function setBits(bits: Uint32Array, docs: Uint32Array, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    const d = docs[i]!;
    bits[d >>> 5] = bits[d >>> 5]! | (1 << (d & 31));
  }
  return;
}

function orInto(target: Uint32Array, source: Uint32Array, words: number): void {
  for (let i = 0; i < words; i++) target[i] = target[i]! | source[i]!;
  return;
}

function andInto(target: Uint32Array, source: Uint32Array, words: number): void {
  for (let i = 0; i < words; i++) target[i] = target[i]! & source[i]!;
  return;
}

function andNotInto(target: Uint32Array, source: Uint32Array, words: number): void {
  for (let i = 0; i < words; i++) target[i] = target[i]! & ~source[i]!;
  return;
}

/**
 * Writes the set bits' positions to `ordinals`, ascending, and to `ranks[i]` how many come
 * before word i (almost free here, a pass of its own later); returns how many.
 */
function listBits(bits: Uint32Array, words: number, ordinals: Uint32Array, ranks: Uint32Array): number {
  let count = 0;
  for (let i = 0; i < words; i++) {
    ranks[i] = count;
    let word = bits[i]! | 0; // int32: keeps the bit tricks in small-integer arithmetic
    if (word === 0) continue;
    const base = i << 5;
    while (word !== 0) {
      const lowest = word & -word;
      word ^= lowest;
      ordinals[count++] = base + 31 - Math.clz32(lowest);
    }
  }
  return count;
}

function refineSingle(bits: Uint32Array, words: number, single: Uint32Array, allowed: Uint8Array, exclude: boolean): void {
  const flip = exclude ? 1 : 0;
  for (let i = 0; i < words; i++) {
    let word = bits[i]! | 0;
    if (word === 0) continue;
    let keep = word;
    const base = i << 5;
    while (word !== 0) {
      const lowest = word & -word;
      word ^= lowest;
      // branch-free: clear the bit unless the value passes (allowed, or not allowed when excluding)
      const passes = allowed[single[base + 31 - Math.clz32(lowest)]!]! ^ flip;
      keep ^= lowest & (passes - 1);
    }
    bits[i] = keep;
  }
  return;
}

function refineMulti(bits: Uint32Array, words: number, starts: Uint32Array, values: Uint32Array, allowed: Uint8Array, exclude: boolean): void {
  for (let i = 0; i < words; i++) {
    let word = bits[i]! | 0;
    if (word === 0) continue;
    let keep = word;
    const base = i << 5;
    while (word !== 0) {
      const lowest = word & -word;
      word ^= lowest;
      const d = base + 31 - Math.clz32(lowest);
      let hit = false;
      for (let j = starts[d]!, end = starts[d + 1]!; j < end; j++) {
        if (allowed[values[j]!] !== 0) {
          hit = true;
          break;
        }
      }
      if (hit === exclude) keep ^= lowest;
    }
    bits[i] = keep;
  }
  return;
}

function refineRange(bits: Uint32Array, words: number, column: Float64Array, min: number, max: number): void {
  for (let i = 0; i < words; i++) {
    let word = bits[i]! | 0;
    if (word === 0) continue;
    let keep = word;
    const base = i << 5;
    while (word !== 0) {
      const lowest = word & -word;
      word ^= lowest;
      const value = column[base + 31 - Math.clz32(lowest)]!;
      if (!(value >= min && value <= max)) keep ^= lowest;
    }
    bits[i] = keep;
  }
  return;
}

/** Compacts `ordinals[0..count)` to those found (or not found) in any segment, by galloping; returns how many stay. */
function keepByLookup(ordinals: Uint32Array, count: number, segments: readonly Segment[], keepFound: boolean): number {
  const positions = segments.map((segment) => segment.start);
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    let found = false;
    for (let s = 0; s < segments.length; s++) {
      const segment = segments[s]!;
      const p = gallop(segment.docs, positions[s]!, segment.end, d);
      positions[s] = p;
      if (p < segment.end && segment.docs[p] === d) {
        found = true;
        break;
      }
    }
    if (found === keepFound) ordinals[kept++] = d;
  }
  return kept;
}

/** Compacts `ordinals[0..count)` to those whose bit in `marks` is (or is not) set; returns how many stay. */
function keepByBits(ordinals: Uint32Array, count: number, marks: Uint32Array, keepMarked: boolean): number {
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    if (((marks[d >>> 5]! & (1 << (d & 31))) !== 0) === keepMarked) ordinals[kept++] = d;
  }
  return kept;
}

/** Compacts `ordinals[0..count)` to those in any of the bitmaps (`negate`: in none); returns how many stay. */
function keepByAnyBits(ordinals: Uint32Array, count: number, bitmaps: readonly Uint32Array[], negate: boolean): number {
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    const w = d >>> 5;
    const bit = 1 << (d & 31);
    let hit = false;
    for (let b = 0; b < bitmaps.length; b++) {
      const bitmap = bitmaps[b]!;
      if (w < bitmap.length && (bitmap[w]! & bit) !== 0) {
        hit = true;
        break;
      }
    }
    if (hit !== negate) ordinals[kept++] = d;
  }
  return kept;
}

/** refineSingle on a list: keeps the documents whose value passes; returns how many stay. */
function keepBySingle(ordinals: Uint32Array, count: number, single: Uint32Array, allowed: Uint8Array, exclude: boolean): number {
  const flip = exclude ? 1 : 0;
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    if ((allowed[single[d]!]! ^ flip) !== 0) ordinals[kept++] = d;
  }
  return kept;
}

/** refineMulti on a list. */
function keepByMulti(ordinals: Uint32Array, count: number, starts: Uint32Array, values: Uint32Array, allowed: Uint8Array, exclude: boolean): number {
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    let hit = false;
    for (let j = starts[d]!, end = starts[d + 1]!; j < end; j++) {
      if (allowed[values[j]!] !== 0) {
        hit = true;
        break;
      }
    }
    if (hit !== exclude) ordinals[kept++] = d;
  }
  return kept;
}

/** refineRange on a list. */
function keepByRange(ordinals: Uint32Array, count: number, column: Float64Array, min: number, max: number): number {
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    const value = column[d]!;
    if (value >= min && value <= max) ordinals[kept++] = d;
  }
  return kept;
}

/** Copies `docs[start..end)` to `target` from `at`; returns the end. */
function copyList(target: Uint32Array, at: number, docs: Uint32Array, start: number, end: number): number {
  for (let i = start; i < end; i++) target[at++] = docs[i]!;
  return at;
}

/** Drops repeats from a sorted list; returns the new length. */
function dropRepeats(ordinals: Uint32Array, count: number): number {
  if (count === 0) return 0;
  let kept = 1;
  for (let c = 1; c < count; c++) {
    const d = ordinals[c]!;
    if (d !== ordinals[kept - 1]) ordinals[kept++] = d;
  }
  return kept;
}

/**
 * The BM25 contribution of posting `i` to document `d`, summed over text fields (each
 * saturated on its own, then weighted): Σ_f c_f · tf / (tf + k1·(1 − b) + k1·b·len_f / avglen_f).
 */
function postingScore(segment: Segment, i: number, d: number, bm25: Bm25Context): number {
  const fields = bm25.fields;
  const tfs = segment.tfs;
  const coefficients = segment.coefficients;
  const lengths = bm25.lengths;
  const lengthNorms = bm25.lengthNorms;
  const constant = bm25.normConstant;
  let score = 0;
  const p = i * fields;
  const l = d * fields;
  for (let f = 0; f < fields; f++) {
    const tf = tfs[p + f]!;
    if (tf !== 0) score += (coefficients[f]! * tf) / (tf + constant + lengthNorms[(f << 8) + lengths[l + f]!]!);
  }
  return score;
}

/**
 * `best[c] = max(best[c], score)` for each listed document (`ordinals[c]`) that the segment
 * holds, walking the two ascending lists side by side: sequential reads and writes only.
 */
function scoreByMerge(segment: Segment, ordinals: Uint32Array, count: number, bm25: Bm25Context, best: Float64Array): void {
  const { docs, start, end } = segment;
  let c = 0;
  let next = count > 0 ? ordinals[0]! : 0;
  for (let i = start; i < end && c < count; i++) {
    const d = docs[i]!;
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
function locateByRank(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array): void {
  const bitmap = segment.bitmap!;
  const ranks = segment.ranks!;
  const start = segment.start;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    const w = d >>> 5;
    const word = w < bitmap.length ? bitmap[w]! : 0;
    at[c] = (word & (1 << (d & 31))) === 0 ? ABSENT : start + ranks[w]! + bitCount(word & ~(-1 << (d & 31)));
  }
  return;
}

/** at[c] = from + c. */
function countFrom(at: Uint32Array, count: number, from: number): void {
  for (let c = 0; c < count; c++) at[c] = from + c;
  return;
}

/** at[c] by walking the list beside the candidates, or ABSENT. */
function locateByMerge(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array): void {
  const docs = segment.docs;
  const end = segment.end;
  let i = segment.start;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    while (i < end && docs[i]! < d) i++;
    at[c] = i < end && docs[i] === d ? i : ABSENT;
  }
  return;
}

/** at[c] by galloping, for a list much longer than the candidates, or ABSENT. */
function locateByLookup(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array): void {
  const docs = segment.docs;
  let position = segment.start;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    position = gallop(docs, position, segment.end, d);
    at[c] = position < segment.end && docs[position] === d ? position : ABSENT;
  }
  return;
}

/** `out[c]` = (or += when `add`) the BM25 score of posting `at[c]` of `ordinals[c]`. */
function scoreAt(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array, bm25: Bm25Context, out: Float64Array, add: boolean): void {
  if (bm25.fields === 4) {
    scoreAtFourFields(segment, ordinals, count, at, bm25, out, add);
    return;
  }
  const { tfs, coefficients } = segment;
  const { fields, lengths, lengthNorms, normConstant } = bm25;
  for (let c = 0; c < count; c++) {
    const p = at[c]! * fields;
    const l = ordinals[c]! * fields;
    let score = 0;
    for (let f = 0; f < fields; f++) {
      const t = tfs[p + f]!;
      score += (coefficients[f]! * t) / (t + normConstant + lengthNorms[(f << 8) + lengths[l + f]!]!);
    }
    out[c] = add ? out[c]! + score : score;
  }
  return;
}

/**
 * scoreAt for four text fields (the asset schema's), the field loop written out: V8 does not
 * unroll it, and its overhead was most of the cost — twice as fast, the same sum in the same
 * order (a zero frequency adds 0), so the same bits.
 */
function scoreAtFourFields(segment: Segment, ordinals: Uint32Array, count: number, at: Uint32Array, bm25: Bm25Context, out: Float64Array, add: boolean): void {
  const { tfs, coefficients } = segment;
  const { lengths, lengthNorms, normConstant } = bm25;
  const c0 = coefficients[0]!;
  const c1 = coefficients[1]!;
  const c2 = coefficients[2]!;
  const c3 = coefficients[3]!;
  for (let c = 0; c < count; c++) {
    const p = at[c]! << 2;
    const l = ordinals[c]! << 2;
    const t0 = tfs[p]!;
    const t1 = tfs[p + 1]!;
    const t2 = tfs[p + 2]!;
    const t3 = tfs[p + 3]!;
    const score =
      (c0 * t0) / (t0 + normConstant + lengthNorms[lengths[l]!]!) +
      (c1 * t1) / (t1 + normConstant + lengthNorms[256 + lengths[l + 1]!]!) +
      (c2 * t2) / (t2 + normConstant + lengthNorms[512 + lengths[l + 2]!]!) +
      (c3 * t3) / (t3 + normConstant + lengthNorms[768 + lengths[l + 3]!]!);
    out[c] = add ? out[c]! + score : score;
  }
  return;
}

/**
 * bound[f * 256 + t]: a field's term of frequency t in the shortest field it can be in: at
 * least t tokens — as stored, rounded (a field of 130 tokens scores as 128) — and at least the
 * shortest stored.
 */
function boundTable(segment: Segment, bm25: Bm25Context, bound: Float64Array): Float64Array {
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
function scoreBoundedAt(
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
  segments.forEach((segment, s) => addBounds(segment.tfs, bm25.fields, ats[s]!, bounds[s]!, out, count, s > 0));
  // ... then exact scores only where the bound reaches the bar (each token a list of its own)
  const oneListEach = Uint32Array.from({ length: segments.length + 1 }, (_, i) => i);
  return settle(segments, ats, oneListEach, ordinals, count, bm25, out, k, exact);
}

/** `out[c]` = (or += when `add`) the bound of posting `at[c]` (never ABSENT: every candidate is in a one-list word's list). */
function addBounds(tfs: Uint8Array, fields: number, at: Uint32Array, bound: Float64Array, out: Float64Array, count: number, add: boolean): void {
  for (let c = 0; c < count; c++) {
    const p = at[c]! * fields;
    let upper = 0;
    for (let f = 0; f < fields; f++) upper += bound[f * 256 + tfs[p + f]!]!;
    out[c] = add ? out[c]! + upper : upper;
  }
  return;
}

/** `out[c]` = (or = max(out[c], …) when `max`) the bound of posting `at[c]`, 0 when ABSENT. */
function maxBounds(tfs: Uint8Array, fields: number, at: Uint32Array, bound: Float64Array, out: Float64Array, count: number, max: boolean): void {
  for (let c = 0; c < count; c++) {
    const posting = at[c]!;
    let upper = 0;
    if (posting !== ABSENT) {
      const p = posting * fields;
      for (let f = 0; f < fields; f++) upper += bound[f * 256 + tfs[p + f]!]!;
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
function settle(
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
        const { tfs, coefficients } = segments[s]!;
        const p = posting * fields;
        let listScore = 0;
        for (let f = 0; f < fields; f++) {
          const t = tfs[p + f]!;
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
 * k-th best exact score seen so far cannot make the page, and gets the bound as its score
 * (still below every score of the final page, so it ranks where it would anyway). Most
 * candidates of a common word are settled that way. Writes the positions given exact scores
 * to `exact` (ascending) and returns how many: the page is among them.
 */
function scoreOneBounded(
  segment: Segment,
  bound: Float64Array,
  ordinals: Uint32Array,
  count: number,
  bm25: Bm25Context,
  best: Float64Array,
  k: number,
  exact: Uint32Array,
): number {
  const { docs, tfs, start, end } = segment;
  const fields = bm25.fields;
  // a min-heap of the k best exact scores so far; its root is the bar
  const heap = heapScratch(k);
  let filled = 0;
  let bar = -Infinity;
  let exactCount = 0;
  let c = 0;
  let next = count > 0 ? ordinals[0]! : 0;
  for (let i = start; i < end && c < count; i++) {
    const d = docs[i]!;
    if (d < next) continue;
    while (next < d) {
      c++;
      if (c === count) return exactCount;
      next = ordinals[c]!;
    }
    if (next !== d) continue;
    const p = i * fields;
    let upper = 0;
    for (let f = 0; f < fields; f++) upper += bound[f * 256 + tfs[p + f]!]!;
    if (upper < bar) {
      best[c] = upper;
    } else {
      const score = postingScore(segment, i, d, bm25);
      best[c] = score;
      exact[exactCount++] = c;
      filled = offerToMinHeap(heap, filled, k, score);
      if (filled === k) bar = heap[0]!;
    }
    c++;
    if (c === count) return exactCount;
    next = ordinals[c]!;
  }
  return exactCount;
}

/** The same when the lists are much longer than the set: each listed document found by galloping. */
function scoreByLookup(segment: Segment, ordinals: Uint32Array, count: number, bm25: Bm25Context, best: Float64Array): void {
  let position = segment.start;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    position = gallop(segment.docs, position, segment.end, d);
    if (position < segment.end && segment.docs[position] === d) {
      const score = postingScore(segment, position, d, bm25);
      if (score > best[c]!) best[c] = score;
    }
  }
  return;
}

/** Marks the listed documents in `marks` (clear before) and counts, per word, the marks before it in `ranks`. */
function rankList(ordinals: Uint32Array, count: number, marks: Uint32Array, ranks: Uint32Array, words: number): void {
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
function scoreByRank(segment: Segment, marks: Uint32Array, ranks: Uint32Array, bm25: Bm25Context, best: Float64Array): void {
  const { docs, start, end } = segment;
  const words = marks.length;
  for (let i = start; i < end; i++) {
    const d = docs[i]!;
    const w = d >>> 5;
    if (w >= words) return;
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
 * scoreByRank for scoreVariantsBounded: postings whose bound (`bound`, see boundTable) is
 * below the bar are skipped; a document's first exact score joins the min-heap of the k
 * best (`filled` entries). Returns the heap's new fill and how many postings were skipped.
 */
function scoreByRankBounded(
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
  const { docs, tfs, start, end } = segment;
  const fields = bm25.fields;
  const words = marks.length;
  let bar = filled === k ? heap[0]! : -Infinity;
  let skipped = 0;
  for (let i = start; i < end; i++) {
    const d = docs[i]!;
    const w = d >>> 5;
    if (w >= words) break;
    const word = marks[w]!;
    const bit = 1 << (d & 31);
    if ((word & bit) === 0) continue;
    const p = i * fields;
    let upper = 0;
    for (let f = 0; f < fields; f++) upper += bound[f * 256 + tfs[p + f]!]!;
    if (upper < bar) {
      skipped++;
      continue;
    }
    const c = ranks[w]! + bitCount(word & ~(-1 << (d & 31)));
    const score = postingScore(segment, i, d, bm25);
    const previous = best[c]!;
    if (score > previous) best[c] = score;
    // 0: no exact score yet (a document scoring 0, in a field of weight 0 only, may join twice:
    // an entry of 0 never raises a bar that bounds, all ≥ 0, must pass)
    if (previous === 0) {
      filled = offerToMinHeap(heap, filled, k, score);
      if (filled === k) bar = heap[0]!;
    }
  }
  return { filled, skipped };
}

/** Writes the positions whose value is ≥ `bar` to `out`, ascending; returns how many. */
function positionsAtLeast(values: Float64Array, count: number, bar: number, out: Uint32Array): number {
  let kept = 0;
  for (let c = 0; c < count; c++) if (values[c]! >= bar) out[kept++] = c;
  return kept;
}

/** Compacts the list (ordinals and scores) to the given ascending positions; returns the new count. */
function keepPositions(ordinals: Uint32Array, scores: Float64Array, positions: Uint32Array, count: number): number {
  for (let j = 0; j < count; j++) {
    const position = positions[j]!;
    ordinals[j] = ordinals[position]!;
    scores[j] = scores[position]!;
  }
  return count;
}

function addInto(target: Float64Array, source: Float64Array, count: number): void {
  for (let c = 0; c < count; c++) target[c] = target[c]! + source[c]!;
  return;
}

/**
 * The terms a phrase may use — as their codes in the forward stream, which are never 0 — each
 * with the positions of the phrase it may stand at (bit i: position i), in a small
 * open-addressing table: a phrase has a handful of terms, and their table stays in the
 * first-level cache where a mask per vocabulary term (megabytes) would miss it on nearly every
 * rare token of the documents read.
 */
export class PhraseTerms {
  /** a term's code, 0 for an empty slot */
  readonly keys: Uint32Array;
  readonly masks: Uint32Array;
  readonly shift: number;
  /** bit (code & 4095) set for every term's code: most tokens of a document are turned away by one bit */
  readonly seen = new Uint32Array(128);

  constructor(positions: ReadonlyArray<readonly number[]>) {
    const terms = positions.reduce((sum, ids) => sum + ids.length, 0);
    let bits = 6;
    while (1 << bits < 4 * terms) bits++;
    this.keys = new Uint32Array(1 << bits);
    this.masks = new Uint32Array(1 << bits);
    this.shift = 32 - bits;
    positions.forEach((codes, position) => {
      for (const code of codes) {
        if (code === 0) throw new RangeError('search index: a phrase term cannot have code 0');
        let h = Math.imul(code, HASH_MULTIPLIER) >>> this.shift;
        while (this.keys[h] !== 0 && this.keys[h] !== code) h = (h + 1) & (this.keys.length - 1);
        this.keys[h] = code;
        this.masks[h] = this.masks[h]! | (1 << position);
        this.seen[(code >>> 5) & 127] = this.seen[(code >>> 5) & 127]! | (1 << (code & 31));
      }
    });
  }
}

const HASH_MULTIPLIER = 0x9e3779b1;

/**
 * Shift-and over each listed document's forward stream (see forward-codes.ts): a term's mask (PhraseTerms) has bit i set when it may stand at
 * position i of the phrase, bit i of `state` says the last i + 1 tokens match its first i + 1;
 * markers and other terms (mask 0) break every partial match. Compacts the list to the
 * documents with (or without) the phrase; returns how many stay.
 */
function keepByPhrase(
  ordinals: Uint32Array,
  count: number,
  seen: Uint32Array,
  keys: Uint32Array,
  masks: Uint32Array,
  shift: number,
  length: number,
  forward: Uint16Array,
  forwardStart: Uint32Array,
  keepMatches: boolean,
): number {
  const goal = 1 << (length - 1);
  const slots = keys.length - 1;
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    let state = 0;
    let found = false;
    for (let j = forwardStart[d]!, end = forwardStart[d + 1]!; j < end; ) {
      const code = codeAt(forward, j);
      j += unitsOf(code);
      let mask = 0;
      if ((seen[(code >>> 5) & 127]! & (1 << (code & 31))) !== 0) {
        let h = Math.imul(code, HASH_MULTIPLIER) >>> shift;
        for (let k = keys[h]!; k !== 0; k = keys[h]!) {
          if (k === code) {
            mask = masks[h]!;
            break;
          }
          h = (h + 1) & slots;
        }
      }
      state = ((state << 1) | 1) & mask;
      if ((state & goal) !== 0) {
        found = true;
        break;
      }
    }
    if (found === keepMatches) ordinals[kept++] = d;
  }
  return kept;
}

/** Bounded scoring pays for its tables (256 entries per field and token) from this many candidates. */
const MIN_BOUNDED_CANDIDATES = 1024;
/** Words with several lists are scored by locating each candidate in each list (scoreLocatedVariants) up to this many lists in all. */
const MAX_LOCATED_SEGMENTS = 10;

/** A step looks each candidate up in a token's lists (galloping) when the lists are this much longer than the set. */
export const LOOKUP_RATIO = 16;

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
      else setBits(bits, segment.docs, segment.start, segment.end);
    }
  }

  /** Adds the union of a token's lists. */
  fillFromPlan(plan: TermPlan): void {
    this.dirtyWords = this.words;
    this.markPlan(this.bits, plan);
  }

  /** Adds the union of plain ordinal lists. */
  fillFromLists(lists: ReadonlyArray<readonly [Uint32Array, number, number]>): void {
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
    if (filter.kind === 'single') refineSingle(this.bits, this.words, filter.single, filter.allowed, filter.exclude);
    else if (filter.kind === 'multi') refineMulti(this.bits, this.words, filter.starts, filter.values, filter.allowed, filter.exclude);
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
      const { docs, start, end } = plan.segments[0]!;
      this.ordinals.set(docs.subarray(start, end));
      this.count = end - start;
      return;
    }
    let count = 0;
    for (const segment of plan.segments) count = copyList(this.ordinals, count, segment.docs, segment.start, segment.end);
    this.ordinals.subarray(0, count).sort();
    this.count = dropRepeats(this.ordinals, count);
  }

  /** Keeps the listed documents in any of the bitmaps (`negate`: in none of them). */
  keepInAnyOf(bitmaps: readonly Uint32Array[], negate: boolean): void {
    this.count = keepByAnyBits(this.ordinals, this.count, bitmaps, negate);
  }

  /** Keeps the listed documents that pass a per-document filter. */
  keepByFilter(filter: DocumentFilter): void {
    if (filter.kind === 'single') this.count = keepBySingle(this.ordinals, this.count, filter.single, filter.allowed, filter.exclude);
    else if (filter.kind === 'multi') this.count = keepByMulti(this.ordinals, this.count, filter.starts, filter.values, filter.allowed, filter.exclude);
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
      if (lookup) scoreByLookup(segment, ordinals, count, bm25, best);
      else if (byRank) scoreByRank(segment, marks, this.ranks, bm25, best);
      else scoreByMerge(segment, ordinals, count, bm25, best);
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
      const scored = scoreByRankBounded(segment, marks, this.ranks, bm25, best, this.boundFor(segment, bm25), heap, filled, k);
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
      this.exactCount = scoreOneBounded(single, this.boundFor(single, bm25), this.ordinals, count, bm25, this.scores, k, this.exact);
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
   * array of positions: by a walk when most of the list are candidates (sequential, right
   * nearly every step), by bitmap rank for a dense list, by galloping when it is far longer.
   */
  private locate(segment: Segment, slot: number): Uint32Array {
    const count = this.count;
    const at = this.locatedSlot(slot);
    const length = segment.end - segment.start;
    if (2 * count >= length) locateByMerge(segment, this.ordinals, count, at);
    else if (segment.ranks !== null) locateByRank(segment, this.ordinals, count, at);
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
        maxBounds(segments[s]!.tfs, bm25.fields, ats[s]!, this.boundFor(segments[s]!, bm25), this.partial, count, s > firstOf[w]!);
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

  /** Keeps (or, for an excluded phrase, drops) the documents whose forward stream has the phrase (see keepByPhrase). */
  keepByPhrase(terms: PhraseTerms, length: number, forward: Uint16Array, forwardStart: Uint32Array, keepMatches: boolean): void {
    this.count = keepByPhrase(this.ordinals, this.count, terms.seen, terms.keys, terms.masks, terms.shift, length, forward, forwardStart, keepMatches);
  }
}
