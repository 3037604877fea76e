import { ensureCapacity } from './typed-arrays.js';

/** A run of a list of ordinals: `docs[start..end)`. */
export type OrdinalRun = readonly [Uint32Array, number, number];

/** Bytes of a number as a LEB128 varint (7 bits a byte). */
function varintBytes(value: number): number {
  let bytes = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) bytes++;
  return bytes;
}

/** Writes `value` as a LEB128 varint at `bytes[at]`; returns the end. */
function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  let i = at;
  let rest = value;
  while (rest >= 0x80) {
    bytes[i++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  bytes[i++] = rest;
  return i;
}

/** the widest low part of an Elias-Fano list: a read of its bits keeps at most 23 + 8 bits in its buffer */
const MAX_LOW_BITS = 24;
/** an Elias-Fano list's header is the varint count × this + its low bits */
const HEADER_SCALE = 32;

/** Bytes of an Elias-Fano list of `count` ordinals up to `last` with `low` low bits each: its header, its low bits, its high parts' bits. */
function eliasFanoBytes(count: number, last: number, low: number): number {
  return varintBytes(count * HEADER_SCALE + low) + eliasFanoBodyBytes(count, last, low);
}

/** eliasFanoBytes without the header. */
function eliasFanoBodyBytes(count: number, last: number, low: number): number {
  // `last` is an ordinal, below 2^32: its high part is an unsigned shift
  return Math.ceil((count * low) / 8) + Math.ceil((count + (last >>> low)) / 8);
}

/**
 * The low bits that make the smallest Elias-Fano list of `count` ordinals up to `last` (the
 * fewest of equals). The header's size is the same for every choice (count × 32 + low crosses
 * no power of 128), so only the body is compared: a build asks this of each of a column's
 * values, millions of them for `keyword_id` at ten million assets.
 */
function bestLowBits(count: number, last: number): number {
  let best = 0;
  let bestBytes = eliasFanoBodyBytes(count, last, 0);
  for (let low = 1; low <= MAX_LOW_BITS; low++) {
    const bytes = eliasFanoBodyBytes(count, last, low);
    if (bytes < bestBytes) {
      best = low;
      bestBytes = bytes;
    }
  }
  return best;
}

/**
 * A keyword column's documents per value, ascending ordinals, in two parts:
 *
 * - the base, frozen at a build: each value's list in the smaller of two codings, one flag bit
 *   a value (`baseEliasFano`) telling which:
 *   - the gaps between its ordinals (less one, the first from -1), LEB128 varints: a byte a
 *     document for a value in more than 1/128 of the documents, two down to 1/16,384; the
 *     smaller for lists of a document or two, whose bytes are their ordinals;
 *   - Elias-Fano: a varint header (count × 32 + low bits l), each ordinal's low l bits packed,
 *     then its high part (ordinal >> l) as the bits set at high + i, i its place: about
 *     log2(gap) + 2 bits a document where a varint rounds up to whole bytes of 7 bits — at a
 *     million assets `keyword_id`'s lists took 21.3 MB as varints alone.
 *   A list is only ever read whole (a selective filter's documents become a search's first
 *   candidates, a build reads them all), never searched for one document, so it needs no
 *   skip entries;
 * - the tail: a plain list per value of the documents appended since, as the posting lists'
 *   tails (posting-store.ts).
 */
export class ValueLists {
  /** value v's base bytes are `baseBytes[baseStart[v]..baseStart[v + 1])` */
  baseStart: Uint32Array = new Uint32Array(1);
  baseBytes: Uint8Array = new Uint8Array(0);
  /** bit v (of byte v >>> 3) set: value v's base list is Elias-Fano coded, else varint gaps */
  baseEliasFano: Uint8Array = new Uint8Array(0);
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
  setBase(start: Uint32Array, bytes: Uint8Array, eliasFano: Uint8Array): void {
    const values = start.length - 1;
    if (values < 0 || start[values]! !== bytes.length || eliasFano.length !== (values + 7) >>> 3) throw new Error('search index: value list offsets out of step with their bytes');
    for (let v = 0; v < values; v++) {
      if (start[v + 1]! < start[v]!) throw new Error('search index: value list offsets out of step with their bytes');
    }
    this.baseStart = start;
    this.baseBytes = bytes;
    this.baseEliasFano = eliasFano;
    for (let v = 0; v < values; v++) {
      if (this.isEliasFano(v) && this.baseCountBound(v) > 8 * (start[v + 1]! - start[v]!)) throw new Error('search index: value list offsets out of step with their bytes');
    }
    // the tails' arrays and the scratch a build grew go too: a column of many values kept a slot of each per value
    this.tailDocs = [];
    this.tailLength = new Uint32Array(0);
    this.touched = [];
    this.decoded = new Uint32Array(256);
  }

  private isEliasFano(value: number): boolean {
    return (this.baseEliasFano[value >>> 3]! & (1 << (value & 7))) !== 0;
  }

  /** Appends `doc` (greater than every ordinal already in the list) to the value's tail. */
  add(value: number, doc: number): void {
    while (this.tailDocs.length <= value) this.tailDocs.push(null);
    // Growth asked for only when needed (see KeywordColumn.setStart): a build adds a document to
    // `keyword_id`'s lists a dozen times a document, and the shared helper's calls alone were 7 s
    // of a million-asset build's worker.
    if (value >= this.tailLength.length) this.tailLength = ensureCapacity(this.tailLength, value + 1);
    const length = this.tailLength[value]!;
    let docs = this.tailDocs[value]!;
    if (docs === null) {
      this.touched.push(value);
      docs = new Uint32Array(2);
      this.tailDocs[value] = docs;
    } else if (length >= docs.length) {
      docs = ensureCapacity(docs, length + 1);
      this.tailDocs[value] = docs;
    }
    docs[length] = doc;
    this.tailLength[value] = length + 1;
  }

  /** Reads the varint at `at` of the base bytes: [value, end]. */
  private varintAt(at: number): readonly [number, number] {
    const bytes = this.baseBytes;
    let i = at;
    let byte = bytes[i++]!;
    let value = byte & 0x7f;
    // multiplications, not shifts: a fifth byte's bits pass 32
    for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
      byte = bytes[i++]!;
      value += (byte & 0x7f) * scale;
    }
    return [value, i];
  }

  /** Writes the value's base documents into `out` from `at`; returns the end (`out` holds them: see baseCountBound). */
  private decodeBase(value: number, out: Uint32Array, at: number): number {
    const start = this.baseStart[value]!;
    const end = this.baseStart[value + 1]!;
    if (start === end) return at;
    return this.isEliasFano(value) ? this.decodeEliasFano(start, end, out, at) : this.decodeGaps(start, end, out, at);
  }

  private decodeGaps(start: number, end: number, out: Uint32Array, at: number): number {
    const bytes = this.baseBytes;
    let w = at;
    let doc = -1;
    for (let i = start; i < end; ) {
      let byte = bytes[i++]!;
      let gap = byte & 0x7f;
      for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
        byte = bytes[i++]!;
        gap += (byte & 0x7f) * scale;
      }
      doc += gap + 1;
      out[w++] = doc;
    }
    return w;
  }

  /** Walks the high parts' set bits a byte at a time; the i-th one at bit p is document ((p - i) << l) + its low bits. */
  private decodeEliasFano(start: number, end: number, out: Uint32Array, at: number): number {
    const bytes = this.baseBytes;
    const [header, lowStart] = this.varintAt(start);
    const count = Math.floor(header / HEADER_SCALE);
    const low = header % HEADER_SCALE;
    const scale = 2 ** low;
    const mask = low === 0 ? 0 : -1 >>> (32 - low);
    const highStart = lowStart + Math.ceil((count * low) / 8);
    let w = at;
    let k = 0;
    // the low bits read in order through a buffer of at most 31 bits, a byte loaded when short
    let q = lowStart;
    let buffer = 0;
    let buffered = 0;
    for (let b = highStart; b < end && k < count; b++) {
      for (let bits = bytes[b]!; bits !== 0; bits &= bits - 1) {
        const high = (b - highStart) * 8 + 31 - Math.clz32(bits & -bits) - k;
        while (buffered < low) {
          buffer |= bytes[q++]! << buffered;
          buffered += 8;
        }
        out[w++] = high * scale + (buffer & mask);
        buffer >>>= low;
        buffered -= low;
        k++;
      }
    }
    return w;
  }

  /** At least the number of documents in the value's base list (its count for Elias-Fano, its bytes for gaps: a byte at least each). */
  private baseCountBound(value: number): number {
    if (value >= this.baseValueCount) return 0;
    const start = this.baseStart[value]!;
    const end = this.baseStart[value + 1]!;
    if (start === end || !this.isEliasFano(value)) return end - start;
    return Math.floor(this.varintAt(start)[0] / HEADER_SCALE);
  }

  /**
   * The documents of each value (its base list, then its tail) as runs of one reused array:
   * valid until the next call.
   */
  listsOf(values: readonly number[]): OrdinalRun[] {
    let needed = 0;
    for (const value of values) needed += this.baseCountBound(value);
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

  /** Bytes held by the lists (not the object headers of tail lists). */
  byteSize(): number {
    let bytes = this.baseStart.byteLength + this.baseBytes.byteLength + this.baseEliasFano.byteLength + this.tailLength.byteLength + this.decoded.byteLength;
    for (const value of this.touched) bytes += this.tailDocs[value]?.byteLength ?? 0;
    return bytes;
  }
}

/**
 * Writes base lists from postings visited in ascending ordinal order, twice: a first pass
 * (`measure`) counts each value's documents and sizes its list in both codings, then
 * `allocate` picks the smaller, then a second pass (`write`) of the same postings fills them.
 * Nothing of the size of the postings is held besides the bytes.
 */
export class ValueListWriter {
  private readonly last: Float64Array;
  /** documents per value (the first pass), then written so far (the second) */
  private readonly count: Float64Array;
  /** documents per value, as the first pass counted them */
  private expected: Float64Array = new Float64Array(0);
  private readonly start: Uint32Array;
  private bytes: Uint8Array = new Uint8Array(0);
  /** a varint list's next byte; an Elias-Fano list's first byte of low bits */
  private cursor: Uint32Array = new Uint32Array(0);
  /** an Elias-Fano list's first byte of high parts */
  private highStart: Uint32Array = new Uint32Array(0);
  /** an Elias-Fano list's low bits, else 255 */
  private lowBits: Uint8Array;
  private eliasFano: Uint8Array;
  /** 1 for a value `allocate` was told to leave without a list (its postings are not written) */
  private readonly skipped: Uint8Array;

  constructor(valueCount: number) {
    this.last = new Float64Array(valueCount).fill(-1);
    this.count = new Float64Array(valueCount);
    this.start = new Uint32Array(valueCount + 1);
    this.skipped = new Uint8Array(valueCount);
    this.lowBits = new Uint8Array(valueCount).fill(255);
    this.eliasFano = new Uint8Array((valueCount + 7) >>> 3);
  }

  measure(value: number, doc: number): void {
    this.start[value + 1] = this.start[value + 1]! + varintBytes(doc - this.last[value]! - 1);
    this.last[value] = doc;
    this.count[value] = this.count[value]! + 1;
  }

  /** Makes room for the measured lists — of the values `listed` keeps, when given; the others get an empty list. */
  allocate(listed?: (value: number) => boolean): void {
    const start = this.start;
    const values = start.length - 1;
    for (let v = 0; v < values; v++) {
      if (listed !== undefined && !listed(v)) {
        start[v + 1] = 0;
        this.count[v] = 0;
        this.skipped[v] = 1;
        continue;
      }
      const count = this.count[v]!;
      if (count === 0) continue;
      const low = bestLowBits(count, this.last[v]!);
      const size = eliasFanoBytes(count, this.last[v]!, low);
      if (size < start[v + 1]!) {
        start[v + 1] = size;
        this.lowBits[v] = low;
        this.eliasFano[v >>> 3] = this.eliasFano[v >>> 3]! | (1 << (v & 7));
      }
    }
    for (let v = 0; v < values; v++) start[v + 1] = start[v + 1]! + start[v]!;
    this.bytes = new Uint8Array(start[values]!);
    this.cursor = start.slice(0, values);
    this.highStart = new Uint32Array(values);
    for (let v = 0; v < values; v++) {
      const low = this.lowBits[v]!;
      if (low === 255) continue;
      const count = this.count[v]!;
      this.cursor[v] = writeVarint(this.bytes, start[v]!, count * HEADER_SCALE + low);
      this.highStart[v] = this.cursor[v]! + Math.ceil((count * low) / 8);
    }
    this.expected = this.count.slice();
    this.count.fill(0);
    this.last.fill(-1);
  }

  write(value: number, doc: number): void {
    if (this.skipped[value] === 1) return;
    const low = this.lowBits[value]!;
    if (low !== 255) {
      const k = this.count[value]!;
      this.count[value] = k + 1;
      const bytes = this.bytes;
      // the low bits, least significant first, a byte at a time (an ordinal is below 2^32: its
      // low bits and its high part come from 32-bit operations; a build writes tens of millions)
      const lowPart = doc & ((1 << low) - 1);
      for (let bit = k * low, written = 0; written < low; ) {
        const shift = bit & 7;
        const take = Math.min(8 - shift, low - written);
        const i = this.cursor[value]! + (bit >>> 3);
        bytes[i] = bytes[i]! | (((lowPart >>> written) & ((1 << take) - 1)) << shift);
        bit += take;
        written += take;
      }
      const high = (doc >>> low) + k;
      const h = this.highStart[value]! + Math.floor(high / 8);
      bytes[h] = bytes[h]! | (1 << (high & 7));
      return;
    }
    const gap = doc - this.last[value]! - 1;
    this.last[value] = doc;
    this.count[value] = this.count[value]! + 1;
    this.cursor[value] = writeVarint(this.bytes, this.cursor[value]!, gap);
  }

  /** Hands the lists to `lists` (the second pass must have written every posting of the first). */
  finish(lists: ValueLists): void {
    for (let v = 0; v < this.cursor.length; v++) {
      const complete = this.count[v] === this.expected[v] && (this.lowBits[v] !== 255 || this.cursor[v] === this.start[v + 1]);
      if (!complete) throw new Error('search index: value lists written out of step with their sizes');
    }
    lists.setBase(this.start, this.bytes, this.eliasFano);
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
