import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { UsageRepository } from './usage.repository.js';
import { UsageService, type LicensedDownloads, type UsageCatalog, type UsageClients } from './usage.service.js';
import { usageRoutes } from './usage.routes.js';

export interface ReportingExports {
  /** Usage batches, and the usage report beside the licensed downloads. */
  usage: UsageService;
}

export interface ReportingNeeds {
  /** Which clients may report, and their names (oauth's clients). */
  clients: UsageClients;
  /** Which assets exist, and their artists (the catalogue). */
  catalog: UsageCatalog;
  /** The purchases usage is set beside (licensing's downloads). */
  downloads: LicensedDownloads;
}

/** Partner reporting: usage batches and the usage report. */
export function reportingModule(platform: Platform, needs: ReportingNeeds): StockroomModule<ReportingExports> {
  const usage = new UsageService({
    repository: new UsageRepository(platform.database.db),
    clients: needs.clients,
    catalog: needs.catalog,
    downloads: needs.downloads,
    now: platform.clock,
  });
  return {
    name: 'reporting',
    exports: { usage },
    routes: {
      async api(api) {
        await api.register(usageRoutes, { usage });
      },
    },
  };
}
