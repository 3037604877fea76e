import { endianness } from 'node:os';

/**
 * The index snapshot: a small JSON header (schema, counters, a table of sections) followed by
 * raw typed-array sections, each 8-byte aligned, in the machine's (little-endian) byte order.
 *
 *   0  "STKIDXv1"  magic (8 bytes)
 *   8  u32         format version
 *  12  u32         flags (bit 0: little-endian)
 *  16  u32         header length in bytes (UTF-8 JSON)
 *  20  u32         reserved (0)
 *  24  header      { meta, sections: [{ name, type, offset, length }] }, offset relative to data start
 *  ..  data        sections, each at an 8-byte boundary
 *
 * Reading copies every section into its own array, so the index never aliases the caller's
 * buffer and the buffer can be dropped at once — but for a section read through `external`
 * from a source that can keep it (an open snapshot file): the forward stream, which the index
 * then reads in place (see IndexStore's forward stream).
 */
const MAGIC = 'STKIDXv1';
export const SNAPSHOT_VERSION = 11;
const FIXED_HEADER = 24;

type SectionArray = Uint8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
type SectionType = 'u8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'f64';

const CONSTRUCTORS = {
  u8: Uint8Array,
  u16: Uint16Array,
  i16: Int16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
  f64: Float64Array,
} as const;

function typeOf(array: SectionArray): SectionType {
  if (array instanceof Uint8Array) return 'u8';
  if (array instanceof Uint16Array) return 'u16';
  if (array instanceof Int16Array) return 'i16';
  if (array instanceof Uint32Array) return 'u32';
  if (array instanceof Int32Array) return 'i32';
  if (array instanceof Float32Array) return 'f32';
  return 'f64';
}

interface SectionEntry {
  name: string;
  type: SectionType;
  offset: number;
  length: number;
}

/**
 * The next multiple of 8. In arithmetic, not bit operations: those work on 32 bits, and a
 * snapshot's offsets pass 2^31 (ten million assets: 3.3 GB), where `& ~7` made them negative and
 * every such snapshot was refused as damaged — the slow "snapshot" boots at three million were
 * rebuilds from the store.
 */
export const align8 = (value: number): number => Math.ceil(value / 8) * 8;

/**
 * Bytes of an open file that an index reads in place instead of holding them (the forward
 * stream of an index loaded from a snapshot file, see IndexStore): `read` fills a target from a
 * position, and the file stays open until `release` (a second call does nothing).
 */
export interface ExternalBytes {
  readonly length: number;
  read(position: number, target: Uint8Array): void;
  release(): void;
}

/** A byte range of a snapshot as written: a view of an array, or bytes still in the file read from. */
export type SnapshotChunk = Uint8Array | ExternalBytes;

export function chunkLength(chunk: SnapshotChunk): number {
  return chunk instanceof Uint8Array ? chunk.byteLength : chunk.length;
}

/** The bytes of an external chunk read into memory (for a snapshot built in one buffer). */
export function chunkBytes(chunk: SnapshotChunk): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  const bytes = new Uint8Array(chunk.length);
  chunk.read(0, bytes);
  return bytes;
}

/** The first `length` bytes of external bytes, read as the whole (the holder keeps the file open). */
function leading(bytes: ExternalBytes, length: number): ExternalBytes {
  if (length > bytes.length) throw new RangeError('search index snapshot: an external section is shorter than asked');
  return {
    length,
    read(position, target) {
      if (position + target.length > length) throw new RangeError('search index snapshot: a read past an external section');
      bytes.read(position, target);
    },
    release: () => undefined,
  };
}

export class SnapshotWriter {
  private readonly sections: Array<{ name: string; array: SectionArray | ExternalBytes }> = [];

  /** Adds a section; only `length` leading elements of `array` are written when given. */
  add(name: string, array: SectionArray, length = array.length): void {
    this.sections.push({ name, array: array.subarray(0, length) });
  }

  /** Adds a section of bytes still in a file (`length` leading ones): copied from there when written. */
  addExternal(name: string, bytes: ExternalBytes, length: number): void {
    this.sections.push({ name, array: leading(bytes, length) });
  }

  /** Adds a list of strings as two sections: UTF-16 code units and offsets (exact round trip). */
  addStrings(name: string, strings: readonly string[]): void {
    const joined = strings.join('');
    const offsets = new Uint32Array(strings.length + 1);
    let position = 0;
    for (let i = 0; i < strings.length; i++) {
      position += strings[i]!.length;
      offsets[i + 1] = position;
    }
    const bytes = Buffer.from(joined, 'utf16le');
    this.add(`${name}.chars`, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    this.add(`${name}.offsets`, offsets);
  }

  /**
   * The snapshot as a list of byte ranges to write one after another: the header, then each
   * section (a view of the index's own array, not a copy) with its padding. Writing these
   * costs no memory beyond the index itself.
   */
  finishChunks(meta: unknown): SnapshotChunk[] {
    const entries: SectionEntry[] = [];
    let offset = 0;
    for (const { name, array } of this.sections) {
      const external = !ArrayBuffer.isView(array);
      entries.push({ name, type: external ? 'u8' : typeOf(array), offset, length: array.length });
      offset = align8(offset + (external ? array.length : array.byteLength));
    }
    const header = Buffer.from(JSON.stringify({ meta, sections: entries }), 'utf8');
    const prefix = Buffer.alloc(align8(FIXED_HEADER + header.length));
    prefix.write(MAGIC, 0, 'latin1');
    prefix.writeUInt32LE(SNAPSHOT_VERSION, 8);
    prefix.writeUInt32LE(endianness() === 'LE' ? 1 : 0, 12);
    prefix.writeUInt32LE(header.length, 16);
    header.copy(prefix, FIXED_HEADER);
    const chunks: SnapshotChunk[] = [prefix];
    const padding = new Uint8Array(8);
    for (const { array } of this.sections) {
      const chunk = ArrayBuffer.isView(array) ? new Uint8Array(array.buffer, array.byteOffset, array.byteLength) : array;
      chunks.push(chunk);
      const pad = align8(chunkLength(chunk)) - chunkLength(chunk);
      if (pad > 0) chunks.push(padding.subarray(0, pad));
    }
    return chunks;
  }

  /** The snapshot in one buffer. */
  finish(meta: unknown): Buffer {
    return Buffer.concat(this.finishChunks(meta).map(chunkBytes));
  }
}

/**
 * Where a snapshot is read from: a buffer, or a range of a file read section by section
 * straight into the index's arrays (so that loading never holds the file and the index at once).
 */
export interface SnapshotSource {
  readonly length: number;
  /** Fills `target` with the bytes at `position`. */
  read(position: number, target: Uint8Array): void;
  /**
   * The bytes at `position`, `length` of them, kept readable in place after the load (an open
   * file's, which stays open until they are released); absent where the source is memory.
   */
  keep?(position: number, length: number): ExternalBytes;
}

export function bufferSource(buffer: Uint8Array): SnapshotSource {
  return {
    length: buffer.length,
    read: (position, target) => target.set(buffer.subarray(position, position + target.length)),
  };
}

export class SnapshotReader {
  readonly meta: unknown;
  private readonly entries = new Map<string, SectionEntry>();
  private readonly source: SnapshotSource;
  private readonly dataStart: number;

  constructor(input: Uint8Array | SnapshotSource) {
    const source = input instanceof Uint8Array ? bufferSource(input) : input;
    const fixed = Buffer.alloc(FIXED_HEADER);
    if (source.length < FIXED_HEADER) throw new Error('search index snapshot: not a snapshot (bad magic)');
    source.read(0, fixed);
    if (fixed.toString('latin1', 0, 8) !== MAGIC) throw new Error('search index snapshot: not a snapshot (bad magic)');
    const version = fixed.readUInt32LE(8);
    if (version !== SNAPSHOT_VERSION) {
      throw new Error(`search index snapshot: format version ${version}, this build reads ${SNAPSHOT_VERSION}`);
    }
    const littleEndian = (fixed.readUInt32LE(12) & 1) === 1;
    if (littleEndian !== (endianness() === 'LE')) {
      throw new Error('search index snapshot: written on a machine of the other byte order');
    }
    const headerLength = fixed.readUInt32LE(16);
    if (FIXED_HEADER + headerLength > source.length) throw new Error('search index snapshot: truncated header');
    const headerBytes = Buffer.alloc(headerLength);
    source.read(FIXED_HEADER, headerBytes);
    const parsed = JSON.parse(headerBytes.toString('utf8')) as { meta: unknown; sections: SectionEntry[] };
    this.meta = parsed.meta;
    this.source = source;
    this.dataStart = align8(FIXED_HEADER + headerLength);
    for (const entry of parsed.sections) {
      const end = this.dataStart + entry.offset + entry.length * CONSTRUCTORS[entry.type].BYTES_PER_ELEMENT;
      if (end > source.length) throw new Error(`search index snapshot: section ${entry.name} is truncated`);
      this.entries.set(entry.name, entry);
    }
  }

  /** Whether the snapshot has a section of this name. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  private copy(name: string, type: SectionType): SectionArray {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`search index snapshot: section ${name} is missing`);
    if (entry.type !== type) throw new Error(`search index snapshot: section ${name} is ${entry.type}, expected ${type}`);
    const array = new CONSTRUCTORS[type](entry.length);
    this.source.read(this.dataStart + entry.offset, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    return array;
  }

  u8(name: string): Uint8Array {
    return this.copy(name, 'u8') as Uint8Array;
  }

  /** A u8 section left where it is and read from there (see SnapshotSource.keep); null when the source cannot. */
  external(name: string): ExternalBytes | null {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`search index snapshot: section ${name} is missing`);
    if (entry.type !== 'u8') throw new Error(`search index snapshot: section ${name} is ${entry.type}, expected u8`);
    return this.source.keep ? this.source.keep(this.dataStart + entry.offset, entry.length) : null;
  }
  u16(name: string): Uint16Array {
    return this.copy(name, 'u16') as Uint16Array;
  }
  u32(name: string): Uint32Array {
    return this.copy(name, 'u32') as Uint32Array;
  }
  f64(name: string): Float64Array {
    return this.copy(name, 'f64') as Float64Array;
  }
  i32(name: string): Int32Array {
    return this.copy(name, 'i32') as Int32Array;
  }

  /** An array of numbers written as i16, f32 or f64 (its narrowest exact type), as it was written. */
  numbers(name: string): Int16Array | Float32Array | Float64Array {
    const type = this.entries.get(name)?.type;
    if (type === 'i16' || type === 'f32') return this.copy(name, type) as Int16Array | Float32Array;
    return this.f64(name);
  }

  /** An array of unsigned integers written as u8, u16 or u32 (its narrowest type), as it was written. */
  unsigned(name: string): Uint8Array | Uint16Array | Uint32Array {
    const type = this.entries.get(name)?.type;
    if (type === 'u8' || type === 'u16') return this.copy(name, type) as Uint8Array | Uint16Array;
    return this.u32(name);
  }

  strings(name: string): string[] {
    const chars = this.u8(`${name}.chars`);
    const offsets = this.u32(`${name}.offsets`);
    const joined = Buffer.from(chars.buffer, chars.byteOffset, chars.byteLength).toString('utf16le');
    if (offsets.length === 0 || offsets[offsets.length - 1] !== joined.length) {
      throw new Error(`search index snapshot: string table ${name} is corrupt`);
    }
    const strings = new Array<string>(offsets.length - 1);
    for (let i = 0; i + 1 < offsets.length; i++) strings[i] = joined.slice(offsets[i]!, offsets[i + 1]!);
    return strings;
  }
}
