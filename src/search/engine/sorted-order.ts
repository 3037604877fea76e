import type { PackedStrings } from './packed-strings.js';
import type { NumberColumn } from './query-plan.js';

/**
 * Whole-index orders for searches without a phrase (browsing: "newest editorial images").
 * Their match sets are large (a fifth of the index, or all of it), and choosing the page with
 * a heap would read a sort key for every match; walking a presorted order of the ordinals and
 * taking the first ones in the match set reads about `page end × index size / matches`
 * entries instead. An order is built on first use (a sort of the base ordinals) and dropped
 * when ordinals change (compaction); documents added since (the tail) are ranked apart and
 * merged in.
 */

/** A sort level: `values[ordinal] × sign`, higher first, a missing value (NaN) last. */
export interface OrderLevel {
  values: NumberColumn;
  sign: 1 | -1;
}

function levelValue(level: OrderLevel, ordinal: number): number {
  const raw = level.values[ordinal]!;
  return raw === raw ? raw * level.sign : -Infinity;
}

/**
 * Negative when ordinal a ranks first: the levels, then the id (as JavaScript compares the
 * strings, from their packed bytes). No per-document order key is kept for the ids (it took
 * eight bytes a document): a search reaches the ids only on ties of every level, among a page's
 * few candidates, and best_match's base documents compare by place (see placement).
 */
export function compareOrdinals(levels: readonly OrderLevel[], ids: PackedStrings, a: number, b: number): number {
  for (const level of levels) {
    const va = levelValue(level, a);
    const vb = levelValue(level, b);
    if (va !== vb) return va > vb ? -1 : 1;
  }
  return ids.compare(a, b);
}

/**
 * Ordinals 0..count-1 in rank order. The first level is read into one array beforehand
 * (signed, missing as -Infinity), so that nearly every comparison of the sort is one
 * subtraction; the rest only break its ties, and the ids' order keys (idOrderKey, made for
 * this sort only and dropped after) settle nearly all of theirs without reading the ids.
 */
export function buildOrder(levels: readonly OrderLevel[], ids: PackedStrings, count: number): Uint32Array {
  const ordinals = Array.from({ length: count }, (_, i) => i);
  const idKeys = new Float64Array(count);
  for (let d = 0; d < count; d++) idKeys[d] = ids.orderKey(d);
  const [first, ...rest] = levels;
  const byRestAndId = (a: number, b: number): number => {
    for (const level of rest) {
      const va = levelValue(level, a);
      const vb = levelValue(level, b);
      if (va !== vb) return va > vb ? -1 : 1;
    }
    const ka = idKeys[a]!;
    const kb = idKeys[b]!;
    if (ka !== kb) return ka < kb ? -1 : 1;
    return ids.compare(a, b);
  };
  if (first === undefined) {
    ordinals.sort(byRestAndId);
  } else {
    const primary = new Float64Array(count);
    for (let d = 0; d < count; d++) primary[d] = levelValue(first, d);
    ordinals.sort((a, b) => {
      const va = primary[a]!;
      const vb = primary[b]!;
      if (va !== vb) return va > vb ? -1 : 1;
      return byRestAndId(a, b);
    });
  }
  return Uint32Array.from(ordinals);
}

/**
 * The first `k` ordinals of `order` whose bit is set in `bits`, into `out`; stops after
 * `budget` entries. Returns how many were taken, or -1 when the budget ran out first.
 */
export function takeInOrder(order: Uint32Array, bits: Uint32Array, k: number, budget: number, out: Uint32Array): number {
  let taken = 0;
  const end = Math.min(order.length, budget);
  let i = 0;
  for (; i < end && taken < k; i++) {
    const d = order[i]!;
    if ((bits[d >>> 5]! & (1 << (d & 31))) !== 0) out[taken++] = d;
  }
  return taken < k && i < order.length ? -1 : taken;
}

/**
 * The best `k` of `items` by `compare` (negative: first ranks before second), in order: a
 * bounded heap whose root is the worst kept. For the tail of a browse, which can be large.
 */
export function bestByComparator(items: readonly number[], k: number, compare: (a: number, b: number) => number): number[] {
  const heap: number[] = [];
  // worse(a, b): a ranks after b
  const worse = (a: number, b: number): boolean => compare(a, b) > 0;
  const down = (start: number): void => {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) return;
      const right = left + 1;
      const worst = right < heap.length && worse(heap[right]!, heap[left]!) ? right : left;
      if (!worse(heap[worst]!, heap[i]!)) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (k > 0 && worse(heap[0]!, item)) {
      heap[0] = item;
      down(0);
    }
  }
  return heap.sort(compare);
}
