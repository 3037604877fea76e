import { createHash } from 'node:crypto';
import type { Change } from '../platform/db/change-log.js';
import type { AssetRecord, AssetType } from '../catalog/catalog.records.js';
import type { CatalogService } from '../catalog/catalog.service.js';
import { SearchIndex } from './engine/search-index.js';
import { SNAPSHOT_VERSION, type SnapshotChunk } from './engine/snapshot-format.js';
import type { IndexDocument, SearchQuery, SearchResult } from './engine/types.js';
import { IndexBuildThread, type BuiltIndex } from './engine/index-build-thread.js';
import { VisualIndex } from './visual/visual-index.js';
import { SIGNATURE_LENGTH, SIGNATURE_VERSION, decodeStoredSignature } from '../media/visual-signature.js';
import { ASSET_INDEX_SCHEMA, EVENT_INDEX_SCHEMA, SEARCH_DOCUMENT_VERSION, assetDocument, eventDocument } from './search-documents.js';
import { openSnapshotFile, writeSnapshotFile, type SnapshotHeader, type SnapshotSection } from './search-snapshot.js';
import { SHARED_MANIFEST_KEY, messageOf, type PublishOutcome, type SharedSnapshots, type SnapshotManifest } from './shared-snapshots.js';

/** The change log as the search service reads it. */
export interface ChangeSource {
  after(seq: number, limit: number): Promise<Change[]>;
  latest(): Promise<number>;
}

export interface SearchServiceOptions {
  catalog: CatalogService;
  changes: ChangeSource;
  /** Where this node keeps its snapshot, and the id of the store it reflects; absent: no snapshot. */
  snapshot?: { file: string; storeId: string; tokensOnDisk?: boolean | undefined } | undefined;
  /**
   * The snapshot shared through the blob store (with `snapshot` only): loaded at boot when it is
   * newer than this node's own, and published by this node every `publishEveryMs` (0: never)
   * and at shutdown, one node at a time.
   */
  shared?: { snapshots: SharedSnapshots; publishEveryMs: number; now: () => Date } | undefined;
  /**
   * Tells the operator what the boot did (loaded a snapshot, rebuilt, why): `warn` when a
   * snapshot could not be used or written, or a whole read of the store was needed — what makes a boot slow.
   */
  log?: ((message: string, level?: 'info' | 'warn') => void) | undefined;
  /**
   * With `snapshot`: builds the snapshot file in another process (resolving once it exited
   * well, rejecting with why not), which a boot with no usable snapshot then loads; absent: the
   * boot builds in this process.
   */
  buildSnapshotElsewhere?: ((log: (message: string, level?: 'info' | 'warn') => void) => Promise<void>) | undefined;
  /** Told how long each search took in the index, in seconds (the metrics). */
  observe?: ((kind: 'assets' | 'events' | 'visual', seconds: number) => void) | undefined;
}

export interface VisualSearchRequest {
  signature: Float32Array;
  assetType: AssetType;
  /** phrase, mode and filters choose the assets ranked; facets are counted over them; offset/limit page. */
  query: SearchQuery;
  /** Never returned (the source asset of a search by asset id). */
  excludeId?: string | undefined;
}

/**
 * Past this many changes since the snapshot, reading the whole store is cheaper than
 * replaying the log one batch at a time.
 */
const REPLAY_LIMIT = 100_000;
/** How often a node that fetches the shared snapshot says how far it has come. */
const FETCH_PROGRESS_MS = 10_000;
/** A whole read of the store logs its progress every this many assets. */
const REBUILD_PROGRESS_EVERY = 250_000;
const CHANGE_PAGE = 1000;

/** Everything a snapshot's content depends on besides the store: a snapshot made by other code is not loaded. */
const DOCUMENTS_FINGERPRINT = createHash('sha256')
  .update(JSON.stringify({ ASSET_INDEX_SCHEMA, EVENT_INDEX_SCHEMA, SEARCH_DOCUMENT_VERSION, SIGNATURE_VERSION, SNAPSHOT_VERSION }))
  .digest('hex')
  .slice(0, 16);

interface Indexes {
  assets: SearchIndex;
  events: SearchIndex;
  visual: Record<AssetType, VisualIndex>;
}

const emptyIndexes = (): Indexes => ({
  assets: new SearchIndex(ASSET_INDEX_SCHEMA),
  events: new SearchIndex(EVENT_INDEX_SCHEMA),
  visual: { image: new VisualIndex(), video: new VisualIndex() },
});

/**
 * The search indexes of this node: loaded from its snapshot or built from the store at boot,
 * then kept current from the change log, so that every node converges on the same results
 * whichever node wrote. Text and attributes live in one index for images and videos, events
 * in another; visual signatures in one nearest-neighbour index per asset type.
 */
export class SearchService {
  private indexes: Indexes = emptyIndexes();
  /** Every change up to this number is in the indexes. */
  private seq = 0;
  /** The seq of the snapshot on disk (or -1): a snapshot is written only when there is news. */
  private savedSeq = -1;
  /** Updates apply one batch at a time, in log order. */
  private updating: Promise<void> = Promise.resolve();
  /** Until build(), the indexes are empty: nothing to snapshot (a one-off command never builds). */
  private built = false;
  /** The shared snapshot is broken (its object missing or failing its checksum): the next publish replaces it without waiting. */
  private sharedBroken = false;
  /** A publish under way (one at a time in a node). */
  private publishing: Promise<PublishOutcome | undefined> | undefined;
  /**
   * Set in the queue once close() has written its snapshot: the indexes have let go of the file
   * they read in place, so changes the feed still delivers are not applied (the next node
   * replays them from the log), and no later snapshot is written from released indexes.
   */
  private closed = false;
  /** The close under way or done: a node closes once. */
  private closing: Promise<void> | undefined;

  constructor(private readonly options: SearchServiceOptions) {}

  /**
   * Fills the indexes: from the snapshot when there is a usable one (then the log since it),
   * else from the whole store (then writes a snapshot). It takes its turn with the change-log
   * updates: changes that arrive meanwhile apply after it.
   */
  build(onProgress?: (documents: number) => void): Promise<void> {
    const built = this.updating.then(async () => {
      if (!(await this.loadSnapshot()) && !(await this.loadBuiltElsewhere())) {
        await this.rebuild(this.options.snapshot ? 'no usable snapshot' : 'snapshots are off', onProgress);
      }
      this.built = true;
    });
    this.updating = built.then(
      () => this.saveSnapshot(),
      () => undefined,
    );
    return built;
  }

  /**
   * Has another process build the snapshot, then loads it (and the changes since) as any
   * snapshot: the garbage of the build dies with that process. False, after one line saying
   * why, when it failed or left no usable snapshot: the caller builds in this process.
   */
  private async loadBuiltElsewhere(): Promise<boolean> {
    const { buildSnapshotElsewhere, snapshot } = this.options;
    if (!buildSnapshotElsewhere || !snapshot) return false;
    const log = this.options.log ?? (() => undefined);
    const started = performance.now();
    log('search index: no usable snapshot; a child process builds it from the store', 'info');
    try {
      await buildSnapshotElsewhere(log);
    } catch (error) {
      log(`search index: the child process that builds the snapshot failed (${messageOf(error)}); building in this process instead`, 'warn');
      return false;
    }
    log(`search index: the child process wrote the snapshot in ${((performance.now() - started) / 1000).toFixed(1)} s; loading it`, 'info');
    if (await this.loadSnapshot()) return true;
    log('search index: the child process left no usable snapshot; building in this process instead', 'warn');
    return false;
  }

  /**
   * The work of a child process that builds the snapshot: reads the whole store as a boot
   * would and writes the snapshot file, stamped with the change seq read before the read.
   * Throws when the file cannot be written. The node stays unbuilt: its close neither writes
   * nor publishes.
   */
  async writeSnapshotFromStore(log: (message: string, level?: 'info' | 'warn') => void): Promise<void> {
    const target = this.options.snapshot;
    if (!target) throw new Error('search snapshots are off: there is no snapshot to write');
    // The asset index is built in a thread of its own while this one reads the store: the
    // reading and the indexing each take about half of a build's time (docs/design.md).
    const assets = new IndexBuildThread(ASSET_INDEX_SCHEMA);
    let read: StoreRead;
    let built: BuiltIndex;
    try {
      read = await this.readStore('a child process builds the snapshot', log, (docs) => assets.add(docs));
      built = await assets.finish();
    } catch (error) {
      await assets.close();
      throw error;
    }
    const sections = snapshotSections(built.chunks, read.events, read.visual);
    await writeSnapshotFile(target.file, { storeId: target.storeId, seq: read.seq, documents: DOCUMENTS_FINGERPRINT }, sections);
    log(`search snapshot written (change ${read.seq}, ${built.documents} assets) in ${read.elapsed()}`, 'info');
  }

  /** Reads the whole store into fresh indexes and swaps them in. */
  private async rebuild(reason: string, onProgress?: (documents: number) => void, logTo?: (message: string, level?: 'info' | 'warn') => void): Promise<void> {
    const log = logTo ?? this.options.log ?? (() => undefined);
    const assets = new SearchIndex(ASSET_INDEX_SCHEMA);
    const read = await this.readStore(reason, log, (docs) => assets.appendNew(docs), onProgress);
    // appendNew only appends; the posting lists are built here, before the swap, rather than
    // by the first search after it.
    assets.compact();
    this.replaceIndexes({ assets, events: read.events, visual: read.visual });
    this.seq = read.seq;
    log(`search index built from the store: ${assets.size} assets in ${read.elapsed()}`, 'info');
  }

  /**
   * Reads the whole store: each page of assets as documents to `takeAssets` (awaited: it may
   * hold the read back; each id comes once, as the scan reads by the key), the events and the
   * visual signatures into fresh indexes (the events' compacted), and the change number the
   * read starts from.
   */
  private async readStore(
    reason: string,
    log: (message: string, level?: 'info' | 'warn') => void,
    takeAssets: (docs: IndexDocument[]) => void | Promise<void>,
    onProgress?: (documents: number) => void,
  ): Promise<StoreRead> {
    const started = performance.now();
    const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
    log(`search index: reading the whole store (${reason})`, 'info');
    // Changes up to here are all in what the scan reads; later ones may be too, and replaying
    // a change is harmless, so the log is followed from this number.
    const seq = await this.options.changes.latest();
    const fresh = { events: new SearchIndex(EVENT_INDEX_SCHEMA), visual: { image: new VisualIndex(), video: new VisualIndex() } };
    let count = 0;
    let reported = 0;
    for await (const page of this.options.catalog.scanAssets()) {
      await takeAssets(page.map(assetDocument));
      for (const record of page) putSignature(fresh.visual, record);
      count += page.length;
      onProgress?.(count);
      if (count - reported >= REBUILD_PROGRESS_EVERY) {
        reported = count;
        log(`search index: ${count} assets read from the store in ${elapsed()}`, 'info');
      }
    }
    for await (const page of this.options.catalog.scanEvents()) fresh.events.upsertMany(page.map(eventDocument));
    fresh.events.compact();
    return { seq, ...fresh, elapsed };
  }

  /** Follows the change log; returns at once, the work is queued. */
  applyChanges(changes: readonly Change[]): void {
    this.updating = this.updating.then(() => this.apply(changes)).catch(() => undefined);
  }

  /** Resolves once every queued change is in the indexes. */
  settled(): Promise<void> {
    return this.updating;
  }

  private async apply(changes: readonly Change[]): Promise<void> {
    if (changes.length === 0 || this.closed) return;
    const lastSeq = changes[changes.length - 1]!.seq;
    const { assets, events, visual } = this.indexes;
    const latest = new Map<string, Change>();
    for (const change of changes) latest.set(`${change.entity_type}:${change.entity_id}`, change);
    const assetIds: Record<AssetType, Set<string>> = { image: new Set(), video: new Set() };
    const eventIds: number[] = [];
    const shown = { collectionIds: [] as number[], keywordIds: [] as number[] };
    for (const change of latest.values()) {
      if (change.entity_type === 'event') {
        eventIds.push(Number(change.entity_id));
      } else if (change.entity_type === 'image' || change.entity_type === 'video') {
        if (change.operation === 'delete') {
          assets.remove(change.entity_id);
          visual[change.entity_type].remove(change.entity_id);
        } else assetIds[change.entity_type].add(change.entity_id);
      } else if (change.entity_type === 'keyword') {
        shown.keywordIds.push(Number(change.entity_id));
      } else if (change.entity_type === 'collection' && change.operation !== 'insert') {
        // A new collection is in no document yet: the assets that name it are logged themselves.
        shown.collectionIds.push(Number(change.entity_id));
      }
    }
    // A renamed collection or a changed keyword shows in assets the log does not name: just
    // those are read again (a whole rebuild would take minutes at millions of assets, on every
    // node, for each new keyword translation an ingest brings).
    const showing = await this.options.catalog.assetsShowing(shown);
    for (const type of ['image', 'video'] as const) {
      for (const id of showing[type]) assetIds[type].add(id);
      const ids = [...assetIds[type]];
      for (let start = 0; start < ids.length; start += CHANGE_PAGE) {
        const { found, notFound } = await this.options.catalog.findAssets(type, ids.slice(start, start + CHANGE_PAGE));
        for (const record of found) {
          assets.upsert(assetDocument(record));
          putSignature(visual, record);
        }
        for (const id of notFound) {
          assets.remove(id);
          visual[type].remove(id);
        }
      }
    }
    if (eventIds.length > 0) {
      // An event's image count changes with its assets; events are few, so they are re-read whole.
      const selection = await this.options.catalog.findEventRecords(eventIds);
      for (const event of selection) events.upsert(eventDocument(event));
    }
    this.seq = Math.max(this.seq, lastSeq);
  }

  // ---------------------------------------------------------------------------------------
  // Snapshots

  /**
   * Loads the snapshot and replays the log since it; false when there is none fit to use. The
   * shared snapshot, when it is newer than this node's own and fit, is fetched into this node's
   * file first: from there on both are loaded alike.
   */
  private async loadSnapshot(): Promise<boolean> {
    const target = this.options.snapshot;
    if (!target) return false;
    const log = this.options.log ?? (() => undefined);
    const started = performance.now();
    const latest = await this.options.changes.latest();
    if (this.options.shared) await this.fetchShared(this.options.shared.snapshots, target, latest);
    let file;
    try {
      file = openSnapshotFile(target.file);
    } catch (error) {
      log(`search snapshot ${target.file} is unreadable (${error instanceof Error ? error.message : String(error)}); rebuilding`, 'warn');
      return false;
    }
    if (!file) return false;
    let indexes: Indexes;
    const { header, sections } = file;
    try {
      const unfit = unfitness(header, target.storeId, latest);
      if (unfit) {
        log(`search snapshot not used: ${unfit}; rebuilding from the store`, 'warn');
        return false;
      }
      try {
        // a source that cannot keep a section: the index copies its token stream into memory
        const source = (name: string) => {
          const section = requiredSection(sections, name);
          return target.tokensOnDisk === false ? { length: section.length, read: section.read } : section;
        };
        indexes = {
          assets: SearchIndex.fromSnapshot(source('assets')),
          events: SearchIndex.fromSnapshot(source('events')),
          visual: {
            image: visualFromSections(requiredSection(sections, 'visual.image.ids'), requiredSection(sections, 'visual.image.vectors')),
            video: visualFromSections(requiredSection(sections, 'visual.video.ids'), requiredSection(sections, 'visual.video.vectors')),
          },
        };
      } catch (error) {
        log(`search snapshot is damaged (${error instanceof Error ? error.message : String(error)}); rebuilding`, 'warn');
        return false;
      }
    } finally {
      file.close();
    }
    this.replaceIndexes(indexes);
    this.seq = header.seq;
    this.savedSeq = header.seq;
    for (let after = header.seq; ; ) {
      const changes = await this.options.changes.after(after, CHANGE_PAGE);
      if (changes.length === 0) break;
      await this.apply(changes);
      after = changes[changes.length - 1]!.seq;
    }
    log(
      `search index loaded from its snapshot (${indexes.assets.size} assets) and ${this.seq - header.seq} later changes in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      'info',
    );
    return true;
  }

  /**
   * Makes this node's snapshot file the shared one when that is newer and fit. A shared
   * snapshot of another store or version, too far behind, missing or failing its checksum is
   * refused with one log line saying why and what the node does instead.
   */
  private async fetchShared(shared: SharedSnapshots, target: { file: string; storeId: string }, latest: number): Promise<void> {
    const log = this.options.log ?? (() => undefined);
    const own = readableHeader(target.file);
    const ownFit = own !== undefined && unfitness(own, target.storeId, latest) === undefined;
    const instead = ownFit ? "loading this node's own snapshot" : 'building the index from the store';
    let manifest: SnapshotManifest | undefined;
    try {
      manifest = await shared.latest();
    } catch (error) {
      log(`shared search snapshot ${shared.describe(SHARED_MANIFEST_KEY)} refused: ${messageOf(error)}; ${instead}`, 'warn');
      return;
    }
    for (let attempt = 1; manifest; attempt++) {
      const where = shared.describe(manifest.key);
      const unfit = unfitness(manifest, target.storeId, latest);
      if (unfit) {
        log(`shared search snapshot ${where} refused: ${unfit}; ${instead}`, 'warn');
        return;
      }
      if (ownFit && own.seq >= manifest.seq) return;
      const started = performance.now();
      const { size } = manifest;
      // Gigabytes at ten million assets: the operator sees the fetch move.
      let reported = started;
      const progress = (bytes: number) => {
        if (performance.now() - reported < FETCH_PROGRESS_MS) return;
        reported = performance.now();
        log(`fetching shared search snapshot ${where}: ${megabytes(bytes)} of ${megabytes(size)}`);
      };
      try {
        await shared.download(manifest, target.file, progress);
      } catch (error) {
        // A publisher may have replaced the snapshot and removed this one meanwhile: the new one is fetched instead.
        const replaced = attempt === 1 ? await shared.latest().catch(() => undefined) : undefined;
        if (replaced && replaced.key !== manifest.key) {
          manifest = replaced;
          continue;
        }
        this.sharedBroken = true;
        log(`shared search snapshot ${where} refused: ${messageOf(error)}; ${instead}`, 'warn');
        return;
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      log(`shared search snapshot ${where} fetched (change ${manifest.seq}, ${manifest.size} bytes, SHA-256 checked) in ${seconds} s`);
      return;
    }
  }

  /**
   * Publishes this node's snapshot to the blob store when it is due: the shared one is missing
   * or broken, or this node's is newer and either `publishEveryMs` has passed since the shared
   * one was published, half the replay limit of changes has come since, or the node is
   * stopping. Another node publishing at the time wins; this node does not wait. Never throws.
   */
  publishSnapshot(occasion: 'schedule' | 'shutdown'): Promise<PublishOutcome | undefined> {
    this.publishing ??= this.publish(occasion).finally(() => {
      this.publishing = undefined;
    });
    return this.publishing;
  }

  private async publish(occasion: 'schedule' | 'shutdown'): Promise<PublishOutcome | undefined> {
    const { shared, snapshot } = this.options;
    if (!shared || !snapshot || !this.built || this.closed || shared.publishEveryMs === 0) return undefined;
    const log = this.options.log ?? (() => undefined);
    const { snapshots } = shared;
    const due = (current: SnapshotManifest | undefined, seq: number) => this.publishingDue(current, seq, snapshot.storeId, occasion);
    try {
      // Asked before this node writes its own file, and again under the hold of the file written.
      if (!due(await snapshots.latest().catch(() => undefined), this.seq)) return { published: false, reason: 'not due' };
      this.updating = this.updating.then(() => this.saveSnapshot());
      await this.updating;
      const outcome = await snapshots.publish(snapshot.file, (current, header) => due(current, header.seq));
      if (outcome.published) {
        this.sharedBroken = false;
        const { manifest, seconds } = outcome;
        log(`search snapshot published to ${snapshots.describe(manifest.key)} (change ${manifest.seq}, ${manifest.size} bytes) in ${seconds.toFixed(1)} s`);
      }
      return outcome;
    } catch (error) {
      log(`search snapshot not published (${messageOf(error)})`, 'warn');
      return undefined;
    }
  }

  private publishingDue(current: SnapshotManifest | undefined, seq: number, storeId: string, occasion: 'schedule' | 'shutdown'): boolean {
    if (!current || this.sharedBroken) return true;
    const { publishEveryMs, now } = this.options.shared!;
    const aged = !(Date.parse(current.publishedAt) > now().getTime() - publishEveryMs);
    // Nodes of two versions (a rolling upgrade) each replace the other's only on the schedule, never back and forth.
    if (current.storeId !== storeId || current.documents !== DOCUMENTS_FINGERPRINT) return aged;
    if (seq <= current.seq) return false;
    return occasion === 'shutdown' || aged || seq - current.seq >= REPLAY_LIMIT / 2;
  }

  /** Writes the snapshot when the indexes hold changes the one on disk lacks. Never throws. */
  private async saveSnapshot(): Promise<void> {
    const target = this.options.snapshot;
    if (!target || !this.built || this.closed || this.seq === this.savedSeq) return;
    try {
      await this.writeSnapshot(target);
    } catch (error) {
      this.options.log?.(`search snapshot not written (${error instanceof Error ? error.message : String(error)})`, 'warn');
    }
  }

  /** Writes the indexes as they stand to the snapshot file; throws when it cannot. */
  private async writeSnapshot(target: NonNullable<SearchServiceOptions['snapshot']>): Promise<void> {
    const { assets, events, visual } = this.indexes;
    const seq = this.seq;
    const sections = snapshotSections(assets.toSnapshotChunks(), events, visual);
    const header: SnapshotHeader = { storeId: target.storeId, seq, documents: DOCUMENTS_FINGERPRINT };
    await writeSnapshotFile(target.file, header, sections);
    this.savedSeq = seq;
    if (target.tokensOnDisk !== false) this.keepForwardIn(target.file);
  }

  /**
   * The text indexes' forward streams — a quarter of what they hold, read only by phrase checks
   * of a few candidates, deletions and compactions — are read in place from the snapshot just
   * written (in the queue: the indexes are as written), as a boot from it would: what a node
   * holds then is what a snapshot boot gives, whether it wrote the snapshot or loaded it.
   * A failure only leaves the streams in memory.
   */
  private keepForwardIn(file: string): void {
    let opened;
    try {
      opened = openSnapshotFile(file);
      if (!opened) return;
      for (const name of ['assets', 'events'] as const) this.indexes[name].keepForwardIn(requiredSection(opened.sections, name));
    } catch (error) {
      this.options.log?.(`search index: its forward stream stays in memory (the snapshot just written could not be read back: ${messageOf(error)})`, 'warn');
    } finally {
      opened?.close();
    }
  }

  /** Puts new indexes in place, letting go of the files the old ones read (searches run to their end synchronously). */
  private replaceIndexes(indexes: Indexes): void {
    const old = this.indexes;
    this.indexes = indexes;
    if (old !== indexes) {
      old.assets.release();
      old.events.release();
    }
  }

  /**
   * Waits for queued changes, then leaves a snapshot of them for the next boot, and publishes it
   * for the other nodes when the shared one is older.
   */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    // In the queue: the sections are views of the live arrays, so no change may land mid-write.
    this.updating = this.updating.then(() => this.saveSnapshot());
    await this.updating;
    await this.publishing;
    await this.publishSnapshot('shutdown');
    // Changes queued before close() are in the snapshot; any queued since are left to the log.
    this.updating = this.updating.then(() => {
      this.closed = true;
      // The token streams read in place from the snapshot file: a stopped node lets go of it
      // (else it stayed open until the indexes were collected, and its file system busy).
      this.indexes.assets.release();
      this.indexes.events.release();
    });
    await this.updating;
  }

  // ---------------------------------------------------------------------------------------
  // Searching

  searchAssets(query: SearchQuery): SearchResult {
    const started = performance.now();
    const result = this.indexes.assets.search(query);
    this.options.observe?.('assets', (performance.now() - started) / 1000);
    return result;
  }

  searchEvents(query: SearchQuery): SearchResult {
    const started = performance.now();
    const result = this.indexes.events.search(query);
    this.options.observe?.('events', (performance.now() - started) / 1000);
    return result;
  }

  /**
   * Suggestions as a person types a search: the text with its last word completed from the
   * catalogue's vocabulary (the words its assets are found by), the commonest first. Nothing
   * for a last word of fewer than two letters, or one inside quotes.
   */
  suggestions(text: string, limit = 8): string[] {
    const match = /^(.*?)([\p{L}\p{N}]{2,})$/u.exec(text.trimStart());
    if (!match || (match[1]!.split('"').length - 1) % 2 === 1) return [];
    const [, head, last] = match;
    return this.indexes.assets.completions(last!, limit).map((term) => `${head}${term}`);
  }

  /** The asset's visual signature (current version), if it has one. */
  visualSignatureOf(assetId: string): Float32Array | undefined {
    const { image, video } = this.indexes.visual;
    return image.signatureOf(assetId) ?? video.signatureOf(assetId);
  }

  /**
   * Search by image: the assets of one type that pass the query's phrase and filters, nearest
   * to the signature first (ties by id). Only assets with a signature take part, so
   * result_count counts those, and the facets are counted over exactly that set: never the
   * source asset of a search by asset id, nor an asset without a signature.
   */
  searchVisual(request: VisualSearchRequest): SearchResult {
    const started = performance.now();
    const result = this.nearestMatching(request);
    this.options.observe?.('visual', (performance.now() - started) / 1000);
    return result;
  }

  private nearestMatching(request: VisualSearchRequest): SearchResult {
    const { assets, visual } = this.indexes;
    const nearest = visual[request.assetType];
    const offset = request.query.offset ?? 0;
    const limit = request.query.limit ?? 30;
    const exclude = request.excludeId !== undefined ? new Set([request.excludeId]) : undefined;
    if (choosesEveryAssetOf(request.query, request.assetType)) {
      // Every asset of the type passes (a similar search): the visual index is the set as it
      // stands, so the match set need not be listed first.
      const total = nearest.size - (request.excludeId !== undefined && nearest.has(request.excludeId) ? 1 : 0);
      const neighbours = nearest.nearest(request.signature, offset + limit, exclude ? { exclude } : {});
      return { total, ids: neighbours.slice(offset).map((n) => n.id), facets: {} };
    }
    // Every passing asset, as ids: the set the neighbours are chosen from.
    const { facets: facetRequests = [], ...withoutFacets } = request.query;
    const matched = assets.search({ ...withoutFacets, sort: 'newest', offset: 0, limit: assets.size });
    const admissible = new Set<string>();
    for (const id of matched.ids) if (id !== request.excludeId && nearest.has(id)) admissible.add(id);
    const neighbours = nearest.nearest(request.signature, offset + limit, { filter: (id) => admissible.has(id), ...(exclude ? { exclude } : {}) });
    const result: SearchResult = {
      total: admissible.size,
      ids: neighbours.slice(offset).map((n) => n.id),
      // Counted over the results themselves, not the match set the query found.
      facets: assets.facetsOf(admissible, facetRequests),
    };
    if (matched.corrections) result.corrections = matched.corrections;
    return result;
  }

  get assetCount(): number {
    return this.indexes.assets.size;
  }

  get eventCount(): number {
    return this.indexes.events.size;
  }

  /** Whether the indexes have been loaded or built (a serving node's start). */
  get ready(): boolean {
    return this.built;
  }
}

/** True when the query keeps every asset of the type: no phrase, no facets, no filter but the type. */
function choosesEveryAssetOf(query: SearchQuery, assetType: AssetType): boolean {
  if ((query.phrase ?? '').trim() !== '' || (query.facets?.length ?? 0) > 0) return false;
  const filters = query.filters ?? [];
  if (filters.length !== 1) return false;
  const only = filters[0]!;
  return only.attribute === 'asset_type' && 'anyOf' in only && !only.exclude && only.anyOf.length === 1 && only.anyOf[0] === assetType;
}

function safeDecode(text: string): Float32Array | undefined {
  try {
    return decodeStoredSignature(text);
  } catch {
    return undefined;
  }
}

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024).toLocaleString('en-US')} MB`;

/** Why a snapshot cannot serve this node (another store, another version, too far from the log); undefined when it can. */
function unfitness(header: SnapshotHeader, storeId: string, latest: number): string | undefined {
  if (header.storeId !== storeId) return `it belongs to another store (${header.storeId}, this node's is ${storeId})`;
  if (header.documents !== DOCUMENTS_FINGERPRINT) return `it was made by another version (format ${header.documents}, this node's is ${DOCUMENTS_FINGERPRINT})`;
  if (header.seq > latest) return `it is ahead of the change log (change ${header.seq}, the log ends at ${latest}: a restored store?)`;
  if (latest - header.seq > REPLAY_LIMIT) return `it is ${latest - header.seq} changes behind`;
  return undefined;
}

/** The header of the snapshot file at `file`; undefined when there is none or it cannot be read. */
function readableHeader(file: string): SnapshotHeader | undefined {
  try {
    const opened = openSnapshotFile(file);
    opened?.close();
    return opened?.header;
  } catch {
    return undefined;
  }
}

function requiredSection(sections: Map<string, SnapshotSection>, name: string): SnapshotSection {
  const section = sections.get(name);
  if (!section) throw new Error(`section ${name} is missing`);
  return section;
}

/** What a store read gives besides the assets' documents. */
interface StoreRead {
  seq: number;
  events: SearchIndex;
  visual: Record<AssetType, VisualIndex>;
  /** the time since the read started, for the log */
  elapsed: () => string;
}

/** The visual signature of an asset, or none, in the visual index of its type. */
function putSignature(visual: Record<AssetType, VisualIndex>, record: AssetRecord): void {
  const signature = record.visual_signature ? safeDecode(record.visual_signature) : undefined;
  const index = visual[record.asset_type];
  if (signature) index.upsert(record.id, signature);
  else index.remove(record.id);
}

/** A snapshot's sections: views of the indexes' own arrays, written as they are (no copy of an index is made). */
function snapshotSections(assetChunks: SnapshotChunk[], events: SearchIndex, visual: Record<AssetType, VisualIndex>): Map<string, SnapshotChunk[]> {
  const sections = new Map<string, SnapshotChunk[]>([
    ['assets', assetChunks],
    ['events', events.toSnapshotChunks()],
  ]);
  for (const type of ['image', 'video'] as const) {
    const [ids, vectors] = visualSections(visual[type]);
    sections.set(`visual.${type}.ids`, [ids]);
    sections.set(`visual.${type}.vectors`, [vectors]);
  }
  return sections;
}

/** A visual index as two sections: the ids, newline-separated, and the signatures back to back. */
function visualSections(index: VisualIndex): [Uint8Array, Uint8Array] {
  const ids: string[] = [];
  const vectors = new Float32Array(index.size * SIGNATURE_LENGTH);
  let slot = 0;
  for (const [id, signature] of index.entries()) {
    ids.push(id);
    vectors.set(signature, slot++ * SIGNATURE_LENGTH);
  }
  return [Buffer.from(ids.join('\n'), 'utf8'), new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength)];
}

function visualFromSections(idSection: SnapshotSection, vectorSection: SnapshotSection): VisualIndex {
  const idBytes = idSection.bytes();
  const ids = idBytes.length === 0 ? [] : idBytes.toString('utf8').split('\n');
  if (vectorSection.length !== ids.length * SIGNATURE_LENGTH * 4) throw new Error('visual signatures and ids differ in count');
  const vectors = new Float32Array(ids.length * SIGNATURE_LENGTH);
  vectorSection.read(0, new Uint8Array(vectors.buffer));
  const index = new VisualIndex();
  ids.forEach((id, slot) => index.upsert(id, vectors.subarray(slot * SIGNATURE_LENGTH, (slot + 1) * SIGNATURE_LENGTH)));
  return index;
}
