import type { Services } from '../../src/app.js';
import type { StaffRole } from '../../src/oauth/users.service.js';
import type { FixtureThings, Person } from './back-office-fixtures.js';
import { CATALOGUE_ROUTES } from './catalogue-access-routes.js';

/** What a row of the table may use to name its page: the ids of the matrix's people, and the services. */
export interface RouteContext {
  ids: Record<Person, number>;
  things: FixtureThings;
  services: Services;
}

/**
 * A page or form of the back office: its pattern as registered, the least role it takes, a
 * path to request, and (for a form) fields that make a valid request of it.
 */
export interface AccessRoute {
  method: 'GET' | 'POST';
  pattern: string;
  role: StaffRole;
  path(context: RouteContext): string | Promise<string>;
  form?(context: RouteContext): Record<string, string> | Promise<Record<string, string>>;
}

/** A page (GET) with the least role it takes; its path defaults to the pattern. */
export const page = (pattern: string, role: StaffRole, path: AccessRoute['path'] = () => pattern): AccessRoute => ({ method: 'GET', pattern, role, path });
/** A form (POST) with the least role it takes, the path to post to and valid fields (the CSRF token is added). */
export const form = (pattern: string, role: StaffRole, path: AccessRoute['path'], fields: AccessRoute['form'] = () => ({})): AccessRoute => ({ method: 'POST', pattern, role, path, form: fields });

/** Every page and form of the back office: a line each (the access matrix checks this is all of them). */
export const BACK_OFFICE_ROUTES: readonly AccessRoute[] = [
  page('/admin', 'editor'),
  page('/admin/audit', 'admin', () => '/admin/audit?action=&from=2020-01-01'),
  // Applications
  page('/admin/applications', 'admin'),
  page('/admin/applications/new', 'admin'),
  form('/admin/applications', 'admin', () => '/admin/applications', () => ({ name: 'Made by the matrix', kind: 'confidential', grants_default: 'on' })),
  page('/admin/applications/:id', 'admin', ({ things }) => `/admin/applications/${things.applicationId}`),
  form('/admin/applications/:id', 'admin', ({ things }) => `/admin/applications/${things.applicationId}`, () => ({ name: 'Matrix application', grants_default: 'on', queries_per_second: '7' })),
  form('/admin/applications/:id/rotate-secret', 'admin', ({ things }) => `/admin/applications/${things.applicationId}/rotate-secret`),
  form('/admin/applications/:id/disable', 'admin', ({ things }) => `/admin/applications/${things.applicationId}/disable`),
  form('/admin/applications/:id/enable', 'admin', ({ things }) => `/admin/applications/${things.applicationId}/enable`),
  // Users and teams
  page('/admin/users', 'admin', () => '/admin/users?q=t&role=customer'),
  page('/admin/users/new', 'admin'),
  form('/admin/users', 'admin', () => '/admin/users', () => ({ username: 'made-by-the-matrix', role: 'none' })),
  page('/admin/users/:id', 'admin', ({ things }) => `/admin/users/${things.targetId}`),
  form('/admin/users/:id/role', 'admin', ({ things }) => `/admin/users/${things.targetId}/role`, () => ({ role: 'none' })),
  form('/admin/users/:id/disable', 'admin', ({ things }) => `/admin/users/${things.targetId}/disable`),
  form('/admin/users/:id/enable', 'admin', ({ things }) => `/admin/users/${things.targetId}/enable`),
  form('/admin/users/:id/password', 'admin', ({ things }) => `/admin/users/${things.targetId}/password`),
  form('/admin/users/:id/products', 'admin', ({ things }) => `/admin/users/${things.targetId}/products`, () => ({ type: 'creditpack', credits: '5' })),
  form('/admin/users/:id/products/:productId/revoke', 'admin', ({ things }) => `/admin/users/${things.targetId}/products/${things.productId}/revoke`),
  page('/admin/teams/:team', 'admin', ({ things }) => `/admin/teams/${encodeURIComponent(things.team)}`),
  ...CATALOGUE_ROUTES,
  // What sold
  page('/admin/sales', 'admin', () => '/admin/sales?from=2024-01-01&to=2024-03-31&by=month'),
  page('/admin/sales.csv', 'admin', () => '/admin/sales.csv?from=2024-01-01&to=2024-01-31&by=asset'),
  // Jobs
  page('/admin/jobs', 'admin', () => '/admin/jobs?kind=video-transcode&state=failed'),
  form('/admin/jobs/run-again', 'admin', () => '/admin/jobs/run-again', async ({ services }) => ({ kind: 'video-transcode', key: JSON.stringify(await failedTranscode(services)) })),
];

/**
 * The key of a failed video transcode, made for the matrix (a failed job a run-again form can
 * queue again; each role's request fails one anew, so each finds one to run).
 */
async function failedTranscode(services: Services): Promise<[string, string]> {
  const key: [string, string] = [`matrix/original-${Math.random().toString(36).slice(2)}.mp4`, 'preview'];
  const now = new Date().toISOString();
  await services.database.db
    .insertInto('video_transcodes')
    .values({ original_key: key[0], kind: key[1], status: 'failed', failure: 'ffmpeg exited with code 1', created_at: now, finished_at: now, output_key: null, claimed_by: null, lease_until: null })
    .execute();
  return key;
}
