import { ensureCapacity } from './typed-arrays.js';

/** A run of a list of ordinals: `docs[start..end)`. */
export type OrdinalRun = readonly [Uint32Array, number, number];

/** Bytes of a gap as a LEB128 varint (7 bits a byte). */
function varintBytes(gap: number): number {
  return gap < 0x80 ? 1 : gap < 0x4000 ? 2 : gap < 0x200000 ? 3 : gap < 0x10000000 ? 4 : 5;
}

/**
 * A keyword column's documents per value, ascending ordinals, in two parts:
 *
 * - the base, frozen at a build: each value's list as the gaps between its ordinals (less one,
 *   the first from -1), LEB128 varints — a byte a document for a value in more than 1/128 of
 *   the documents, two down to 1/16,384: at a million assets `keyword_id`'s 58 MB of four-byte
 *   ordinals take a third of that. A list is only ever read whole (a selective filter's
 *   documents become a search's first candidates, a build reads them all), never searched for
 *   one document, so it needs no skip entries;
 * - the tail: a plain list per value of the documents appended since, as the posting lists'
 *   tails (posting-store.ts).
 */
export class ValueLists {
  /** value v's base bytes are `baseBytes[baseStart[v]..baseStart[v + 1])` */
  baseStart: Uint32Array = new Uint32Array(1);
  baseBytes: Uint8Array = new Uint8Array(0);
  private tailDocs: (Uint32Array | null)[] = [];
  private tailLength: Uint32Array = new Uint32Array(0);
  /** values with a tail list since the last build */
  private touched: number[] = [];
  /** documents decoded for a search (listsOf's scratch, reused) */
  private decoded: Uint32Array = new Uint32Array(256);

  /** Values covered by the base (later ones have only tail documents). */
  get baseValueCount(): number {
    return this.baseStart.length - 1;
  }

  /** Replaces the base (made by ValueListWriter, or read back from a snapshot) and empties the tails. */
  setBase(start: Uint32Array, bytes: Uint8Array): void {
    if (start.length === 0 || start[start.length - 1]! !== bytes.length) throw new Error('search index: value list offsets out of step with their bytes');
    this.baseStart = start;
    this.baseBytes = bytes;
    // the tails' arrays and the scratch a build grew go too: a column of many values kept a slot of each per value
    this.tailDocs = [];
    this.tailLength = new Uint32Array(0);
    this.touched = [];
    this.decoded = new Uint32Array(256);
  }

  /** Appends `doc` (greater than every ordinal already in the list) to the value's tail. */
  add(value: number, doc: number): void {
    while (this.tailDocs.length <= value) this.tailDocs.push(null);
    this.tailLength = ensureCapacity(this.tailLength, value + 1);
    const length = this.tailLength[value]!;
    let docs = this.tailDocs[value]!;
    if (docs === null) {
      this.touched.push(value);
      docs = new Uint32Array(2);
    }
    docs = ensureCapacity(docs, length + 1);
    docs[length] = doc;
    this.tailDocs[value] = docs;
    this.tailLength[value] = length + 1;
  }

  /** Writes the value's base documents into `out` from `at`; returns the end (`out` holds them: one byte at least each). */
  private decodeBase(value: number, out: Uint32Array, at: number): number {
    const bytes = this.baseBytes;
    let w = at;
    let doc = -1;
    for (let i = this.baseStart[value]!, end = this.baseStart[value + 1]!; i < end; ) {
      let byte = bytes[i++]!;
      let gap = byte & 0x7f;
      // multiplications, not shifts: a fifth byte's bits pass 32
      for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
        byte = bytes[i++]!;
        gap += (byte & 0x7f) * scale;
      }
      doc += gap + 1;
      out[w++] = doc;
    }
    return w;
  }

  /**
   * The documents of each value (its base list, then its tail) as runs of one reused array:
   * valid until the next call.
   */
  listsOf(values: readonly number[]): OrdinalRun[] {
    let needed = 0;
    for (const value of values) needed += this.baseBytesOf(value);
    this.decoded = ensureCapacity(this.decoded, needed);
    const runs: OrdinalRun[] = [];
    let at = 0;
    for (const value of values) {
      if (value < this.baseValueCount) {
        const end = this.decodeBase(value, this.decoded, at);
        if (end > at) runs.push([this.decoded, at, end]);
        at = end;
      }
      const tail = value < this.tailLength.length ? this.tailLength[value]! : 0;
      if (tail > 0) runs.push([this.tailDocs[value]!, 0, tail]);
    }
    return runs;
  }

  private baseBytesOf(value: number): number {
    return value < this.baseValueCount ? this.baseStart[value + 1]! - this.baseStart[value]! : 0;
  }

  /** Bytes held by the lists (not the object headers of tail lists). */
  byteSize(): number {
    let bytes = this.baseStart.byteLength + this.baseBytes.byteLength + this.tailLength.byteLength + this.decoded.byteLength;
    for (const value of this.touched) bytes += this.tailDocs[value]?.byteLength ?? 0;
    return bytes;
  }
}

/**
 * Writes base lists from postings visited in ascending ordinal order, twice: a first pass
 * (`measure`) sizes each value's bytes, then `allocate`, then a second pass (`write`) of the
 * same postings fills them. Nothing of the size of the postings is held besides the bytes.
 */
export class ValueListWriter {
  private readonly last: Float64Array;
  private readonly start: Uint32Array;
  private bytes: Uint8Array = new Uint8Array(0);
  private cursor: Uint32Array = new Uint32Array(0);
  /** 1 for a value `allocate` was told to leave without a list (its postings are not written) */
  private readonly skipped: Uint8Array;

  constructor(valueCount: number) {
    this.last = new Float64Array(valueCount).fill(-1);
    this.start = new Uint32Array(valueCount + 1);
    this.skipped = new Uint8Array(valueCount);
  }

  measure(value: number, doc: number): void {
    this.start[value + 1] = this.start[value + 1]! + varintBytes(doc - this.last[value]! - 1);
    this.last[value] = doc;
  }

  /** Makes room for the measured lists — of the values `listed` keeps, when given; the others get an empty list. */
  allocate(listed?: (value: number) => boolean): void {
    const start = this.start;
    if (listed !== undefined) {
      for (let v = 0; v + 1 < start.length; v++) {
        if (listed(v)) continue;
        start[v + 1] = 0;
        this.skipped[v] = 1;
      }
    }
    for (let v = 0; v + 1 < start.length; v++) start[v + 1] = start[v + 1]! + start[v]!;
    this.bytes = new Uint8Array(start[start.length - 1]!);
    this.cursor = start.slice(0, start.length - 1);
    this.last.fill(-1);
  }

  write(value: number, doc: number): void {
    if (this.skipped[value] === 1) return;
    let gap = doc - this.last[value]! - 1;
    this.last[value] = doc;
    let i = this.cursor[value]!;
    while (gap >= 0x80) {
      this.bytes[i++] = (gap % 0x80) | 0x80;
      gap = Math.floor(gap / 0x80);
    }
    this.bytes[i++] = gap;
    this.cursor[value] = i;
  }

  /** Hands the lists to `lists` (the second pass must have written every posting of the first). */
  finish(lists: ValueLists): void {
    for (let v = 0; v < this.cursor.length; v++) {
      if (this.cursor[v] !== this.start[v + 1]) throw new Error('search index: value lists written out of step with their sizes');
    }
    lists.setBase(this.start, this.bytes);
  }
}

/**
 * A bitmap over ordinals of some lists' documents, made again search after search in one
 * array: before each use only the words the last use set are cleared, so a use costs its
 * lists, not the size of the index.
 */
export class ListBitmap {
  private bits: Uint32Array = new Uint32Array(0);
  private setWords: Uint32Array = new Uint32Array(64);
  private setCount = 0;

  /** The documents of `runs` among `docCount` ordinals: valid until the next call. */
  of(runs: readonly OrdinalRun[], docCount: number): Uint32Array {
    const words = (docCount + 31) >>> 5;
    if (this.bits.length < words) {
      this.bits = new Uint32Array(words + (words >>> 3));
      this.setCount = 0;
    }
    const bits = this.bits;
    for (let i = 0; i < this.setCount; i++) bits[this.setWords[i]!] = 0;
    let setCount = 0;
    for (const [docs, start, end] of runs) {
      this.setWords = ensureCapacity(this.setWords, setCount + end - start);
      const setWords = this.setWords;
      for (let i = start; i < end; i++) {
        const d = docs[i]!;
        const w = d >>> 5;
        if (bits[w] === 0) setWords[setCount++] = w;
        bits[w] = bits[w]! | (1 << (d & 31));
      }
    }
    this.setCount = setCount;
    return bits;
  }

  byteSize(): number {
    return this.bits.byteLength + this.setWords.byteLength;
  }
}
