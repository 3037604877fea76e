import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { CatalogRepository } from './catalog.repository.js';
import { CatalogService, type DisplaySizeProvider, type DownloadLinkProvider, type OEmbedUriProvider, type PartnerLicensePrices } from './catalog.service.js';
import { imagesRoutes } from './images.routes.js';
import { videosRoutes } from './videos.routes.js';
import { eventsRoutes } from './events.routes.js';
import { collectionsRoutes } from './collections.routes.js';
import { countriesRoutes } from './countries.routes.js';
import { IngestService, type IngestCheckpoints } from './ingest/ingest.service.js';
import { IngestCheckpointRepository } from './ingest/ingest-checkpoints.repository.js';
import { CatalogEditingService } from './catalog-editing.service.js';
import type { VideoTools } from '../media/video/video-tools.js';

export interface CatalogExports {
  catalog: CatalogService;
  /** The back office's work on the catalogue: drafts, fields, files, publish, withdraw, bring back. */
  catalogEditing: CatalogEditingService;
  /**
   * Ingest of one record at a time (applyRecord) for a serving node: what the back office's
   * edits and uploads store through. Without the nudity classifier, which a command loads: a new
   * original's nudity is left to `stockroom backfill`.
   */
  ingest: IngestService;
  /** How far each manifest's ingest has come, for `stockroom ingest` to continue a run that was stopped. */
  ingestCheckpoints: IngestCheckpoints;
}

export interface CatalogNeeds {
  /** The display URIs of an asset (media). */
  displaySizes: DisplaySizeProvider;
  /** A customer's download links, shown in `download_sizes` (licensing). */
  downloadLinks: DownloadLinkProvider;
  /** An asset's `uri_oembed` (embed). */
  oembedUris: OEmbedUriProvider;
  /** What an asset costs in credits under each license, for partner_licenses when its record lists none (licensing). */
  partnerLicenses: PartnerLicensePrices;
  /** ffmpeg and ffprobe, for a video file an editor gives (media). */
  videoTools: VideoTools;
  /** Makes a new original's display files as it is stored (media). */
  displayFiles: { prepareDisplayFiles(originalKey: string): Promise<unknown> };
}

/** Images, videos, events, collections and countries: the metadata endpoints and the records behind them. */
export function catalogModule(platform: Platform, needs: CatalogNeeds): StockroomModule<CatalogExports> {
  const { config, database, changeFeed, blobs } = platform;
  const catalog = new CatalogService(
    new CatalogRepository(database),
    needs.displaySizes,
    needs.downloadLinks,
    config.recordCacheSize,
    needs.oembedUris,
    needs.partnerLicenses,
  );
  // Records cached here may have been changed by another node or the ingest command.
  changeFeed.subscribe((changes) => catalog.applyChanges(changes));
  const ingest = new IngestService({ catalog, blobs, videoTools: needs.videoTools, displayFiles: needs.displayFiles });
  const catalogEditing = new CatalogEditingService({ catalog, ingest });
  const deps = { catalog };
  return {
    name: 'catalog',
    exports: { catalog, catalogEditing, ingest, ingestCheckpoints: new IngestCheckpointRepository(database.db) },
    routes: {
      async api(api) {
        await api.register(imagesRoutes, deps);
        await api.register(videosRoutes, deps);
        await api.register(eventsRoutes, deps);
        await api.register(collectionsRoutes, deps);
        await api.register(countriesRoutes);
      },
    },
  };
}
