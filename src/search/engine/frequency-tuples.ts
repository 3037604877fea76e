/**
 * The term frequencies of a posting — one byte per text field — stored once per distinct
 * combination ("tuple") instead of once per posting: each posting keeps a code, the tuple's
 * number, and `tuples[code * fields + f]` is its frequency in field f.
 *
 * Why: a posting's frequencies are a handful of small numbers, nearly all zero but one (a word
 * once in the caption, once in the title and the keywords…): a catalogue of millions of
 * documents has tens of millions of postings but only a few hundred distinct tuples. Four
 * fields took four bytes a posting; a code takes one while there are at most 256 tuples, and
 * the table of tuples (a few kilobytes) stays in the first-level cache of the scoring loops.
 *
 * Codes are one byte until a 257th tuple appears, then two, then four (`widened`): one width
 * for the whole index at a time, so each scoring loop sees one kind of array. Frequencies and
 * sums are read exactly as before (the same bytes, in the same order), so scores keep their bits.
 */
export type TupleCodes = Uint8Array | Uint16Array | Uint32Array;

/** Tuples whose every frequency is below this are found in a direct table (no Map look-up). */
const SMALL_FREQUENCY = 16;

export class FrequencyTuples {
  readonly fields: number;
  /** tuple t's frequency in field f at `bytes[t * fields + f]` (capacity beyond `count`) */
  bytes: Uint8Array;
  count = 0;
  /** for up to four fields with small frequencies: tuple code + 1 by the frequencies packed 4 bits each, 0 for none */
  private readonly small: Int32Array;
  /** the other tuples: code by key (packed bytes for up to four fields, else their text) */
  private readonly other = new Map<number | string, number>();

  constructor(fields: number) {
    this.fields = fields;
    this.bytes = new Uint8Array(Math.max(1, fields) * 16);
    this.small = new Int32Array(fields <= 4 ? 1 << (4 * fields) : 0);
  }

  /** How many bytes a code needs for the tuples known now: 1, 2 or 4. */
  get codeBytes(): 1 | 2 | 4 {
    return this.count <= 0x100 ? 1 : this.count <= 0x10000 ? 2 : 4;
  }

  /** The code of the tuple `frequencies[offset .. offset + fields)`, adding it when new. */
  codeOf(frequencies: Uint8Array, offset: number): number {
    const fields = this.fields;
    if (fields <= 4) {
      let packedSmall = 0;
      let isSmall = true;
      for (let f = 0; f < fields; f++) {
        const tf = frequencies[offset + f]!;
        if (tf >= SMALL_FREQUENCY) {
          isSmall = false;
          break;
        }
        packedSmall |= tf << (4 * f);
      }
      if (isSmall) {
        const known = this.small[packedSmall]!;
        if (known !== 0) return known - 1;
        const code = this.add(frequencies, offset);
        this.small[packedSmall] = code + 1;
        return code;
      }
    }
    const key = this.keyOf(frequencies, offset);
    const known = this.other.get(key);
    if (known !== undefined) return known;
    const code = this.add(frequencies, offset);
    this.other.set(key, code);
    return code;
  }

  private keyOf(frequencies: Uint8Array, offset: number): number | string {
    if (this.fields <= 4) {
      let packed = 0;
      for (let f = 0; f < this.fields; f++) packed = packed * 256 + frequencies[offset + f]!;
      return packed;
    }
    return Array.prototype.join.call(frequencies.subarray(offset, offset + this.fields), ',');
  }

  private add(frequencies: Uint8Array, offset: number): number {
    const code = this.count;
    const fields = this.fields;
    if ((code + 1) * fields > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, (code + 1) * fields));
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes.set(frequencies.subarray(offset, offset + fields), code * fields);
    this.count++;
    return code;
  }

  /** Replaces every tuple by those of `bytes` (a snapshot's), codes being their positions. */
  reset(bytes: Uint8Array): void {
    this.count = 0;
    this.small.fill(0);
    this.other.clear();
    const fields = this.fields;
    if (fields === 0) return;
    if (bytes.length % fields !== 0) throw new Error('search index snapshot: the frequency tuples are cut short');
    for (let offset = 0; offset < bytes.length; offset += fields) {
      if (this.codeOf(bytes, offset) !== offset / fields) throw new Error('search index snapshot: a frequency tuple is listed twice');
    }
  }

  /** The tuples in use, for a snapshot. */
  used(): Uint8Array {
    return this.bytes.subarray(0, this.count * this.fields);
  }

  byteSize(): number {
    return this.bytes.byteLength + this.small.byteLength;
  }
}

/** An array of `length` codes wide enough for `codeBytes`. */
export function newCodes(codeBytes: 1 | 2 | 4, length: number): TupleCodes {
  return codeBytes === 1 ? new Uint8Array(length) : codeBytes === 2 ? new Uint16Array(length) : new Uint32Array(length);
}

/** `codes` copied into an array of the wider width `codeBytes` (the same array when already that wide). */
export function widened(codes: TupleCodes, codeBytes: 1 | 2 | 4): TupleCodes {
  if (codes.BYTES_PER_ELEMENT >= codeBytes) return codes;
  const wide = newCodes(codeBytes, codes.length);
  wide.set(codes);
  return wide;
}
