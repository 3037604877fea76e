import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { getOrCreateSetting } from '../platform/db/settings.js';
import { latestChangeSeq, readChangesAfter } from '../platform/db/change-log.js';
import type { CatalogService } from '../catalog/catalog.service.js';
import { SearchService } from './search.service.js';
import { SharedSnapshots } from './shared-snapshots.js';
import { buildSnapshotInChild } from './snapshot-builder.js';
import { SnapshotPublishingLease } from './snapshot-lease.js';
import { AssetSearch } from './asset-search.js';
import { SEARCH_ENDPOINT_DEFINITIONS } from './params/search-parameters.js';
import { searchRoutes } from './search.routes.js';
import { visualSearchRoutes } from './visual-search.routes.js';
import { artistsRoutes } from './artists.routes.js';
import { affiliatesRoutes } from './affiliates.routes.js';
import type { LicensingLimits } from './licensing-limits.js';
import { UploadsRepository } from './uploads/uploads.repository.js';
import { UploadsService } from './uploads/uploads.service.js';
import { uploadsRoutes } from './uploads/uploads.routes.js';

export interface SearchExports {
  /** The search indexes of this node; built only by a serving node (start). */
  search: SearchService;
  /** A search from a normalised request to the records found, for the routes and whatever else shows search results (the catalogue browser). */
  assetSearch: AssetSearch;
  /** Files uploaded for search by image, per sender (a user, or an API key alone). */
  uploads: UploadsService;
}

export interface SearchNeeds {
  /** The records searched and returned. */
  catalog: CatalogService;
  /** The token rule: with a customer's token, only what the customer may license (licensing). */
  products: LicensingLimits;
}

/** How often a serving node deletes the uploads whose 24 hours are over. */
const UPLOAD_SWEEP_MS = 15 * 60 * 1000;

/** How often a serving node asks whether the shared search snapshot is due (the setting says how old it may grow). */
const PUBLISH_CHECK_MS = 60 * 1000;
/** A publishing node renews its hold every third of this while it uploads; one that stops loses it after this. */
const PUBLISH_LEASE_MS = 2 * 60 * 1000;

/** Searches take from microseconds (a rare word) to tens of milliseconds (facets over a million). */
const SEARCH_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** Keyword, event, artist, affiliate and visual search, and the uploads searched by image. */
export async function searchModule(platform: Platform, needs: SearchNeeds): Promise<StockroomModule<SearchExports>> {
  const { config, database, blobs, changeFeed, log, clock } = platform;
  const { catalog, products } = needs;
  const { db } = database;
  // A node's search snapshot belongs to one store: the store's id travels in it.
  const storeId = await getOrCreateSetting(db, 'store_id', () => randomUUID());
  const searchSeconds = platform.metrics.histogram('search_duration_seconds', "Time a search takes in this node's index, by kind (assets, events, visual)", ['kind'], SEARCH_BUCKETS);
  const node = platform.jobs.node;
  const snapshots = new SharedSnapshots({
    blobs,
    lease: new SnapshotPublishingLease({ db, dialect: database.dialect, node, leaseMs: PUBLISH_LEASE_MS, now: clock }),
    node,
    now: clock,
    log: (message) => log.warn(message),
  });
  const search = new SearchService({
    catalog,
    changes: { after: (seq, limit) => readChangesAfter(db, seq, limit), latest: () => latestChangeSeq(db) },
    snapshot: config.searchSnapshot ? { file: path.join(config.dataDir, 'search', 'index.snapshot'), storeId, tokensOnDisk: config.searchTokensOnDisk } : undefined,
    shared: { snapshots, publishEveryMs: config.searchSnapshotPublishMinutes * 60 * 1000, now: clock },
    log: (message, level = 'info') => log[level](message),
    // Only where another process can open this very store (not a SQLite in memory).
    buildSnapshotElsewhere:
      config.searchSnapshot && config.searchBuildInChild && database.reopen
        ? (report) => buildSnapshotInChild({ config, database: database.reopen! }, report)
        : undefined,
    observe: (kind, seconds) => searchSeconds.observe({ kind }, seconds),
  });
  platform.metrics.gauge('search_index_documents', "Documents in this node's search index, by index (assets, events)", () => [
    { labels: { index: 'assets' }, value: search.assetCount },
    { labels: { index: 'events' }, value: search.eventCount },
  ], ['index']);
  platform.readiness.add('search', () => {
    if (!search.ready) throw new Error('the search index is still being loaded or built');
  });
  const assetSearch = new AssetSearch({
    search,
    catalog,
    factRules: { nudityThreshold: config.mediaFacts.nudityThreshold },
    searchUrl: (endpoint, phrase) => `${config.publicUrl}/v3${SEARCH_ENDPOINT_DEFINITIONS[endpoint].path}?phrase=${encodeURIComponent(phrase)}`,
  });
  const uploads = new UploadsService({
    repository: new UploadsRepository(db, database.dialect),
    blobs,
    publicUrl: config.publicUrl,
    quotas: { perKey: config.storedFiles.uploadsPerKey, perUser: config.storedFiles.uploadsPerUser },
    decodes: platform.imageDecodes,
  });
  let sweeping: NodeJS.Timeout | undefined;
  let publishing: NodeJS.Timeout | undefined;
  return {
    name: 'search',
    exports: { search, assetSearch, uploads },
    routes: {
      async api(api) {
        await api.register(searchRoutes, { search: assetSearch, products });
        await api.register(artistsRoutes, { search: assetSearch, products });
        await api.register(affiliatesRoutes, { search: assetSearch });
        await api.register(uploadsRoutes, { uploads });
        await api.register(visualSearchRoutes, {
          search: assetSearch,
          catalog,
          resolveImageUrl: (owner, imageUrl) => uploads.resolveImageUrl(owner, imageUrl),
          products,
        });
      },
    },
    async start() {
      // The index follows the change log from before it is built, so no write falls between.
      changeFeed.subscribe((changes) => search.applyChanges(changes));
      await search.build();
      // The first node of a cluster publishes as soon as it has built; the others when it is due.
      if (config.searchSnapshot && config.searchSnapshotPublishMinutes > 0) {
        void search.publishSnapshot('schedule');
        publishing = setInterval(() => void search.publishSnapshot('schedule'), PUBLISH_CHECK_MS);
        publishing.unref();
      }
      // Expired uploads also leave when nobody uploads (an upload sweeps too).
      sweeping = setInterval(() => void uploads.purgeExpired().catch((error: unknown) => log.warn({ err: error }, 'sweeping expired uploads failed')), UPLOAD_SWEEP_MS);
      sweeping.unref();
    },
    // The snapshot reflects every change read so far, so the next boot replays less.
    close: () => {
      clearInterval(sweeping);
      clearInterval(publishing);
      return search.close();
    },
  };
}
