import type { DocumentStarts } from './document-starts.js';
import { STREAM_PADDING } from './forward-codes.js';
import { ensureCapacity } from './typed-arrays.js';

/**
 * Documents of a forward stream kept on disk (see IndexStore.forwardBase) whose bytes a phrase
 * check must read: one read a run of neighbouring documents rather than one a document — the
 * bytes between two candidates up to MAX_GAP apart are read too, as a read costs about what
 * a few kilobytes of copying do — into one buffer, document c of the batch at
 * `blockStart[c >>> 5] + offset[c]` (every blockStart 0), the layout keepByPhrase reads.
 * A batch holds at most about MAX_BATCH_BYTES: an excluded phrase beside a common word checks
 * a tenth of the catalogue, whose bytes must not all come into memory at once.
 */
const MAX_GAP = 4096;
const MAX_BATCH_BYTES = 1 << 20;

/** What gather reads through: the stream's bytes `from..to` into `target` at `at` (IndexStore.readForward). */
export type ReadStream = (from: number, to: number, target: Uint8Array, at: number) => void;

export class GatheredDocuments {
  bytes: Uint8Array = new Uint8Array(65536);
  blockStart: Uint32Array = new Uint32Array(64);
  offset: Uint32Array = new Uint32Array(2048);
  /** 0..n-1 for a batch of n: the list keepByPhrase compacts, read back as positions in the batch */
  order: Uint32Array = new Uint32Array(2048);

  /**
   * Reads a batch of the documents `ordinals[first..count)` (in any order, fastest ascending):
   * from the first on while the batch's bytes stay under MAX_BATCH_BYTES (one at least);
   * returns where the batch ends.
   */
  gather(ordinals: Uint32Array, first: number, count: number, starts: DocumentStarts, read: ReadStream): number {
    let runFrom = 0;
    let runTo = 0;
    let runAt = 0;
    let c = first;
    for (; c < count; c++) {
      const d = ordinals[c]!;
      const from = starts.at(d);
      const to = starts.at(d + 1);
      const i = c - first;
      if (i > 0 && from >= runTo && from - runTo <= MAX_GAP) {
        if (runAt + (Math.max(runTo, to) - runFrom) > MAX_BATCH_BYTES) break;
        runTo = Math.max(runTo, to);
      } else {
        if (i > 0 && runAt + (runTo - runFrom) + (to - from) > MAX_BATCH_BYTES) break;
        if (runTo > runFrom) read(runFrom, runTo, this.bytes, runAt);
        runAt += runTo - runFrom;
        runFrom = from;
        runTo = to;
      }
      if (i >= this.offset.length) {
        this.offset = ensureCapacity(this.offset, i + 1);
        this.order = ensureCapacity(this.order, i + 1);
      }
      this.bytes = ensureCapacity(this.bytes, runAt + (runTo - runFrom) + STREAM_PADDING);
      this.offset[i] = runAt + (from - runFrom);
      this.order[i] = i;
    }
    if (runTo > runFrom) read(runFrom, runTo, this.bytes, runAt);
    const end = runAt + (runTo - runFrom);
    this.bytes.fill(0, end, end + STREAM_PADDING);
    const blocks = ((c - first) >>> 5) + 1;
    if (this.blockStart.length < blocks) this.blockStart = new Uint32Array(blocks);
    return c;
  }

  byteSize(): number {
    return this.bytes.byteLength + this.blockStart.byteLength + this.offset.byteLength + this.order.byteLength;
  }
}
