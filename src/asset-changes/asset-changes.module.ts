import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { AssetChangesRepository } from './asset-changes.repository.js';
import { AssetChangesService, type RegistrationCatalog } from './asset-changes.service.js';
import { assetChangesRoutes } from './asset-changes.routes.js';

export interface AssetChangesExports {
  /** Channels of partner clients, the change sets handed out on them, and asset registrations. */
  assetChanges: AssetChangesService;
}

export interface AssetChangesNeeds {
  /** Which assets exist, for registrations (the catalogue). */
  catalog: RegistrationCatalog;
}

/** The asset-change feed: partner clients keep their copies of the catalogue in step with it. */
export function assetChangesModule(platform: Platform, needs: AssetChangesNeeds): StockroomModule<AssetChangesExports> {
  const { config, database, clock } = platform;
  const assetChanges = new AssetChangesService({
    repository: new AssetChangesRepository(database.db),
    catalog: needs.catalog,
    publicUrl: config.publicUrl,
    now: clock,
  });
  return {
    name: 'asset-changes',
    exports: { assetChanges },
    routes: {
      async api(api) {
        await api.register(assetChangesRoutes, { assetChanges });
      },
    },
  };
}
