import type { StockroomModule } from '../platform/module.js';
import type { Platform } from '../platform/platform.js';
import type { BrowserSessions } from '../web/browser-sessions.js';
import { AuditLogRepository } from './audit-log.repository.js';
import { AuditLog } from './audit-log.service.js';
import { BACK_OFFICE_PREFIX, backOfficeFiles, StaffSite, type StaffRoute } from './back-office-site.js';
import { layout, type StaffPages } from './back-office.pages.js';
import { backOfficeRoutes } from './back-office.routes.js';
import { CatalogueDesk } from './catalogue-desk.service.js';
import { SalesDesk, type SalesReports } from './sales-desk.service.js';
import { JobsDesk } from './jobs-desk.service.js';
import type { CatalogEditingService } from '../catalog/catalog-editing.service.js';
import type { ClientsService } from '../oauth/clients.service.js';
import { ApplicationsService } from './applications.service.js';
import { CustomersService } from './customers.service.js';
import type { UsersService } from '../oauth/users.service.js';
import type { ProductsService } from '../licensing/products.service.js';
import type { AssetPictures } from './catalogue.routes.js';

export interface BackOfficeNeeds {
  /** The catalogue browser's sessions: staff sign in as everyone does, through this server's own OAuth. */
  browserSessions: BrowserSessions;
  /** The catalogue's drafts, fields, files and states (the catalogue's editing service). */
  catalogEditing: CatalogEditingService;
  /** The OAuth module's users: a signed-in person's account and role, read on every request; the accounts admins manage. */
  users: UsersService;
  /** Licensing's products: what users hold, granted and revoked as `stockroom admin product` does, and their ledger. */
  products: ProductsService;
  /** The OAuth module's clients: the applications admins manage. */
  clients: ClientsService;
  /** A small picture of an asset in any state, for staff only (never through a public URL). */
  assetPictures: AssetPictures;
  /** The reporting module's usage report: what sold, the one query `stockroom report usage` runs. */
  usageReports: SalesReports;
}

export interface BackOfficeExports {
  /** Records a back-office action (who, what, target, before, after); other modules' back-office pages record theirs here. */
  auditLog: AuditLog;
  /** Applications (API clients) as admins manage them. */
  applications: ApplicationsService;
  /** Users and teams, their roles and products, as admins manage them. */
  customers: CustomersService;
  /** Every page and form of the back office with the least role it takes (filled as the routes register). */
  backOfficeRoutes: readonly StaffRoute[];
  /** The catalogue's work for the back office: role-checked and audited. */
  catalogueDesk: CatalogueDesk;
  /** What sold, for admins (the reporting module's usage report behind the role check). */
  salesDesk: SalesDesk;
  /** The jobs at work, for admins: counts, errors, running a failed one again. */
  jobsDesk: JobsDesk;
  /** Frames another module's page (the uploads page) as the back office frames its own. */
  staffPages: StaffPages;
}

/**
 * The library's back office at /admin: server-rendered pages for its staff, signed in through
 * the catalogue browser's session. Every action is checked in its service (staff-policy.ts)
 * and recorded in the audit log.
 */
export function backOfficeModule(platform: Platform, needs: BackOfficeNeeds): StockroomModule<BackOfficeExports> {
  const { config, database, clock } = platform;
  const auditLog = new AuditLog(new AuditLogRepository(database.db), clock);
  const applications = new ApplicationsService(needs.clients, auditLog);
  const customers = new CustomersService(needs.users, needs.products, auditLog);
  const site = new StaffSite(needs.browserSessions, needs.users, backOfficeFiles(), config.publicUrl);
  const catalogueDesk = new CatalogueDesk({ editing: needs.catalogEditing, auditLog });
  const sales = new SalesDesk(needs.usageReports);
  // The jobs of every module, as the platform's job runner holds them (any node's, through the store).
  const jobs = new JobsDesk(platform.jobs.desk(), auditLog, clock);
  return {
    name: 'back-office',
    exports: {
      auditLog,
      applications,
      customers,
      backOfficeRoutes: site.routes,
      catalogueDesk,
      salesDesk: sales,
      jobsDesk: jobs,
      staffPages: {
        addSection: (section) => site.addSection(section),
        page: ({ actor, csrfToken, files, ...spec }, main) => layout(site.frameFor(actor, csrfToken, spec), main, files),
      },
    },
    routes: {
      async root(root) {
        await root.register(backOfficeRoutes, {
          prefix: BACK_OFFICE_PREFIX,
          site,
          auditLog,
          applications,
          customers,
          defaultLimits: { perSecond: config.throttle.perSecond, perDay: config.throttle.perDay },
          catalogue: { desk: catalogueDesk, pictures: needs.assetPictures, pageHeaders: site.pageHeaders },
          sales,
          jobs,
          now: clock,
        });
      },
    },
  };
}
