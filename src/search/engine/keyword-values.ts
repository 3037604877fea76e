import { PackedStrings } from './packed-strings.js';
import { type SnapshotReader, type SnapshotWriter } from './snapshot-format.js';
import { ensureCapacity, fitted, FNV_OFFSET, FNV_PRIME, mix32 } from './typed-arrays.js';

/** The largest value kept as a number (2^32 - 1 is left out: every kept value fits a u32 with room). */
const MAX_NUMBER = 0xfffffffe;

/**
 * A keyword column's values, by id: four bytes each while every value is a number written
 * as JavaScript writes it (digits, no leading zero, below 2^32 - 1), else packed strings
 * (packed-strings.ts) from the first value that is not — the numbers so far are written out
 * then, once. `keyword_id`'s values are the catalogue's keyword ids (a value for nearly every
 * asset at a million): as packed strings they took their characters and a four-byte offset
 * each. A value is still asked for and given as a string.
 */
export class KeywordValues {
  /** the values while all are numbers, else null */
  private numbers: Uint32Array | null;
  /** the values once one is not a number, else null */
  private strings: PackedStrings | null;
  private count: number;

  constructor(numbers: Uint32Array | null = new Uint32Array(16), strings: PackedStrings | null = null, count = 0) {
    this.numbers = numbers;
    this.strings = strings;
    this.count = count;
  }

  get length(): number {
    return this.count;
  }

  /** Whether the values are kept as numbers. */
  get numeric(): boolean {
    return this.numbers !== null;
  }

  append(text: string): void {
    if (this.numbers !== null) {
      const value = numberOf(text);
      if (value >= 0) {
        this.numbers = ensureCapacity(this.numbers, this.count + 1);
        this.numbers[this.count++] = value;
        return;
      }
      const strings = new PackedStrings();
      for (let i = 0; i < this.count; i++) strings.append(String(this.numbers[i]));
      this.strings = strings;
      this.numbers = null;
    }
    this.strings!.append(text);
    this.count++;
  }

  /** Value i as a string (a new one). */
  get(i: number): string {
    return this.numbers !== null ? String(this.numbers[i]) : this.strings!.get(i);
  }

  /** Whether value i is `key`, without making a string. */
  equals(i: number, key: string): boolean {
    return this.numbers !== null ? this.numbers[i] === numberOf(key) : this.strings!.equals(i, key);
  }

  /** Whether values i and j are the same. */
  entriesEqual(i: number, j: number): boolean {
    return this.numbers !== null ? this.numbers[i] === this.numbers[j] : this.strings!.entriesEqual(i, j);
  }

  /** Negative when value i orders before value j as JavaScript compares strings, 0 when equal (no string made). */
  compare(i: number, j: number): number {
    if (this.numbers === null) return this.strings!.compare(i, j);
    const a = this.numbers[i]!;
    const b = this.numbers[j]!;
    if (a === b) return 0;
    // digit by digit from the first, as the strings compare ("10" before "9")
    let unitA = topUnit(a);
    let unitB = topUnit(b);
    let restA = a;
    let restB = b;
    while (unitA >= 1 && unitB >= 1) {
      const digitA = Math.floor(restA / unitA);
      const digitB = Math.floor(restB / unitB);
      if (digitA !== digitB) return digitA - digitB;
      restA -= digitA * unitA;
      restB -= digitB * unitB;
      unitA /= 10;
      unitB /= 10;
    }
    // one is the other's prefix: the shorter first
    return unitA >= 1 ? 1 : -1;
  }

  /** hashString of value i, from its digits when a number (no string made). */
  hash(i: number): number {
    if (this.numbers === null) return this.strings!.hash(i);
    const value = this.numbers[i]!;
    let hash = FNV_OFFSET;
    let unit = topUnit(value);
    for (let rest = value; unit >= 1; unit /= 10) {
      const digit = Math.floor(rest / unit);
      rest -= digit * unit;
      hash = Math.imul(hash ^ (48 + digit), FNV_PRIME);
    }
    return mix32(hash);
  }

  /** Drops the room kept for more values (as a snapshot load leaves them; appends grow them again). */
  fit(): void {
    if (this.numbers !== null) this.numbers = fitted(this.numbers, this.count);
    else this.strings!.truncate(this.count);
  }

  /** Bytes held in typed arrays (capacity included). */
  byteSize(): number {
    return this.numbers !== null ? this.numbers.byteLength : this.strings!.byteSize();
  }

  /** Writes the values under `name`: the numbers as they are, or the packed strings' sections. */
  addTo(writer: SnapshotWriter, name: string): void {
    if (this.numbers !== null) writer.add(`${name}.numbers`, this.numbers, this.count);
    else this.strings!.addTo(writer, name);
  }

  /** The values written by `addTo` under `name`. */
  static read(reader: SnapshotReader, name: string): KeywordValues {
    if (reader.has(`${name}.numbers`)) {
      const numbers = reader.u32(`${name}.numbers`);
      for (const value of numbers) if (value > MAX_NUMBER) throw new Error(`search index snapshot: values ${name} are corrupt`);
      return new KeywordValues(numbers, null, numbers.length);
    }
    const strings = PackedStrings.read(reader, name);
    return new KeywordValues(null, strings, strings.length);
  }
}

/** The power of ten of a number's first digit (1 for 0). */
function topUnit(value: number): number {
  let unit = 1;
  while (unit * 10 <= value) unit *= 10;
  return unit;
}

/** The number `text` writes as JavaScript would (String(n) === text), up to MAX_NUMBER; else -1. */
export function numberOf(text: string): number {
  const length = text.length;
  if (length === 0 || length > 10 || (length > 1 && text.charCodeAt(0) === 48)) return -1;
  let value = 0;
  for (let k = 0; k < length; k++) {
    const digit = text.charCodeAt(k) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value <= MAX_NUMBER ? value : -1;
}
