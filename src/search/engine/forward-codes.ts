/**
 * The codes of the forward token stream (each document's tokens in order, for phrases,
 * deletions and the rebuilds of a compaction): two markers, then term t as t + TERM_CODE,
 * written as a prefix code of bits (an entropy code), each document from a byte of its own.
 *
 * A code value v falls in one of CLASS_COUNT classes: v itself below 64 (the markers and the
 * 62 commonest terms), else a quarter of its power of two (v in [2^k, 2^(k+1)): class
 * 64 + 4(k - 6) + the two bits after v's top one). A class is written as its canonical
 * Huffman code (at most MAX_CODE_LENGTH bits, from the classes' counts in the stream), then
 * v's offset in the class in k - 2 plain bits. A compaction numbers the terms by descending
 * document frequency (see IndexStore.compact), so that a class holds terms of about the same
 * frequency, and counts the classes again for a new code. Measured on the search
 * benchmark's catalogue (65 codes a document, 27% of them markers, the words drawn
 * independently by a Zipf law; 100,000 assets): 9.36 bits a code, the byte that starts each
 * document included, where byte-aligned codes of one to five bytes took 11.5 — 1.3% above
 * the stream's order-0 entropy (9.24 bits), the floor of any code that takes a token at a
 * time without context. Reading costs more than bytes did (a table look-up and two four-byte
 * reads a code, no branch between classes): a compaction's passes over the stream and a
 * phrase check on a candidate read it, nothing else does.
 *
 * A document's codes are read in one go (`decode`), into an array of code values: it ends
 * after its `fields`-th FIELD_END, so the padding bits of its last byte are never read.
 */

/** Between two values of a list field: a phrase never spans it. */
export const ELEMENT_BREAK = 0;
/** After each text field, in schema order. */
export const FIELD_END = 1;
/** The code of term t is t + TERM_CODE (never 0). */
export const TERM_CODE = 2;
export const MAX_TERMS = 2 ** 32 - 1 - TERM_CODE;
/** The most bits a class's code takes: one table look-up of that many bits finds any class. */
export const MAX_CODE_LENGTH = 12;
/** Bytes past a stream's last document that a decode may read (and never uses). */
export const STREAM_PADDING = 4;

/** Code values below this are a class each. */
const SMALL_CODES = 64;
const SMALL_BITS = 6;
export const CLASS_COUNT = SMALL_CODES + 4 * (32 - SMALL_BITS);

/** The class of code value v (see the file comment). */
export function classOf(v: number): number {
  if (v < SMALL_CODES) return v;
  const k = 31 - Math.clz32(v);
  return SMALL_CODES + 4 * (k - SMALL_BITS) + ((v >>> (k - 2)) & 3);
}

/** Per class, its first code value and the plain bits after its code (read by decode and the phrase check's own loop). */
export const CLASS_BASE = new Uint32Array(CLASS_COUNT);
export const CLASS_EXTRA = new Uint8Array(CLASS_COUNT);
for (let c = 0; c < CLASS_COUNT; c++) {
  if (c < SMALL_CODES) {
    CLASS_BASE[c] = c;
  } else {
    const k = SMALL_BITS + ((c - SMALL_CODES) >>> 2);
    CLASS_BASE[c] = (4 + ((c - SMALL_CODES) & 3)) * 2 ** (k - 2);
    CLASS_EXTRA[c] = k - 2;
  }
}

/**
 * Code lengths for class counts (a Huffman code), none past MAX_CODE_LENGTH: while the
 * longest is too long, every count is raised to a floor that doubles each round (the rare
 * classes, mostly the terms yet unseen, cost a little more so that the table stays small).
 */
export function codeLengths(counts: ArrayLike<number>): Uint8Array {
  let total = 0;
  for (let c = 0; c < CLASS_COUNT; c++) total += counts[c] ?? 0;
  let floor = Math.max(1, total / 2 ** (MAX_CODE_LENGTH + 4));
  for (;;) {
    const weights = Array.from({ length: CLASS_COUNT }, (_, c) => Math.max(counts[c] ?? 0, floor));
    const lengths = huffmanLengths(weights);
    if (lengths.every((length) => length <= MAX_CODE_LENGTH)) return lengths;
    floor *= 2;
  }
}

/** Huffman code lengths of positive weights (n is small: a sorted array as the queue). */
function huffmanLengths(weights: readonly number[]): Uint8Array {
  const n = weights.length;
  // nodes 0..n-1 the leaves, then the merged ones; parent[-] links each to its merge
  const parent = new Int32Array(2 * n - 1).fill(-1);
  const weight = [...weights];
  const queue = weights.map((_, i) => i).sort((a, b) => weights[a]! - weights[b]! || a - b);
  while (queue.length > 1) {
    const a = queue.shift()!;
    const b = queue.shift()!;
    const node = weight.length;
    weight.push(weight[a]! + weight[b]!);
    parent[a] = node;
    parent[b] = node;
    let at = 0;
    while (at < queue.length && weight[queue[at]!]! <= weight[node]!) at++;
    queue.splice(at, 0, node);
  }
  const lengths = new Uint8Array(n);
  for (let leaf = 0; leaf < n; leaf++) {
    let depth = 0;
    for (let node = leaf; parent[node] !== -1; node = parent[node]!) depth++;
    lengths[leaf] = depth;
  }
  return lengths;
}

const EMPTY_BYTES = new Uint8Array(0);

/**
 * Bits written most significant first into a byte array, for ForwardCode.encode. An object
 * rather than a closure over encode's locals: the build keeps functions' names, and a closure
 * made anew at each call cost a property definition a document.
 */
class BitWriter {
  private out: Uint8Array = new Uint8Array(0);
  private w = 0;
  /** bits not yet written: `pending` of them, at the bottom of `bits` */
  private bits = 0;
  private pending = 0;

  begin(out: Uint8Array, at: number): void {
    this.out = out;
    this.w = at;
    this.bits = 0;
    this.pending = 0;
  }

  /** `length` bits (at most 24) of `value`. */
  put(value: number, length: number): void {
    let bits = (this.bits << length) | value;
    let pending = this.pending + length;
    while (pending >= 8) {
      pending -= 8;
      this.out[this.w++] = (bits >>> pending) & 0xff;
    }
    bits &= (1 << pending) - 1;
    this.bits = bits;
    this.pending = pending;
  }

  /** Pads the last byte with zeros; returns the end. */
  end(): number {
    if (this.pending > 0) this.out[this.w++] = (this.bits << (8 - this.pending)) & 0xff;
    this.out = EMPTY_BYTES;
    return this.w;
  }
}

/**
 * One prefix code over the classes: how a stream's documents are written and read. A store
 * keeps one at a time; a compaction rewrites the stream with a new one.
 */
export class ForwardCode {
  /** each class's code length (what a snapshot keeps) */
  readonly lengths: Uint8Array;
  private readonly codewords = new Uint32Array(CLASS_COUNT);
  /** per MAX_CODE_LENGTH-bit prefix: its class, and its code's length << 8 */
  readonly table = new Uint16Array(1 << MAX_CODE_LENGTH);
  /** encode's bit writer, reused: one document at a time */
  private readonly writer = new BitWriter();

  constructor(
    readonly fields: number,
    lengths: Uint8Array,
  ) {
    if (lengths.length !== CLASS_COUNT) throw new Error('search index: a forward code needs a length per class');
    this.lengths = lengths;
    // canonical codes: by length, then class; a complete code fills the whole table
    const order = Array.from({ length: CLASS_COUNT }, (_, c) => c).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
    let code = 0;
    let previous = 0;
    let kraft = 0;
    for (const c of order) {
      const length = lengths[c]!;
      if (length < 1 || length > MAX_CODE_LENGTH) throw new Error('search index: a forward code length is out of range');
      code <<= length - previous;
      previous = length;
      this.codewords[c] = code;
      const shift = MAX_CODE_LENGTH - length;
      this.table.fill(c | (length << 8), code << shift, (code + 1) << shift);
      kraft += 1 << shift;
      code++;
    }
    if (kraft !== 1 << MAX_CODE_LENGTH) throw new Error('search index: a forward code is not complete');
  }

  /** The code for class counts (see codeLengths). */
  static fromCounts(fields: number, counts: ArrayLike<number>): ForwardCode {
    return new ForwardCode(fields, codeLengths(counts));
  }

  /**
   * The code an empty index starts with, until its first compaction counts its own: markers
   * a tenth of the codes each, a term's chance falling with its number (Zipf).
   */
  static initial(fields: number): ForwardCode {
    const counts = new Float64Array(CLASS_COUNT);
    for (let c = 0; c < CLASS_COUNT; c++) {
      const first = Math.max(1, CLASS_BASE[c]!);
      counts[c] = c < TERM_CODE ? 1e5 : (1e6 * 2 ** CLASS_EXTRA[c]!) / first;
    }
    return ForwardCode.fromCounts(fields, counts);
  }

  /** The bits a code value of class c takes. */
  classBits(c: number): number {
    return this.lengths[c]! + CLASS_EXTRA[c]!;
  }

  /** The most bytes `count` codes can take (for making room before encode). */
  static maxBytes(count: number): number {
    return Math.ceil((count * (MAX_CODE_LENGTH + 30)) / 8) + STREAM_PADDING;
  }

  /** Writes code values `codes[0..count)` from byte `at` (the last byte padded with zeros); returns the end. */
  encode(codes: Uint32Array, count: number, out: Uint8Array, at: number): number {
    const lengths = this.lengths;
    const codewords = this.codewords;
    const writer = this.writer;
    writer.begin(out, at);
    for (let i = 0; i < count; i++) {
      const v = codes[i]!;
      const c = classOf(v);
      writer.put(codewords[c]!, lengths[c]!);
      const extra = CLASS_EXTRA[c]!;
      const offset = v - CLASS_BASE[c]!;
      if (extra > 24) {
        // in two: the top bits, then the low 16
        writer.put(Math.floor(offset / 0x10000), extra - 16);
        writer.put(offset & 0xffff, 16);
      } else if (extra > 0) {
        writer.put(offset, extra);
      }
    }
    return writer.end();
  }

  /**
   * Reads the document whose codes start at byte `at` into `out` (room for 8 values per byte
   * of the document at least: no code is shorter than a bit); returns how many.
   */
  decode(forward: Uint8Array, at: number, out: Uint32Array): number {
    const table = this.table;
    const fields = this.fields;
    let i = at;
    let s = 0;
    let count = 0;
    let ends = 0;
    // No branch tells a small class from one with plain bits (about half of the codes each, in
    // no order a branch predictor could learn): a small class reads 0 plain bits. The plain
    // bits are nearly always in the same four bytes as the code (a term of rank below 2^15).
    while (ends < fields) {
      const word = (forward[i]! << 24) | (forward[i + 1]! << 16) | (forward[i + 2]! << 8) | forward[i + 3]!;
      const entry = table[(word << s) >>> (32 - MAX_CODE_LENGTH)]!;
      const c = entry & 0xff;
      const used = s + (entry >>> 8);
      let extra = CLASS_EXTRA[c]!;
      let v = CLASS_BASE[c]!;
      if (used + extra <= 32) {
        v += ((word << used) >>> 1) >>> (31 - extra);
        s = used + extra;
      } else {
        s = used;
        i += s >>> 3;
        s &= 7;
        if (extra > 24) {
          // a term id past 2^27: its top bits first
          v += readBits(forward, i, s, extra - 16) * 0x10000;
          s += extra - 16;
          i += s >>> 3;
          s &= 7;
          extra = 16;
        }
        v += readBits(forward, i, s, extra);
        s += extra;
      }
      i += s >>> 3;
      s &= 7;
      ends += v === FIELD_END ? 1 : 0;
      out[count++] = v;
    }
    return count;
  }
}

/** `n` (1 to 24) bits from bit `s` of byte `i`. */
export function readBits(forward: Uint8Array, i: number, s: number, n: number): number {
  const word = (forward[i]! << 24) | (forward[i + 1]! << 16) | (forward[i + 2]! << 8) | forward[i + 3]!;
  return (word << s) >>> (32 - n);
}
