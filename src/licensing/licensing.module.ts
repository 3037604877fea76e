import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { ProductsRepository } from './products.repository.js';
import { ProductsService, type CustomerDirectory } from './products.service.js';
import { productsRoutes } from './products.routes.js';
import { DownloadsRepository } from './downloads.repository.js';
import { DownloadsService, type DeliveryUri, type DownloadCatalog } from './downloads.service.js';
import { downloadsRoutes } from './downloads.routes.js';
import { AssetLicensingRepository } from './asset-licensing.repository.js';
import { AssetLicensingService } from './asset-licensing.service.js';
import { assetLicensingRoutes } from './asset-licensing.routes.js';
import { OrdersRepository } from './orders.repository.js';
import { OrdersService, type OrderMetadataClients } from './orders.service.js';
import { ordersRoutes } from './orders.routes.js';
import { AiGenerationRepository } from './ai-generation.repository.js';
import { AiGenerationLicensing } from './ai-generation.service.js';
import { Ledger } from './ledger.repository.js';

export interface LicensingExports {
  /** The products customers hold (search limits a customer's results to them). */
  products: ProductsService;
  /** Downloads: entitlements, payment and ledger, history, purchases, download links. */
  downloads: DownloadsService;
  /** Extended licenses bought with credits. */
  assetLicensing: AssetLicensingService;
  /** The orders purchases belong to. */
  orders: OrdersService;
  /** AI generation products: the product a request uses, its allowance, licensed originals. */
  aiLicensing: AiGenerationLicensing;
}

export interface LicensingNeeds {
  /** Who the customers are (oauth's users). */
  customers: CustomerDirectory;
  /** The assets licensed (the catalogue). */
  catalog: DownloadCatalog;
  /** The signed URL of a licensed file (media). */
  deliveryUri: DeliveryUri;
  /** Which API clients may read order metadata (oauth's clients). */
  clients: OrderMetadataClients;
}

/** Products, entitlements, the download ledger, history and purchases, extended licenses, and the orders purchases belong to. */
export function licensingModule(platform: Platform, needs: LicensingNeeds): StockroomModule<LicensingExports> {
  const { config, database, clock } = platform;
  const products = new ProductsService(new ProductsRepository(database.db), needs.customers, clock);
  const downloads = new DownloadsService({
    repository: new DownloadsRepository(database.db),
    products,
    catalog: needs.catalog,
    deliveryUri: needs.deliveryUri,
    publicUrl: config.publicUrl,
    deliveryUriLifetimeMs: config.deliveryUrlTtlSeconds * 1000,
    now: clock,
  });
  const assetLicensing = new AssetLicensingService({ repository: new AssetLicensingRepository(database.db), products, catalog: needs.catalog, now: clock });
  const orders = new OrdersService(new OrdersRepository(database.db), needs.clients, needs.customers);
  const aiLicensing = new AiGenerationLicensing(new AiGenerationRepository(database.db), products, clock);
  measureLedgerDebits(platform, new Ledger(database.db));
  return {
    name: 'licensing',
    exports: { products, downloads, assetLicensing, orders, aiLicensing },
    routes: {
      async api(api) {
        await api.register(productsRoutes, { products });
        await api.register(downloadsRoutes, { downloads });
        await api.register(assetLicensingRoutes, { assetLicensing });
        await api.register(ordersRoutes, { orders });
      },
    },
  };
}

/**
 * The ledger's debits as counters, read from the ledger itself at each scrape (from its first
 * row at a node's first scrape, then on from the last row read): the totals are the store's,
 * the same on every node, and count only what committed.
 */
function measureLedgerDebits(platform: Platform, ledger: Ledger): void {
  let readUpTo = 0;
  let reading: Promise<void> | undefined;
  const counters = {
    entries: platform.metrics.counter('ledger_debits_total', 'Debits written to the download ledger, by unit (credit, download, overage, generation) and reason', ['unit', 'reason']),
    amount: platform.metrics.counter('ledger_debited_amount_total', 'Units debited from the download ledger (credits, downloads, generations), by unit and reason', ['unit', 'reason']),
  };
  const readOn = async () => {
    const { lastId, debits } = await ledger.debitsAfter(readUpTo);
    for (const { unit, reason, entries, amount } of debits) {
      counters.entries.inc({ unit, reason }, entries);
      counters.amount.inc({ unit, reason }, amount);
    }
    readUpTo = lastId;
  };
  platform.metrics.beforeScrape(async () => {
    // One read at a time, so that two scrapes at once count nothing twice.
    reading ??= readOn().finally(() => (reading = undefined));
    await reading.catch(() => undefined);
  });
}
