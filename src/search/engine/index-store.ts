import { tokenize } from './analyzer.js';
import { BaseOrders } from './base-orders.js';
import { CommonPairs } from './common-pairs.js';
import type { CompressedLists } from './compressed-lists.js';
import { encodeLength, LENGTH_OF_CODE } from './field-lengths.js';
import { CLASS_COUNT, classOf, ELEMENT_BREAK, FIELD_END, ForwardCode, MAX_TERMS, STREAM_PADDING, TERM_CODE } from './forward-codes.js';
import { IdOrdinals } from './id-ordinals.js';
import { DocumentStarts } from './document-starts.js';
import { KeywordColumn } from './keyword-column.js';
import { KeywordValues } from './keyword-values.js';
import { PackedStrings } from './packed-strings.js';
import { BYTE_ESCAPE, NO_ESCAPES, withEscape, type CodeEscapes } from './frequency-tuples.js';
import { PostingStore } from './posting-store.js';
import { SnapshotWriter, type ExternalBytes, type SnapshotChunk, type SnapshotReader } from './snapshot-format.js';
import { bitCount, ensureCapacity, fitted } from './typed-arrays.js';
import type { NumberColumn } from './query-plan.js';
import type { IndexDocument, IndexSchema } from './types.js';
import { Vocabulary } from './vocabulary.js';

const MAX_TERM_FREQUENCY = 0xff;
/**
 * Automatic compaction (O(index): seconds at a million documents, so rare): when deleted
 * documents are this share of all ordinals ...
 */
const DEAD_SHARE_TO_COMPACT = 0.25;
const MIN_DOCS_TO_COMPACT = 1_000;
/** ... or the tail (documents added since the last build) has outgrown the base, and has this many. */
const TAIL_SHARE_TO_REBUILD = 1;
const MIN_TAIL_TO_REBUILD = 50_000;
/** Bytes first kept for documents appended beside a forward stream on disk (it grows by doubling). */
const APPENDS_ON_DISK_START = 1024;
/** upsertMany rebuilds the base rather than appending to tails when the batch is this share of the index. */
const BULK_SHARE_TO_REBUILD = 0.1;

/** Escapes from (slot, code) pairs in any order: sorted by slot. */
function escapesOf(pairs: readonly number[]): CodeEscapes {
  if (pairs.length === 0) return NO_ESCAPES;
  const order = Array.from({ length: pairs.length / 2 }, (_, i) => i).sort((a, b) => pairs[2 * a]! - pairs[2 * b]!);
  let escapes = NO_ESCAPES;
  for (const i of order) escapes = withEscape(escapes, pairs[2 * i]!, pairs[2 * i + 1]!);
  return escapes;
}

/**
 * The write side of the search index (see SearchIndex for the layout): the documents, their
 * forward stream, the posting lists and columns, appends and tombstones, compaction, and the
 * snapshot in both directions. The read side (index-searcher.ts, query-planner.ts) reads the
 * fields not marked private, through IndexView, and never writes them.
 *
 * Beside VisualIndex (src/search/visual/visual-index.ts), which also keeps documents in typed
 * arrays by position, this store is its own on purpose: its ordinals stay in arrival order (a
 * deletion is a tombstone until a compaction renumbers them all) because every posting list
 * must only ever grow at its end and stay sorted, while the visual index, which only scans,
 * moves its last slot into a deleted one. Each loop is specialised to its own layout.
 */
export class IndexStore {
  private readonly schema: IndexSchema;
  private readonly fieldNames: readonly string[];
  readonly fieldWeights: Float64Array;
  readonly fields: number;
  readonly columns: KeywordColumn[];
  readonly columnByName: Map<string, KeywordColumn>;
  readonly numericNames: readonly string[];
  /** per numeric attribute, int16 or float32 until a value needs more (see NumberColumn) */
  numbers: NumberColumn[];

  // documents
  docCount = 0;
  liveCount = 0;
  deadCount = 0;
  /** ordinals below this are in the base posting lists, later ones in the tails */
  baseDocCount = 0;
  /** ordinals below this are in the posting lists (base or tails); later ones wait (upsertMany) */
  private indexedDocCount = 0;
  /** each ordinal's id, packed outside the heap (made a string only for a page of results) */
  ids: PackedStrings = new PackedStrings();
  /** the ordinal of each live id, but the last documents appended by appendNew (see `ordinals`) */
  private readonly idOrdinals: IdOrdinals = new IdOrdinals(this);
  /** documents appended by appendNew are not in idOrdinals yet */
  private ordinalsBehind = false;
  live: Uint32Array = new Uint32Array(1);
  /** field lengths, a byte each (see encodeLength), interleaved by document */
  lengths: Uint8Array;
  readonly lengthSums: Float64Array;
  /** per field, the smallest length code ever stored (a lower bound of every live length) */
  readonly minLengthCode: Uint8Array;
  /** where each document's codes start in the forward stream (in bytes) */
  forwardStart = new DocumentStarts();
  /**
   * each document's tokens in `forwardCode`, from a byte of its own (see forward-codes.ts): the
   * stream's bytes from `forwardBase` on (all of it, but in an index whose stream is kept on disk)
   */
  forward: Uint8Array = new Uint8Array(16384);
  /**
   * Bytes of the stream before this are read in place from `forwardOnDisk`: an index loaded
   * from a snapshot file leaves the stream there (a quarter of its arrays, read only by phrase
   * checks of a few candidates, deletions and compactions) and holds only what was appended
   * since. 0 when the whole stream is in memory.
   */
  forwardBase = 0;
  private forwardOnDisk: ExternalBytes | null = null;
  /** scratch: one document's bytes read from disk, padded for the decoder */
  private forwardRead: Uint8Array = new Uint8Array(1024);
  /** the prefix code the stream is written in, made anew at each compaction */
  forwardCode: ForwardCode;
  /** scratch: the codes of the document being appended, before they are encoded */
  private docCodes: Uint32Array = new Uint32Array(1024);
  /** scratch: one document's codes as read from the stream (see decodeDocument) */
  private decoded: Uint32Array = new Uint32Array(1024);

  // terms
  readonly vocabulary = new Vocabulary();
  readonly postings: PostingStore;
  /** lists of adjacent common terms, for phrases (see common-pairs.ts) */
  readonly pairs = new CommonPairs();

  // scratch: distinct terms of one document
  private termMark: Uint32Array = new Uint32Array(1024);
  private termSlot: Uint32Array = new Uint32Array(1024);
  private markGeneration = 0;
  private docTerms: Uint32Array = new Uint32Array(256);
  private docTermTfs: Uint8Array = new Uint8Array(256);
  private docTermCount = 0;
  /** codes in `decoded` after collectDocumentTerms */
  private decodedCount = 0;
  /** tokens written by the last appendText */
  private appendedTokens = 0;  /** presorted base ordinals, rebuilt with the base (see base-orders.ts) */
  readonly orders: BaseOrders = new BaseOrders(this);
  /**
   * hashString of each ordinal's id, for the random sort only: made on its first use and kept,
   * extended to documents appended since, until ordinals change (see idHashes). An index that
   * is never sorted at random keeps none (four bytes a document).
   */
  private idHashCache: Uint32Array | null = null;
  private idHashCount = 0;

  constructor(schema: IndexSchema) {
    this.schema = {
      textFields: { ...schema.textFields },
      keywordAttributes: [...schema.keywordAttributes],
      numericAttributes: [...schema.numericAttributes],
      ...(schema.filterOnlyAttributes === undefined ? {} : { filterOnlyAttributes: [...schema.filterOnlyAttributes] }),
    };
    this.fieldNames = Object.keys(schema.textFields);
    this.fields = this.fieldNames.length;
    this.fieldWeights = new Float64Array(this.fieldNames.map((name) => schema.textFields[name]!));
    for (const weight of this.fieldWeights) {
      if (!(weight >= 0)) throw new RangeError('search index: text field weights must be numbers ≥ 0');
    }
    for (const names of [schema.keywordAttributes, schema.numericAttributes]) {
      if (new Set(names).size !== names.length) throw new RangeError(`search index: an attribute is named twice in ${names.join(', ')}`);
    }
    const filterOnly = new Set(schema.filterOnlyAttributes ?? []);
    for (const name of filterOnly) {
      if (!schema.keywordAttributes.includes(name)) throw new RangeError(`search index: the filter-only attribute ${name} is not a keyword attribute`);
    }
    this.columns = schema.keywordAttributes.map((name) => new KeywordColumn(name, filterOnly.has(name)));
    this.columnByName = new Map(this.columns.map((column) => [column.name, column]));
    this.numericNames = [...schema.numericAttributes];
    this.numbers = this.numericNames.map(() => new Int16Array(16));
    this.lengths = new Uint8Array(16 * Math.max(1, this.fields));
    this.lengthSums = new Float64Array(this.fields);
    this.minLengthCode = new Uint8Array(this.fields).fill(255);
    this.postings = new PostingStore(this.fields);
    this.forwardCode = ForwardCode.initial(this.fields);
  }

  /** Adds a document, replacing the one with its id; searchable at once. */
  upsert(doc: IndexDocument): void {
    this.indexPending();
    const existing = this.ordinals.get(doc.id);
    if (existing >= 0) this.tombstone(existing);
    const ordinal = this.append(doc);
    this.indexTail(ordinal);
    this.indexedDocCount = this.docCount;
    this.compactIfDue();
  }

  /**
   * Adds many documents (the boot-time build, large batches, pages of a store scan): each is
   * only appended to the forward stream and the columns. Their posting lists are made when
   * the index is next searched or upserted into (or by `compact()`): all in one counting pass
   * over the stream when they are many, so a build fed page by page costs one bulk build.
   */
  upsertMany(docs: Iterable<IndexDocument>): void {
    for (const doc of docs) {
      const existing = this.ordinals.get(doc.id);
      if (existing >= 0) this.tombstone(existing);
      this.append(doc);
    }
  }

  /**
   * Adds many documents whose ids are new to the index and distinct from each other (a whole
   * read of the store, by its key): as upsertMany, without looking for an earlier document of
   * each id, and the table of ordinals is made once, at the next compaction or the next use of
   * it, rather than grown id by id. A build spent a tenth of its appending on that table. Into
   * an index that holds other documents too, this is upsertMany.
   */
  appendNew(docs: Iterable<IndexDocument>): void {
    if (this.docCount > 0 && !this.ordinalsBehind) {
      this.upsertMany(docs);
      return;
    }
    for (const doc of docs) this.append(doc, false);
    this.ordinalsBehind = true;
  }

  /** The ordinal of each live id. */
  get ordinals(): IdOrdinals {
    if (this.ordinalsBehind) {
      // every document is appendNew's: live and distinct
      this.idOrdinals.rebuild(this.docCount);
      this.ordinalsBehind = false;
    }
    return this.idOrdinals;
  }

  /**
   * Puts the documents appended by upsertMany into the posting lists: a rebuild of the base
   * when they are a large share of the index (or there is no base yet), else the tails.
   */
  indexPending(): void {
    const pending = this.docCount - this.indexedDocCount;
    if (pending === 0) return;
    if (this.baseDocCount === 0 || pending >= BULK_SHARE_TO_REBUILD * this.liveCount) {
      this.compact();
      return;
    }
    for (let ordinal = this.indexedDocCount; ordinal < this.docCount; ordinal++) {
      if (this.isLive(ordinal)) this.indexTail(ordinal);
    }
    this.indexedDocCount = this.docCount;
    this.compactIfDue();
  }

  /** Deletes a document (nothing happens for an unknown id). */
  remove(id: string): void {
    const ordinal = this.ordinals.get(id);
    if (ordinal < 0) return;
    this.tombstone(ordinal);
    this.compactIfDue();
  }

  // ---------------------------------------------------------------------------------------
  // Writing

  private append(doc: IndexDocument, mapId = true): number {
    if (typeof doc.id !== 'string') throw new TypeError('search index: a document needs a string id');
    const ordinal = this.docCount;
    const fields = this.fields;
    if (ordinal + 2 > this.forwardStart.capacity) this.growDocumentArrays(ordinal + 2);

    let position = 0;
    for (let f = 0; f < fields; f++) {
      const value = doc.text[this.fieldNames[f]!];
      let length = 0;
      if (typeof value === 'string') {
        position = this.appendText(value, position, false);
        length = this.appendedTokens;
      } else if (value !== undefined && value !== null) {
        for (const text of value) {
          if (typeof text !== 'string') continue;
          position = this.appendText(text, position, length > 0);
          length += this.appendedTokens;
        }
      }
      if (position >= this.docCodes.length) this.docCodes = ensureCapacity(this.docCodes, position + 1);
      this.docCodes[position++] = FIELD_END;
      const code = encodeLength(length);
      this.lengths[ordinal * fields + f] = code;
      if (code < this.minLengthCode[f]!) this.minLengthCode[f] = code;
      this.lengthSums[f] = this.lengthSums[f]! + LENGTH_OF_CODE[code]!;
    }
    this.forwardStart.set(ordinal + 1, this.encodeDocument(this.forwardStart.at(ordinal), position));

    for (const column of this.columns) column.append(ordinal, doc.keywords[column.name]);
    for (let n = 0; n < this.numbers.length; n++) {
      const value = doc.numbers[this.numericNames[n]!];
      this.setNumber(n, ordinal, typeof value === 'number' && Number.isFinite(value) ? value : NaN);
    }
    this.live[ordinal >>> 5] = this.live[ordinal >>> 5]! | (1 << (ordinal & 31));
    this.ids.append(doc.id);
    if (mapId) this.ordinals.set(ordinal);
    this.docCount++;
    this.liveCount++;

    this.countDocumentTerms(position);
    return ordinal;
  }

  /**
   * Writes a number (NaN: none), first widening its column when the value does not fit it: an
   * int16 column to float32 for a missing value or one that is not a whole number of int16
   * (the documents so far keep their values exactly), to float64 when the value is not a
   * float32 exactly either.
   */
  private setNumber(n: number, ordinal: number, value: number): void {
    let column = this.numbers[n]!;
    if (column instanceof Int16Array && !(Number.isInteger(value) && value >= -0x8000 && value <= 0x7fff)) {
      column = Float32Array.from(column);
      this.numbers[n] = column;
    }
    if (column instanceof Float32Array && Math.fround(value) !== value && !Number.isNaN(value)) {
      column = Float64Array.from(column);
      this.numbers[n] = column;
    }
    column[ordinal] = value;
  }

  /**
   * Cuts every per-document array to `docCount` documents, the sizes a snapshot load gives
   * them: growth by half leaves up to a third of each empty, and a build from the store would
   * otherwise keep that slack for good (hundreds of MB at ten million documents). The next
   * append grows them again, as after a snapshot load.
   */
  private fitDocumentArrays(docCount: number): void {
    this.forwardStart.fit(docCount + 1);
    this.live = fitted(this.live, ((docCount + 31) >>> 5) + 1);
    this.lengths = fitted(this.lengths, docCount * Math.max(1, this.fields));
    this.numbers = this.numbers.map((column) => fitted(column, docCount));
  }

  /** Makes room in every per-document array for `needed` ordinals (checked once per document, not per array). */
  private growDocumentArrays(needed: number): void {
    this.forwardStart.grow(needed);
    const capacity = this.forwardStart.capacity;
    this.live = ensureCapacity(this.live, (capacity + 31) >>> 5);
    this.lengths = ensureCapacity(this.lengths, capacity * Math.max(1, this.fields));
    for (let n = 0; n < this.numbers.length; n++) this.numbers[n] = ensureCapacity(this.numbers[n]!, capacity, NaN);
  }

  /**
   * Writes the term ids of one text value to the forward stream at `position` (after an
   * ELEMENT_BREAK when `separate` and the value has a token); returns the new position.
   * ASCII text is tokenized in place by the rules of `tokenize` and looked up without making
   * a string per token; other text goes through `tokenize`.
   */
  private appendText(text: string, position: number, separate: boolean): number {
    const n = text.length;
    // n + 2 bounds the tokens of ASCII text and the break. Growth is asked for only when needed:
    // the shared helper reads the length of every kind of typed array, which is slow where they
    // meet (see KeywordColumn.setStart), and this runs for each text of each document.
    if (position + n + 2 > this.docCodes.length) this.docCodes = ensureCapacity(this.docCodes, position + n + 2);
    const codes = this.docCodes;
    const vocabulary = this.vocabulary;
    let p = position;
    let start = -1;
    let apostrophes = false;
    let count = 0;
    for (let i = 0; i <= n; i++) {
      const code = i < n ? text.charCodeAt(i) : 32;
      if (code > 127) return this.appendTokens(tokenize(text), position, separate);
      if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90)) {
        if (start < 0) start = i;
      } else if (code === 39 || code === 96) {
        if (start >= 0) apostrophes = true;
      } else if (start >= 0) {
        let id: number;
        if (apostrophes) {
          id = this.termId(text.slice(start, i).replace(/['`]/g, '').toLowerCase());
          apostrophes = false;
        } else {
          id = vocabulary.findRange(text, start, i);
          if (id < 0) id = this.termId(text.slice(start, i).toLowerCase());
        }
        if (count === 0 && separate) codes[p++] = ELEMENT_BREAK;
        codes[p++] = id + TERM_CODE;
        count++;
        start = -1;
      }
    }
    this.appendedTokens = count;
    return p;
  }

  private appendTokens(tokens: readonly string[], position: number, separate: boolean): number {
    if (position + tokens.length + 1 > this.docCodes.length) this.docCodes = ensureCapacity(this.docCodes, position + tokens.length + 1);
    let p = position;
    if (separate && tokens.length > 0) this.docCodes[p++] = ELEMENT_BREAK;
    for (const token of tokens) this.docCodes[p++] = this.termId(token) + TERM_CODE;
    this.appendedTokens = tokens.length;
    return p;
  }

  /** Writes `docCodes[0..count)` to the forward stream at byte `at`; returns the end. */
  private encodeDocument(at: number, count: number): number {
    const base = this.forwardBase;
    const needed = at - base + ForwardCode.maxBytes(count);
    if (needed > this.forward.length) this.forward = ensureCapacity(this.forward, needed);
    return base + this.forwardCode.encode(this.docCodes, count, this.forward, at - base);
  }

  /** Reads a document's codes into `decoded`; returns how many. */
  private decodeDocument(ordinal: number): number {
    const start = this.forwardStart.at(ordinal);
    const end = this.forwardStart.at(ordinal + 1);
    this.decoded = ensureCapacity(this.decoded, 8 * (end - start));
    if (start >= this.forwardBase) return this.forwardCode.decode(this.forward, start - this.forwardBase, this.decoded);
    this.forwardRead = ensureCapacity(this.forwardRead, end - start + STREAM_PADDING);
    this.readForward(start, end, this.forwardRead, 0);
    this.forwardRead.fill(0, end - start, end - start + STREAM_PADDING);
    return this.forwardCode.decode(this.forwardRead, 0, this.decoded);
  }

  /** Copies the stream's bytes `from..to` into `target` at `at`, from disk and memory as they lie. */
  readForward(from: number, to: number, target: Uint8Array, at: number): void {
    const base = this.forwardBase;
    if (from < base) {
      const upTo = Math.min(to, base);
      this.forwardOnDisk!.read(from, target.subarray(at, at + upTo - from));
      at += upTo - from;
      from = upTo;
    }
    if (from < to) target.set(this.forward.subarray(from - base, to - base), at);
  }

  /** Whether part of the forward stream is read from disk (see forwardBase). */
  get forwardIsOnDisk(): boolean {
    return this.forwardBase > 0;
  }

  /** Reads the part of the stream kept on disk into memory (before a compaction rewrites it all). */
  private loadForward(): void {
    const onDisk = this.forwardOnDisk;
    if (onDisk === null) return;
    const end = this.forwardStart.at(this.docCount);
    const whole = new Uint8Array(end + STREAM_PADDING);
    this.readForward(0, end, whole, 0);
    this.forward = whole;
    this.forwardBase = 0;
    this.forwardOnDisk = null;
    onDisk.release();
  }

  /**
   * Leaves the stream in `written` (this index's snapshot, just written to a file from this very
   * state) and drops it from memory; false, with nothing changed, when that snapshot is not of
   * this state (its document count or its stream's length or last bytes differ).
   */
  keepForwardIn(reader: SnapshotReader, docCount: number): boolean {
    const end = this.forwardStart.at(this.docCount);
    if (docCount !== this.docCount || this.baseDocCount !== this.docCount || end === 0) return false;
    const written = reader.external('forward');
    if (written === null) return false;
    const sample = Math.min(end, 4096);
    const check = new Uint8Array(sample);
    const held = new Uint8Array(sample);
    let same = written.length === end + STREAM_PADDING;
    if (same) {
      written.read(end - sample, check);
      this.readForward(end - sample, end, held, 0);
      same = check.every((byte, i) => byte === held[i]);
    }
    if (!same) {
      written.release();
      return false;
    }
    this.forwardOnDisk?.release();
    this.forwardOnDisk = written;
    this.forwardBase = end;
    this.forward = new Uint8Array(APPENDS_ON_DISK_START);
    return true;
  }

  /** Lets go of the file the stream is read from (the index is dropped: never searched again). */
  release(): void {
    this.forwardOnDisk?.release();
    this.forwardOnDisk = null;
  }

  private termId(token: string): number {
    const id = this.vocabulary.idOf(token);
    if (id >= MAX_TERMS) throw new RangeError(`search index: more than ${MAX_TERMS} distinct terms`);
    if (id >= this.termMark.length) {
      this.termMark = ensureCapacity(this.termMark, id + 1);
      this.termSlot = ensureCapacity(this.termSlot, id + 1);
    }
    return id;
  }

  private nextMark(): number {
    if (this.markGeneration >= 0xfffffff0) {
      this.termMark.fill(0);
      this.markGeneration = 0;
    }
    return ++this.markGeneration;
  }

  /**
   * Adds one to the live frequency of each distinct term of the document just appended, from
   * its codes before they were encoded (`docCodes[0..count)`: no decoding).
   */
  private countDocumentTerms(count: number): void {
    const mark = this.nextMark();
    const codes = this.docCodes;
    const termMark = this.termMark;
    const frequency = this.vocabulary.frequency;
    for (let i = 0; i < count; i++) {
      const term = codes[i]! - TERM_CODE;
      if (term >= 0 && termMark[term] !== mark) {
        termMark[term] = mark;
        frequency[term]!++;
      }
    }
    return;
  }

  /**
   * Fills docTerms / docTermTfs with the distinct terms of a document and their frequency per
   * field (and leaves its codes in `decoded`, `decodedCount` of them).
   */
  private collectDocumentTerms(ordinal: number): void {
    this.collectTerms(this.decodeDocument(ordinal));
  }

  /** collectDocumentTerms of the document whose codes are `decoded[0..codeCount)`. */
  private collectTerms(codeCount: number): void {
    const fields = this.fields;
    const mark = this.nextMark();
    this.decodedCount = codeCount;
    const codes = this.decoded;
    const termMark = this.termMark;
    const termSlot = this.termSlot;
    this.docTerms = ensureCapacity(this.docTerms, codeCount);
    this.docTermTfs = ensureCapacity(this.docTermTfs, codeCount * fields);
    const docTerms = this.docTerms;
    const tfs = this.docTermTfs;
    let count = 0;
    let field = 0;
    for (let i = 0; i < codeCount; i++) {
      const code = codes[i]!;
      const term = code - TERM_CODE;
      if (term < 0) {
        if (code === FIELD_END) field++;
        continue;
      }
      let slot: number;
      if (termMark[term] !== mark) {
        termMark[term] = mark;
        slot = count++;
        termSlot[term] = slot;
        docTerms[slot] = term;
        tfs.fill(0, slot * fields, slot * fields + fields);
      } else {
        slot = termSlot[term]!;
      }
      const p = slot * fields + field;
      if (tfs[p]! < MAX_TERM_FREQUENCY) tfs[p]!++;
    }
    this.docTermCount = count;
  }

  private indexTail(ordinal: number): void {
    this.collectDocumentTerms(ordinal);
    for (let i = 0; i < this.docTermCount; i++) {
      this.postings.add(this.docTerms[i]!, ordinal, this.docTermTfs, i * this.fields);
    }
    this.pairs.addDocument(this.decoded, this.decodedCount, ordinal);
    for (const column of this.columns) column.indexTail(ordinal);
  }

  /**
   * hashString of the id of every ordinal below docCount (the random sort's keys are made from
   * them). Making them from the packed bytes as a search needs them took 2.5 times as long as
   * reading them (a random sort of 100,000 matches: 2.6 → 7.2 ms), so they are kept once made.
   */
  idHashes(): Uint32Array {
    let hashes = this.idHashCache;
    if (hashes === null || hashes.length < this.docCount) {
      hashes = ensureCapacity(hashes ?? new Uint32Array(0), this.docCount);
      this.idHashCache = hashes;
    }
    for (let ordinal = this.idHashCount; ordinal < this.docCount; ordinal++) hashes[ordinal] = this.ids.hash(ordinal);
    this.idHashCount = this.docCount;
    return hashes;
  }

  /** Drops the kept id hashes: the ordinals are renumbered. */
  private dropIdHashes(): void {
    this.idHashCache = null;
    this.idHashCount = 0;
  }

  isLive(ordinal: number): boolean {
    return (this.live[ordinal >>> 5]! & (1 << (ordinal & 31))) !== 0;
  }

  private tombstone(ordinal: number): void {
    if (!this.isLive(ordinal)) return;
    this.live[ordinal >>> 5] = this.live[ordinal >>> 5]! & ~(1 << (ordinal & 31));
    this.liveCount--;
    this.deadCount++;
    const fields = this.fields;
    for (let f = 0; f < fields; f++) this.lengthSums[f] = this.lengthSums[f]! - LENGTH_OF_CODE[this.lengths[ordinal * fields + f]!]!;
    this.collectDocumentTerms(ordinal);
    const frequency = this.vocabulary.frequency;
    for (let i = 0; i < this.docTermCount; i++) frequency[this.docTerms[i]!]!--;
    for (const column of this.columns) column.release(ordinal);
    this.ordinals.delete(ordinal);
  }

  /** Sets the live bits of ordinals 0..count-1. */
  private markAllLive(count: number): void {
    this.live.fill(0xffffffff, 0, count >>> 5);
    if ((count & 31) !== 0) this.live[count >>> 5] = (1 << (count & 31)) - 1;
  }

  private compactIfDue(): void {
    const tail = this.docCount - this.baseDocCount;
    if (
      (this.docCount >= MIN_DOCS_TO_COMPACT && this.deadCount > DEAD_SHARE_TO_COMPACT * this.docCount) ||
      (tail >= MIN_TAIL_TO_REBUILD && tail > TAIL_SHARE_TO_REBUILD * this.baseDocCount)
    ) {
      this.compact();
    }
  }

  /**
   * Drops deleted documents (renumbering ordinals) and terms no live document uses, and
   * rebuilds every inverted list as one frozen base. Runs by itself when deletions or the
   * tail pass a share of the index; O(size of the index).
   */
  compact(): void {
    // a compaction reads the whole stream twice and rewrites it: in memory, until the next snapshot
    this.loadForward();
    // 0. Filter-only columns have nothing per document to move: their lists are renumbered.
    if (this.columns.some((column) => column.filterOnly)) {
      const survivors = this.deadCount === 0 ? null : { live: this.live, liveBefore: this.liveBeforeWords() };
      for (const column of this.columns) if (column.filterOnly) column.renumberLists(survivors, this.liveCount);
    }
    // 1. Documents: each live one moves down to its new ordinal, in place (with none deleted,
    // as after a build's appends, every document is already where it belongs).
    const next = this.deadCount === 0 ? this.keepDocumentsInPlace() : this.moveLiveDocumentsDown();
    this.ids.truncate(next);
    this.idOrdinals.rebuild(next);
    this.ordinalsBehind = false;
    this.dropIdHashes();
    this.live.fill(0);
    this.markAllLive(next);
    this.docCount = next;
    this.liveCount = next;
    this.deadCount = 0;
    this.fitDocumentArrays(next);

    // 2. Terms: renumber those still in use, the most frequent first (the shortest codes),
    // the stream rewritten in a code made for it (with no room left for appends), and the
    // term and phrase pair lists made from it.
    this.rebuildTermLists(this.renumberVocabulary());

    // 3. The columns' lists.
    for (const column of this.columns) column.buildPostings(next);
    this.baseDocCount = next;
    this.indexedDocCount = next;
    this.orders.rebuild();
  }

  /** Moves each live document down to its ordinal after the deleted ones are dropped; returns how many there are. */
  private moveLiveDocumentsDown(): number {
    const fields = this.fields;
    let next = 0;
    let write = 0;
    const columnWrites = this.columns.map(() => 0);
    for (const column of this.columns) column.beginCompaction();
    this.forwardStart.beginRewrite();
    for (let old = 0; old < this.docCount; old++) {
      if (!this.isLive(old)) continue;
      const from = this.forwardStart.before(old);
      const to = this.forwardStart.before(old + 1);
      if (write !== from) this.forward.copyWithin(write, from, to);
      this.forwardStart.set(next, write);
      write += to - from;
      for (let c = 0; c < this.columns.length; c++) {
        columnWrites[c] = this.columns[c]!.compactInto(old, next, columnWrites[c]!);
      }
      if (next !== old) {
        this.ids.moveDown(old, next);
        this.lengths.copyWithin(next * fields, old * fields, old * fields + fields);
        for (const column of this.numbers) column[next] = column[old]!;
      }
      next++;
    }
    this.forwardStart.set(next, write);
    this.forwardStart.endRewrite();
    for (let c = 0; c < this.columns.length; c++) this.columns[c]!.finishCompaction(next, columnWrites[c]!);
    return next;
  }

  /** A compaction's first step when no document is deleted: the columns let go of the room kept for appends. */
  private keepDocumentsInPlace(): number {
    for (const column of this.columns) column.finishInPlace(this.docCount);
    return this.docCount;
  }

  /** The live documents before each word of the live bitmap: a live ordinal's place after a compaction. */
  private liveBeforeWords(): Uint32Array {
    const words = (this.docCount + 31) >>> 5;
    const before = new Uint32Array(words);
    let count = 0;
    for (let w = 0; w < words; w++) {
      before[w] = count;
      count += bitCount(this.live[w]!);
    }
    return before;
  }

  /**
   * Numbers the terms in use by descending live document frequency (ties in their old order),
   * so that the common terms take the shortest codes of the forward stream, and drops the
   * terms no live document uses: returns each old id's new one, null when every term keeps
   * its id. The stream and everything indexed by term id are rebuilt after this (see
   * rebuildTermLists).
   */
  private renumberVocabulary(): Uint32Array | null {
    const vocabulary = this.vocabulary;
    const termCount = vocabulary.size;
    const frequency = vocabulary.frequency;
    const used: number[] = [];
    for (let t = 0; t < termCount; t++) if (frequency[t] !== 0) used.push(t);
    used.sort((a, b) => frequency[b]! - frequency[a]! || a - b);
    if (used.length === termCount && used.every((term, id) => term === id)) {
      vocabulary.sortedIds();
      return null;
    }
    const renumber = new Uint32Array(termCount);
    const terms: string[] = [];
    const kept = new Uint32Array(used.length);
    used.forEach((term, id) => {
      renumber[term] = id;
      kept[id] = frequency[term]!;
      terms.push(vocabulary.terms[term]!);
    });
    // the string order stays: the ids in it are renumbered
    const sorted = new Uint32Array(used.length);
    let rank = 0;
    for (const term of vocabulary.sortedIds()) if (frequency[term] !== 0) sorted[rank++] = renumber[term]!;
    vocabulary.reset(terms, kept, sorted);
    this.termMark = new Uint32Array(Math.max(1024, used.length));
    this.termSlot = new Uint32Array(Math.max(1024, used.length));
    this.markGeneration = 0;
    return renumber;
  }

  /**
   * Rewrites the stream with each term's new id (`renumber`, null for none) in a code made
   * from the classes' counts after the renumbering, and makes the term lists (their lengths
   * are the live frequencies) and the phrase pair lists on the way. The stream is read twice,
   * not once per kind of list: one pass counts the classes and the pairs, one rewrites each
   * document into an array of the exact size and lists its terms and pairs (the old stream
   * and the new one, smaller, are both held meanwhile).
   */
  private rebuildTermLists(renumber: Uint32Array | null): void {
    const fields = this.fields;
    const forwardStart = this.forwardStart;
    const docCount = this.docCount;
    const old = this.forwardCode;
    const termCount = this.vocabulary.size;
    const frequency = this.vocabulary.frequency;
    const postings = this.postings;
    const start = new Uint32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) start[t + 1] = start[t]! + frequency[t]!;
    const pairs = this.pairs.beginRebuild(start, docCount);

    const counts = new Float64Array(CLASS_COUNT);
    for (let d = 0; d < docCount; d++) {
      const count = this.decodeDocument(d);
      const codes = this.renumbered(renumber, count);
      for (let i = 0; i < count; i++) {
        const c = classOf(codes[i]!);
        counts[c] = counts[c]! + 1;
      }
      pairs.count(codes, count, d);
    }
    pairs.allocate();
    const code = ForwardCode.fromCounts(fields, counts);
    let bits = 0;
    for (let c = 0; c < CLASS_COUNT; c++) bits += counts[c]! * code.classBits(c);
    // each document starts on a byte: at most one more per document
    const out = new Uint8Array(Math.ceil(bits / 8) + docCount + STREAM_PADDING);
    const docs = new Uint32Array(start[termCount]!);
    const tupleCodes = new Uint8Array(start[termCount]!);
    // the postings of tuples past the first 255 (BYTE_ESCAPE in `tupleCodes`), as slot and code
    const escaped: number[] = [];
    const cursor = start.slice(0, termCount);
    let write = 0;
    forwardStart.beginRewrite();
    for (let d = 0; d < docCount; d++) {
      const from = forwardStart.before(d);
      this.decoded = ensureCapacity(this.decoded, 8 * (forwardStart.before(d + 1) - from));
      const count = old.decode(this.forward, from, this.decoded);
      const codes = this.renumbered(renumber, count);
      forwardStart.set(d, write);
      write = code.encode(codes, count, out, write);
      this.collectTerms(count);
      const terms = this.docTerms;
      const tfs = this.docTermTfs;
      for (let i = 0; i < this.docTermCount; i++) {
        const slot = cursor[terms[i]!]!++;
        docs[slot] = d;
        const tupleCode = postings.codeOf(tfs, i * fields);
        if (tupleCode < BYTE_ESCAPE) {
          tupleCodes[slot] = tupleCode;
        } else {
          tupleCodes[slot] = BYTE_ESCAPE;
          escaped.push(slot, tupleCode);
        }
      }
      pairs.write(codes, count, d);
    }
    forwardStart.set(docCount, write);
    forwardStart.endRewrite();
    this.forward = out;
    this.forwardCode = code;
    for (let t = 0; t < termCount; t++) {
      if (cursor[t] !== start[t + 1]) throw new Error('search index: term frequencies out of step with the forward stream');
    }
    postings.setBase(start, docs, tupleCodes, escapesOf(escaped), docCount);
    pairs.finish();
  }

  /** The codes in `decoded` (`count` of them) with each term's new id (`renumber`, null for none). */
  private renumbered(renumber: Uint32Array | null, count: number): Uint32Array {
    const codes = this.decoded;
    if (renumber !== null) {
      for (let i = 0; i < count; i++) {
        const code = codes[i]!;
        if (code >= TERM_CODE) codes[i] = renumber[code - TERM_CODE]! + TERM_CODE;
      }
    }
    return codes;
  }

  // ---------------------------------------------------------------------------------------
  // Snapshots

  /**
   * The snapshot as byte ranges to write in order (see SnapshotWriter.finishChunks): views of
   * the index's arrays, valid until the index next changes.
   */
  toSnapshotChunks(): SnapshotChunk[] {
    if (this.deadCount > 0 || this.baseDocCount !== this.docCount || this.postings.tailPostings > 0) this.compact();
    const writer = new SnapshotWriter();
    const docCount = this.docCount;
    const fields = this.fields;
    const vocabulary = this.vocabulary;
    this.ids.addTo(writer, 'ids');
    writer.add('lengths', this.lengths, docCount * fields);
    const starts = this.forwardStart.sections(docCount + 1);
    writer.add('forward.blockStart', starts.blockStart);
    writer.add('forward.offset', starts.offset);
    const forwardEnd = this.forwardStart.at(docCount);
    // on disk, nothing appended since (else the compaction above loaded it): copied from there
    if (this.forwardOnDisk !== null && forwardEnd === this.forwardBase) writer.addExternal('forward', this.forwardOnDisk, forwardEnd + STREAM_PADDING);
    else {
      this.loadForward();
      writer.add('forward', this.forward, forwardEnd + STREAM_PADDING);
    }
    writer.add('forward.code', this.forwardCode.lengths);
    writer.addStrings('terms', vocabulary.terms);
    writer.add('frequency', vocabulary.frequency, vocabulary.size);
    writer.add('sortedTerms', vocabulary.sortedIds());
    writer.add('postings.start', this.postings.baseStart);
    addLists(writer, 'postings', this.postings.baseLists);
    writer.add('postings.denseKeys', this.postings.denseKeys);
    writer.add('postings.denseWords', this.postings.denseWords);
    writer.add('postings.codes', this.postings.baseCodes);
    writer.add('postings.escapes.at', this.postings.baseEscapes.at, this.postings.baseEscapes.count);
    writer.add('postings.escapes.codes', this.postings.baseEscapes.codes, this.postings.baseEscapes.count);
    writer.add('postings.denseCodes', this.postings.denseCodes);
    writer.add('postings.denseEscapes.at', this.postings.denseEscapes.at, this.postings.denseEscapes.count);
    writer.add('postings.denseEscapes.codes', this.postings.denseEscapes.codes, this.postings.denseEscapes.count);
    writer.add('postings.tuples', this.postings.tuples.used());
    const pairs = this.pairs.snapshot();
    writer.add('pairs.rankOf', pairs.rankOf);
    writer.add('pairs.start', pairs.start);
    addLists(writer, 'pairs', pairs.lists);
    this.columns.forEach((column, c) => {
      column.values.addTo(writer, `keyword.${c}.values`);
      writer.add(`keyword.${c}.liveCounts`, column.liveCounts, column.valueCount);
      const layout = column.filterOnly ? null : column.layout(docCount);
      if (layout === null) {
        // a filter-only column: its lists alone
      } else if ('single' in layout) {
        writer.add(`keyword.${c}.single`, layout.single);
      } else if ('masks' in layout) {
        writer.add(`keyword.${c}.masks`, layout.masks);
      } else {
        writer.add(`keyword.${c}.blockStart`, layout.blockStart);
        writer.add(`keyword.${c}.docOffset`, layout.docOffset);
        writer.add(`keyword.${c}.docValues`, layout.docValues);
      }
      if (column.filterOnly) {
        const dense = column.denseBitmaps(docCount);
        writer.add(`keyword.${c}.dense`, Uint32Array.from(dense, ([value]) => value));
        for (const [value, bitmap] of dense) writer.add(`keyword.${c}.bitmap.${value}`, bitmap);
      }
      writer.add(`keyword.${c}.lists.start`, column.lists.baseStart);
      writer.add(`keyword.${c}.lists.bytes`, column.lists.baseBytes);
      writer.add(`keyword.${c}.lists.eliasFano`, column.lists.baseEliasFano);
    });
    this.numbers.forEach((column, n) => writer.add(`number.${n}`, column, docCount));
    return writer.finishChunks({ schema: this.schema, docCount, lengthSums: [...this.lengthSums] });
  }

  restore(reader: SnapshotReader, docCount: number, lengthSums: readonly number[]): void {
    this.docCount = docCount;
    this.liveCount = docCount;
    this.deadCount = 0;
    this.baseDocCount = docCount;
    this.indexedDocCount = docCount;
    this.ids = PackedStrings.read(reader, 'ids');
    if (this.ids.length !== docCount) throw new Error('search index snapshot: the id count does not match');
    this.idOrdinals.rebuild(docCount);
    this.ordinalsBehind = false;
    this.dropIdHashes();
    this.lengths = reader.u8('lengths');
    this.minLengthCode.fill(255);
    for (let i = 0; i < docCount * this.fields; i++) {
      const code = this.lengths[i]!;
      if (code < this.minLengthCode[i % this.fields]!) this.minLengthCode[i % this.fields] = code;
    }
    lengthSums.forEach((sum, f) => (this.lengthSums[f] = sum));
    const starts = DocumentStarts.fromSections(reader.u32('forward.blockStart'), reader.unsigned('forward.offset'), docCount + 1);
    this.forwardCode = new ForwardCode(this.fields, reader.u8('forward.code'));
    if (starts === null) throw new Error('search index snapshot: the forward stream is out of step');
    const end = starts.at(docCount);
    const onDisk = end > 0 ? reader.external('forward') : null;
    if (onDisk !== null) {
      if (onDisk.length < end + STREAM_PADDING) {
        onDisk.release();
        throw new Error('search index snapshot: the forward stream is out of step');
      }
      this.forwardOnDisk = onDisk;
      this.forwardBase = end;
      this.forward = new Uint8Array(APPENDS_ON_DISK_START);
    } else {
      this.forward = reader.u8('forward');
      if (this.forward.length < end + STREAM_PADDING) throw new Error('search index snapshot: the forward stream is out of step');
    }
    this.forwardStart = starts;
    this.live = new Uint32Array(((docCount + 31) >>> 5) + 1);
    this.markAllLive(docCount);
    const terms = reader.strings('terms');
    this.vocabulary.reset(terms, reader.u32('frequency'), reader.u32('sortedTerms'));
    this.termMark = new Uint32Array(Math.max(1024, terms.length));
    this.termSlot = new Uint32Array(Math.max(1024, terms.length));
    this.markGeneration = 0;
    this.postings.tuples.reset(reader.u8('postings.tuples'));
    // a dense list's documents are in its bitmap alone, its codes a byte each
    const dense = { keys: reader.u32('postings.denseKeys'), words: reader.u32('postings.denseWords'), docCount, codes: reader.u8('postings.denseCodes'), escapes: readEscapes(reader, 'postings.denseEscapes') };
    this.postings.restoreBase(reader.u32('postings.start'), readLists(reader, 'postings'), reader.u8('postings.codes'), readEscapes(reader, 'postings.escapes'), dense);
    this.pairs.restore(reader.i32('pairs.rankOf'), reader.u32('pairs.start'), readLists(reader, 'pairs'));
    this.columns.forEach((column, c) => {
      column.restore(
        KeywordValues.read(reader, `keyword.${c}.values`),
        reader.u32(`keyword.${c}.liveCounts`),
        column.filterOnly
          ? null
          : reader.has(`keyword.${c}.single`)
            ? { single: reader.unsigned(`keyword.${c}.single`) }
            : reader.has(`keyword.${c}.masks`)
              ? { masks: reader.unsigned(`keyword.${c}.masks`) }
              : { blockStart: reader.u32(`keyword.${c}.blockStart`), docOffset: reader.unsigned(`keyword.${c}.docOffset`), docValues: reader.unsigned(`keyword.${c}.docValues`) },
        docCount,
      );
      column.lists.setBase(reader.u32(`keyword.${c}.lists.start`), reader.u8(`keyword.${c}.lists.bytes`), reader.u8(`keyword.${c}.lists.eliasFano`));
      if (column.filterOnly) column.restoreBitmaps(Array.from(reader.u32(`keyword.${c}.dense`), (value) => [value, reader.u32(`keyword.${c}.bitmap.${value}`)] as const), docCount);
      else column.buildBitmaps(docCount);
    });
    this.numbers = this.numbers.map((_, n) => reader.numbers(`number.${n}`));
    this.orders.rebuild();
  }

  /** Bytes held in typed arrays (capacity, scratch included): for diagnostics. */
  byteSize(): number {
    let bytes =
      this.live.byteLength +
      this.ids.byteSize() +
      this.ordinals.byteSize() +
      this.lengths.byteLength +
      this.forwardStart.byteLength +
      this.forward.byteLength +
      (this.idHashCache?.byteLength ?? 0) +
      this.vocabulary.frequency.byteLength +
      this.postings.byteSize() +
      this.pairs.byteSize();
    for (const column of this.columns) {
      bytes += column.byteSize();
    }
    for (const column of this.numbers) bytes += column.byteLength;
    return bytes + this.orders.byteSize();
  }
}

/** Writes compressed lists as they are (see compressed-lists.ts), under `prefix`. */
function addLists(writer: SnapshotWriter, prefix: string, lists: CompressedLists): void {
  writer.add(`${prefix}.blocks`, lists.blocks);
  writer.add(`${prefix}.blockStart`, lists.blockStart);
  writer.add(`${prefix}.blockShift`, lists.blockShift);
  writer.add(`${prefix}.width`, lists.width);
  writer.add(`${prefix}.wordStart`, lists.wordStart);
  writer.add(`${prefix}.words`, lists.words);
}

function readEscapes(reader: SnapshotReader, prefix: string): CodeEscapes {
  const at = reader.u32(`${prefix}.at`);
  return at.length > 0 ? { at, codes: reader.u32(`${prefix}.codes`), count: at.length } : NO_ESCAPES;
}

function readLists(reader: SnapshotReader, prefix: string): CompressedLists {
  return {
    blocks: reader.u32(`${prefix}.blocks`),
    blockStart: reader.u32(`${prefix}.blockStart`),
    blockShift: reader.u8(`${prefix}.blockShift`),
    width: reader.u8(`${prefix}.width`),
    wordStart: reader.u32(`${prefix}.wordStart`),
    words: reader.u32(`${prefix}.words`),
  };
}

/** What the read side reads of the store: its fields, never to be written there. */
export type IndexView = Readonly<
  Pick<
    IndexStore,
    | 'fields'
    | 'fieldWeights'
    | 'columns'
    | 'columnByName'
    | 'numericNames'
    | 'numbers'
    | 'docCount'
    | 'liveCount'
    | 'deadCount'
    | 'baseDocCount'
    | 'ids'
    | 'ordinals'
    | 'live'
    | 'lengths'
    | 'lengthSums'
    | 'minLengthCode'
    | 'forwardStart'
    | 'forward'
    | 'forwardBase'
    | 'forwardIsOnDisk'
    | 'readForward'
    | 'forwardCode'
    | 'vocabulary'
    | 'postings'
    | 'pairs'
    | 'orders'
    | 'isLive'
    | 'idHashes'
  >
>;
