/**
 * The codes of the forward token stream (each document's tokens in order, for phrases and
 * deletions): two markers, then term t as t + TERM_CODE, each code in one to five bytes by
 * its first byte (the lead):
 * - lead below 128: the code itself (the markers and the 126 commonest terms);
 * - lead 128–247: two bytes, the next 30,720 codes;
 * - lead 248–254: three bytes, the next 458,752 codes;
 * - lead 255: five bytes, the code in the next four (big-endian), up to 2^32 - 1.
 * A compaction numbers the terms by descending document frequency (see IndexStore.compact),
 * so that the common terms take the short codes. Measured on the search benchmark's
 * catalogue (65 codes a document, 49–81 from p10 to p90, 27% of them markers; 74,280 terms
 * at 250,000 assets, 92,609 at a million): the markers and the 126 commonest terms are 59.5%
 * of the codes, the next 30,720 terms 36.5%, the rest 4% — 1.44 bytes a code, 89.5 MB per
 * million assets where 16-bit units took 125 MB. Other splits came within 1% (a one-byte
 * range of 192 codes: 90.6 MB); this one tells one byte from two by the lead's top bit.
 */

/** Between two values of a list field: a phrase never spans it. */
export const ELEMENT_BREAK = 0;
/** After each text field, in schema order. */
export const FIELD_END = 1;
/** The code of term t is t + TERM_CODE (never 0). */
export const TERM_CODE = 2;
export const MAX_TERMS = 2 ** 32 - 1 - TERM_CODE;
/** The most bytes a code takes. */
export const MAX_CODE_BYTES = 5;

/** The first lead of a two-byte code: codes below it are their own byte. */
const TWO_BYTE_LEAD = 128;
const THREE_BYTE_LEAD = 248;
const FIVE_BYTE_LEAD = 255;
/** The first code of each length. */
const TWO_BYTE_CODE = TWO_BYTE_LEAD;
const THREE_BYTE_CODE = TWO_BYTE_CODE + (THREE_BYTE_LEAD - TWO_BYTE_LEAD) * 0x100;
const FIVE_BYTE_CODE = THREE_BYTE_CODE + (FIVE_BYTE_LEAD - THREE_BYTE_LEAD) * 0x10000;

/**
 * The code at byte `j`. One- and two-byte codes (96% of them) alternate with no pattern a
 * branch predictor could learn: they are told apart by arithmetic on the lead, not by a
 * branch (a mispredicted branch per code made a phrase check twice as slow).
 */
export function codeAt(forward: Uint8Array, j: number): number {
  const lead = forward[j]!;
  if (lead < THREE_BYTE_LEAD) {
    // 0 for a one-byte code, 1 for a two-byte one (whose second byte is then read)
    const second = lead >>> 7;
    return lead + second * (TWO_BYTE_CODE + (((lead - TWO_BYTE_LEAD) << 8) | forward[j + second]!) - lead);
  }
  if (lead < FIVE_BYTE_LEAD) return THREE_BYTE_CODE + ((lead - THREE_BYTE_LEAD) << 16) + (forward[j + 1]! << 8) + forward[j + 2]!;
  return forward[j + 1]! * 0x1000000 + ((forward[j + 2]! << 16) | (forward[j + 3]! << 8) | forward[j + 4]!);
}

/** The byte after the code at byte `j` (as codeAt: no branch between one and two bytes). */
export function codeEnd(forward: Uint8Array, j: number): number {
  const lead = forward[j]!;
  return lead < THREE_BYTE_LEAD ? j + 1 + (lead >>> 7) : j + (lead < FIVE_BYTE_LEAD ? 3 : 5);
}

/** The bytes a code takes (for writing: a reader steps with codeEnd). */
export function codeBytes(code: number): number {
  return code < TWO_BYTE_CODE ? 1 : code < THREE_BYTE_CODE ? 2 : code < FIVE_BYTE_CODE ? 3 : 5;
}

/** Writes a code at `at`; returns the end. */
export function writeCode(out: Uint8Array, at: number, code: number): number {
  if (code < TWO_BYTE_CODE) {
    out[at] = code;
    return at + 1;
  }
  if (code < THREE_BYTE_CODE) {
    const offset = code - TWO_BYTE_CODE;
    out[at] = TWO_BYTE_LEAD + (offset >>> 8);
    out[at + 1] = offset & 0xff;
    return at + 2;
  }
  if (code < FIVE_BYTE_CODE) {
    const offset = code - THREE_BYTE_CODE;
    out[at] = THREE_BYTE_LEAD + (offset >>> 16);
    out[at + 1] = (offset >>> 8) & 0xff;
    out[at + 2] = offset & 0xff;
    return at + 3;
  }
  out[at] = FIVE_BYTE_LEAD;
  out[at + 1] = code >>> 24;
  out[at + 2] = (code >>> 16) & 0xff;
  out[at + 3] = (code >>> 8) & 0xff;
  out[at + 4] = code & 0xff;
  return at + 5;
}
