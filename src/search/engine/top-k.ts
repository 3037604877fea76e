import type { PackedStrings } from './packed-strings.js';
import type { NumberColumn } from './query-plan.js';

/**
 * A tie-breaking key: `values[i] × sign`, higher first, where i is the candidate's list
 * position (`byPosition`: scores) or its ordinal (a numeric column; a missing value ranks
 * last). Column values are read at most once per candidate, on demand, into `cache` (by list
 * position, NaN = not read yet): ties are frequent (equal term frequencies and lengths give
 * equal BM25 scores) but concern few candidates, so reading every candidate's value up front
 * would cost more than all the comparisons.
 */
export interface TieBreak {
  values: NumberColumn;
  sign: 1 | -1;
  byPosition: boolean;
  cache: Float64Array;
}

/**
 * The ordinals below `places.length` in the order of the tie-breaking keys then the id
 * (`order`: by place), and each one's place in it (`places`, its inverse).
 */
export interface Placement {
  places: Uint32Array;
  order: Uint32Array;
}

const NO_KEYS = new Float64Array(0);
const NO_PLACES = new Uint32Array(0);
const NO_TIE_BREAK: TieBreak = { values: NO_KEYS, sign: 1, byPosition: true, cache: NO_KEYS };

/**
 * The best `k` candidates of a list in order, by a first key per list position (signed so
 * that higher ranks first; a missing value as -Infinity, never NaN), up to two tie-breaking
 * keys, then the id (smaller first): a total order, so a page never depends on ordinals or on
 * the order candidates come in. A bounded min-heap of list positions keeps the k best seen
 * (its root is the worst of them), each entry with its first key beside it; most candidates
 * are turned away by one comparison with the root's first key.
 *
 * The loops are methods of their own that end with the loop, so that V8's on-the-fly
 * compilation of a hot loop never meets code without type feedback after it.
 */
class TopSelection {
  private readonly heap: Uint32Array;
  /** the first key of each heap entry, next to it (no indirect read per comparison) */
  private readonly heapFirst: Float64Array;
  private filled = 0;
  private readonly second: TieBreak;
  private readonly third: TieBreak;
  private readonly tieBreaks: number;
  private readonly keyed: boolean;

  constructor(
    size: number,
    private readonly first: Float64Array | null,
    tieBreaks: readonly TieBreak[],
    private readonly ordinals: Uint32Array,
    private readonly ids: PackedStrings,
    private readonly places: Uint32Array,
    private readonly placed: number,
  ) {
    if (tieBreaks.length > 2) throw new RangeError('search index: at most two tie-breaking keys');
    this.heap = new Uint32Array(size);
    this.heapFirst = new Float64Array(size);
    this.keyed = first !== null;
    this.tieBreaks = tieBreaks.length;
    this.second = tieBreaks[0] ?? NO_TIE_BREAK;
    this.third = tieBreaks[1] ?? NO_TIE_BREAK;
  }

  private tieValue(level: TieBreak, position: number): number {
    if (level.byPosition) return level.values[position]! * level.sign;
    const cached = level.cache[position]!;
    if (cached === cached) return cached;
    const raw = level.values[this.ordinals[position]!]!;
    const value = raw === raw ? raw * level.sign : -Infinity;
    level.cache[position] = value;
    return value;
  }

  /** The candidate at position a (first key fa) ranks before the one at b (fb). */
  private better(a: number, fa: number, b: number, fb: number): boolean {
    if (fa !== fb) return fa > fb;
    return this.breaksTie(a, b);
  }

  /** With equal first keys: the tie-breaking keys, then the id (or the places of both, when known). */
  private breaksTie(a: number, b: number): boolean {
    const placed = this.placed;
    if (placed > 0) {
      const oa = this.ordinals[a]!;
      const ob = this.ordinals[b]!;
      if (oa < placed && ob < placed) return this.places[oa]! < this.places[ob]!;
    }
    if (this.tieBreaks > 0) {
      const va = this.tieValue(this.second, a);
      const vb = this.tieValue(this.second, b);
      if (va !== vb) return va > vb;
    }
    if (this.tieBreaks > 1) {
      const va = this.tieValue(this.third, a);
      const vb = this.tieValue(this.third, b);
      if (va !== vb) return va > vb;
    }
    return this.ids.compare(this.ordinals[a]!, this.ordinals[b]!) < 0;
  }

  offerAll(count: number): void {
    const next = this.fill(count);
    if (next < count) this.offerRest(next, count);
  }

  /** Puts candidates in until the heap is full; returns the position of the first one left. */
  private fill(count: number): number {
    const heap = this.heap;
    const heapFirst = this.heapFirst;
    const first = this.first ?? NO_KEYS;
    const keyed = this.keyed;
    let c = 0;
    for (; c < count && this.filled < heap.length; c++) {
      const value = keyed ? first[c]! : 0;
      let i = this.filled++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.better(heap[parent]!, heapFirst[parent]!, c, value)) break;
        heap[i] = heap[parent]!;
        heapFirst[i] = heapFirst[parent]!;
        i = parent;
      }
      heap[i] = c;
      heapFirst[i] = value;
    }
    return c;
  }

  /** With the heap full, only candidates better than its root (the worst kept) get in. */
  private offerRest(from: number, count: number): void {
    const heap = this.heap;
    const heapFirst = this.heapFirst;
    const first = this.first ?? NO_KEYS;
    const keyed = this.keyed;
    let rootFirst = heapFirst[0]!;
    for (let c = from; c < count; c++) {
      const value = keyed ? first[c]! : 0;
      if (value < rootFirst) continue;
      if (value === rootFirst && !this.breaksTie(c, heap[0]!)) continue;
      this.siftDown(c, value);
      rootFirst = heapFirst[0]!;
    }
    return;
  }

  /** Puts `item` at the root and moves it down to its place. */
  private siftDown(item: number, itemFirst: number): void {
    const heap = this.heap;
    const heapFirst = this.heapFirst;
    const filled = this.filled;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= filled) break;
      const right = left + 1;
      let worst = left;
      if (right < filled && this.better(heap[left]!, heapFirst[left]!, heap[right]!, heapFirst[right]!)) worst = right;
      if (!this.better(item, itemFirst, heap[worst]!, heapFirst[worst]!)) break;
      heap[i] = heap[worst]!;
      heapFirst[i] = heapFirst[worst]!;
      i = worst;
    }
    heap[i] = item;
    heapFirst[i] = itemFirst;
  }

  /** The selected ordinals, best first (empties the heap). */
  drain(): Uint32Array {
    const ordered = new Uint32Array(this.filled);
    while (this.filled > 0) {
      const worst = this.heap[0]!;
      this.filled--;
      ordered[this.filled] = this.ordinals[worst]!;
      if (this.filled > 0) this.siftDown(this.heap[this.filled]!, this.heapFirst[this.filled]!);
    }
    return ordered;
  }
}

/**
 * The ordinals of the best `k` of `ordinals[0..count)`, best first: by `first` (by list
 * position, higher first, no NaN; null: all equal), then the tie-breaking keys, then the id
 * (its packed characters, `ids.compare`). A placement, when
 * given, ranks the first ordinals by those tie-breaking keys and ids: two of them compare by
 * place alone.
 */
export function selectTop(
  ordinals: Uint32Array,
  count: number,
  k: number,
  first: Float64Array | null,
  tieBreaks: readonly TieBreak[],
  ids: PackedStrings,
  placement: Placement | null = null,
): ArrayLike<number> {
  const size = Math.min(k, count);
  if (size <= 0) return [];
  const places = placement?.places ?? NO_PLACES;
  if (placement !== null && first !== null && allBelow(ordinals, count, places.length)) return selectTopByPlace(ordinals, count, size, first, places, placement.order);
  const selection = new TopSelection(size, first, tieBreaks, ordinals, ids, places, places.length);
  selection.offerAll(count);
  return selection.drain();
}

/** Whether every listed ordinal is below `limit`. */
function allBelow(ordinals: Uint32Array, count: number, limit: number): boolean {
  for (let c = 0; c < count; c++) if (ordinals[c]! >= limit) return false;
  return true;
}

/** Scratch of selectTopByPlace, grown as needed (searches run one at a time). */
let aboveScratch = new Uint32Array(64);
let levelScratch = new Uint32Array(64);
/** Up to this page end, the best candidates are kept in order as they come (insertion). */
const INSERTION_LIMIT = 64;
/** insertBest's first keys, beside its positions; then the places of those above the bar */
const bestKeys = new Float64Array(INSERTION_LIMIT);
const abovePlaces = new Uint32Array(INSERTION_LIMIT);
/** Up to this many ties at the bar are sorted by insertion; more by the native sort. */
const SMALL_LEVEL = 32;

/**
 * selectTop when every candidate has a place (its rank by the tie-breaking keys and the id;
 * `order` lists the ordinals by place): the candidates that can make the page are shortlisted,
 * the k-th best first key among them (the bar) is found with plain comparisons of numbers; the
 * candidates above it are all in, ordered by first key then place, and those at it follow by
 * place (sorted as numbers, read back through `order`).
 */
function selectTopByPlace(ordinals: Uint32Array, count: number, k: number, first: Float64Array, places: Uint32Array, order: Uint32Array): number[] {
  if (aboveScratch.length < k) aboveScratch = new Uint32Array(Math.max(k, 2 * aboveScratch.length));
  const above = aboveScratch;
  const listed = shortlist(first, count, k);
  const keys = shortKeys;
  const positions = shortPositions;
  let bar: number;
  let aboveCount: number;
  if (k <= INSERTION_LIMIT) {
    bar = insertBest(keys, positions, listed, k, above);
    aboveCount = 0;
    while (aboveCount < k && bestKeys[aboveCount]! > bar) aboveCount++;
    orderRunsByPlace(ordinals, first, places, above, aboveCount);
  } else {
    const heap = heapScratch(k);
    let filled = 0;
    for (let j = 0; j < listed; j++) filled = offerToMinHeap(heap, filled, k, keys[j]!);
    bar = heap[0]!;
    aboveCount = sortAbove(ordinals, keys, positions, listed, first, places, bar, above);
  }
  const levelCount = countEqual(keys, listed, bar);
  if (levelScratch.length < levelCount) levelScratch = new Uint32Array(Math.max(levelCount, 2 * levelScratch.length));
  const level = levelScratch;
  placesOfEqual(ordinals, keys, positions, listed, bar, places, level);
  if (levelCount <= SMALL_LEVEL) insertionSort(level, levelCount);
  else level.subarray(0, levelCount).sort();
  const top: number[] = [];
  for (let i = 0; i < aboveCount; i++) top.push(ordinals[above[i]!]!);
  for (let i = aboveCount; i < k; i++) top.push(order[level[i - aboveCount]!]!);
  return top;
}

/** shortlist's histogram: buckets of first keys, evenly spaced from the lowest to the highest */
const BUCKETS = 64;
const bucketCounts = new Uint32Array(BUCKETS);
/** shortlist's output: the first keys and list positions of the candidates kept, in list order */
let shortKeys = new Float64Array(256);
let shortPositions = new Uint32Array(256);

/**
 * The candidates that may be among the k best, in list order (into shortKeys and
 * shortPositions; returns how many): a histogram of the first keys, and those in the highest
 * buckets that together hold at least k. The bucket of a key never decreases as the key grows,
 * so every key at or above the k-th best is in them; with few candidates left, insertBest
 * shifts a few hundred entries instead of a thousand.
 */
function shortlist(first: Float64Array, count: number, k: number): number {
  let lowest = Infinity;
  let highest = -Infinity;
  for (let c = 0; c < count; c++) {
    const value = first[c]!;
    lowest = value < lowest ? value : lowest;
    highest = value > highest ? value : highest;
  }
  // equal keys: scale Infinity; an infinite or NaN key makes every bucket 0 (|0 of NaN): all stay
  const scale = (BUCKETS - 1) / (highest - lowest);
  const spread = scale < Infinity ? scale : 0;
  bucketCounts.fill(0);
  countBuckets(first, count, lowest, spread);
  let bucket = BUCKETS - 1;
  let kept = bucketCounts[bucket]!;
  while (kept < k && bucket > 0) kept += bucketCounts[--bucket]!;
  if (shortKeys.length < kept) {
    shortKeys = new Float64Array(Math.max(kept, 2 * shortKeys.length));
    shortPositions = new Uint32Array(shortKeys.length);
  }
  return keepFromBucket(first, count, lowest, spread, bucket);
}

function countBuckets(first: Float64Array, count: number, lowest: number, spread: number): void {
  const counts = bucketCounts;
  for (let c = 0; c < count; c++) {
    const bucket = ((first[c]! - lowest) * spread) | 0;
    counts[bucket] = counts[bucket]! + 1;
  }
  return;
}

function keepFromBucket(first: Float64Array, count: number, lowest: number, spread: number, bucket: number): number {
  const keys = shortKeys;
  const positions = shortPositions;
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const value = first[c]!;
    if ((((value - lowest) * spread) | 0) >= bucket) {
      keys[kept] = value;
      positions[kept++] = c;
    }
  }
  return kept;
}

/**
 * The k best of the listed keys in order, kept by insertion as they come (their list positions
 * into `best`, their keys into bestKeys); a key equal to the k-th best stays out, one equal to
 * a better one goes after it. Returns the bar: the k-th best key. Every key above the bar is
 * in: when it came, the k-th key was at most the final bar, and a key is dropped only as the
 * k-th, never above it.
 */
function insertBest(keys: Float64Array, positions: Uint32Array, count: number, k: number, best: Uint32Array): number {
  const bestKey = bestKeys;
  let filled = 0;
  for (let j = 0; j < count; j++) {
    const value = keys[j]!;
    if (filled < k) filled++;
    else if (!(value > bestKey[k - 1]!)) continue;
    let i = filled - 1;
    while (i > 0 && bestKey[i - 1]! < value) {
      bestKey[i] = bestKey[i - 1]!;
      best[i] = best[i - 1]!;
      i--;
    }
    bestKey[i] = value;
    best[i] = positions[j]!;
  }
  return bestKey[k - 1]!;
}

/**
 * Puts each run of equal first keys among `above[0..aboveCount)` (in key order) in place
 * order. The places are read first in one pass: independent reads, whose cache misses overlap.
 */
function orderRunsByPlace(ordinals: Uint32Array, first: Float64Array, places: Uint32Array, above: Uint32Array, aboveCount: number): void {
  const placed = abovePlaces;
  for (let i = 0; i < aboveCount; i++) placed[i] = places[ordinals[above[i]!]!]!;
  for (let i = 1; i < aboveCount; i++) {
    const position = above[i]!;
    const place = placed[i]!;
    const value = first[position]!;
    let j = i;
    while (j > 0 && first[above[j - 1]!] === value && placed[j - 1]! > place) {
      above[j] = above[j - 1]!;
      placed[j] = placed[j - 1]!;
      j--;
    }
    above[j] = position;
    placed[j] = place;
  }
  return;
}

function countEqual(keys: Float64Array, count: number, bar: number): number {
  let equal = 0;
  for (let j = 0; j < count; j++) if (keys[j] === bar) equal++;
  return equal;
}

/** The places of the shortlisted candidates whose first key is the bar, into `level`. */
function placesOfEqual(ordinals: Uint32Array, keys: Float64Array, positions: Uint32Array, listed: number, bar: number, places: Uint32Array, level: Uint32Array): void {
  for (let j = 0, l = 0; j < listed; j++) if (keys[j] === bar) level[l++] = places[ordinals[positions[j]!]!]!;
  return;
}

function insertionSort(values: Uint32Array, count: number): void {
  for (let i = 1; i < count; i++) {
    const value = values[i]!;
    let j = i;
    while (j > 0 && values[j - 1]! > value) {
      values[j] = values[j - 1]!;
      j--;
    }
    values[j] = value;
  }
  return;
}

/** The shortlisted candidates above the bar, for a page past INSERTION_LIMIT: gathered, then sorted by first key and place. */
function sortAbove(ordinals: Uint32Array, keys: Float64Array, positions: Uint32Array, listed: number, first: Float64Array, places: Uint32Array, bar: number, above: Uint32Array): number {
  let aboveCount = 0;
  for (let j = 0; j < listed; j++) if (keys[j]! > bar) above[aboveCount++] = positions[j]!;
  above
    .subarray(0, aboveCount)
    .sort((a, b) => (first[a] !== first[b] ? (first[a]! > first[b]! ? -1 : 1) : places[ordinals[a]!]! - places[ordinals[b]!]!));
  return aboveCount;
}

/** `keys[c] = sign × column[ordinals[c]]`, NaN (missing) as -Infinity: a sort key by list position. */
export function keysFromColumn(keys: Float64Array, column: NumberColumn, sign: 1 | -1, ordinals: Uint32Array, count: number): void {
  for (let c = 0; c < count; c++) {
    const raw = column[ordinals[c]!]!;
    keys[c] = raw === raw ? raw * sign : -Infinity;
  }
  return;
}

/*
 * A search allocates no typed array it can reuse: one past 64 bytes lives outside the
 * JavaScript heap, and V8 answers a steady stream of those with full collections (every second
 * or so under load), whose pauses land inside searches.
 */
let heapSpace = new Float64Array(1024);

/** A min-heap's room for the k best scores (zeroed; one heap is in use at a time). */
export function heapScratch(k: number): Float64Array {
  if (heapSpace.length < k) heapSpace = new Float64Array(Math.max(k, 2 * heapSpace.length));
  heapSpace.fill(0, 0, k);
  return heapSpace;
}

/**
 * Offers a score to a min-heap of the k best scores seen so far (heap[0] is the k-th best, the
 * bar a new score must pass); returns how many the heap holds. Small enough for V8 to inline
 * into the scoring loops that call it.
 */
export function offerToMinHeap(heap: Float64Array, filled: number, k: number, score: number): number {
  if (filled < k) {
    let h = filled;
    while (h > 0) {
      const parent = (h - 1) >> 1;
      if (heap[parent]! <= score) break;
      heap[h] = heap[parent]!;
      h = parent;
    }
    heap[h] = score;
    return filled + 1;
  }
  if (score > heap[0]!) {
    let h = 0;
    for (;;) {
      const left = 2 * h + 1;
      if (left >= k) break;
      const right = left + 1;
      const child = right < k && heap[right]! < heap[left]! ? right : left;
      if (heap[child]! >= score) break;
      heap[h] = heap[child]!;
      h = child;
    }
    heap[h] = score;
  }
  return filled;
}
