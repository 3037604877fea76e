import type { Change } from '../platform/db/change-log.js';
import type { AssetType } from '../catalog/catalog.records.js';
import type { CatalogService } from '../catalog/catalog.service.js';
import { SearchIndex } from './engine/search-index.js';
import type { SearchQuery, SearchResult } from './engine/types.js';
import { ASSET_INDEX_SCHEMA, EVENT_INDEX_SCHEMA, assetDocument, eventDocument } from './search-documents.js';

/**
 * The search indexes of this node: built from the store at boot, then kept current from the
 * change log, so that every node converges on the same results whichever node wrote.
 */
export class SearchService {
  private assets = new SearchIndex(ASSET_INDEX_SCHEMA);
  private events = new SearchIndex(EVENT_INDEX_SCHEMA);
  /** Updates apply one batch at a time, in log order. */
  private updating: Promise<void> = Promise.resolve();

  constructor(private readonly catalog: CatalogService) {}

  /**
   * Reads every asset and event from the store into fresh indexes, then swaps them in. It takes
   * its turn with the change-log updates: changes that arrive meanwhile apply after it.
   */
  build(onProgress?: (documents: number) => void): Promise<void> {
    const built = this.updating.then(() => this.buildNow(onProgress));
    this.updating = built.catch(() => undefined);
    return built;
  }

  private async buildNow(onProgress?: (documents: number) => void): Promise<void> {
    const assets = new SearchIndex(ASSET_INDEX_SCHEMA);
    const events = new SearchIndex(EVENT_INDEX_SCHEMA);
    let count = 0;
    for await (const page of this.catalog.scanAssets()) {
      assets.upsertMany(page.map(assetDocument));
      count += page.length;
      onProgress?.(count);
    }
    for await (const page of this.catalog.scanEvents()) events.upsertMany(page.map(eventDocument));
    // upsertMany only appends; the posting lists are built here, before the swap, rather than
    // by the first search after it.
    assets.compact();
    events.compact();
    this.assets = assets;
    this.events = events;
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
    // A renamed collection or a changed keyword touches assets the log does not name.
    if (changes.some((c) => c.entity_type === 'collection' || c.entity_type === 'keyword')) {
      await this.buildNow();
      return;
    }
    const latest = new Map<string, Change>();
    for (const change of changes) latest.set(`${change.entity_type}:${change.entity_id}`, change);
    const assetIds: Record<AssetType, string[]> = { image: [], video: [] };
    const eventIds: number[] = [];
    for (const change of latest.values()) {
      if (change.entity_type === 'event') {
        eventIds.push(Number(change.entity_id));
      } else if (change.entity_type === 'image' || change.entity_type === 'video') {
        if (change.operation === 'delete') this.assets.remove(change.entity_id);
        else assetIds[change.entity_type].push(change.entity_id);
      }
    }
    for (const type of ['image', 'video'] as const) {
      if (assetIds[type].length === 0) continue;
      const { found, notFound } = await this.catalog.findAssets(type, assetIds[type]);
      for (const record of found) this.assets.upsert(assetDocument(record));
      for (const id of notFound) this.assets.remove(id);
    }
    if (eventIds.length > 0) {
      // An event's image count changes with its assets; events are few, so they are re-read whole.
      const selection = await this.catalog.findEventRecords(eventIds);
      for (const event of selection) this.events.upsert(eventDocument(event));
    }
  }

  searchAssets(query: SearchQuery): SearchResult {
    return this.assets.search(query);
  }

  searchEvents(query: SearchQuery): SearchResult {
    return this.events.search(query);
  }

  get assetCount(): number {
    return this.assets.size;
  }
}
