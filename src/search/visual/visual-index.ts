import { SIGNATURE_LENGTH, SIGNATURE_PARTS, SUMMARY_GROUP_OF, SUMMARY_LENGTH } from '../../media/visual-signature.js';

export interface VisualNeighbour {
  id: string;
  /** L1 distance to the query signature; see visual-signature.ts for its scale. */
  distance: number;
}

export interface NearestOptions {
  /** Ids never to return (the query asset itself, say). */
  exclude?: ReadonlySet<string>;
  /**
   * Only ids for which this returns true are returned. Asked only about ids that are
   * near enough to make the result at that point of the scan, so it may be called for a
   * small fraction of the index, and it must not change the index.
   */
  filter?: (id: string) => boolean;
}

/** How many floats are summed between two checks of a distance against the current k-th best. */
const ABANDON_STRIDE = 16;

/** Slots allocated at first; doubled whenever full. */
const INITIAL_CAPACITY = 1024;

/**
 * How far a lower bound must exceed the k-th best before a candidate is given up on its
 * strength: group sums are stored as float32 and sums run in another order than the
 * full distance, so a bound may be off by about 1e-6; with this slack a candidate that
 * might tie is always measured in full. (Distances run from 0 to 5.)
 */
const BOUND_SLACK = 1e-5;

const LAYOUT = SIGNATURE_PARTS.layout;
const GROUP_OF = Int32Array.from(SUMMARY_GROUP_OF);
/** Layout values whose signs the index keeps as bits: the first (lowest) 32 frequencies. */
const SIGN_BITS = Math.min(32, LAYOUT.length);
/** The size of a saturated layout value (a DCT sign taken as certain); see visual-signature.ts. */
const SATURATED = Math.fround(LAYOUT.weight / LAYOUT.length);

/**
 * An in-memory nearest-neighbour index over visual signatures, by exact brute force:
 * every signature sits in one contiguous Float32Array (a slot per id; doubled when full,
 * the last slot moved into a removed one), and nearest() scans them all, keeping the k
 * best in a bounded max-heap.
 *
 * The scan is exact, and fast for three reasons, none of which can lose a true
 * neighbour: each gives a candidate up only when its distance provably exceeds the
 * current k-th best.
 *
 * 1. Group sums. Beside each signature the index keeps its 17 group sums (colour per hue,
 *    edges per quadrant and direction: SUMMARY_GROUP_OF); their differences bound the
 *    colour and the edge distance from below (|Σa − Σb| ≤ Σ|a − b| per group).
 * 2. Layout signs. The layout part is a pattern of soft signs, most of them saturated at
 *    ±SATURATED. Beside each signature the index keeps two 32-bit words over its first 32
 *    values, "negative" and "saturated". Where two signatures' signs differ, each
 *    saturated value of the two adds at least SATURATED to the distance, so
 *    (popcount(differ & saturatedA) + popcount(differ & saturatedB)) × SATURATED bounds
 *    the layout distance from below.
 *    (1) and (2) are the pre-filter: 17 float differences and two popcounts, against 118
 *    float differences for the distance itself.
 * 3. Early abandoning. The distance of a candidate that passes is given up as soon as its
 *    running sum exceeds the k-th best (checked every ABANDON_STRIDE floats; the colour
 *    part, which differs most between unrelated images, comes first).
 *
 * Ties in distance are broken by id, so the result does not depend on the order in which
 * signatures were added or removed.
 *
 * Memory: 548 bytes a slot (118 + 17 float32s and 2 words), so about 575 MB for a million
 * signatures (2^20 slots), plus the ids. Timing: see bench/search/visual-nearest.ts.
 */
export class VisualIndex {
  private vectors = new Float32Array(INITIAL_CAPACITY * SIGNATURE_LENGTH);
  private summaries = new Float32Array(INITIAL_CAPACITY * SUMMARY_LENGTH);
  /** Per slot: the "negative" word, then the "saturated" word of the layout signs. */
  private signs = new Int32Array(INITIAL_CAPACITY * 2);
  private capacity = INITIAL_CAPACITY;
  private readonly ids: string[] = [];
  private readonly slots = new Map<string, number>();

  /** How many signatures the index holds. */
  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** Adds the signature of id, or replaces it when id is already there. The signature is copied. */
  upsert(id: string, signature: Float32Array): void {
    checkSignature(signature);
    let slot = this.slots.get(id);
    if (slot === undefined) {
      if (this.ids.length === this.capacity) this.grow();
      slot = this.ids.length;
      this.ids.push(id);
      this.slots.set(id, slot);
    }
    this.vectors.set(signature, slot * SIGNATURE_LENGTH);
    this.summaries.set(summaryOf(signature), slot * SUMMARY_LENGTH);
    this.signs.set(layoutSignsOf(signature), slot * 2);
  }

  /** Every id with its signature (a view into the index: copy it to keep it past the next change). */
  *entries(): Generator<[string, Float32Array]> {
    for (let slot = 0; slot < this.ids.length; slot++) {
      yield [this.ids[slot]!, this.vectors.subarray(slot * SIGNATURE_LENGTH, (slot + 1) * SIGNATURE_LENGTH)];
    }
  }

  /** The signature of id (a copy), or undefined. */
  signatureOf(id: string): Float32Array | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.vectors.slice(slot * SIGNATURE_LENGTH, (slot + 1) * SIGNATURE_LENGTH);
  }

  /** Forgets id; nothing happens when it is not there. */
  remove(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    if (slot !== last) {
      const lastId = this.ids[last]!;
      moveSlot(this.vectors, SIGNATURE_LENGTH, last, slot);
      moveSlot(this.summaries, SUMMARY_LENGTH, last, slot);
      moveSlot(this.signs, 2, last, slot);
      this.ids[slot] = lastId;
      this.slots.set(lastId, slot);
    }
    this.ids.pop();
    this.slots.delete(id);
  }

  /**
   * The k signatures nearest to the given one, nearest first (ties by id), skipping
   * the ids in exclude and those the filter refuses. Fewer than k when the index holds
   * fewer admissible ids; none when k < 1.
   */
  nearest(signature: Float32Array, k: number, options: NearestOptions = {}): VisualNeighbour[] {
    checkSignature(signature);
    if (Number.isNaN(k)) throw new RangeError('k must be a number, got NaN');
    const limit = Math.min(Math.floor(k), this.ids.length);
    if (!(limit >= 1)) return [];
    const { exclude, filter } = options;
    const heap = new TopK(limit, this.ids);
    const query = signature;
    const querySummary = summaryOf(signature);
    const querySigns = layoutSignsOf(signature);
    const queryNegative = querySigns[0]!;
    const querySaturated = querySigns[1]!;
    const vectors = this.vectors;
    const summaries = this.summaries;
    const signs = this.signs;
    const count = this.ids.length;
    for (let slot = 0; slot < count; slot++) {
      const bound = heap.bound;
      if (bound !== Infinity) {
        // The pre-filter: (1) group sums, then (2) layout signs.
        const ceiling = bound + BOUND_SLACK;
        const at = slot * SUMMARY_LENGTH;
        let g0 = 0;
        let g1 = 0;
        let j = 0;
        for (; j + 1 < SUMMARY_LENGTH; j += 2) {
          g0 += Math.abs(summaries[at + j]! - querySummary[j]!);
          g1 += Math.abs(summaries[at + j + 1]! - querySummary[j + 1]!);
        }
        if (j < SUMMARY_LENGTH) g0 += Math.abs(summaries[at + j]! - querySummary[j]!);
        const groupsLower = g0 + g1;
        if (groupsLower > ceiling) continue;
        const differ = signs[slot * 2]! ^ queryNegative;
        if (groupsLower + SATURATED * twoPopcounts(differ & signs[slot * 2 + 1]!, differ & querySaturated) > ceiling) continue;
      }
      // (3) The distance itself, in four running sums (unrolled, so the additions overlap),
      // compared with the bound every ABANDON_STRIDE floats. Math.abs rather than a branch:
      // the sign of a difference is random, and a mispredicted branch per float costs
      // more than the subtraction.
      const base = slot * SIGNATURE_LENGTH;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      let sum = 0;
      while (i < SIGNATURE_LENGTH) {
        const stop = i + ABANDON_STRIDE < SIGNATURE_LENGTH ? i + ABANDON_STRIDE : SIGNATURE_LENGTH;
        for (; i + 3 < stop; i += 4) {
          s0 += Math.abs(vectors[base + i]! - query[i]!);
          s1 += Math.abs(vectors[base + i + 1]! - query[i + 1]!);
          s2 += Math.abs(vectors[base + i + 2]! - query[i + 2]!);
          s3 += Math.abs(vectors[base + i + 3]! - query[i + 3]!);
        }
        for (; i < stop; i++) s0 += Math.abs(vectors[base + i]! - query[i]!);
        sum = s0 + s1 + s2 + s3;
        if (sum > bound) break;
      }
      if (sum > bound) continue;
      if (!heap.admits(sum, slot)) continue;
      const id = this.ids[slot]!;
      if (exclude !== undefined && exclude.has(id)) continue;
      if (filter !== undefined && !filter(id)) continue;
      heap.push(sum, slot);
    }
    return heap.sorted();
  }

  private grow(): void {
    const used = this.ids.length;
    this.capacity *= 2;
    this.vectors = grown(this.vectors, used * SIGNATURE_LENGTH, this.capacity * SIGNATURE_LENGTH);
    this.summaries = grown(this.summaries, used * SUMMARY_LENGTH, this.capacity * SUMMARY_LENGTH);
    this.signs = grown(this.signs, used * 2, this.capacity * 2);
  }
}

function checkSignature(signature: Float32Array): void {
  if (!(signature instanceof Float32Array) || signature.length !== SIGNATURE_LENGTH) {
    throw new RangeError(`a signature must be a Float32Array of ${SIGNATURE_LENGTH} floats`);
  }
  // A NaN would compare false with every bound and break the heap's order.
  for (let i = 0; i < SIGNATURE_LENGTH; i++) {
    if (!Number.isFinite(signature[i])) throw new RangeError(`a signature must hold finite numbers; float ${i} is ${signature[i]}`);
  }
}

/** The group sums of a signature (see SUMMARY_GROUP_OF). */
function summaryOf(signature: Float32Array): Float64Array {
  const summary = new Float64Array(SUMMARY_LENGTH);
  for (let i = 0; i < SIGNATURE_LENGTH; i++) {
    const group = GROUP_OF[i]!;
    if (group >= 0) summary[group] = summary[group]! + signature[i]!;
  }
  return summary;
}

/** The "negative" and "saturated" bits of the first SIGN_BITS layout values. */
function layoutSignsOf(signature: Float32Array): Int32Array {
  const words = new Int32Array(2);
  for (let j = 0; j < SIGN_BITS; j++) {
    const value = signature[LAYOUT.offset + j]!;
    if (value < 0) words[0] = words[0]! | (1 << j);
    if (Math.abs(value) >= SATURATED) words[1] = words[1]! | (1 << j);
  }
  return words;
}

/** popcount(a) + popcount(b), sharing the last steps. */
function twoPopcounts(a: number, b: number): number {
  const x = a - ((a >>> 1) & 0x55555555);
  const y = b - ((b >>> 1) & 0x55555555);
  // Nibbles of x and y count up to 4 each, so their sum fits a nibble (≤ 8).
  let t = (x & 0x33333333) + ((x >>> 2) & 0x33333333) + (y & 0x33333333) + ((y >>> 2) & 0x33333333);
  t = (t & 0x0f0f0f0f) + ((t >>> 4) & 0x0f0f0f0f);
  return Math.imul(t, 0x01010101) >>> 24;
}

function moveSlot(array: Float32Array | Int32Array, width: number, from: number, to: number): void {
  array.copyWithin(to * width, from * width, (from + 1) * width);
}

function grown<T extends Float32Array | Int32Array>(array: T, used: number, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array.subarray(0, used));
  return next;
}

/**
 * The k best (smallest distance, then smallest id) seen so far: a max-heap of at most k
 * entries whose root is the worst of them, which is the bound a candidate must beat.
 */
class TopK {
  private readonly distances: Float64Array;
  private readonly slots: Int32Array;
  private length = 0;

  constructor(
    private readonly k: number,
    private readonly ids: readonly string[],
  ) {
    this.distances = new Float64Array(k);
    this.slots = new Int32Array(k);
  }

  /** A distance above this cannot enter; Infinity until k entries are held. */
  get bound(): number {
    return this.length < this.k ? Infinity : this.distances[0]!;
  }

  /** Whether an entry would enter now (a distance equal to the bound enters only with a smaller id). */
  admits(distance: number, slot: number): boolean {
    if (this.length < this.k) return true;
    return !this.worse(distance, slot, this.distances[0]!, this.slots[0]!);
  }

  /** Adds an entry that admits() accepted, dropping the worst when full. */
  push(distance: number, slot: number): void {
    if (this.length < this.k) {
      let at = this.length++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!this.worse(distance, slot, this.distances[parent]!, this.slots[parent]!)) break;
        this.distances[at] = this.distances[parent]!;
        this.slots[at] = this.slots[parent]!;
        at = parent;
      }
      this.distances[at] = distance;
      this.slots[at] = slot;
      return;
    }
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.length) break;
      const right = left + 1;
      let child = left;
      if (right < this.length && this.worse(this.distances[right]!, this.slots[right]!, this.distances[left]!, this.slots[left]!)) {
        child = right;
      }
      if (!this.worse(this.distances[child]!, this.slots[child]!, distance, slot)) break;
      this.distances[at] = this.distances[child]!;
      this.slots[at] = this.slots[child]!;
      at = child;
    }
    this.distances[at] = distance;
    this.slots[at] = slot;
  }

  sorted(): VisualNeighbour[] {
    const entries: VisualNeighbour[] = [];
    for (let i = 0; i < this.length; i++) entries.push({ id: this.ids[this.slots[i]!]!, distance: this.distances[i]! });
    return entries.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Whether entry a ranks after entry b. */
  private worse(distanceA: number, slotA: number, distanceB: number, slotB: number): boolean {
    if (distanceA !== distanceB) return distanceA > distanceB;
    return this.ids[slotA]! > this.ids[slotB]!;
  }
}
