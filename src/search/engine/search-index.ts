import { IndexSearcher } from './index-searcher.js';
import { IndexStore } from './index-store.js';
import { chunkBytes, SnapshotReader, type SnapshotChunk, type SnapshotSource } from './snapshot-format.js';
import type { FacetCount, IndexDocument, IndexSchema, SearchQuery, SearchResult } from './types.js';

export type {
  FacetCount,
  IndexDocument,
  IndexSchema,
  KeywordFilter,
  RangeFilter,
  SearchFilter,
  SearchQuery,
  SearchResult,
  SearchSort,
  SortNumbers,
} from './types.js';

/**
 * An in-process full-text and attribute index over document ordinals and typed arrays.
 *
 * Layout (ordinals are dense and given in arrival order; an upsert of a known id deletes the
 * old ordinal and appends a new one, so every list only ever grows at its end):
 * - forward token stream: each document's term ids, field after field (FIELD_END after each,
 *   ELEMENT_BREAK between list values), in a prefix code of bits made from the stream's
 *   counts at each compaction, the commonest terms the shortest (forward-codes.ts). Phrases
 *   are verified on it, deletions read it, and the inverted lists are rebuilt from it.
 * - inverted lists (PostingStore; payload = term frequency per field, a byte each): a frozen
 *   base (documents two bytes a posting, see compressed-lists.ts; a common term's as a bitmap)
 *   plus per-term tails for live upserts, folded together by `compact()` — which also
 *   drops deleted documents and unused terms, and numbers the terms by frequency — once deletions or the tail pass a share.
 * - field lengths (a byte per field per document, exact to 127) with live sums for BM25's
 *   average lengths; live document frequencies per term (Vocabulary); a bitmap of the live
 *   ordinals (a deleted document's bit is its tombstone until the next compaction).
 * - ids: their characters packed in one byte array (PackedStrings; a string is made only for
 *   a page of results), each one's hash for the table of ordinals (IdOrdinals) and a number
 *   that orders like its first characters, for ties (idOrderKey).
 * - keyword columns (KeywordColumn: per document, per value, dense values as bitmaps; a
 *   filter-only one per value alone) and numeric columns (float32 while every value fits it
 *   exactly, else float64; NaN = missing).
 *
 * A query (see `search`) narrows a bitmap of candidates — the cheapest requirement's lists,
 * AND the other tokens' lists, AND dense filter values, per-document checks for the rest —
 * then lists the survivors and scores, counts facets and ranks only those (CandidateSet).
 *
 * Scores depend on live documents only (frequencies and lengths are kept for live ones) and
 * every ordering ends on the id, so a search answers the same before and after a compaction
 * or a snapshot round trip.
 *
 * The index is two units: the store (index-store.ts: the write side — appends, tombstones,
 * compaction, posting lists, snapshots) and the searcher (index-searcher.ts: the read side —
 * planning with query-planner.ts, searching, browsing, sorting), which reads the store and
 * never writes it. This class is their one face to the rest of the server.
 */
export class SearchIndex {
  private readonly store: IndexStore;
  private readonly searcher: IndexSearcher;

  constructor(schema: IndexSchema) {
    this.store = new IndexStore(schema);
    this.searcher = new IndexSearcher(this.store);
  }

  /** Live documents. */
  get size(): number {
    return this.store.liveCount;
  }

  has(id: string): boolean {
    return this.store.ordinals.has(id);
  }

  /** Adds a document, replacing the one with its id; searchable at once. */
  upsert(doc: IndexDocument): void {
    this.store.upsert(doc);
  }

  /**
   * Adds many documents (the boot-time build, large batches, pages of a store scan): each is
   * only appended to the forward stream and the columns. Their posting lists are made when
   * the index is next searched or upserted into (or by `compact()`): all in one counting pass
   * over the stream when they are many, so a build fed page by page costs one bulk build.
   */
  upsertMany(docs: Iterable<IndexDocument>): void {
    this.store.upsertMany(docs);
  }

  /**
   * As upsertMany, for documents whose ids are new to the index and distinct from each other (a
   * whole read of the store): no look for an earlier document of each id. Into an index that
   * holds other documents, this is upsertMany.
   */
  appendNew(docs: Iterable<IndexDocument>): void {
    this.store.appendNew(docs);
  }

  /** Deletes a document (nothing happens for an unknown id). */
  remove(id: string): void {
    this.store.remove(id);
  }

  /**
   * Drops deleted documents (renumbering ordinals) and terms no live document uses, and
   * rebuilds every inverted list as one frozen base. Runs by itself when deletions or the
   * tail pass a share of the index; O(size of the index).
   */
  compact(): void {
    this.store.compact();
  }

  /**
   * Runs a query: every required token (and each token of a required phrase) must match,
   * each through any of its variants; excluded tokens and phrases must not; filters must
   * pass. The cheapest requirement drives (its documents are the first candidates), the
   * others narrow the set, phrases are verified last on the forward stream of the few left.
   */
  search(query: SearchQuery): SearchResult {
    this.store.indexPending();
    return this.searcher.search(query);
  }

  /**
   * Facet counts over exactly the listed documents (ids not in the index are skipped): for a
   * result set chosen outside the index, such as the nearest neighbours of a search by image.
   */
  facetsOf(ids: Iterable<string>, requests: ReadonlyArray<{ attribute: string; limit: number }>): Record<string, FacetCount[]> {
    this.store.indexPending();
    return this.searcher.facetsOf(ids, requests);
  }

  /** Terms of the index that complete a prefix (lower-cased), the most documents first. */
  completions(prefix: string, limit: number): string[] {
    return this.searcher.completions(prefix, limit);
  }

  /**
   * The vocabulary terms an unquoted query word matches in a mode (see Vocabulary.variantsOf):
   * for diagnostics, and for a reference engine that should find the same documents.
   */
  matchingTerms(word: string, mode: 'enhanced' | 'precise' = 'enhanced'): string[] {
    this.store.indexPending();
    return this.searcher.matchingTerms(word, mode);
  }

  /** The whole index in a binary form (compacting it first); `fromSnapshot` reads it back. */
  toSnapshot(): Buffer {
    return Buffer.concat(this.toSnapshotChunks().map(chunkBytes));
  }

  /**
   * The snapshot as byte ranges to write in order (see SnapshotWriter.finishChunks): views of
   * the index's arrays, or of the file its forward stream is read from, valid until the index
   * next changes.
   */
  toSnapshotChunks(): SnapshotChunk[] {
    return this.store.toSnapshotChunks();
  }

  /**
   * A snapshot read from a file (a source that can keep a section, see SnapshotSource.keep)
   * leaves the index's forward stream there, read in place: the index holds only what is
   * appended after.
   */
  static fromSnapshot(snapshot: Uint8Array | SnapshotSource): SearchIndex {
    const reader = new SnapshotReader(snapshot);
    const meta = reader.meta as { schema: IndexSchema; docCount: number; lengthSums: number[] };
    const index = new SearchIndex(meta.schema);
    index.store.restore(reader, meta.docCount, meta.lengthSums);
    return index;
  }

  /**
   * Once this index's snapshot is written to a file (from the index as it still is), reads its
   * forward stream from there and drops it from memory, as a load from that file would; false
   * when the snapshot is not of this index's state or its source cannot keep a section.
   */
  keepForwardIn(written: SnapshotSource): boolean {
    const reader = new SnapshotReader(written);
    const meta = reader.meta as { docCount: number };
    return this.store.keepForwardIn(reader, meta.docCount);
  }

  /** Whether the forward stream is (partly) read from a file rather than held. */
  get forwardOnDisk(): boolean {
    return this.store.forwardIsOnDisk;
  }

  /** Lets go of the file the forward stream is read from: the index is being dropped and is never used again. */
  release(): void {
    this.store.release();
  }

  /** Bytes held in typed arrays (capacity, scratch included): for diagnostics. */
  byteSize(): number {
    return this.store.byteSize() + this.searcher.byteSize();
  }
}
