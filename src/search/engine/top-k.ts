/**
 * A tie-breaking key: `values[i] × sign`, higher first, where i is the candidate's list
 * position (`byPosition`: scores) or its ordinal (a numeric column; a missing value ranks
 * last). Column values are read at most once per candidate, on demand, into `cache` (by list
 * position, NaN = not read yet): ties are frequent (equal term frequencies and lengths give
 * equal BM25 scores) but concern few candidates, so reading every candidate's value up front
 * would cost more than all the comparisons.
 */
export interface TieBreak {
  values: Float64Array;
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
    private readonly ids: readonly string[],
    private readonly idKeys: Float64Array,
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
    const oa = this.ordinals[a]!;
    const ob = this.ordinals[b]!;
    const ka = this.idKeys[oa]!;
    const kb = this.idKeys[ob]!;
    if (ka !== kb) return ka < kb;
    return this.ids[oa]! < this.ids[ob]!;
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
 * (`idKeys[ordinal]`: idOrderKey, the strings only when those are equal). A placement, when
 * given, ranks the first ordinals by those tie-breaking keys and ids: two of them compare by
 * place alone.
 */
export function selectTop(
  ordinals: Uint32Array,
  count: number,
  k: number,
  first: Float64Array | null,
  tieBreaks: readonly TieBreak[],
  ids: readonly string[],
  idKeys: Float64Array,
  placement: Placement | null = null,
): Uint32Array {
  const size = Math.min(k, count);
  if (size <= 0) return new Uint32Array(0);
  const places = placement?.places ?? NO_PLACES;
  if (placement !== null && first !== null && allBelow(ordinals, count, places.length)) return selectTopByPlace(ordinals, count, size, first, places, placement.order);
  const selection = new TopSelection(size, first, tieBreaks, ordinals, ids, idKeys, places, places.length);
  selection.offerAll(count);
  return selection.drain();
}

/** Whether every listed ordinal is below `limit`. */
function allBelow(ordinals: Uint32Array, count: number, limit: number): boolean {
  for (let c = 0; c < count; c++) if (ordinals[c]! >= limit) return false;
  return true;
}

/** Scratch of selectTopByPlace, grown as needed (searches run one at a time). */
let heapScratch = new Float64Array(64);
let aboveScratch = new Uint32Array(64);
let levelScratch = new Uint32Array(64);
/** Up to this page end, the candidates above the bar are put in order as they come (insertion). */
const INSERTION_LIMIT = 64;
/** the places of the candidates above the bar (insertAbove) */
const abovePlaces = new Uint32Array(INSERTION_LIMIT);

/**
 * selectTop when every candidate has a place (its rank by the tie-breaking keys and the id;
 * `order` lists the ordinals by place): the k-th best first key (the bar) is found alone, with
 * plain comparisons of numbers; the candidates above it are all in, ordered by first key then
 * place, and those at it follow by place (sorted as numbers, read back through `order`).
 */
function selectTopByPlace(ordinals: Uint32Array, count: number, k: number, first: Float64Array, places: Uint32Array, order: Uint32Array): Uint32Array {
  if (heapScratch.length < k) heapScratch = new Float64Array(Math.max(k, 2 * heapScratch.length));
  if (aboveScratch.length < k) aboveScratch = new Uint32Array(Math.max(k, 2 * aboveScratch.length));
  const heap = heapScratch;
  let filled = 0;
  for (let c = 0; c < count; c++) filled = offerToMinHeap(heap, filled, k, first[c]!);
  const bar = heap[0]!;
  const above = aboveScratch;
  const aboveCount = k <= INSERTION_LIMIT ? insertAbove(ordinals, count, first, places, bar, above) : sortAbove(ordinals, count, first, places, bar, above);
  let levelCount = 0;
  for (let c = 0; c < count; c++) if (first[c] === bar) levelCount++;
  if (levelScratch.length < levelCount) levelScratch = new Uint32Array(Math.max(levelCount, 2 * levelScratch.length));
  const level = levelScratch.subarray(0, levelCount);
  for (let c = 0, l = 0; c < count; c++) if (first[c] === bar) level[l++] = places[ordinals[c]!]!;
  level.sort();
  const top = new Uint32Array(k);
  for (let i = 0; i < aboveCount; i++) top[i] = ordinals[above[i]!]!;
  for (let i = aboveCount; i < k; i++) top[i] = order[level[i - aboveCount]!]!;
  return top;
}

/**
 * The positions whose first key is above the bar, into `above` in order (fewer than
 * INSERTION_LIMIT): put in by first key as they come (insertion), then their places read in
 * one pass — independent reads, whose cache misses overlap — and each run of equal keys put in
 * place order. Returns how many.
 */
function insertAbove(ordinals: Uint32Array, count: number, first: Float64Array, places: Uint32Array, bar: number, above: Uint32Array): number {
  let aboveCount = 0;
  for (let c = 0; c < count; c++) {
    const value = first[c]!;
    if (!(value > bar)) continue;
    let i = aboveCount++;
    while (i > 0 && first[above[i - 1]!]! < value) {
      above[i] = above[i - 1]!;
      i--;
    }
    above[i] = c;
  }
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
  return aboveCount;
}

/** insertAbove for many: gathered, then sorted. */
function sortAbove(ordinals: Uint32Array, count: number, first: Float64Array, places: Uint32Array, bar: number, above: Uint32Array): number {
  let aboveCount = 0;
  for (let c = 0; c < count; c++) if (first[c]! > bar) above[aboveCount++] = c;
  above
    .subarray(0, aboveCount)
    .sort((a, b) => (first[a] !== first[b] ? (first[a]! > first[b]! ? -1 : 1) : places[ordinals[a]!]! - places[ordinals[b]!]!));
  return aboveCount;
}

/** `keys[c] = sign × column[ordinals[c]]`, NaN (missing) as -Infinity: a sort key by list position. */
export function keysFromColumn(keys: Float64Array, column: Float64Array, sign: 1 | -1, ordinals: Uint32Array, count: number): void {
  for (let c = 0; c < count; c++) {
    const raw = column[ordinals[c]!]!;
    keys[c] = raw === raw ? raw * sign : -Infinity;
  }
  return;
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
