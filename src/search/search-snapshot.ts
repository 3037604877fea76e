import fs from 'node:fs';
import path from 'node:path';
import { chunkLength, type ExternalBytes, type SnapshotChunk } from './engine/snapshot-format.js';

/*
 * The search snapshot file: what a node's indexes held at one point of the change log, so that
 * a restart loads it and replays the log from there instead of reading the whole store.
 *
 *   0   "STKSRCH1"   magic (8 bytes)
 *   8   u32 LE       header length in bytes
 *   12  header       UTF-8 JSON: SnapshotHeader plus the table of sections
 *   ..  sections     raw bytes, each starting at an 8-byte boundary of the file
 *
 * It is written to a temporary name and renamed, so a crash mid-write leaves the previous
 * snapshot (or none), never half a file under the real name.
 */

const MAGIC = 'STKSRCH1';
const ALIGN = 8;
/**
 * The most bytes asked of one read or write call. Node takes a read's length as a 32-bit
 * integer (`fs.readSync` does `length |= 0`): from 2 GiB a section's read turned negative and
 * threw, and at 4 GiB and past it wraps to a small number; Linux moves at most 2 GiB − 4 KiB
 * in one read or write call and a write may be short. A section of the snapshot at ten
 * million assets is larger than that, so every transfer goes in pieces of at most this.
 */
export const MAX_TRANSFER_BYTES = 1 << 30;

export interface SnapshotHeader {
  /** The store the indexes were read from (the `store_id` setting): another store's snapshot is never used. */
  storeId: string;
  /** Every change of the log up to this number is in the indexes. */
  seq: number;
  /** Fingerprint of how records become documents and of every binary format inside. */
  documents: string;
}

interface SectionEntry {
  name: string;
  offset: number;
  length: number;
}

const aligned = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

/** Temporaries written by this process, numbering the next one's name. */
let temporaryFiles = 0;

/**
 * Writes the header and the named sections, each given as byte ranges written one after
 * another (views of the indexes' arrays: nothing is copied); replaces any snapshot at that
 * path whole.
 */
export async function writeSnapshotFile(file: string, header: SnapshotHeader, sections: ReadonlyMap<string, readonly SnapshotChunk[]>): Promise<void> {
  const entries: SectionEntry[] = [];
  let offset = 0;
  for (const [name, chunks] of sections) {
    const length = chunks.reduce((sum, chunk) => sum + chunkLength(chunk), 0);
    entries.push({ name, offset, length });
    offset = aligned(offset + length);
  }
  const headerBytes = Buffer.from(JSON.stringify({ ...header, sections: entries }), 'utf8');
  const prefix = Buffer.alloc(aligned(12 + headerBytes.length));
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headerBytes.length, 8);
  headerBytes.copy(prefix, 12);

  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  // Unique to this write: two services of one process (nodes of a test, a rebuild beside a
  // closing node) writing the same file at once must not share, and so garble, one temporary.
  const temporary = `${file}.${process.pid}.${++temporaryFiles}.tmp`;
  const handle = await fs.promises.open(temporary, 'w');
  try {
    await writeFully(handle, prefix);
    const padding = Buffer.alloc(ALIGN);
    for (const [index, [, chunks]] of [...sections].entries()) {
      for (const chunk of chunks) await (chunk instanceof Uint8Array ? writeFully(handle, chunk) : copyExternal(handle, chunk));
      const length = entries[index]!.length;
      const pad = aligned(length) - length;
      if (pad > 0) await writeFully(handle, padding.subarray(0, pad));
    }
    await handle.sync();
  } catch (error) {
    // A snapshot half written (a full disk, a section that could not be read) leaves no litter.
    await handle.close();
    await fs.promises.rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await fs.promises.rename(temporary, file);
}

/**
 * Writes all of `bytes` at the file's position, in calls of at most `maxBytes` and again after
 * a short write (see MAX_TRANSFER_BYTES).
 */
export async function writeFully(handle: Pick<fs.promises.FileHandle, 'write'>, bytes: Uint8Array, maxBytes = MAX_TRANSFER_BYTES): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, Math.min(maxBytes, bytes.length - done));
    if (bytesWritten <= 0) throw new Error('the snapshot could not be written (a write moved no bytes)');
    done += bytesWritten;
  }
}

/** Bytes a piece when a section still in a file is copied into a new snapshot. */
const COPY_PIECE_BYTES = 8 << 20;

/** Writes bytes still in a file (the forward stream of an index that reads it in place) in pieces. */
async function copyExternal(handle: Pick<fs.promises.FileHandle, 'write'>, bytes: ExternalBytes): Promise<void> {
  const piece = Buffer.alloc(Math.min(COPY_PIECE_BYTES, bytes.length));
  for (let done = 0; done < bytes.length; ) {
    const length = Math.min(piece.length, bytes.length - done);
    bytes.read(done, piece.subarray(0, length));
    await writeFully(handle, piece.subarray(0, length));
    done += length;
  }
}

/**
 * Fills `target` with the file's bytes from `position`, in reads of at most `maxBytes` (see
 * MAX_TRANSFER_BYTES); throws when the file ends first.
 */
export function readFully(fd: number, target: Uint8Array, position: number, maxBytes = MAX_TRANSFER_BYTES): void {
  for (let done = 0; done < target.length; ) {
    const read = fs.readSync(fd, target, done, Math.min(maxBytes, target.length - done), position + done);
    if (read === 0) throw new Error('the snapshot is cut short');
    done += read;
  }
}

/** A section of an open snapshot file, read in place (see SnapshotSource). */
export interface SnapshotSection {
  readonly length: number;
  read(position: number, target: Uint8Array): void;
  /** Part of the section kept readable after the file is closed (see SnapshotSource.keep). */
  keep(position: number, length: number): ExternalBytes;
  /** The whole section in one buffer (for the small ones). */
  bytes(): Buffer;
}

/**
 * Closes a snapshot file whose kept bytes (see SnapshotSection.keep) were dropped without being
 * released, when their holder is collected: an index forgotten by a test, say.
 */
const unreleased = new FinalizationRegistry<() => void>((release) => release());

export interface SnapshotFile {
  header: SnapshotHeader;
  sections: Map<string, SnapshotSection>;
  close(): void;
}

/**
 * Opens the snapshot at `file`: its header now, its sections when read (straight from the
 * file into their arrays, so loading never holds the whole file in memory). Undefined when
 * there is none; throws when the file is not a whole snapshot. The caller closes it.
 */
export function openSnapshotFile(file: string): SnapshotFile | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // The file closes once the caller has closed it and every kept range is released.
  let holders = 1;
  const letGo = () => {
    if (--holders === 0) fs.closeSync(fd);
  };
  const keepRange = (start: number, length: number): ExternalBytes => {
    holders++;
    let held = true;
    const releaseOnce = () => {
      if (held) {
        held = false;
        letGo();
      }
    };
    const token = {};
    const kept: ExternalBytes = {
      length,
      read(position, target) {
        if (!held) throw new Error('a read of snapshot bytes already released');
        if (position < 0 || position + target.length > length) throw new Error('a read past the end of kept snapshot bytes');
        readFully(fd, target, start + position);
      },
      release() {
        unreleased.unregister(token);
        releaseOnce();
      },
    };
    unreleased.register(kept, releaseOnce, token);
    return kept;
  };
  try {
    const size = fs.fstatSync(fd).size;
    const readAt = (position: number, target: Uint8Array) => readFully(fd, target, position);
    const fixed = Buffer.alloc(12);
    if (size < 12) throw new Error('not a search snapshot');
    readAt(0, fixed);
    if (fixed.toString('latin1', 0, 8) !== MAGIC) throw new Error('not a search snapshot');
    const headerLength = fixed.readUInt32LE(8);
    if (12 + headerLength > size) throw new Error('the snapshot header is cut short');
    const headerBytes = Buffer.alloc(headerLength);
    readAt(12, headerBytes);
    const parsed = JSON.parse(headerBytes.toString('utf8')) as SnapshotHeader & { sections: SectionEntry[] };
    const dataStart = aligned(12 + headerLength);
    const sections = new Map<string, SnapshotSection>();
    for (const entry of parsed.sections) {
      const start = dataStart + entry.offset;
      if (start + entry.length > size) throw new Error(`the snapshot section ${entry.name} is cut short`);
      const read = (position: number, target: Uint8Array) => {
        if (position < 0 || position + target.length > entry.length) throw new Error(`a read past the end of section ${entry.name}`);
        readAt(start + position, target);
      };
      sections.set(entry.name, {
        length: entry.length,
        read,
        keep(position, length) {
          if (position < 0 || position + length > entry.length) throw new Error(`a range past the end of section ${entry.name}`);
          return keepRange(start + position, length);
        },
        bytes() {
          const buffer = Buffer.alloc(entry.length);
          read(0, buffer);
          return buffer;
        },
      });
    }
    return {
      header: { storeId: parsed.storeId, seq: parsed.seq, documents: parsed.documents },
      sections,
      close: letGo,
    };
  } catch (error) {
    letGo();
    throw error;
  }
}
