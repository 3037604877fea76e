import type { PostingRun } from './compressed-lists.js';
import type { DocOffsets, DocValues, SingleShape, SingleValues, ValueMasks } from './keyword-column.js';
import type { NumberColumn } from './query-plan.js';
import { bitCount } from './typed-arrays.js';

/*
 * The candidate set's phase 1 loops (see candidate-set.ts): a bitmap over ordinals, a word of
 * 32 documents at a time.
 *
 * The loops are module functions that end right after their loop (`return`, nothing else):
 * V8 compiles a hot loop on the fly (on-stack replacement) on its first long run, before the
 * code after the loop has ever run, and code compiled without type feedback deoptimizes there
 * — on every later call too, as the compiled loop is cached. Nothing after a loop, no deopt.
 */

export function population(bits: Uint32Array, words: number): number {
  let total = 0;
  for (let i = 0; i < words; i++) total += bitCount(bits[i]!);
  return total;
}

/** Sets the bits of the ordinals `docs[start..end)` (a keyword value's list, decoded: see value-lists.ts). */
export function setBits(bits: Uint32Array, docs: Uint32Array, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    const d = docs[i]!;
    bits[d >>> 5] = bits[d >>> 5]! | (1 << (d & 31));
  }
  return;
}

/** Sets the bits of the run's documents, a block at a time (see compressed-lists.ts). */
export function setRunBits(bits: Uint32Array, run: PostingRun): void {
  const { words, wordBase, width, mask, blocks, firstBlock, blockShift, start, end } = run;
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
    const d = first + (distance & mask);
    bits[d >>> 5] = bits[d >>> 5]! | (1 << (d & 31));
  }
  return;
}

export function orInto(target: Uint32Array, source: Uint32Array, words: number): void {
  for (let i = 0; i < words; i++) target[i] = target[i]! | source[i]!;
  return;
}

export function andInto(target: Uint32Array, source: Uint32Array, words: number): void {
  for (let i = 0; i < words; i++) target[i] = target[i]! & source[i]!;
  return;
}

export function andNotInto(target: Uint32Array, source: Uint32Array, words: number): void {
  for (let i = 0; i < words; i++) target[i] = target[i]! & ~source[i]!;
  return;
}

/**
 * Writes the set bits' positions to `ordinals`, ascending, and to `ranks[i]` how many come
 * before word i (almost free here, a pass of its own later); returns how many.
 */
export function listBits(bits: Uint32Array, words: number, ordinals: Uint32Array, ranks: Uint32Array): number {
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

/*
 * One loop per kind of per-document filter, here on the bitmap (refineSingle, refineMasks,
 * refineMulti, refineRange) and again on the list (keepBySingle, keepByMasks, keepByMulti, keepByRange in
 * list-loops.ts), on purpose: the shared shape — walk the candidates, test one document,
 * keep or drop it — taken out as a loop that calls a test per document would make that call
 * the hot path. A loop shared by the three kinds sees three tests at one call site, which V8
 * stops inlining (a megamorphic call a document); each loop here has its test inline (the
 * single-valued one branch-free), a few instructions a document.
 */
export function refineSingle(bits: Uint32Array, words: number, single: SingleValues, shape: SingleShape, allowed: Uint8Array, exclude: boolean): void {
  const flip = exclude ? 1 : 0;
  const { docShift, docMask, bitsLog, mask } = shape;
  for (let i = 0; i < words; i++) {
    let word = bits[i]! | 0;
    if (word === 0) continue;
    let keep = word;
    const base = i << 5;
    while (word !== 0) {
      const lowest = word & -word;
      word ^= lowest;
      // branch-free: clear the bit unless the value passes (allowed, or not allowed when excluding)
      const d = base + 31 - Math.clz32(lowest);
      const passes = allowed[(single[d >>> docShift]! >>> ((d & docMask) << bitsLog)) & mask]! ^ flip;
      keep ^= lowest & (passes - 1);
    }
    bits[i] = keep;
  }
  return;
}

/** A document passes when its bitmask shares a bit with `allowed` (or, excluding, shares none): branch-free like refineSingle. */
export function refineMasks(bits: Uint32Array, words: number, masks: ValueMasks, allowed: number, exclude: boolean): void {
  const flip = exclude ? 1 : 0;
  for (let i = 0; i < words; i++) {
    let word = bits[i]! | 0;
    if (word === 0) continue;
    let keep = word;
    const base = i << 5;
    while (word !== 0) {
      const lowest = word & -word;
      word ^= lowest;
      const passes = ((masks[base + 31 - Math.clz32(lowest)]! & allowed) !== 0 ? 1 : 0) ^ flip;
      keep ^= lowest & (passes - 1);
    }
    bits[i] = keep;
  }
  return;
}

export function refineMulti(bits: Uint32Array, words: number, blockStart: Uint32Array, docOffset: DocOffsets, values: DocValues, allowed: Uint8Array, exclude: boolean): void {
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
      for (let j = blockStart[d >>> 5]! + docOffset[d]!, end = blockStart[(d + 1) >>> 5]! + docOffset[d + 1]!; j < end; j++) {
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

export function refineRange(bits: Uint32Array, words: number, column: NumberColumn, min: number, max: number): void {
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
