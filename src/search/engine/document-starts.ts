import { ensureCapacity, fitted } from './typed-arrays.js';

/** Each document's start from its block's start: 16 bits until some block of 32 documents spans 64 KiB. */
export type StartOffsets = Uint16Array | Uint32Array;

/**
 * Where each document starts in a byte stream (the forward stream): the start of its block of
 * 32 documents in full and its distance from it in 16 bits, about 2.1 bytes a document where a
 * start in full took 4 (the pattern of a keyword column's offsets). A block of documents that
 * spans 64 KiB or more (a document of thousands of words) widens the distances to 32 bits.
 * Starts are written in document order, each block's first before the rest of its block.
 */
export class DocumentStarts {
  /** the start of documents 32b.. (block b) */
  blockStart: Uint32Array;
  /** document d's start minus its block's */
  offset: StartOffsets;
  /** blockStart before a rewrite in place (see beginRewrite), null outside one */
  private blockStartBefore: Uint32Array | null = null;

  constructor(blockStart: Uint32Array = new Uint32Array(16), offset: StartOffsets = new Uint16Array(16)) {
    this.blockStart = blockStart;
    this.offset = offset;
  }

  /** Room for the starts of documents below `needed` (checked once per document by the store). */
  get capacity(): number {
    return this.offset.length;
  }

  at(d: number): number {
    return this.blockStart[d >>> 5]! + this.offset[d]!;
  }

  /** Records document d's start (documents before it recorded, in a rewrite too). */
  set(d: number, start: number): void {
    if ((d & 31) === 0) {
      this.blockStart[d >>> 5] = start;
      this.offset[d] = 0;
      return;
    }
    const offset = start - this.blockStart[d >>> 5]!;
    if (offset > 0xffff && this.offset instanceof Uint16Array) this.offset = Uint32Array.from(this.offset);
    this.offset[d] = offset;
  }

  /** Makes room for the starts of documents below `needed`. */
  grow(needed: number): void {
    this.offset = ensureCapacity(this.offset, needed);
    // the blocks of every document the offsets have room for (the capacity the store checks)
    this.blockStart = ensureCapacity(this.blockStart, ((this.offset.length - 1) >>> 5) + 1);
  }

  /** Cuts the arrays to the starts of `count` documents (and back to 16 bits when every distance fits). */
  fit(count: number): void {
    this.offset = fitted(this.offset, count);
    this.blockStart = fitted(this.blockStart, ((count - 1) >>> 5) + 1);
    if (this.offset instanceof Uint32Array && this.offset.every((offset) => offset <= 0xffff)) this.offset = Uint16Array.from(this.offset);
  }

  /**
   * Starts rewriting the starts in place, document d's new start recorded after its old one is
   * read (`before`): the block starts are kept aside, as a new one overwrites an old one still needed.
   */
  beginRewrite(): void {
    this.blockStartBefore = this.blockStart.slice();
  }

  /** Document d's start as it was at beginRewrite (its own not yet rewritten). */
  before(d: number): number {
    return this.blockStartBefore![d >>> 5]! + this.offset[d]!;
  }

  endRewrite(): void {
    this.blockStartBefore = null;
  }

  get byteLength(): number {
    return this.blockStart.byteLength + this.offset.byteLength;
  }

  /** The arrays a snapshot keeps for the starts of `count` documents. */
  sections(count: number): { blockStart: Uint32Array; offset: StartOffsets } {
    return { blockStart: this.blockStart.subarray(0, ((count - 1) >>> 5) + 1), offset: this.offset.subarray(0, count) };
  }

  /** The starts of `count` documents from a snapshot's arrays; null when their lengths do not fit. */
  static fromSections(blockStart: Uint32Array, offset: Uint8Array | StartOffsets, count: number): DocumentStarts | null {
    if (offset.length !== count || blockStart.length !== ((count - 1) >>> 5) + 1) return null;
    return new DocumentStarts(blockStart, offset instanceof Uint8Array ? Uint16Array.from(offset) : offset);
  }
}
