import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { AssetSendsRepository } from './asset-sends.repository.js';
import { AssetSendsService } from './asset-sends.service.js';
import { assetManagementRoutes } from './asset-management.routes.js';

export interface AssetManagementExports {
  /** Assets sent to people: recorded by boards, read by the client that sent them. */
  assetSends: AssetSendsService;
}

/** Asset management: the feed of assets sent to people (GET /v3/asset-management/assets/send-events). */
export function assetManagementModule(platform: Platform): StockroomModule<AssetManagementExports> {
  const assetSends = new AssetSendsService({ repository: new AssetSendsRepository(platform.database.db), now: platform.clock });
  return {
    name: 'asset-management',
    exports: { assetSends },
    routes: {
      async api(api) {
        await api.register(assetManagementRoutes, { sends: assetSends });
      },
    },
  };
}
