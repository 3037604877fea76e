import type { DocumentStarts } from './document-starts.js';
import { STREAM_PADDING } from './forward-codes.js';
import { ensureCapacity } from './typed-arrays.js';

/**
 * Documents of a forward stream kept on disk (see IndexStore.forwardBase) whose bytes a phrase
 * check must read: one read a run of neighbouring documents rather than one a document — the
 * bytes between two candidates up to MAX_GAP apart are read too, as a read costs about what
 * a few kilobytes of copying do — into one buffer, document c of the list at
 * `blockStart[c >>> 5] + offset[c]` (every blockStart 0), the layout keepByPhrase reads.
 */
const MAX_GAP = 4096;

/** What gather reads through: the stream's bytes `from..to` into `target` at `at` (IndexStore.readForward). */
export type ReadStream = (from: number, to: number, target: Uint8Array, at: number) => void;

export class GatheredDocuments {
  bytes: Uint8Array = new Uint8Array(65536);
  blockStart: Uint32Array = new Uint32Array(64);
  offset: Uint32Array = new Uint32Array(2048);
  /** 0..count-1: the list keepByPhrase compacts, read back as positions in the caller's list */
  order: Uint32Array = new Uint32Array(2048);

  /** Reads the documents `ordinals[0..count)` (in any order, fastest ascending). */
  gather(ordinals: Uint32Array, count: number, starts: DocumentStarts, read: ReadStream): void {
    this.offset = ensureCapacity(this.offset, count);
    this.order = ensureCapacity(this.order, count);
    const blocks = (count >>> 5) + 1;
    if (this.blockStart.length < blocks) this.blockStart = new Uint32Array(blocks);
    let runFrom = 0;
    let runTo = 0;
    let runAt = 0;
    for (let c = 0; c < count; c++) {
      const d = ordinals[c]!;
      const from = starts.at(d);
      const to = starts.at(d + 1);
      this.order[c] = c;
      if (c > 0 && from >= runTo && from - runTo <= MAX_GAP) {
        runTo = Math.max(runTo, to);
      } else {
        if (runTo > runFrom) read(runFrom, runTo, this.bytes, runAt);
        runAt += runTo - runFrom;
        runFrom = from;
        runTo = to;
      }
      this.bytes = ensureCapacity(this.bytes, runAt + (runTo - runFrom) + STREAM_PADDING);
      this.offset[c] = runAt + (from - runFrom);
    }
    if (runTo > runFrom) read(runFrom, runTo, this.bytes, runAt);
    const end = runAt + (runTo - runFrom);
    this.bytes.fill(0, end, end + STREAM_PADDING);
  }

  byteSize(): number {
    return this.bytes.byteLength + this.blockStart.byteLength + this.offset.byteLength + this.order.byteLength;
  }
}
