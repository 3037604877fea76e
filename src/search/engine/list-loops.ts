import { documentAt, gallopRun, type PostingRun } from './compressed-lists.js';
import type { DocOffsets, DocValues, SingleShape, SingleValues, ValueMasks } from './keyword-column.js';
import type { NumberColumn, Segment } from './query-plan.js';

/*
 * The candidate set's phase 2 loops (see candidate-set.ts): a list of ordinals, ascending,
 * compacted in place. Each loop ends right after it, for the reason bitmap-loops.ts gives.
 */

/**
 * Compacts `ordinals[0..count)` to those found (or not found) in any segment, by galloping (a
 * dense list: by its bitmap); returns how many stay.
 */
export function keepByLookup(ordinals: Uint32Array, count: number, segments: readonly Segment[], keepFound: boolean): number {
  const positions = segments.map((segment) => segment.start);
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    let found = false;
    for (let s = 0; s < segments.length; s++) {
      const segment = segments[s]!;
      const bitmap = segment.bitmap;
      if (bitmap !== null) {
        if (d >>> 5 < bitmap.length && (bitmap[d >>> 5]! & (1 << (d & 31))) !== 0) {
          found = true;
          break;
        }
        continue;
      }
      const p = gallopRun(segment, positions[s]!, segment.end, d);
      positions[s] = p;
      if (p < segment.end && documentAt(segment, p) === d) {
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
export function keepBySingle(ordinals: Uint32Array, count: number, single: SingleValues, shape: SingleShape, allowed: Uint8Array, exclude: boolean): number {
  const flip = exclude ? 1 : 0;
  const { docShift, docMask, bitsLog, mask } = shape;
  let kept = 0;
  if (docShift === 0) {
    // a byte or more a document: read as it is, no shifts
    for (let c = 0; c < count; c++) {
      const d = ordinals[c]!;
      if ((allowed[single[d]!]! ^ flip) !== 0) ordinals[kept++] = d;
    }
    return kept;
  }
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    if ((allowed[(single[d >>> docShift]! >>> ((d & docMask) << bitsLog)) & mask]! ^ flip) !== 0) ordinals[kept++] = d;
  }
  return kept;
}

/** refineMasks on a list. */
export function keepByMasks(ordinals: Uint32Array, count: number, masks: ValueMasks, allowed: number, exclude: boolean): number {
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    if (((masks[d]! & allowed) !== 0) !== exclude) ordinals[kept++] = d;
  }
  return kept;
}

/** refineMulti on a list. */
export function keepByMulti(ordinals: Uint32Array, count: number, blockStart: Uint32Array, docOffset: DocOffsets, values: DocValues, allowed: Uint8Array, exclude: boolean): number {
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    let hit = false;
    for (let j = blockStart[d >>> 5]! + docOffset[d]!, end = blockStart[(d + 1) >>> 5]! + docOffset[d + 1]!; j < end; j++) {
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

/** Copies the run's documents to `target` from `at`; returns the end. */
export function copyRun(target: Uint32Array, at: number, run: PostingRun): number {
  const { words, wordBase, width, mask, blocks, firstBlock, blockShift, start, end } = run;
  if (width === 0 && blockShift === 0) {
    // one document a block, no distances (a tail list, a rare list): the blocks are the documents
    target.set(blocks.subarray(firstBlock, firstBlock + end - start), at);
    return at + end - start;
  }
  // a sequential read: the current word kept, the next read only when a distance reaches it
  const count = end - start;
  const blockMask = (1 << blockShift) - 1;
  let first = 0;
  let word = wordBase;
  let current = words[word]!;
  let shift = 0;
  for (let j = 0; j < count; j++) {
    if ((j & blockMask) === 0) first = blocks[firstBlock + (j >>> blockShift)]!;
    let distance = current >>> shift;
    shift += width;
    if (shift >= 32) {
      current = words[++word]!;
      shift -= 32;
      if (shift > 0) distance |= current << (width - shift);
    }
    target[at++] = first + (distance & mask);
  }
  return at;
}

/** Writes the positions of the set bits of `bitmap[0..words)` to `target` from `at`, ascending; returns the end. */
export function copyBits(target: Uint32Array, at: number, bitmap: Uint32Array, words: number): number {
  for (let i = 0; i < words; i++) {
    let word = bitmap[i]! | 0;
    const base = i << 5;
    while (word !== 0) {
      const lowest = word & -word;
      word ^= lowest;
      target[at++] = base + 31 - Math.clz32(lowest);
    }
  }
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
