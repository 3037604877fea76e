import type { FastifyInstance } from 'fastify';
import { pageErrorOf } from '../platform/http/page-error.js';
import { registerFormBody } from '../web/web-forms.js';
import type { AuditLog } from './audit-log.service.js';
import type { ApplicationsService } from './applications.service.js';
import type { DefaultLimits } from './applications.pages.js';
import { applicationsRoutes } from './applications.routes.js';
import type { CustomersService } from './customers.service.js';
import { customersRoutes } from './customers.routes.js';
import { auditRoutes } from './audit.routes.js';
import { catalogueRoutes, type CataloguePagesNeeds } from './catalogue.routes.js';
import { withinBackOffice, type StaffSite } from './back-office-site.js';
import { errorPage, homePage } from './back-office.pages.js';
import type { JobsDesk } from './jobs-desk.service.js';
import { jobsRoutes } from './jobs.routes.js';
import type { SalesDesk } from './sales-desk.service.js';
import { salesRoutes } from './sales.routes.js';

export interface BackOfficeRoutesOptions {
  site: StaffSite;
  auditLog: AuditLog;
  applications: ApplicationsService;
  customers: CustomersService;
  /** The throttle's configured limits, shown for an application without its own. */
  defaultLimits: DefaultLimits;
  /** What the catalogue's pages act through. */
  catalogue: CataloguePagesNeeds;
  sales: SalesDesk;
  jobs: JobsDesk;
  /** The clock: the sales page opens on the last days up to today. */
  now: () => Date;
}

/** What each section is for, on the front page. */
const ABOUT: ReadonlyMap<string, string> = new Map([
  ['catalogue', 'Upload, describe, publish and withdraw assets'],
  ['uploads', 'Pictures and videos in, as drafts: many at once, resumable'],
  ['applications', 'API clients: keys, secrets, limits, grants'],
  ['users', 'Customers, staff and teams: accounts, roles, products'],
  ['sales', 'What sold: downloads and reported usage'],
  ['jobs', 'Generation jobs and video transcodes'],
  ['audit', 'Who did what, when, before and after'],
]);

/**
 * The back office, registered with the prefix /admin: every answer is a whole page of it,
 * errors too. A group of pages (a section) registers here; each declares its pages and forms
 * through the site (`site.page`, `site.form`) with their full path and the least role they take.
 */
export async function backOfficeRoutes(app: FastifyInstance, options: BackOfficeRoutesOptions): Promise<void> {
  // Each group gets these alone: the options this plugin was registered with carry its prefix, which a group must not add again.
  const { site, auditLog, applications, customers, defaultLimits, catalogue, sales, jobs, now } = options;
  const groups: BackOfficeRoutesOptions = { site, auditLog, applications, customers, defaultLimits, catalogue, sales, jobs, now };
  registerFormBody(app);
  app.setErrorHandler(async (error, request, reply) => {
    const { status, message, code } = pageErrorOf(error);
    if (status >= 500) request.log.error({ err: error }, 'back-office page failed');
    const frame = site.frameOf(request) ?? site.anonymousFrame('Error', request.url);
    return site.send(reply, status, errorPage(frame, status, message, code));
  });
  app.setNotFoundHandler(async (request, reply) => site.send(reply, 404, errorPage(site.frameOf(request) ?? site.anonymousFrame('Not found', request.url), 404, 'There is no such page in the back office.', undefined)));

  app.get(withinBackOffice(site.files.css.path.split('?')[0]!), { schema: { hide: true } }, async (_request, reply) =>
    reply.headers({ 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' }).send(site.files.css.body),
  );

  site.page(app, { url: '/admin', role: 'editor', title: 'Back office' }, async (_request, reply, { frame }) => site.send(reply, 200, homePage(frame, ABOUT)));

  await app.register(catalogueRoutes, groups);
  await app.register(applicationsRoutes, groups);
  await app.register(customersRoutes, groups);
  await app.register(salesRoutes, groups);
  await app.register(jobsRoutes, groups);
  await app.register(auditRoutes, groups);
}
