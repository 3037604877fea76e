/** Small helpers for typed arrays that grow by doubling. */

export type GrowableArray = Uint8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

/**
 * The same array when it already holds `needed` elements, else a copy with at least double the
 * capacity (the new tail is zero, or `fill` when given: NaN for numeric columns).
 */
export function ensureCapacity<T extends GrowableArray>(array: T, needed: number, fill?: number): T {
  if (needed <= array.length) return array;
  // doubling while small; past a million elements +50%, so that a large column does not
  // double its memory for a few appended documents
  const grown = array.length < 1 << 20 ? array.length * 2 : Math.ceil(array.length * 1.5);
  const capacity = Math.max(16, needed, grown);
  const Constructor = array.constructor as new (length: number) => T;
  const next = new Constructor(capacity);
  (next as Uint8Array).set(array as Uint8Array);
  if (fill !== undefined && fill !== 0) next.fill(fill, array.length);
  return next;
}

/** 32-bit FNV-1a's start and multiplier (hashString, and PackedStrings.hash over the same code units as bytes). */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a over UTF-16 code units, finished with murmur3's avalanche: a stable id hash. */
export function hashString(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return mix32(hash);
}

/** murmur3's 32-bit finalizer: every input bit flips about half of the output bits. */
export function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A number that orders like the string's first seven characters (7 bits each when ASCII): two
 * ids with different keys compare like their keys, equal keys need the strings. Most id
 * comparisons then never touch the strings. A character from 127 up counts as 127 and ends the
 * key (the rest as if the id ended there): the characters after it cannot order two ids whose
 * 127s may stand for different characters.
 */
export function idOrderKey(id: string): number {
  let key = 0;
  let ended = false;
  for (let i = 0; i < 7; i++) {
    const code = ended || i >= id.length ? 0 : Math.min(id.charCodeAt(i), 127);
    if (code === 127) ended = true;
    key = key * 128 + code;
  }
  return key;
}

/** Set bits of a 32-bit word. */
export function bitCount(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/**
 * The array cut down to exactly `length` elements (a copy), or the array itself when it has no
 * more: what a snapshot load allocates, so that an index built in process ends as small.
 */
export function fitted<T extends GrowableArray>(array: T, length: number): T {
  if (array.length <= length) return array;
  return (array as Uint8Array).slice(0, length) as unknown as T;
}
