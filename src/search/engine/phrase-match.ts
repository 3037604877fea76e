import { CLASS_BASE, CLASS_EXTRA, FIELD_END, MAX_CODE_LENGTH, readBits, type ForwardCode } from './forward-codes.js';

import type { StartOffsets } from './document-starts.js';
/**
 * The terms a phrase may use — as their codes in the forward stream, which are never 0 — each
 * with the positions of the phrase it may stand at (bit i: position i), in a small
 * open-addressing table: a phrase has a handful of terms, and their table stays in the
 * first-level cache where a mask per vocabulary term (megabytes) would miss it on nearly every
 * rare token of the documents read.
 */
export class PhraseTerms {
  /** a term's code, 0 for an empty slot */
  readonly keys: Uint32Array;
  readonly masks: Uint32Array;
  readonly shift: number;
  /** bit (code & 4095) set for every term's code: most tokens of a document are turned away by one bit */
  readonly seen = new Uint32Array(128);

  constructor(positions: ReadonlyArray<readonly number[]>) {
    const terms = positions.reduce((sum, ids) => sum + ids.length, 0);
    let bits = 6;
    while (1 << bits < 4 * terms) bits++;
    this.keys = new Uint32Array(1 << bits);
    this.masks = new Uint32Array(1 << bits);
    this.shift = 32 - bits;
    positions.forEach((codes, position) => {
      for (const code of codes) {
        if (code === 0) throw new RangeError('search index: a phrase term cannot have code 0');
        let h = Math.imul(code, HASH_MULTIPLIER) >>> this.shift;
        while (this.keys[h] !== 0 && this.keys[h] !== code) h = (h + 1) & (this.keys.length - 1);
        this.keys[h] = code;
        this.masks[h] = this.masks[h]! | (1 << position);
        this.seen[(code >>> 5) & 127] = this.seen[(code >>> 5) & 127]! | (1 << (code & 31));
      }
    });
  }
}

const HASH_MULTIPLIER = 0x9e3779b1;

/**
 * Shift-and over each listed document's forward stream: a term's mask (PhraseTerms) has bit i
 * set when it may stand at position i of the phrase, bit i of `state` says the last i + 1
 * tokens match its first i + 1; markers and other terms (mask 0) break every partial match.
 * Compacts the list to the documents with (or without) the phrase; returns how many stay.
 *
 * The codes are read here as ForwardCode.decode reads them (see forward-codes.ts), one at a
 * time and not into an array first: a document is left at its first match, and a check costs
 * no store and load of each code (measured: decoding into an array first made a check of every
 * document half as slow again).
 */
export function keepByPhrase(
  ordinals: Uint32Array,
  count: number,
  seen: Uint32Array,
  keys: Uint32Array,
  masks: Uint32Array,
  shift: number,
  length: number,
  forward: Uint8Array,
  blockStart: Uint32Array,
  startOffset: StartOffsets,
  forwardCode: ForwardCode,
  keepMatches: boolean,
): number {
  const goal = 1 << (length - 1);
  const slots = keys.length - 1;
  const table = forwardCode.table;
  const fields = forwardCode.fields;
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    let state = 0;
    let found = false;
    let i = blockStart[d >>> 5]! + startOffset[d]!;
    let s = 0;
    let ends = 0;
    while (ends < fields) {
      const word = (forward[i]! << 24) | (forward[i + 1]! << 16) | (forward[i + 2]! << 8) | forward[i + 3]!;
      const entry = table[(word << s) >>> (32 - MAX_CODE_LENGTH)]!;
      const k = entry & 0xff;
      const used = s + (entry >>> 8);
      let extra = CLASS_EXTRA[k]!;
      let code = CLASS_BASE[k]!;
      if (used + extra <= 32) {
        code += ((word << used) >>> 1) >>> (31 - extra);
        s = used + extra;
      } else {
        s = used;
        i += s >>> 3;
        s &= 7;
        if (extra > 24) {
          code += readBits(forward, i, s, extra - 16) * 0x10000;
          s += extra - 16;
          i += s >>> 3;
          s &= 7;
          extra = 16;
        }
        code += readBits(forward, i, s, extra);
        s += extra;
      }
      i += s >>> 3;
      s &= 7;
      ends += code === FIELD_END ? 1 : 0;
      let mask = 0;
      if ((seen[(code >>> 5) & 127]! & (1 << (code & 31))) !== 0) {
        let h = Math.imul(code, HASH_MULTIPLIER) >>> shift;
        for (let key = keys[h]!; key !== 0; key = keys[h]!) {
          if (key === code) {
            mask = masks[h]!;
            break;
          }
          h = (h + 1) & slots;
        }
      }
      state = ((state << 1) | 1) & mask;
      if ((state & goal) !== 0) {
        found = true;
        break;
      }
    }
    if (found === keepMatches) ordinals[kept++] = d;
  }
  return kept;
}
