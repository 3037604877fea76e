import type { PackedStrings } from './packed-strings.js';
import { hashString } from './typed-arrays.js';

/**
 * What the table reads of the index's documents: each ordinal's id, and its hash (hashString)
 * either kept by ordinal (`idHash`) or made from the id's bytes when asked for (`ids.hash`).
 */
export type IdentifiedDocuments =
  | { readonly ids: Pick<PackedStrings, 'equals' | 'entriesEqual'>; readonly idHash: Uint32Array }
  | { readonly ids: Pick<PackedStrings, 'equals' | 'entriesEqual' | 'hash'>; readonly idHash?: undefined };

/** The table grows past this share of its slots in use. */
const MAX_LOAD = 0.75;

/**
 * The ordinal of each live id: an open-addressing hash table (linear probing) of ordinals in
 * one typed array, keyed by the hash of each id (kept by the documents, or made from the id's
 * bytes: the index's own ids keep none, four bytes a document, see hashOf). A Map of
 * string keys held about 30 bytes of heap an id (measured at 250,000; 300 MB at ten million,
 * with a full collection's pauses to match) and cannot pass 2^24 entries, V8's limit for a
 * Map; this takes 4 to 10 bytes an id outside the heap.
 * A slot holds ordinal + 1 (0: empty); a probe compares the hash, and the id only on a match
 * (without kept hashes, the id: its length, then its bytes).
 * A deletion shifts the following entries of its run back, so no slot is ever a tombstone.
 */
export class IdOrdinals {
  private slots: Uint32Array = new Uint32Array(16);
  private mask = 15;
  private count = 0;

  constructor(private readonly documents: IdentifiedDocuments) {}

  get size(): number {
    return this.count;
  }

  /** The ordinal of `id`, or -1. */
  get(id: string): number {
    const slot = this.find(id, hashString(id));
    return slot < 0 ? -1 : this.slots[slot]! - 1;
  }

  has(id: string): boolean {
    return this.get(id) >= 0;
  }

  /** Maps the id of `ordinal` (its id and hash already in the documents) to it, replacing any ordinal the id had. */
  set(ordinal: number): void {
    const hash = this.hashOf(ordinal);
    const found = this.findEntry(ordinal, hash);
    if (found >= 0) {
      this.slots[found] = ordinal + 1;
      return;
    }
    if (this.count + 1 > MAX_LOAD * this.slots.length) this.resize(this.slots.length * 2);
    this.place(hash, ordinal);
    this.count++;
  }

  /** Forgets the id of `ordinal`, if it still maps to that ordinal. */
  delete(ordinal: number): void {
    const slots = this.slots;
    const mask = this.mask;
    // the ordinal is in the run from its id's home slot, if anywhere
    let slot = this.hashOf(ordinal) & mask;
    while (slots[slot] !== 0 && slots[slot] !== ordinal + 1) slot = (slot + 1) & mask;
    if (slots[slot] === 0) return;
    this.count--;
    // backward shift: an entry further down the run moves into the hole unless its home slot lies after the hole
    let hole = slot;
    for (let next = (hole + 1) & mask; slots[next] !== 0; next = (next + 1) & mask) {
      const home = this.hashOf(slots[next]! - 1) & mask;
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        slots[hole] = slots[next]!;
        hole = next;
      }
    }
    slots[hole] = 0;
  }

  /** Maps the ids of ordinals 0..docCount-1 (all distinct: the live documents after a compaction or a snapshot read), and nothing else. */
  rebuild(docCount: number): void {
    let capacity = 16;
    while (docCount > MAX_LOAD * capacity) capacity *= 2;
    this.slots = new Uint32Array(capacity);
    this.mask = capacity - 1;
    this.count = docCount;
    for (let ordinal = 0; ordinal < docCount; ordinal++) this.place(this.hashOf(ordinal), ordinal);
  }

  /** hashString of the id of `ordinal`: kept, or made from its bytes. */
  private hashOf(ordinal: number): number {
    const documents = this.documents;
    return documents.idHash !== undefined ? documents.idHash[ordinal]! : documents.ids.hash(ordinal);
  }

  byteSize(): number {
    return this.slots.byteLength;
  }

  /** The slot holding `id`, or -1. */
  private find(id: string, hash: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const { ids, idHash } = this.documents;
    if (idHash === undefined) {
      for (let slot = hash & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
        if (ids.equals(slots[slot]! - 1, id)) return slot;
      }
      return -1;
    }
    for (let slot = hash & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const ordinal = slots[slot]! - 1;
      if (idHash[ordinal] === hash && ids.equals(ordinal, id)) return slot;
    }
    return -1;
  }

  /** The slot holding an ordinal whose id is that of `ordinal` (whose hash is `hash`), or -1. */
  private findEntry(ordinal: number, hash: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const { ids, idHash } = this.documents;
    if (idHash === undefined) {
      for (let slot = hash & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
        if (ids.entriesEqual(slots[slot]! - 1, ordinal)) return slot;
      }
      return -1;
    }
    for (let slot = hash & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const other = slots[slot]! - 1;
      if (idHash[other] === hash && ids.entriesEqual(other, ordinal)) return slot;
    }
    return -1;
  }

  /** Puts an ordinal whose id is not in the table in the first free slot from its hash's. */
  private place(hash: number, ordinal: number): void {
    let slot = hash & this.mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
    this.slots[slot] = ordinal + 1;
  }

  private resize(capacity: number): void {
    const old = this.slots;
    this.slots = new Uint32Array(capacity);
    this.mask = capacity - 1;
    for (const entry of old) if (entry !== 0) this.place(this.hashOf(entry - 1), entry - 1);
  }
}
