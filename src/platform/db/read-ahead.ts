import fs from 'node:fs/promises';
import os from 'node:os';

/** The size of each read: large enough that the disk streams, small beside the margin. */
const CHUNK_BYTES = 8 * 1024 * 1024;
/** Reads in flight at once: one being served while the next is asked for. */
const READS_IN_FLIGHT = 2;
/** The margin ahead of the reader at least, however little memory the machine reports. */
const MIN_LEAD_BYTES = 256 * 1024 * 1024;
/**
 * The margin at most, as a share of the machine's memory: what it read must still be cached when
 * the reader comes. Pages the reader has read were read twice (here, then by SQLite), and the
 * kernel keeps such pages on its active list; the pages read here and not yet by the reader are on
 * the inactive list, which it keeps far smaller once the cache is full (about 2.5 GB against 17 GB
 * active, seen at ten million assets on a 24 GB machine) and evicts from first. An eighth of the
 * memory (3 GB there) outran it: the build read 30 GB from the disk for its 24 GB file.
 */
const LEAD_SHARE_OF_MEMORY = 1 / 32;

/**
 * Reads a SQLite store's file ahead of a read of the whole catalogue, in large sequential reads,
 * so that SQLite finds the pages it asks for in the kernel's page cache.
 *
 * Why: a boot's scan reads the assets, their keyword links and the links' key a page of assets
 * at a time, in the key's order. Written in that order, the three lie interleaved through most of
 * the file (with the change log's rows between them), so the scan moves forward through the file
 * but jumps between three places, 4 KiB a read, and the kernel sees no sequential read to read
 * ahead of. At ten million assets the 23 GB store is larger than what the page cache holds beside
 * the build, and the scan waited on the disk at about 40 MB/s; the same disk reads the file
 * sequentially at over a gigabyte a second.
 *
 * How far ahead: the file is taken to hold the catalogue in the order the scan reads it (rows are
 * appended as they are written), so the share of the assets read is about the share of the part
 * of the file that holds the scan's tables (up to `end`, see endOfBTrees; the indexes a bulk
 * load makes after its rows lie past it, and the scan never reads them) behind the scan. The
 * read-ahead keeps a margin ahead of that share, never so far that what it read would leave the
 * page cache before the scan comes to it, and stops at `end`. A file laid out otherwise (assets
 * rewritten out of order) is read once in order all the same: a sequential read of that part,
 * small beside the scan's own.
 *
 * Only a hint: a read that fails stops it, and the scan's own reads meet the problem if there is
 * one. PostgreSQL's server reads its own files.
 */
export class StoreReadAhead {
  private readonly sink = Buffer.allocUnsafe(CHUNK_BYTES);
  private next = 0;
  private target = 0;
  private inFlight = 0;
  private stopped = false;
  private read = 0;
  private idle: (() => void) | undefined;

  private constructor(
    private readonly file: fs.FileHandle,
    private readonly end: number,
    private readonly lead: number,
  ) {}

  /**
   * Starts on `path` (nothing is read before the first advance), reading no further than `end`
   * bytes (default, and at most: the whole file); undefined when the file cannot be opened.
   */
  static async open(path: string, lead = defaultLead(), end = Infinity): Promise<StoreReadAhead | undefined> {
    const file = await openForReading(path);
    if (file === undefined) return undefined;
    try {
      const { size } = await file.stat();
      return new StoreReadAhead(file, Math.min(size, Math.max(0, end)), lead);
    } catch {
      await file.close().catch(() => undefined);
      return undefined;
    }
  }

  /** Bytes of the file read so far. */
  get bytesRead(): number {
    return this.read;
  }

  /** The reader has read `share` (0–1) of the whole: reads on to the margin past it. */
  advance(share: number): void {
    const behind = Math.min(1, Math.max(0, share)) * this.end;
    this.target = Math.max(this.target, Math.min(this.end, Math.floor(behind + this.lead)));
    this.pump();
  }

  /** Stops reading ahead and closes the file once the reads in flight have ended. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    await this.file.close().catch(() => undefined);
  }

  private pump(): void {
    while (!this.stopped && this.inFlight < READS_IN_FLIGHT && this.next < this.target) {
      const position = this.next;
      const length = Math.min(CHUNK_BYTES, this.target - position);
      this.next += length;
      this.inFlight++;
      // The bytes land in one buffer, read by no one: the point is the page cache they pass through.
      this.file.read(this.sink, 0, length, position).then(
        ({ bytesRead }) => this.settle(bytesRead),
        () => {
          this.stopped = true;
          this.settle(0);
        },
      );
    }
  }

  private settle(bytesRead: number): void {
    this.inFlight--;
    this.read += bytesRead;
    if (this.inFlight === 0 && this.idle !== undefined) this.idle();
    else this.pump();
  }
}

/** The file at `path` opened for reading, or undefined when it cannot be. */
async function openForReading(path: string): Promise<fs.FileHandle | undefined> {
  try {
    return await fs.open(path, 'r');
  } catch {
    return undefined;
  }
}

/** A thirty-second of the machine's memory, and at least MIN_LEAD_BYTES. */
function defaultLead(): number {
  return Math.max(MIN_LEAD_BYTES, Math.floor(os.totalmem() * LEAD_SHARE_OF_MEMORY));
}

/** SQLite's b-tree page kinds, the first byte of a page's header (https://www.sqlite.org/fileformat2.html). */
const INTERIOR_INDEX_PAGE = 2;
const INTERIOR_TABLE_PAGE = 5;
const LEAF_INDEX_PAGE = 10;
const LEAF_TABLE_PAGE = 13;
/** Far deeper than a b-tree of 2^32 pages gets: a damaged file's loop of pages ends here. */
const MAX_BTREE_DEPTH = 64;
const FILE_HEADER_BYTES = 100;

/**
 * The end, in bytes, of the last of the rightmost leaves of the b-trees rooted at `rootPages`
 * in the SQLite file `path`: where rows appended in key order stop, since each b-tree's rightmost
 * leaf holds its last key, and pages are added to the file's end as rows are appended. Read off
 * the file itself (its header, then one page header a level down each tree's right edge), for a
 * read-ahead's hint; undefined when the file is not what that needs (not SQLite's format, a page
 * out of range or of another kind). Pages newer in the write-ahead log are not looked at: a hint.
 */
export async function endOfBTrees(path: string, rootPages: readonly number[]): Promise<number | undefined> {
  // no tree, no end (0 would stop a read-ahead before it starts)
  if (rootPages.length === 0) return undefined;
  const file = await openForReading(path);
  if (file === undefined) return undefined;
  try {
    const header = Buffer.alloc(FILE_HEADER_BYTES);
    const { bytesRead } = await file.read(header, 0, FILE_HEADER_BYTES, 0);
    if (bytesRead < FILE_HEADER_BYTES || header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return undefined;
    const sizeField = header.readUInt16BE(16);
    const pageSize = sizeField === 1 ? 65536 : sizeField;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return undefined;
    const pages = Math.floor((await file.stat()).size / pageSize);
    const pageHeader = Buffer.alloc(12);
    let end = 0;
    for (const root of rootPages) {
      let page = root;
      for (let depth = 0; ; depth++) {
        if (!Number.isInteger(page) || page < 1 || page > pages || depth > MAX_BTREE_DEPTH) return undefined;
        // page 1 begins with the file's header
        const at = (page - 1) * pageSize + (page === 1 ? FILE_HEADER_BYTES : 0);
        if ((await file.read(pageHeader, 0, 12, at)).bytesRead < 12) return undefined;
        const kind = pageHeader[0];
        if (kind === LEAF_TABLE_PAGE || kind === LEAF_INDEX_PAGE) break;
        if (kind !== INTERIOR_TABLE_PAGE && kind !== INTERIOR_INDEX_PAGE) return undefined;
        // an interior page's header ends with its right-most child
        page = pageHeader.readUInt32BE(8);
      }
      end = Math.max(end, page * pageSize);
    }
    return end;
  } catch {
    return undefined;
  } finally {
    await file.close().catch(() => undefined);
  }
}
