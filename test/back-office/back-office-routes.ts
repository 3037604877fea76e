import type { Services } from '../../src/app.js';
import type { StaffRole } from '../../src/oauth/users.service.js';
import type { Person } from './back-office-fixtures.js';
import { CATALOGUE_ROUTES } from './catalogue-access-routes.js';

/** What a row of the table may use to name its page: the ids of the matrix's people, and the services. */
export interface RouteContext {
  ids: Record<Person, number>;
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
  ...CATALOGUE_ROUTES,
];
