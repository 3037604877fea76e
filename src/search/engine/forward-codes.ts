/**
 * The codes of the forward token stream (each document's tokens in order, for phrases and
 * deletions): two markers, then term t as t + TERM_CODE; each code one 16-bit unit, or ESCAPE
 * and its two halves when it does not fit. A catalogue's text has some 100,000 distinct terms
 * and the first 65,533 take nearly every token: half the memory of 32-bit ids, read as fast.
 */

/** Between two values of a list field: a phrase never spans it. */
export const ELEMENT_BREAK = 0;
/** After each text field, in schema order. */
export const FIELD_END = 1;
/** The code of term t is t + TERM_CODE (never 0). */
export const TERM_CODE = 2;
export const ESCAPE = 0xffff;
export const MAX_TERMS = 2 ** 32 - 1 - TERM_CODE;

/** The code at unit `j`. */
export function codeAt(forward: Uint16Array, j: number): number {
  const unit = forward[j]!;
  return unit === ESCAPE ? forward[j + 1]! * 0x10000 + forward[j + 2]! : unit;
}

/** The units a code takes. */
export function unitsOf(code: number): number {
  return code < ESCAPE ? 1 : 3;
}

/** Writes a code at `at`; returns the end. */
export function writeCode(out: Uint16Array, at: number, code: number): number {
  if (code < ESCAPE) {
    out[at] = code;
    return at + 1;
  }
  out[at] = ESCAPE;
  out[at + 1] = code >>> 16;
  out[at + 2] = code & 0xffff;
  return at + 3;
}
