import { decodeLatin1 } from './latin1-decode.js';
import { type SnapshotReader, type SnapshotWriter } from './snapshot-format.js';
import { ensureCapacity, fitted, FNV_OFFSET, FNV_PRIME, hashString, idOrderKey, mix32 } from './typed-arrays.js';

/** The highest character a string may have to be kept as bytes: Latin-1, a byte per character. */
const MAX_PACKED_CHAR = 0xff;

/** getMany's scratch: the starts, ends and first bytes of a page's entries (reads run one at a time). */
let pageStarts = new Uint32Array(64);
let pageEnds = new Uint32Array(64);
let pageFirstBytes = new Uint8Array(64);

/**
 * A list of strings outside the JavaScript heap: their characters in one byte array (Latin-1,
 * a byte per UTF-16 code unit) and where each one starts. Ten million asset ids as V8 strings
 * are about 400 MB of heap that every major collection marks; here they are their characters
 * plus four bytes each, and a string is made only when asked for (a page of results). A
 * keyword column keeps its values the same way (`keyword_id` has nearly one for each asset).
 *
 * A string with a character past Latin-1 (none of the asset ids, but any id must work) takes
 * no bytes and is kept aside, by position: an entry of no bytes is the empty string unless it
 * is there. Bytes compare like the characters they stand for, so `compare` orders the entries
 * as JavaScript's `<` orders the strings.
 */
export class PackedStrings {
  /** entry i is bytes[offsets[i]..offsets[i + 1]) */
  private offsets: Uint32Array;
  private bytes: Uint8Array;
  /** the same memory as `bytes`, for decoding */
  private text: Buffer;
  private count: number;
  /** the entries with a character past Latin-1, by position */
  private readonly aside: Map<number, string>;

  constructor(offsets: Uint32Array = new Uint32Array(16), bytes: Uint8Array = new Uint8Array(64), count = 0, aside = new Map<number, string>()) {
    this.offsets = offsets;
    this.bytes = bytes;
    this.text = bufferOf(bytes);
    this.count = count;
    this.aside = aside;
  }

  static from(strings: Iterable<string>): PackedStrings {
    const packed = new PackedStrings();
    for (const text of strings) packed.append(text);
    return packed;
  }

  get length(): number {
    return this.count;
  }

  append(text: string): void {
    const i = this.count;
    this.offsets = ensureCapacity(this.offsets, i + 2);
    const start = this.offsets[i]!;
    if (isLatin1(text)) {
      if (start + text.length > this.bytes.length) this.growBytes(start + text.length);
      const bytes = this.bytes;
      for (let k = 0; k < text.length; k++) bytes[start + k] = text.charCodeAt(k);
      this.offsets[i + 1] = start + text.length;
    } else {
      this.aside.set(i, text);
      this.offsets[i + 1] = start;
    }
    this.count++;
  }

  /** Entry i as a string (a new one, unless it is kept aside). */
  get(i: number): string {
    const start = this.offsets[i]!;
    const end = this.offsets[i + 1]!;
    if (start === end) return this.aside.get(i) ?? '';
    return decodeLatin1(this.bytes, this.text, start, end);
  }

  /**
   * Entries `indices[from..to)` as strings, pushed to `out`. Entries of a page sit far apart in
   * memory: their starts are read first, then each one's first byte touched, each in a loop of
   * loads alone, so that the processor waits for the cache misses of a page together instead of
   * one after another between the decoding calls.
   */
  getMany(indices: ArrayLike<number>, from: number, to: number, out: string[]): void {
    const n = to - from;
    if (n <= 0) return;
    if (pageStarts.length < n) {
      pageStarts = new Uint32Array(Math.max(n, 2 * pageStarts.length));
      pageEnds = new Uint32Array(pageStarts.length);
      pageFirstBytes = new Uint8Array(pageStarts.length);
    }
    const starts = pageStarts;
    const ends = pageEnds;
    const offsets = this.offsets;
    for (let j = 0; j < n; j++) {
      const i = indices[from + j]!;
      starts[j] = offsets[i]!;
      ends[j] = offsets[i + 1]!;
    }
    const bytes = this.bytes;
    // stored, so that the compiler keeps the loop: it is there for its cache misses
    const firstBytes = pageFirstBytes;
    for (let j = 0; j < n; j++) firstBytes[j] = bytes[starts[j]!]!;
    for (let j = 0; j < n; j++) {
      const start = starts[j]!;
      const end = ends[j]!;
      out.push(start === end ? (this.aside.get(indices[from + j]!) ?? '') : decodeLatin1(this.bytes, this.text, start, end));
    }
  }

  /** Whether entry i is `key`, without making a string. */
  equals(i: number, key: string): boolean {
    const start = this.offsets[i]!;
    const end = this.offsets[i + 1]!;
    if (start === end) return (this.aside.get(i) ?? '') === key;
    if (end - start !== key.length) return false;
    const bytes = this.bytes;
    for (let k = 0; k < key.length; k++) if (bytes[start + k] !== key.charCodeAt(k)) return false;
    return true;
  }

  /** Whether entries i and j are the same string. */
  entriesEqual(i: number, j: number): boolean {
    const start = this.offsets[i]!;
    const end = this.offsets[i + 1]!;
    if (start === end) return this.equals(j, this.aside.get(i) ?? '');
    const other = this.offsets[j]!;
    if (this.offsets[j + 1]! - other !== end - start) return false;
    const bytes = this.bytes;
    for (let k = 0; k < end - start; k++) if (bytes[start + k] !== bytes[other + k]) return false;
    return true;
  }

  /** Negative when entry i orders before entry j as JavaScript compares strings (by UTF-16 code units), 0 when equal. */
  compare(i: number, j: number): number {
    const start = this.offsets[i]!;
    const end = this.offsets[i + 1]!;
    const other = this.offsets[j]!;
    const otherEnd = this.offsets[j + 1]!;
    if (start === end || other === otherEnd) {
      const a = this.get(i);
      const b = this.get(j);
      return a < b ? -1 : a > b ? 1 : 0;
    }
    const bytes = this.bytes;
    const shorter = Math.min(end - start, otherEnd - other);
    for (let k = 0; k < shorter; k++) {
      const difference = bytes[start + k]! - bytes[other + k]!;
      if (difference !== 0) return difference;
    }
    return end - start - (otherEnd - other);
  }

  /** hashString of entry i, from its bytes (a byte is its character's code unit). */
  hash(i: number): number {
    const start = this.offsets[i]!;
    const end = this.offsets[i + 1]!;
    if (start === end) return hashString(this.get(i));
    let hash = FNV_OFFSET;
    for (let k = start; k < end; k++) hash = Math.imul(hash ^ this.bytes[k]!, FNV_PRIME);
    return mix32(hash);
  }

  /** idOrderKey of entry i, from its bytes. */
  orderKey(i: number): number {
    const start = this.offsets[i]!;
    const end = this.offsets[i + 1]!;
    if (start === end) return idOrderKey(this.get(i));
    // as idOrderKey: a byte from 127 up counts as 127 and ends the key
    let key = 0;
    let ended = false;
    for (let k = 0; k < 7; k++) {
      const code = ended || start + k >= end ? 0 : Math.min(this.bytes[start + k]!, 127);
      if (code === 127) ended = true;
      key = key * 128 + code;
    }
    return key;
  }

  /**
   * Moves entry `from` to `to` (to < from), for a compaction that keeps entries in order: every
   * entry below `to` must already be in its final place, so the bytes only ever move down.
   */
  moveDown(from: number, to: number): void {
    const start = this.offsets[from]!;
    const end = this.offsets[from + 1]!;
    const at = this.offsets[to]!;
    this.bytes.copyWithin(at, start, end);
    this.offsets[to + 1] = at + end - start;
    if (this.aside.size > 0) {
      const kept = this.aside.get(from);
      if (kept === undefined) {
        this.aside.delete(to);
      } else {
        this.aside.delete(from);
        this.aside.set(to, kept);
      }
    }
  }

  /** Keeps the first `count` entries, and no room for more (as a snapshot load leaves them; appends grow them again). */
  truncate(count: number): void {
    this.count = count;
    for (const i of this.aside.keys()) if (i >= count) this.aside.delete(i);
    this.offsets = fitted(this.offsets, count + 1);
    const bytes = fitted(this.bytes, this.offsets[count]!);
    if (bytes !== this.bytes) {
      this.bytes = bytes;
      this.text = bufferOf(bytes);
    }
  }

  /** Bytes held in typed arrays (capacity included). */
  byteSize(): number {
    return this.offsets.byteLength + this.bytes.byteLength;
  }

  /** Writes the entries as sections under `name`: the bytes and offsets as they are, and the few kept aside. */
  addTo(writer: SnapshotWriter, name: string): void {
    writer.add(`${name}.offsets`, this.offsets, this.count + 1);
    writer.add(`${name}.bytes`, this.bytes, this.offsets[this.count]!);
    const aside = [...this.aside].sort(([a], [b]) => a - b);
    writer.add(`${name}.aside`, Uint32Array.from(aside, ([i]) => i));
    writer.addStrings(`${name}.asideStrings`, aside.map(([, text]) => text));
  }

  /** The entries written by `addTo` under `name`: two arrays read as they are, no string made but those kept aside. */
  static read(reader: SnapshotReader, name: string): PackedStrings {
    const offsets = reader.u32(`${name}.offsets`);
    const bytes = reader.u8(`${name}.bytes`);
    const count = offsets.length - 1;
    if (count < 0 || offsets[0] !== 0 || offsets[count] !== bytes.length) throw new Error(`search index snapshot: string table ${name} is corrupt`);
    const positions = reader.u32(`${name}.aside`);
    const strings = reader.strings(`${name}.asideStrings`);
    if (positions.length !== strings.length) throw new Error(`search index snapshot: string table ${name} is corrupt`);
    const aside = new Map<number, string>();
    positions.forEach((i, k) => {
      if (i >= count || offsets[i] !== offsets[i + 1]) throw new Error(`search index snapshot: string table ${name} is corrupt`);
      aside.set(i, strings[k]!);
    });
    return new PackedStrings(offsets, bytes, count, aside);
  }

  private growBytes(needed: number): void {
    this.bytes = ensureCapacity(this.bytes, needed);
    this.text = bufferOf(this.bytes);
  }
}

function isLatin1(text: string): boolean {
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) > MAX_PACKED_CHAR) return false;
  return true;
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
