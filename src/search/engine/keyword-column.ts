import { IdOrdinals } from './id-ordinals.js';
import { KeywordValues } from './keyword-values.js';
import { bitCount, ensureCapacity, fitted, hashString } from './typed-arrays.js';
import type { FacetCount } from './types.js';
import { ValueListWriter, ValueLists } from './value-lists.js';

const EMPTY = new Uint32Array(0);

/** A per-document array in the narrowest of three widths its column's value count allows. */
type NarrowArray = Uint8Array | Uint16Array | Uint32Array;
/**
 * One value per document, as value id + 1 (0: none), in `bits` bits (see singleBits): packed
 * 8, 4 or 2 documents a byte while the column has at most 1, 3 or 15 values, else a byte, two
 * or four a document. Document d's value is `(single[d >>> docShift] >>> ((d & docMask) <<
 * bitsLog)) & mask` (SingleShape; the shifts are 0 in the whole-element widths), the same
 * few instructions for every width, so the filter and facet loops keep one shape.
 */
export type SingleValues = NarrowArray;
/** How document d's value is read from `single` (see SingleValues). */
export interface SingleShape {
  readonly bits: number;
  readonly docShift: number;
  readonly docMask: number;
  readonly bitsLog: number;
  readonly mask: number;
}
/** Each document's values as the bits of one number (bit v: value id v), for a column of at most 32 values. */
export type ValueMasks = NarrowArray;
/** Each document's start in docValues from its block's start (see KeywordColumn.startOf). */
export type DocOffsets = NarrowArray;
/** The value ids of the offsets + values layout: a byte each while the column has at most 256 values, two to 65,536, else four. */
export type DocValues = NarrowArray;
const NO_VALUES: NarrowArray = new Uint8Array(0);

/** A multi-valued column of at most this many values keeps a bitmask per document (see the class comment). */
const MAX_MASKED_VALUES = 32;

/**
 * Bits per document of `single` for `valueCount` values (value id + 1 must fit): a catalogue's
 * single-valued attributes are mostly of a handful of values (asset type, family, licence,
 * colour type, orientation, style, collection: nine of them took nine bytes a document, 8.6 MB
 * a million assets, and take 21 bits).
 */
const singleBits = (valueCount: number): number =>
  valueCount <= 1 ? 1 : valueCount <= 3 ? 2 : valueCount <= 15 ? 4 : valueCount <= 0xff ? 8 : valueCount <= 0xffff ? 16 : 32;

function singleShapeOf(bits: number): SingleShape {
  if (bits >= 8) return { bits, docShift: 0, docMask: 0, bitsLog: 0, mask: bits === 32 ? -1 : (1 << bits) - 1 };
  const bitsLog = bits === 1 ? 0 : bits === 2 ? 1 : 2;
  return { bits, docShift: 3 - bitsLog, docMask: (8 >>> bitsLog) - 1, bitsLog, mask: (1 << bits) - 1 };
}

/** Elements of `single` for `docs` documents of `bits` bits. */
const singleLength = (bits: number, docs: number): number => (bits >= 8 ? docs : Math.ceil((docs * bits) / 8));

/** A zeroed `single` of `bits` bits a document for `docs` documents. */
const singleArray = (bits: number, docs: number): SingleValues => narrowArray(bits <= 8 ? 1 : bits / 8, singleLength(bits, docs));

/** Document d's value id + 1 in `single` (see SingleValues). */
function singleAt(single: SingleValues, shape: SingleShape, d: number): number {
  return (single[d >>> shape.docShift]! >>> ((d & shape.docMask) << shape.bitsLog)) & shape.mask;
}

/** Sets document d's value id + 1 in `single` (its element must exist). */
function setSingleAt(single: SingleValues, shape: SingleShape, d: number, shifted: number): void {
  const e = d >>> shape.docShift;
  const at = (d & shape.docMask) << shape.bitsLog;
  single[e] = (single[e]! & ~(shape.mask << at)) | (shifted << at);
}
/** Bytes per document of `masks` for `valueCount` values (a bit each). */
const maskWidth = (valueCount: number): number => (valueCount <= 8 ? 1 : valueCount <= 16 ? 2 : 4);
/** Bytes per value of `docValues` for `valueCount` values (the value id must fit). */
const valueWidth = (valueCount: number): number => (valueCount <= 0x100 ? 1 : valueCount <= 0x10000 ? 2 : 4);

/** A zeroed array of `length` elements of `bytes` bytes each. */
function narrowArray(bytes: number, length: number): NarrowArray {
  return bytes === 1 ? new Uint8Array(length) : bytes === 2 ? new Uint16Array(length) : new Uint32Array(length);
}

/** `array` while its elements have `bytes` bytes or more, else a copy with elements of `bytes` bytes. */
function widened(array: NarrowArray, bytes: number): NarrowArray {
  if (array.BYTES_PER_ELEMENT >= bytes) return array;
  const wider = narrowArray(bytes, array.length);
  wider.set(array);
  return wider;
}

/**
 * A value in 1/32 of the documents or more (of an index of 1,024 or more) is dense: a bitmap of
 * all documents is then no bigger than its list, and it is kept as that bitmap only.
 */
function isDense(count: number, docCount: number): boolean {
  return docCount >= 1024 && count * 32 >= docCount;
}

/** Which documents a compaction keeps: the live bitmap, and the live documents before each of its words (their new ordinals' base). */
export interface Survivors {
  live: Uint32Array;
  liveBefore: Uint32Array;
}

/**
 * A multi-valued string attribute, dictionary-encoded, kept in the shapes its readers want:
 *
 * - per document: facet counting over a match set and the filter check of one candidate read
 *   a document's few values — a sequential read whatever the size of the dictionary (an event
 *   attribute has ~20k values: counting them from per-value bitmaps would be 20k bitmap
 *   intersections per facet). Most attributes never give a document two values (orientation,
 *   artist, collection): those keep one number per document, `single[d]` (value id + 1, 0 for
 *   none). The first document with two values switches the column to several values per
 *   document for good — until a compaction finds no live document with two values left: a
 *   column of at most 32 values (product types, segments, moods, formats) to one bitmask per
 *   document (`masks[d]`, bit v for value v), a larger one (people, events) to offsets +
 *   values (`docValues[start(d)..start(d + 1))`, see startOf); a masked column that gains a 33rd
 *   value moves to offsets + values. A column holds one layout, never two: at a million
 *   documents and two dozen attributes that is 200 MB less. Each layout's array is as narrow
 *   as the column's value count allows (a byte, two, four: see maskWidth, valueWidth; one
 *   value a document packed below a byte too, see singleBits), widened when a value no longer
 *   fits. The bitmask is both the smallest and the fastest multi-valued layout: product types (1–3 of 5 values a document) took 15
 *   bytes a document as u32 offsets + values and take one byte as masks, a filter check is
 *   one AND (2–3× faster than walking the values, measured on a million documents) and
 *   facet counting walks the set bits (as fast as walking the values, or faster).
 * - per value, as lists of ordinals (delta-coded, see value-lists.ts): a selective filter (one
 *   artist, one event) drives the search from its few documents instead of checking every
 *   document of a common term.
 * - per dense value (≥ 1/32 of the documents, where a bitmap is no bigger than the list), as a
 *   bitmap over ordinals instead of a list: a broad filter (royalty-free, horizontal,
 *   editorial) is AND-ed into the match set a word at a time. A dense value's documents
 *   appended since the last build are in its bitmap and in a tail list.
 *
 * `liveCounts` (documents per value, deleted ones excluded) gives the cost of a filter before
 * running it and the facet counts of the whole index without a scan.
 *
 * A filter-only column (`keyword_id`: a dozen values a document, never a facet) keeps nothing
 * per document: its values and documents go straight to the lists (and the dense values'
 * bitmaps), a compaction renumbers the lists through the live documents' new ordinals, and a
 * filter that does not drive the search is checked through a bitmap of its values' documents
 * (IndexSearcher). Its `liveCounts` then count deleted documents too until the next compaction
 * (a deletion cannot tell which values its document had): they only weigh a filter's cost, and
 * a value no document ever had still counts 0.
 */
export class KeywordColumn {
  readonly name: string;
  /** nothing per document, lists only: see the class comment */
  readonly filterOnly: boolean;
  /** numbers or packed strings outside the heap (keyword-values.ts): `keyword_id` has nearly a value for each asset */
  values = new KeywordValues();
  /** each value's hashString, which valueIds is keyed by */
  private valueHashes: Uint32Array = new Uint32Array(16);
  /**
   * value → id: the table of the ids' ordinals (id-ordinals.ts) over the values, where a Map
   * held about 30 bytes of heap a value (`keyword_id` has nearly one for each asset)
   */
  private readonly valueIds: IdOrdinals;
  liveCounts: Uint32Array = new Uint32Array(16);
  /**
   * single-valued layout: value id + 1 per document, 0 for none. Empty in the other layouts,
   * and while the column has no value at all (many attributes of a catalogue stay unused).
   */
  single: SingleValues = NO_VALUES;
  /** how `single` is read (its width follows the column's value count) */
  singleShape: SingleShape = singleShapeOf(8);
  /** multi-valued layout of a column of at most 32 values: a bitmask per document (empty in the other layouts) */
  masks: ValueMasks = NO_VALUES;
  /**
   * multi-valued layout of more values (offsets + values; empty in the other layouts): where
   * each block of 32 documents starts in docValues, and where each document starts from its
   * block's start (see startOf)
   */
  blockStart: Uint32Array = EMPTY;
  docOffset: DocOffsets = NO_VALUES;
  docValues: DocValues = NO_VALUES;
  /** blockStart as it was before a compaction moved the documents (the compaction overwrites it as it goes) */
  private blockStartBefore: Uint32Array = EMPTY;
  private layoutKind: 'single' | 'masks' | 'offsets' = 'single';
  /** a bitmap per dense value (at the last build), else null; documents appended since are added */
  bitmaps: (Uint32Array | null)[] = [];
  readonly lists = new ValueLists();
  private counts: Uint32Array = new Uint32Array(16);
  /** the values a search's documents have (topValues' scratch) */
  private touched: Uint32Array = new Uint32Array(16);
  /** scratch: the value ids of the document being appended */
  private appending: number[] = [];

  constructor(name: string, filterOnly = false) {
    this.name = name;
    this.filterOnly = filterOnly;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the table reads the column's current arrays
    const column = this;
    this.valueIds = new IdOrdinals({
      get ids() {
        return column.values;
      },
      get idHash() {
        return column.valueHashes;
      },
    });
  }

  get valueCount(): number {
    return this.values.length;
  }

  /** Whether the column keeps one value per document (`single`), not several. */
  get singleValued(): boolean {
    return this.layoutKind === 'single' && !this.filterOnly;
  }

  /** Whether the column keeps several values per document as bitmasks (`masks`), not offsets + values. */
  get masked(): boolean {
    return this.layoutKind === 'masks';
  }

  idOf(value: string): number | undefined {
    const id = this.valueIds.get(value);
    return id < 0 ? undefined : id;
  }

  private intern(value: string): number {
    let id = this.valueIds.get(value);
    if (id < 0) {
      id = this.values.length;
      this.values.append(value);
      this.valueHashes = ensureCapacity(this.valueHashes, id + 1);
      this.valueHashes[id] = hashString(value);
      this.valueIds.set(id);
      this.liveCounts = ensureCapacity(this.liveCounts, id + 1);
    }
    return id;
  }

  /**
   * Where document d's values start in docValues (d up to the document count: then where the
   * last one's end): its block's start plus its own offset. A u32 start per document cost
   * four bytes; the offset within a block of 32 fits a byte until the block's documents hold
   * 256 values (then two bytes, four past 65,536), and a block's u32 start adds an eighth of a
   * byte a document — two more reads per document, which facet counting and the filter check
   * do not notice (see countMulti).
   */
  private startOf(d: number): number {
    return this.blockStart[d >>> 5]! + this.docOffset[d]!;
  }

  /** Records that document d's values start at `start` (every document before it recorded). */
  private setStart(d: number, start: number): void {
    // Each growth and widening is asked for here, where the arrays' few kinds are known, and not
    // in the shared helpers: there the kind of every column's array meets, and reading the length
    // of so many kinds of typed array was a build's slowest step of appending (6.9 s of a million).
    if (d >= this.docOffset.length) this.docOffset = ensureCapacity(this.docOffset, d + 1);
    if ((d & 31) === 0) {
      if (d >>> 5 >= this.blockStart.length) this.blockStart = ensureCapacity(this.blockStart, (d >>> 5) + 1);
      this.blockStart[d >>> 5] = start;
      this.docOffset[d] = 0;
      return;
    }
    const offset = start - this.blockStart[d >>> 5]!;
    const bytes = offset <= 0xff ? 1 : offset <= 0xffff ? 2 : 4;
    if (this.docOffset.BYTES_PER_ELEMENT < bytes) this.docOffset = widened(this.docOffset, bytes);
    this.docOffset[d] = offset;
  }

  /** Calls `visit` with each value id of document `d`. */
  private forEachValue(d: number, visit: (value: number) => void): void {
    if (this.layoutKind === 'offsets') {
      for (let j = this.startOf(d), end = this.startOf(d + 1); j < end; j++) visit(this.docValues[j]!);
    } else if (this.layoutKind === 'masks') {
      for (let bits = this.masks[d]! | 0; bits !== 0; bits &= bits - 1) visit(31 - Math.clz32(bits & -bits));
    } else if (d < this.singleCapacity()) {
      const shifted = singleAt(this.single, this.singleShape, d);
      if (shifted !== 0) visit(shifted - 1);
    }
  }

  /** Documents `single` has room for. */
  private singleCapacity(): number {
    return this.single.length << this.singleShape.docShift;
  }

  /** Makes `single` as wide as `valueCount` values need (moving the documents so far) and room for `docs` documents. */
  private fitSingle(valueCount: number, docs: number): void {
    const bits = singleBits(valueCount);
    if (this.single.length === 0 || bits > this.singleShape.bits) {
      const shape = singleShapeOf(bits);
      const single = singleArray(bits, Math.max(16, docs, this.singleCapacity()));
      for (let d = 0, end = this.singleCapacity(); d < end; d++) setSingleAt(single, shape, d, singleAt(this.single, this.singleShape, d));
      this.single = single;
      this.singleShape = shape;
    }
    const length = singleLength(this.singleShape.bits, docs);
    if (length > this.single.length) this.single = ensureCapacity(this.single, length);
  }

  /** Values of the next document, `ordinal` being the number of documents so far. */
  append(ordinal: number, values: readonly string[] | undefined): void {
    const ids = this.appending;
    ids.length = 0;
    if (values !== undefined) {
      for (const value of values) {
        if (typeof value !== 'string') continue;
        const id = this.intern(value);
        if (!ids.includes(id)) ids.push(id);
      }
    }
    if (!this.filterOnly) this.storeValues(ordinal, ids);
    for (const id of ids) {
      this.liveCounts[id]!++;
      const bitmap = this.bitmaps[id];
      if (bitmap !== undefined && bitmap !== null) {
        const word = ordinal >>> 5;
        // (growth asked for here: see setStart)
        const grown = word < bitmap.length ? bitmap : ensureCapacity(bitmap, word + 1);
        grown[word] = grown[word]! | (1 << (ordinal & 31));
        this.bitmaps[id] = grown;
      } else if (this.filterOnly) {
        this.lists.add(id, ordinal);
      }
    }
  }

  /**
   * Keeps a document's values (`ids`) in the per-document layout, first switching layouts (the
   * first document with two values; the 33rd value of a masked column) and widening the
   * layout's array when the column's values no longer fit it.
   */
  private storeValues(ordinal: number, ids: readonly number[]): void {
    const valueCount = this.values.length;
    if (ids.length > 1 && this.layoutKind === 'single') this.switchToMulti(ordinal);
    if (this.layoutKind === 'masks' && valueCount > MAX_MASKED_VALUES) this.switchToOffsets(ordinal);
    // (growth and widening asked for here: see setStart)
    if (this.layoutKind === 'offsets') {
      const start = this.startOf(ordinal);
      if (this.docValues.BYTES_PER_ELEMENT < valueWidth(valueCount)) this.docValues = widened(this.docValues, valueWidth(valueCount));
      if (start + ids.length > this.docValues.length) this.docValues = ensureCapacity(this.docValues, start + ids.length);
      for (let i = 0; i < ids.length; i++) this.docValues[start + i] = ids[i]!;
      this.setStart(ordinal + 1, start + ids.length);
    } else if (this.layoutKind === 'masks') {
      if (this.masks.BYTES_PER_ELEMENT < maskWidth(valueCount)) this.masks = widened(this.masks, maskWidth(valueCount));
      if (ordinal >= this.masks.length) this.masks = ensureCapacity(this.masks, ordinal + 1);
      let bits = 0;
      for (const id of ids) bits |= 1 << id;
      this.masks[ordinal] = bits;
    } else if (valueCount > 0) {
      this.fitSingle(valueCount, ordinal + 1);
      setSingleAt(this.single, this.singleShape, ordinal, ids.length > 0 ? ids[0]! + 1 : 0);
    }
  }

  /** The first document with two values: the `docCount` documents so far move to bitmasks, or to offsets + values past 32 values. */
  private switchToMulti(docCount: number): void {
    if (this.values.length > MAX_MASKED_VALUES) {
      this.switchToOffsets(docCount);
      return;
    }
    const masks = narrowArray(maskWidth(this.values.length), Math.max(16, docCount + 1, this.singleCapacity()));
    for (let d = 0; d < docCount && d < this.singleCapacity(); d++) {
      const shifted = singleAt(this.single, this.singleShape, d);
      if (shifted !== 0) masks[d] = 1 << (shifted - 1);
    }
    this.masks = masks;
    this.single = NO_VALUES;
    this.layoutKind = 'masks';
  }

  /** The `docCount` documents so far, in either other layout, move to offsets + values (for good, as in switchToMulti). */
  private switchToOffsets(docCount: number): void {
    // the other layouts read nothing of these: each document's start is recorded as its values are copied
    this.blockStart = new Uint32Array(Math.max(16, (docCount >>> 5) + 2));
    this.docOffset = new Uint8Array(Math.max(16, docCount + 2));
    let docValues = narrowArray(valueWidth(this.values.length), Math.max(16, docCount));
    let write = 0;
    for (let d = 0; d < docCount; d++) {
      this.setStart(d, write);
      this.forEachValue(d, (value) => {
        docValues = ensureCapacity(docValues, write + 1);
        docValues[write++] = value;
      });
    }
    this.setStart(docCount, write);
    this.docValues = docValues;
    this.single = NO_VALUES;
    this.masks = NO_VALUES;
    this.layoutKind = 'offsets';
  }

  /** A document was deleted: it no longer counts. */
  release(ordinal: number): void {
    this.forEachValue(ordinal, (value) => this.liveCounts[value]!--);
  }

  /** Adds a document appended since the last build to the per-value lists (a dense value's bitmap has it already, see append). */
  indexTail(ordinal: number): void {
    this.forEachValue(ordinal, (value) => {
      if (!this.bitmaps[value]) this.lists.add(value, ordinal);
    });
  }

  /** Moves a kept document's values down to its new ordinal during compaction (next ≤ old). */
  compactInto(oldOrdinal: number, newOrdinal: number, write: number): number {
    if (this.layoutKind === 'single') {
      if (this.single.length > 0) setSingleAt(this.single, this.singleShape, newOrdinal, singleAt(this.single, this.singleShape, oldOrdinal));
      return write;
    }
    if (this.layoutKind === 'masks') {
      this.masks[newOrdinal] = this.masks[oldOrdinal]!;
      return write;
    }
    // the document's old place: its block's start from before the compaction, its offset not yet overwritten (next ≤ old)
    const from = this.blockStartBefore[oldOrdinal >>> 5]! + this.docOffset[oldOrdinal]!;
    const to = this.blockStartBefore[(oldOrdinal + 1) >>> 5]! + this.docOffset[oldOrdinal + 1]!;
    if (write !== from) this.docValues.copyWithin(write, from, to);
    this.setStart(newOrdinal, write);
    return write + (to - from);
  }

  /** Before a compaction moves documents (compactInto): keeps the blocks' starts the moves read. */
  beginCompaction(): void {
    if (this.layoutKind === 'offsets') this.blockStartBefore = this.blockStart.slice();
  }

  /** A compaction that moves no document (none was deleted): as compactInto for each and finishCompaction. */
  finishInPlace(docCount: number): void {
    this.finishCompaction(docCount, this.layoutKind === 'offsets' ? this.startOf(docCount) : 0);
  }

  finishCompaction(docCount: number, write: number): void {
    if (this.layoutKind === 'single') {
      if (this.single.length === 0) return;
      this.single = fitted(this.single, singleLength(this.singleShape.bits, docCount));
      // the last byte's documents past the end held moved documents' values: none now
      for (let d = docCount, end = this.singleCapacity(); d < end; d++) setSingleAt(this.single, this.singleShape, d, 0);
      return;
    }
    if (this.layoutKind === 'masks') {
      this.masks = fitted(this.masks, docCount);
    } else {
      this.setStart(docCount, write);
      this.blockStartBefore = EMPTY;
      // Growth left room for appends; a compacted column keeps none, as a snapshot load leaves it.
      this.blockStart = fitted(this.blockStart, (docCount >>> 5) + 1);
      this.docOffset = fitted(this.docOffset, docCount + 1);
      this.docValues = fitted(this.docValues, write);
    }
    this.useSingleWhenPossible(docCount);
  }

  /** Back to one value per document when no document has two. */
  private useSingleWhenPossible(docCount: number): void {
    if (this.layoutKind === 'masks') {
      for (let d = 0; d < docCount; d++) if ((this.masks[d]! & (this.masks[d]! - 1)) !== 0) return;
    } else {
      for (let d = 0; d < docCount; d++) if (this.startOf(d + 1) - this.startOf(d) > 1) return;
    }
    const shape = singleShapeOf(singleBits(this.values.length));
    const single = this.values.length === 0 ? NO_VALUES : singleArray(shape.bits, docCount + 16);
    for (let d = 0; d < docCount; d++) this.forEachValue(d, (value) => setSingleAt(single, shape, d, value + 1));
    this.single = single;
    this.singleShape = shape;
    this.masks = NO_VALUES;
    this.blockStart = EMPTY;
    this.docOffset = NO_VALUES;
    this.docValues = NO_VALUES;
    this.layoutKind = 'single';
  }

  /**
   * Rebuilds the per-value lists and bitmaps of all `docCount` documents (all alive after
   * compaction): a dense value gets its bitmap and no base list (the bitmap holds the same
   * documents in no more room, see isDense), every other value its list.
   */
  buildPostings(docCount: number): void {
    // a filter-only column's lists and bitmaps were made by renumberLists, before the documents moved
    if (this.filterOnly) return;
    const writer = new ValueListWriter(this.values.length);
    this.forEachSparsePosting(docCount, (value, d) => writer.measure(value, d));
    writer.allocate();
    this.forEachSparsePosting(docCount, (value, d) => writer.write(value, d));
    writer.finish(this.lists);
    this.buildBitmaps(docCount);
    this.fitValues();
  }

  /**
   * Drops the room the per-value arrays kept for more values, at a build: `keyword_id` gains
   * values for as long as the catalogue grows, and its arrays, grown by doubling (by half past
   * a million), held up to twice the room its values need (a snapshot load allocates them
   * exact).
   */
  private fitValues(): void {
    this.values.fit();
    this.valueHashes = fitted(this.valueHashes, this.values.length);
    this.liveCounts = fitted(this.liveCounts, this.values.length);
  }

  /** Calls `visit` with each (value, document) of a value that is not dense, in document order. */
  private forEachSparsePosting(docCount: number, visit: (value: number, d: number) => void): void {
    const sparse = Array.from({ length: this.values.length }, (_, v) => !isDense(this.liveCounts[v]!, docCount));
    if (this.layoutKind === 'offsets') {
      for (let d = 0; d < docCount; d++) {
        for (let j = this.startOf(d), end = this.startOf(d + 1); j < end; j++) {
          const value = this.docValues[j]!;
          if (sparse[value]!) visit(value, d);
        }
      }
    } else if (this.layoutKind === 'masks') {
      for (let d = 0; d < docCount; d++) {
        for (let bits = this.masks[d]! | 0; bits !== 0; bits &= bits - 1) {
          const value = 31 - Math.clz32(bits & -bits);
          if (sparse[value]!) visit(value, d);
        }
      }
    } else if (this.single.length > 0) {
      for (let d = 0; d < docCount; d++) {
        const value = singleAt(this.single, this.singleShape, d) - 1;
        if (value >= 0 && sparse[value]!) visit(value, d);
      }
    }
  }

  /**
   * A filter-only column's lists, at the start of a compaction (`survivors`, null when no
   * document was deleted: the live bitmap and the number of live documents before each of its
   * words, `liveBefore`, still those of the old ordinals): each
   * value's live documents under their new ordinals, counted again, `docCount` of them in all.
   * A dense value's documents are its bitmap (the documents appended since the last build are
   * only there), and it keeps that bitmap alone, as in the other layout: no list beside it.
   */
  renumberLists(survivors: Survivors | null, docCount: number): void {
    const writer = new ValueListWriter(this.values.length);
    this.liveCounts.fill(0);
    this.forEachLivePosting(survivors, (value, d) => {
      writer.measure(value, d);
      this.liveCounts[value]!++;
    });
    const words = (docCount + 31) >>> 5;
    const bitmaps = Array.from({ length: this.values.length }, (_, v) => (isDense(this.liveCounts[v]!, docCount) ? new Uint32Array(words) : null));
    writer.allocate((value) => bitmaps[value] === null);
    this.forEachLivePosting(survivors, (value, d) => {
      const bitmap = bitmaps[value];
      if (bitmap) bitmap[d >>> 5] = bitmap[d >>> 5]! | (1 << (d & 31));
      else writer.write(value, d);
    });
    writer.finish(this.lists);
    this.bitmaps = bitmaps;
    this.fitValues();
  }

  /** A filter-only column's dense values and their bitmaps, for a snapshot (they have no list to rebuild them from). */
  denseBitmaps(docCount: number): Array<readonly [number, Uint32Array]> {
    const dense: Array<readonly [number, Uint32Array]> = [];
    this.bitmaps.forEach((bitmap, v) => {
      if (bitmap !== null) dense.push([v, bitmap.subarray(0, (docCount + 31) >>> 5)]);
    });
    return dense;
  }

  /** Restores a filter-only column's dense bitmaps (see denseBitmaps). */
  restoreBitmaps(dense: ReadonlyArray<readonly [number, Uint32Array]>, docCount: number): void {
    this.bitmaps = new Array<Uint32Array | null>(this.values.length).fill(null);
    for (const [value, bitmap] of dense) {
      if (value >= this.values.length || bitmap.length !== (docCount + 31) >>> 5) throw new Error(`search index snapshot: column ${this.name} has a bitmap out of step`);
      this.bitmaps[value] = bitmap;
    }
  }

  /** Calls `visit` with each value and live document of it, under the document's new ordinal, value after value. */
  private forEachLivePosting(survivors: Survivors | null, visit: (value: number, d: number) => void): void {
    if (survivors === null) {
      this.forEachPosting(visit);
      return;
    }
    const { live, liveBefore } = survivors;
    const renumbered = (d: number): number => liveBefore[d >>> 5]! + bitCount(live[d >>> 5]! & ((1 << (d & 31)) - 1));
    const isLive = (d: number): boolean => (live[d >>> 5]! & (1 << (d & 31))) !== 0;
    for (let v = 0; v < this.values.length; v++) {
      const bitmap = this.bitmaps[v];
      if (bitmap !== undefined && bitmap !== null) {
        for (let w = 0; w < bitmap.length && w < live.length; w++) {
          for (let bits = bitmap[w]! & live[w]!; bits !== 0; bits &= bits - 1) visit(v, renumbered(w * 32 + 31 - Math.clz32(bits & -bits)));
        }
        continue;
      }
      for (const [docs, start, end] of this.lists.listsOf([v])) {
        for (let i = start; i < end; i++) if (isLive(docs[i]!)) visit(v, renumbered(docs[i]!));
      }
    }
  }

  /** forEachLivePosting when every document is live: each value's documents as they are (a build's case, millions of values). */
  private forEachPosting(visit: (value: number, d: number) => void): void {
    const value = [0];
    for (let v = 0; v < this.values.length; v++) {
      const bitmap = this.bitmaps[v];
      if (bitmap !== undefined && bitmap !== null) {
        for (let w = 0; w < bitmap.length; w++) {
          for (let bits = bitmap[w]!; bits !== 0; bits &= bits - 1) visit(v, w * 32 + 31 - Math.clz32(bits & -bits));
        }
        continue;
      }
      value[0] = v;
      for (const [docs, start, end] of this.lists.listsOf(value)) {
        for (let i = start; i < end; i++) visit(v, docs[i]!);
      }
    }
  }


  /**
   * Bitmaps for the dense values, from the per-document layout (all documents alive): a dense
   * value has no base list to read them from.
   */
  buildBitmaps(docCount: number): void {
    const words = (docCount + 31) >>> 5;
    this.bitmaps = Array.from({ length: this.values.length }, (_, v) => (isDense(this.liveCounts[v]!, docCount) ? new Uint32Array(words) : null));
    const bitmaps = this.bitmaps;
    if (!bitmaps.some((bitmap) => bitmap !== null)) return;
    for (let d = 0; d < docCount; d++) {
      const bit = 1 << (d & 31);
      const w = d >>> 5;
      if (this.layoutKind === 'offsets') {
        for (let j = this.startOf(d), end = this.startOf(d + 1); j < end; j++) {
          const bitmap = bitmaps[this.docValues[j]!];
          if (bitmap) bitmap[w] = bitmap[w]! | bit;
        }
      } else if (this.layoutKind === 'masks') {
        for (let bits = this.masks[d]! | 0; bits !== 0; bits &= bits - 1) {
          const bitmap = bitmaps[31 - Math.clz32(bits & -bits)];
          if (bitmap) bitmap[w] = bitmap[w]! | bit;
        }
      } else if (singleAt(this.single, this.singleShape, d) !== 0) {
        const bitmap = bitmaps[singleAt(this.single, this.singleShape, d) - 1];
        if (bitmap) bitmap[w] = bitmap[w]! | bit;
      }
    }
  }

  /** The per-document layout for a snapshot: `single`, `masks`, or offsets + values. */
  layout(docCount: number): { single: SingleValues } | { masks: ValueMasks } | { blockStart: Uint32Array; docOffset: DocOffsets; docValues: DocValues } {
    if (this.layoutKind === 'masks') return { masks: this.masks.subarray(0, docCount) };
    if (this.layoutKind === 'offsets') {
      return { blockStart: this.blockStart.subarray(0, (docCount >>> 5) + 1), docOffset: this.docOffset.subarray(0, docCount + 1), docValues: this.docValues.subarray(0, this.startOf(docCount)) };
    }
    return { single: this.single.subarray(0, this.single.length === 0 ? 0 : singleLength(this.singleShape.bits, docCount)) };
  }

  /** Restores a column from a snapshot (its lists are set separately); a filter-only column has no layout. */
  restore(values: KeywordValues, liveCounts: Uint32Array, layout: ReturnType<KeywordColumn['layout']> | null, docCount: number): void {
    this.values = values;
    this.valueHashes = new Uint32Array(values.length + 16);
    for (let id = 0; id < values.length; id++) this.valueHashes[id] = values.hash(id);
    this.valueIds.rebuild(values.length);
    this.liveCounts = ensureCapacity(liveCounts, 16);
    if (this.filterOnly !== (layout === null)) throw new Error(`search index snapshot: column ${this.name} has ${layout === null ? 'no' : 'a'} per-document layout`);
    if (layout === null) return;
    this.single = NO_VALUES;
    this.masks = NO_VALUES;
    this.blockStart = EMPTY;
    this.docOffset = NO_VALUES;
    this.docValues = NO_VALUES;
    const wrongLength = new Error(`search index snapshot: column ${this.name} has the wrong length`);
    if ('single' in layout) {
      const shape = singleShapeOf(singleBits(values.length));
      if (layout.single.length !== singleLength(shape.bits, docCount) && !(values.length === 0 && layout.single.length === 0)) throw wrongLength;
      if (values.length > 0) {
        if (layout.single.BYTES_PER_ELEMENT !== Math.max(1, shape.bits / 8)) throw wrongLength;
        this.single = singleArray(shape.bits, docCount + 16);
        this.single.set(layout.single);
        this.singleShape = shape;
      }
      this.layoutKind = 'single';
      return;
    }
    if ('masks' in layout) {
      if (layout.masks.length !== docCount) throw wrongLength;
      if (values.length > MAX_MASKED_VALUES) throw new Error(`search index snapshot: column ${this.name} has bitmasks for ${values.length} values`);
      this.masks = narrowArray(maskWidth(values.length), docCount + 16);
      this.masks.set(layout.masks);
      this.layoutKind = 'masks';
    } else {
      if (layout.docOffset.length !== docCount + 1 || layout.blockStart.length !== (docCount >>> 5) + 1) throw wrongLength;
      this.blockStart = ensureCapacity(layout.blockStart, 16);
      this.docOffset = ensureCapacity(layout.docOffset, 16);
      this.docValues = ensureCapacity(widened(layout.docValues, valueWidth(values.length)), 16);
      this.layoutKind = 'offsets';
    }
    this.useSingleWhenPossible(docCount);
  }

  /** Bytes held in typed arrays (capacity included): for diagnostics. */
  byteSize(): number {
    let bytes =
      this.values.byteSize() +
      this.valueHashes.byteLength +
      this.valueIds.byteSize() +
      this.liveCounts.byteLength +
      this.single.byteLength +
      this.masks.byteLength +
      this.blockStart.byteLength +
      this.docOffset.byteLength +
      this.docValues.byteLength +
      this.lists.byteSize();
    for (const bitmap of this.bitmaps) if (bitmap !== null) bytes += bitmap.byteLength;
    return bytes;
  }

  /**
   * The `limit` values with the most documents among `ordinals[0..count)` — or among all live
   * documents when `everything` (then the live counts answer without a scan) — by count, then
   * value. Counters are scratch per value, zeroed again after use.
   */
  topValues(ordinals: Uint32Array, count: number, limit: number, everything: boolean): FacetCount[] {
    if (this.filterOnly) throw new RangeError(`search index: ${this.name} is a filter-only attribute, without facet counts`);
    if (limit <= 0 || this.values.length === 0) return [];
    let counts: Uint32Array;
    // scratch reused by every search: a search's garbage is what a server's collector pays for
    this.touched = ensureCapacity(this.touched, this.values.length);
    const touched = this.touched;
    let touchedCount = 0;
    if (everything) {
      counts = this.liveCounts;
      for (let v = 0; v < this.values.length; v++) if (counts[v]! > 0) touched[touchedCount++] = v;
    } else {
      this.counts = ensureCapacity(this.counts, this.values.length + 1);
      counts = this.counts;
      if (this.layoutKind === 'offsets') touchedCount = this.countMulti(ordinals, count, counts, touched);
      else if (this.layoutKind === 'masks') touchedCount = this.countMasks(ordinals, count, counts, touched);
      else touchedCount = this.countSingle(ordinals, count, counts, touched);
    }
    const topCount = selectFacetValues(counts, touched, touchedCount, this.values, limit, facetScratch(Math.min(limit, touchedCount)));
    const result: FacetCount[] = [];
    for (let i = 0; i < topCount; i++) {
      const v = topScratch[i]!;
      result.push({ value: this.values.get(v), count: counts[v]! });
    }
    if (!everything) for (let i = 0; i < touchedCount; i++) counts[touched[i]!] = 0;
    return result;
  }

  /** Counts the values of the listed documents; returns how many values were seen (into `touched`). */
  private countSingle(ordinals: Uint32Array, count: number, counts: Uint32Array, touched: Uint32Array): number {
    const single = this.single;
    const { docShift, docMask, bitsLog, mask } = this.singleShape;
    let touchedCount = 0;
    if (docShift === 0) {
      // a byte or more a document (artists, locations, events): read as it is, no shifts
      for (let c = 0; c < count; c++) {
        const shifted = single[ordinals[c]!]!;
        if (shifted === 0) continue;
        if (counts[shifted - 1]!++ === 0) touched[touchedCount++] = shifted - 1;
      }
      return touchedCount;
    }
    for (let c = 0; c < count; c++) {
      const d = ordinals[c]!;
      const shifted = (single[d >>> docShift]! >>> ((d & docMask) << bitsLog)) & mask;
      if (shifted === 0) continue;
      if (counts[shifted - 1]!++ === 0) touched[touchedCount++] = shifted - 1;
    }
    return touchedCount;
  }

  private countMasks(ordinals: Uint32Array, count: number, counts: Uint32Array, touched: Uint32Array): number {
    const masks = this.masks;
    let touchedCount = 0;
    for (let c = 0; c < count; c++) {
      for (let bits = masks[ordinals[c]!]! | 0; bits !== 0; bits &= bits - 1) {
        const v = 31 - Math.clz32(bits & -bits);
        if (counts[v]!++ === 0) touched[touchedCount++] = v;
      }
    }
    return touchedCount;
  }

  private countMulti(ordinals: Uint32Array, count: number, counts: Uint32Array, touched: Uint32Array): number {
    const blockStart = this.blockStart;
    const docOffset = this.docOffset;
    const values = this.docValues;
    let touchedCount = 0;
    for (let c = 0; c < count; c++) {
      const d = ordinals[c]!;
      for (let j = blockStart[d >>> 5]! + docOffset[d]!, end = blockStart[(d + 1) >>> 5]! + docOffset[d + 1]!; j < end; j++) {
        const v = values[j]!;
        if (counts[v]!++ === 0) touched[touchedCount++] = v;
      }
    }
    return touchedCount;
  }
}

/** selectFacetValues' output, grown as needed (searches run one at a time). */
let topScratch = new Uint32Array(300);

function facetScratch(limit: number): Uint32Array {
  if (topScratch.length < limit) topScratch = new Uint32Array(limit);
  return topScratch;
}

/** v ranks before w: more documents, then the smaller value. */
function facetBefore(counts: Uint32Array, names: KeywordValues, v: number, w: number): boolean {
  const cv = counts[v]!;
  const cw = counts[w]!;
  return cv > cw || (cv === cw && names.compare(v, w) < 0);
}

/** The top `limit` of `touched`: a small sorted array; most values are turned away on their count alone. */
function selectFacetValues(counts: Uint32Array, touched: Uint32Array, touchedCount: number, names: KeywordValues, limit: number, top: Uint32Array): number {
  let filled = 0;
  for (let t = 0; t < touchedCount; t++) {
    const v = touched[t]!;
    if (filled === limit) {
      const last = top[limit - 1]!;
      if (counts[v]! < counts[last]! || !facetBefore(counts, names, v, last)) continue;
      filled--;
    }
    let low = 0;
    let high = filled;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (facetBefore(counts, names, top[middle]!, v)) low = middle + 1;
      else high = middle;
    }
    top.copyWithin(low + 1, low, filled);
    top[low] = v;
    filled++;
  }
  return filled;
}
