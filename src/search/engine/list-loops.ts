import type { SingleValues } from './keyword-column.js';
import type { NumberColumn, Segment } from './query-plan.js';

/*
 * The candidate set's phase 2 loops (see candidate-set.ts): a list of ordinals, ascending,
 * compacted in place. Each loop ends right after it, for the reason bitmap-loops.ts gives.
 */

/** First index in `[low, high)` whose value is ≥ target (exponential, then binary search). */
export function gallop(docs: Uint32Array, low: number, high: number, target: number): number {
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

/** Compacts `ordinals[0..count)` to those found (or not found) in any segment, by galloping; returns how many stay. */
export function keepByLookup(ordinals: Uint32Array, count: number, segments: readonly Segment[], keepFound: boolean): number {
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
export function keepByBits(ordinals: Uint32Array, count: number, marks: Uint32Array, keepMarked: boolean): number {
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    if (((marks[d >>> 5]! & (1 << (d & 31))) !== 0) === keepMarked) ordinals[kept++] = d;
  }
  return kept;
}

/** Compacts `ordinals[0..count)` to those in any of the bitmaps (`negate`: in none); returns how many stay. */
export function keepByAnyBits(ordinals: Uint32Array, count: number, bitmaps: readonly Uint32Array[], negate: boolean): number {
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

/** refineSingle on a list (specialised like it, see bitmap-loops.ts): keeps the documents whose value passes; returns how many stay. */
export function keepBySingle(ordinals: Uint32Array, count: number, single: SingleValues, allowed: Uint8Array, exclude: boolean): number {
  const flip = exclude ? 1 : 0;
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    if ((allowed[single[d]!]! ^ flip) !== 0) ordinals[kept++] = d;
  }
  return kept;
}

/** refineMulti on a list. */
export function keepByMulti(ordinals: Uint32Array, count: number, starts: Uint32Array, values: Uint32Array, allowed: Uint8Array, exclude: boolean): number {
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
export function keepByRange(ordinals: Uint32Array, count: number, column: NumberColumn, min: number, max: number): number {
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    const value = column[d]!;
    if (value >= min && value <= max) ordinals[kept++] = d;
  }
  return kept;
}

/** Copies `docs[start..end)` to `target` from `at`; returns the end. */
export function copyList(target: Uint32Array, at: number, docs: Uint32Array, start: number, end: number): number {
  for (let i = start; i < end; i++) target[at++] = docs[i]!;
  return at;
}

/** Drops repeats from a sorted list; returns the new length. */
export function dropRepeats(ordinals: Uint32Array, count: number): number {
  if (count === 0) return 0;
  let kept = 1;
  for (let c = 1; c < count; c++) {
    const d = ordinals[c]!;
    if (d !== ordinals[kept - 1]) ordinals[kept++] = d;
  }
  return kept;
}
