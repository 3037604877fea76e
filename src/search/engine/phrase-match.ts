import type { ForwardCode } from './forward-codes.js';
import { ensureCapacity } from './typed-arrays.js';

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

/** Scratch for keepByPhrase: one document's codes as decoded from the stream. */
let phraseCodes = new Uint32Array(1024);

/**
 * Shift-and over each listed document's forward stream (see forward-codes.ts), decoded a
 * document at a time: a term's mask (PhraseTerms) has bit i set when it may stand at
 * position i of the phrase, bit i of `state` says the last i + 1 tokens match its first i + 1;
 * markers and other terms (mask 0) break every partial match. Compacts the list to the
 * documents with (or without) the phrase; returns how many stay.
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
  forwardStart: Uint32Array,
  forwardCode: ForwardCode,
  keepMatches: boolean,
): number {
  const goal = 1 << (length - 1);
  const slots = keys.length - 1;
  let kept = 0;
  for (let c = 0; c < count; c++) {
    const d = ordinals[c]!;
    let state = 0;
    let found = false;
    const start = forwardStart[d]!;
    if (phraseCodes.length < 8 * (forwardStart[d + 1]! - start)) phraseCodes = ensureCapacity(phraseCodes, 8 * (forwardStart[d + 1]! - start));
    const codes = phraseCodes;
    const codeCount = forwardCode.decode(forward, start, codes);
    for (let i = 0; i < codeCount; i++) {
      const code = codes[i]!;
      let mask = 0;
      if ((seen[(code >>> 5) & 127]! & (1 << (code & 31))) !== 0) {
        let h = Math.imul(code, HASH_MULTIPLIER) >>> shift;
        for (let k = keys[h]!; k !== 0; k = keys[h]!) {
          if (k === code) {
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
