import { crc32 } from 'node:zlib';

/**
 * A zip archive written as it goes, in the 'stored' method (no compression: the files that go
 * into it — JPEGs, videos — are compressed already). Each entry's bytes pass through once: its
 * local header goes out first with the sizes and CRC left for the data descriptor that follows
 * its data (general purpose flag bit 3), so only one chunk of one entry is in memory at a time.
 * The central directory and the end record close the archive. Without Zip64: at most 65,535
 * entries and 4 GiB in all; past either the writer throws before writing the entry.
 */
export interface ZipEntry {
  /** The path inside the archive, '/' between folders; written in UTF-8 (flag bit 11). */
  name: string;
  modified: Date;
  data: Buffer | AsyncIterable<Buffer | Uint8Array>;
}

/** The largest offset or size a zip without Zip64 can hold. */
export const ZIP_MAX_BYTES = 0xffff_ffff;
const MAX_ENTRIES = 0xffff;

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** 2.0: the version a stored entry with a data descriptor needs. */
const VERSION = 20;
/** bit 3: sizes and CRC in the data descriptor; bit 11: the name is UTF-8. */
const FLAGS = 0x0008 | 0x0800;
const STORED = 0;

/** MS-DOS date and time (2-second steps, from 1980), in UTC. */
function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.min(2107, Math.max(1980, date.getUTCFullYear()));
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

interface Written {
  name: Buffer;
  time: number;
  date: number;
  crc: number;
  size: number;
  offset: number;
}

function localHeader(name: Buffer, time: number, date: number): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  header.writeUInt16LE(VERSION, 4);
  header.writeUInt16LE(FLAGS, 6);
  header.writeUInt16LE(STORED, 8);
  header.writeUInt16LE(time, 10);
  header.writeUInt16LE(date, 12);
  // CRC-32, compressed and uncompressed size: 0 here, in the data descriptor.
  header.writeUInt16LE(name.length, 26);
  header.writeUInt16LE(0, 28);
  return Buffer.concat([header, name]);
}

function dataDescriptor(crc: number, size: number): Buffer {
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(DATA_DESCRIPTOR, 0);
  descriptor.writeUInt32LE(crc, 4);
  descriptor.writeUInt32LE(size, 8);
  descriptor.writeUInt32LE(size, 12);
  return descriptor;
}

function centralHeader(entry: Written): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(CENTRAL_HEADER, 0);
  header.writeUInt16LE(VERSION, 4);
  header.writeUInt16LE(VERSION, 6);
  header.writeUInt16LE(FLAGS, 8);
  header.writeUInt16LE(STORED, 10);
  header.writeUInt16LE(entry.time, 12);
  header.writeUInt16LE(entry.date, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.size, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  // extra field, comment, disk number, internal and external attributes: none.
  header.writeUInt32LE(entry.offset, 42);
  return Buffer.concat([header, entry.name]);
}

function endRecord(count: number, directorySize: number, directoryOffset: number): Buffer {
  const record = Buffer.alloc(22);
  record.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  record.writeUInt16LE(count, 8);
  record.writeUInt16LE(count, 10);
  record.writeUInt32LE(directorySize, 12);
  record.writeUInt32LE(directoryOffset, 16);
  return record;
}

/** The bytes of a zip holding the entries, in their order, as they are read. */
export async function* zipStream(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>): AsyncGenerator<Buffer> {
  const written: Written[] = [];
  const names = new Set<string>();
  let offset = 0;
  for await (const entry of entries) {
    if (written.length >= MAX_ENTRIES) throw new RangeError(`a zip without Zip64 holds at most ${MAX_ENTRIES} entries`);
    if (entry.name === '' || entry.name.startsWith('/') || entry.name.split('/').includes('..')) throw new RangeError(`not a relative path: ${entry.name}`);
    if (names.has(entry.name)) throw new RangeError(`two entries named ${entry.name}`);
    names.add(entry.name);
    const name = Buffer.from(entry.name, 'utf8');
    const { time, date } = dosDateTime(entry.modified);
    const start = offset;
    const header = localHeader(name, time, date);
    yield header;
    offset += header.length;
    let crc = 0;
    let size = 0;
    const chunks = Buffer.isBuffer(entry.data) ? [entry.data] : entry.data;
    for await (const chunk of chunks) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      size += bytes.length;
      if (offset + bytes.length > ZIP_MAX_BYTES) throw new RangeError('a zip without Zip64 holds at most 4 GiB');
      crc = crc32(bytes, crc);
      offset += bytes.length;
      yield bytes;
    }
    const descriptor = dataDescriptor(crc, size);
    yield descriptor;
    offset += descriptor.length;
    written.push({ name, time, date, crc, size, offset: start });
  }
  const directoryOffset = offset;
  let directorySize = 0;
  for (const entry of written) {
    const header = centralHeader(entry);
    directorySize += header.length;
    yield header;
  }
  if (directoryOffset + directorySize > ZIP_MAX_BYTES) throw new RangeError('a zip without Zip64 holds at most 4 GiB');
  yield endRecord(written.length, directorySize, directoryOffset);
}
