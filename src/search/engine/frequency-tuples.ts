/**
 * The term frequencies of a posting — one byte per text field — stored once per distinct
 * combination ("tuple") instead of once per posting: each posting keeps a code, the tuple's
 * number, and `tuples[code * fields + f]` is its frequency in field f.
 *
 * Why: a posting's frequencies are a handful of small numbers, nearly all zero but one (a word
 * once in the caption, once in the title and the keywords…): a catalogue of millions of
 * documents has tens of millions of postings but only a few hundred distinct tuples. Four
 * fields took four bytes a posting; a code takes half a byte, and the table of tuples (a few
 * kilobytes) stays in the first-level cache of the scoring loops.
 *
 * A code is four bits, two a byte (see codeAt): each build numbers the tuples by use, most
 * used first, so the 15 commonest are their code — 98% of the postings on the benchmark's
 * catalogue, whose three commonest tuples (a word once in one field) are 90% — and a later
 * one is stored as ESCAPE with its code kept aside (CodeEscapes). Frequencies and sums are
 * read exactly as before (the same bytes, in the same order), so scores keep their bits.
 */
export type TupleCodes = Uint8Array;

/** A stored code standing for a tuple past the first 15: its code is among the escapes. */
export const ESCAPE = 15;

/** A build's codes (see PostingStore.setBase) are a byte a posting, the tuples past the first 255 as BYTE_ESCAPE, kept aside. */
export const BYTE_ESCAPE = 0xff;

/**
 * The code of posting i of `codes`, four bits a posting (`shift` 1: two a byte, the even
 * posting's in the low four bits, ESCAPE for one kept among `escapes`) or a byte (`shift` 0:
 * BYTE_ESCAPE for one kept among `escapes`; see PostingStore.denseCodes).
 */
export function codeAt(codes: TupleCodes, shift: number, escapes: CodeEscapes, i: number): number {
  const mask = 0xff >>> (shift << 2);
  const code = (codes[i >>> shift]! >>> ((i & shift) << 2)) & mask;
  return code === mask ? escapedCode(escapes, i) : code;
}

/** Stores posting i's code (ESCAPE for one past the first 15: the caller keeps it among the escapes); the byte's other half is kept. */
export function setCode(codes: TupleCodes, i: number, code: number): void {
  const shift = (i & 1) << 2;
  codes[i >>> 1] = (codes[i >>> 1]! & ~(15 << shift)) | (Math.min(code, ESCAPE) << shift);
}

/** Bytes of `postings` codes. */
export function codeBytes(postings: number): number {
  return (postings + 1) >>> 1;
}

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

  /**
   * Numbers the tuples again by use, most used first (`uses[code]`: postings of each; ties in
   * their present order), so that the commonest have codes below ESCAPE; returns the new code
   * of each present one.
   */
  renumberByUse(uses: Float64Array): Uint32Array {
    const fields = this.fields;
    const order = Array.from({ length: this.count }, (_, code) => code).sort((a, b) => uses[b]! - uses[a]! || a - b);
    const renumbered = new Uint32Array(this.count);
    const bytes = new Uint8Array(this.count * fields);
    order.forEach((code, rank) => {
      renumbered[code] = rank;
      bytes.set(this.bytes.subarray(code * fields, (code + 1) * fields), rank * fields);
    });
    this.reset(bytes);
    return renumbered;
  }

  /** The tuples in use, for a snapshot. */
  used(): Uint8Array {
    return this.bytes.subarray(0, this.count * this.fields);
  }

  byteSize(): number {
    return this.bytes.byteLength + this.small.byteLength;
  }
}

/**
 * The codes of the postings whose stored code is ESCAPE, by posting (`at`, ascending): the
 * tuples past the first 15 are rare (on the benchmark's catalogue, 1.8% of the postings, 214
 * of 229 tuples), so a code array keeps four bits a posting and these few aside.
 */
export interface CodeEscapes {
  at: Uint32Array;
  codes: Uint32Array;
  count: number;
}

export const NO_ESCAPES: CodeEscapes = { at: new Uint32Array(0), codes: new Uint32Array(0), count: 0 };

/** The code of `posting`, whose stored code is ESCAPE (binary search; never called for others). */
export function escapedCode(escapes: CodeEscapes, posting: number): number {
  let low = 0;
  let high = escapes.count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (escapes.at[middle]! < posting) low = middle + 1;
    else high = middle;
  }
  return escapes.codes[low]!;
}

/** Appends an escape (postings in ascending order); returns the escapes, grown when full. */
export function withEscape(escapes: CodeEscapes, posting: number, code: number): CodeEscapes {
  let target = escapes;
  if (target === NO_ESCAPES || target.count === target.at.length) {
    const capacity = Math.max(16, 2 * escapes.count);
    const at = new Uint32Array(capacity);
    const codes = new Uint32Array(capacity);
    at.set(escapes.at.subarray(0, escapes.count));
    codes.set(escapes.codes.subarray(0, escapes.count));
    target = { at, codes, count: escapes.count };
  }
  target.at[target.count] = posting;
  target.codes[target.count] = code;
  target.count++;
  return target;
}
