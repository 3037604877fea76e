import type { StockroomModule } from '../platform/module.js';
import type { Platform } from '../platform/platform.js';
import type { BrowserSessions } from '../web/browser-sessions.js';
import { AuditLogRepository } from './audit-log.repository.js';
import { AuditLog } from './audit-log.service.js';
import { BACK_OFFICE_PREFIX, backOfficeFiles, StaffSite, type StaffDirectory, type StaffRoute } from './back-office-site.js';
import { layout, type StaffPages } from './back-office.pages.js';
import { backOfficeRoutes } from './back-office.routes.js';
import { CatalogueDesk } from './catalogue-desk.service.js';
import type { CatalogEditingService } from '../catalog/catalog-editing.service.js';

export interface BackOfficeNeeds {
  /** The catalogue browser's sessions: staff sign in as everyone does, through this server's own OAuth. */
  browserSessions: BrowserSessions;
  /** The OAuth module's users: a signed-in person's account and role, read on every request. */
  users: StaffDirectory;
  /** The catalogue's drafts, fields, files and states (the catalogue's editing service). */
  catalogEditing: CatalogEditingService;
}

export interface BackOfficeExports {
  /** Records a back-office action (who, what, target, before, after); other modules' back-office pages record theirs here. */
  auditLog: AuditLog;
  /** Every page and form of the back office with the least role it takes (filled as the routes register). */
  backOfficeRoutes: readonly StaffRoute[];
  /** The catalogue's work for the back office: role-checked and audited. */
  catalogueDesk: CatalogueDesk;
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
  const site = new StaffSite(needs.browserSessions, needs.users, backOfficeFiles(), config.publicUrl);
  const catalogueDesk = new CatalogueDesk({ editing: needs.catalogEditing, auditLog });
  return {
    name: 'back-office',
    exports: {
      auditLog,
      backOfficeRoutes: site.routes,
      catalogueDesk,
      staffPages: {
        addSection: (section) => site.addSection(section),
        page: ({ actor, csrfToken, files, ...spec }, main) => layout(site.frameFor(actor, csrfToken, spec), main, files),
      },
    },
    routes: {
      async root(root) {
        await root.register(backOfficeRoutes, { prefix: BACK_OFFICE_PREFIX, site, auditLog });
      },
    },
  };
}
