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
 * buffer and the buffer can be dropped at once.
 */
const MAGIC = 'STKIDXv1';
export const SNAPSHOT_VERSION = 1;
const FIXED_HEADER = 24;

type SectionArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;
type SectionType = 'u8' | 'u16' | 'u32' | 'i32' | 'f64';

const CONSTRUCTORS = {
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f64: Float64Array,
} as const;

function typeOf(array: SectionArray): SectionType {
  if (array instanceof Uint8Array) return 'u8';
  if (array instanceof Uint16Array) return 'u16';
  if (array instanceof Uint32Array) return 'u32';
  if (array instanceof Int32Array) return 'i32';
  return 'f64';
}

interface SectionEntry {
  name: string;
  type: SectionType;
  offset: number;
  length: number;
}

const align8 = (value: number): number => (value + 7) & ~7;

export class SnapshotWriter {
  private readonly sections: Array<{ name: string; array: SectionArray }> = [];

  /** Adds a section; only `length` leading elements of `array` are written when given. */
  add(name: string, array: SectionArray, length = array.length): void {
    this.sections.push({ name, array: array.subarray(0, length) });
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

  finish(meta: unknown): Buffer {
    const entries: SectionEntry[] = [];
    let offset = 0;
    for (const { name, array } of this.sections) {
      entries.push({ name, type: typeOf(array), offset, length: array.length });
      offset = align8(offset + array.byteLength);
    }
    const header = Buffer.from(JSON.stringify({ meta, sections: entries }), 'utf8');
    const dataStart = align8(FIXED_HEADER + header.length);
    const buffer = Buffer.alloc(dataStart + offset);
    buffer.write(MAGIC, 0, 'latin1');
    buffer.writeUInt32LE(SNAPSHOT_VERSION, 8);
    buffer.writeUInt32LE(endianness() === 'LE' ? 1 : 0, 12);
    buffer.writeUInt32LE(header.length, 16);
    header.copy(buffer, FIXED_HEADER);
    for (let i = 0; i < this.sections.length; i++) {
      const { array } = this.sections[i]!;
      buffer.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), dataStart + entries[i]!.offset);
    }
    return buffer;
  }
}

export class SnapshotReader {
  readonly meta: unknown;
  private readonly entries = new Map<string, SectionEntry>();
  private readonly buffer: Buffer;
  private readonly dataStart: number;

  constructor(buffer: Buffer) {
    if (buffer.length < FIXED_HEADER || buffer.toString('latin1', 0, 8) !== MAGIC) {
      throw new Error('search index snapshot: not a snapshot (bad magic)');
    }
    const version = buffer.readUInt32LE(8);
    if (version !== SNAPSHOT_VERSION) {
      throw new Error(`search index snapshot: format version ${version}, this build reads ${SNAPSHOT_VERSION}`);
    }
    const littleEndian = (buffer.readUInt32LE(12) & 1) === 1;
    if (littleEndian !== (endianness() === 'LE')) {
      throw new Error('search index snapshot: written on a machine of the other byte order');
    }
    const headerLength = buffer.readUInt32LE(16);
    if (FIXED_HEADER + headerLength > buffer.length) throw new Error('search index snapshot: truncated header');
    const parsed = JSON.parse(buffer.toString('utf8', FIXED_HEADER, FIXED_HEADER + headerLength)) as {
      meta: unknown;
      sections: SectionEntry[];
    };
    this.meta = parsed.meta;
    this.buffer = buffer;
    this.dataStart = align8(FIXED_HEADER + headerLength);
    for (const entry of parsed.sections) {
      const end = this.dataStart + entry.offset + entry.length * CONSTRUCTORS[entry.type].BYTES_PER_ELEMENT;
      if (end > buffer.length) throw new Error(`search index snapshot: section ${entry.name} is truncated`);
      this.entries.set(entry.name, entry);
    }
  }

  private copy(name: string, type: SectionType): SectionArray {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`search index snapshot: section ${name} is missing`);
    if (entry.type !== type) throw new Error(`search index snapshot: section ${name} is ${entry.type}, expected ${type}`);
    const Constructor = CONSTRUCTORS[type];
    const start = this.buffer.byteOffset + this.dataStart + entry.offset;
    const copied = new Uint8Array(this.buffer.buffer, start, entry.length * Constructor.BYTES_PER_ELEMENT).slice();
    return new Constructor(copied.buffer);
  }

  u8(name: string): Uint8Array {
    return this.copy(name, 'u8') as Uint8Array;
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
