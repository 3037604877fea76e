import fs from 'node:fs/promises';
import os from 'node:os';

/** The size of each read: large enough that the disk streams, small beside the margin. */
const CHUNK_BYTES = 8 * 1024 * 1024;
/** Reads in flight at once: one being served while the next is asked for. */
const READS_IN_FLIGHT = 2;
/** The margin ahead of the reader at least, however little memory the machine reports. */
const MIN_LEAD_BYTES = 256 * 1024 * 1024;
/** The margin at most, as a share of the machine's memory: what it read must still be cached when the reader comes. */
const LEAD_SHARE_OF_MEMORY = 1 / 8;

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
 * appended as they are written), so the share of the assets read is about the share of the file
 * behind the scan. The read-ahead keeps a margin ahead of that share, never so far that what it
 * read would leave the page cache before the scan comes to it. A file laid out otherwise (assets
 * rewritten out of order) is read once in order all the same: a sequential read of the file,
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
    private readonly size: number,
    private readonly lead: number,
  ) {}

  /** Starts on `path` (nothing is read before the first advance); undefined when the file cannot be opened. */
  static async open(path: string, lead = defaultLead()): Promise<StoreReadAhead | undefined> {
    let file: fs.FileHandle;
    try {
      file = await fs.open(path, 'r');
    } catch {
      return undefined;
    }
    try {
      const { size } = await file.stat();
      return new StoreReadAhead(file, size, lead);
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
    const behind = Math.min(1, Math.max(0, share)) * this.size;
    this.target = Math.max(this.target, Math.min(this.size, Math.floor(behind + this.lead)));
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

/** An eighth of the machine's memory, and at least MIN_LEAD_BYTES. */
function defaultLead(): number {
  return Math.max(MIN_LEAD_BYTES, Math.floor(os.totalmem() * LEAD_SHARE_OF_MEMORY));
}
