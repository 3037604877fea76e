import { ensureCapacity } from './typed-arrays.js';

const EMPTY = -1;

/**
 * Term string → dense id, an open-addressing hash table over typed arrays. It exists for the
 * indexing hot path: `findRange` hashes and compares a token straight out of the source text
 * (ASCII upper case folded on the fly), so a known token costs no string allocation at all;
 * a JavaScript Map would need the token as a fresh string first, then hash it again.
 * Slots hold (hash, id) pairs; term characters sit in one UTF-16 pool for the comparisons.
 */
export class TermDictionary {
  readonly terms: string[] = [];
  private slots: Int32Array = new Int32Array(2 * 1024).fill(EMPTY);
  private mask = 1023;
  private chars: Uint16Array = new Uint16Array(4096);
  private charEnd: Uint32Array = new Uint32Array(1024);

  get size(): number {
    return this.terms.length;
  }

  /** Id of `token` (already normalised), or -1. */
  find(token: string): number {
    return this.findRange(token, 0, token.length);
  }

  /** Id of `text[start..end)` with A–Z read as a–z, or -1. */
  findRange(text: string, start: number, end: number): number {
    const hash = hashRange(text, start, end);
    const slots = this.slots;
    const mask = this.mask;
    const length = end - start;
    let slot = hash & mask;
    for (;;) {
      const id = slots[2 * slot + 1]!;
      if (id === EMPTY) return EMPTY;
      if (slots[2 * slot] === hash && this.sameChars(id, text, start, length)) return id;
      slot = (slot + 1) & mask;
    }
  }

  private sameChars(id: number, text: string, start: number, length: number): boolean {
    const from = id === 0 ? 0 : this.charEnd[id - 1]!;
    if (this.charEnd[id]! - from !== length) return false;
    const chars = this.chars;
    for (let i = 0; i < length; i++) {
      let code = text.charCodeAt(start + i);
      if (code >= 65 && code <= 90) code += 32;
      if (chars[from + i] !== code) return false;
    }
    return true;
  }

  /** Adds a term that is not there yet (normalised: no A–Z); returns its id. */
  add(token: string): number {
    const id = this.terms.length;
    this.terms.push(token);
    const from = id === 0 ? 0 : this.charEnd[id - 1]!;
    this.chars = ensureCapacity(this.chars, from + token.length);
    for (let i = 0; i < token.length; i++) this.chars[from + i] = token.charCodeAt(i);
    this.charEnd = ensureCapacity(this.charEnd, id + 1);
    this.charEnd[id] = from + token.length;
    if (2 * this.terms.length > this.mask + 1) this.rehash(2 * (this.mask + 1));
    else this.place(hashRange(token, 0, token.length), id);
    return id;
  }

  private place(hash: number, id: number): void {
    let slot = hash & this.mask;
    while (this.slots[2 * slot + 1] !== EMPTY) slot = (slot + 1) & this.mask;
    this.slots[2 * slot] = hash;
    this.slots[2 * slot + 1] = id;
  }

  private rehash(capacity: number): void {
    this.slots = new Int32Array(2 * capacity).fill(EMPTY);
    this.mask = capacity - 1;
    for (let id = 0; id < this.terms.length; id++) {
      const term = this.terms[id]!;
      this.place(hashRange(term, 0, term.length), id);
    }
  }
}

/** FNV-1a over UTF-16 code units with A–Z folded to a–z, as a signed 32-bit integer. */
function hashRange(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    let code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) code += 32;
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  // spread the low bits, which pick the slot
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  hash ^= hash >>> 12;
  return hash | 0;
}
