import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { CatalogRepository } from './catalog.repository.js';
import { CatalogService, type DisplaySizeProvider, type DownloadLinkProvider, type OEmbedUriProvider, type PartnerLicensePrices } from './catalog.service.js';
import { imagesRoutes } from './images.routes.js';
import { videosRoutes } from './videos.routes.js';
import { eventsRoutes } from './events.routes.js';
import { collectionsRoutes } from './collections.routes.js';
import { countriesRoutes } from './countries.routes.js';

export interface CatalogExports {
  catalog: CatalogService;
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
}

/** Images, videos, events, collections and countries: the metadata endpoints and the records behind them. */
export function catalogModule(platform: Platform, needs: CatalogNeeds): StockroomModule<CatalogExports> {
  const { config, database, changeFeed } = platform;
  const catalog = new CatalogService(
    new CatalogRepository(database.db, database.dialect),
    needs.displaySizes,
    needs.downloadLinks,
    config.recordCacheSize,
    needs.oembedUris,
    needs.partnerLicenses,
  );
  // Records cached here may have been changed by another node or the ingest command.
  changeFeed.subscribe((changes) => catalog.applyChanges(changes));
  const deps = { catalog };
  return {
    name: 'catalog',
    exports: { catalog },
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
