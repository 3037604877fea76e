import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES } from '../helpers/test-store.js';
import { backOfficeFixture, type BackOfficeFixture, type Person } from './back-office-fixtures.js';
import { BACK_OFFICE_ROUTES, type AccessRoute } from './back-office-routes.js';

/*
 * Every page and form of the back office against a signed-out visitor, a customer, an editor
 * and an admin. The routes are the table in back-office-routes.ts (a line each); the module's
 * own list of what it registered must match it, so a new page without its line fails here.
 */

type Visitor = Person | 'signed out';
const VISITORS: readonly Visitor[] = ['signed out', 'customer', 'editor', 'admin'];

/** What a visitor gets: a GET's redirect to sign in, a refusal's code, or the page. */
function expected(visitor: Visitor, route: AccessRoute): 'sign in' | 'CsrfCheckFailed' | 'StaffOnly' | 'AdminOnly' | 'allowed' {
  if (visitor === 'signed out') return route.method === 'GET' ? 'sign in' : 'CsrfCheckFailed';
  if (visitor === 'customer') return 'StaffOnly';
  if (visitor === 'editor' && route.role === 'admin') return 'AdminOnly';
  return 'allowed';
}

describe.each(STORES)('back-office access matrix on $name', ({ url }) => {
  let f: BackOfficeFixture;
  const cookies = {} as Record<Person, string>;
  const csrf = {} as Record<Person, string>;

  beforeAll(async () => {
    f = await backOfficeFixture({ databaseUrl: url });
    for (const person of ['customer', 'editor', 'admin'] as const) {
      cookies[person] = await f.signIn(person);
      csrf[person] = await f.csrfOf(cookies[person]);
    }
  }, 120_000);
  afterAll(async () => {
    await f?.t.close();
  });

  it('the table lists every page and form the module registered, with the same least role', () => {
    const registered = f.t.services.backOfficeRoutes.map((route) => `${route.method} ${route.url} ${route.role}`).sort();
    const listed = BACK_OFFICE_ROUTES.map((route) => `${route.method} ${route.pattern} ${route.role}`).sort();
    expect(listed).toEqual(registered);
  });

  it('CSRF: a form without the session’s token, or with another session’s, is refused and changes nothing', async () => {
    const path = `/admin/applications/${f.things.applicationId}/disable`;
    for (const form of [{}, { csrf: 'x'.repeat(43) }, { csrf: csrf.editor }] as Array<Record<string, string>>) {
      const refused = await f.post(path, form, cookies.admin);
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('<code>CsrfCheckFailed</code>');
    }
    expect((await f.t.services.clients.listing(f.things.applicationId))?.disabled).toBe(false);
  });

  // Refusals first, then the visitors who may: an allowed form changes things the next rows read.
  const order: Array<[Visitor, AccessRoute]> = [];
  for (const visitor of VISITORS) for (const route of BACK_OFFICE_ROUTES) if (expected(visitor, route) !== 'allowed') order.push([visitor, route]);
  for (const route of BACK_OFFICE_ROUTES) for (const visitor of VISITORS) if (expected(visitor, route) === 'allowed') order.push([visitor, route]);

  it.each(order.map(([visitor, route]) => ({ visitor, route, name: `${visitor}: ${route.method} ${route.pattern}` })))('$name', async ({ visitor, route }) => {
    const context = { ids: f.ids, things: f.things, services: f.t.services };
    const path = await route.path(context);
    const cookie = visitor === 'signed out' ? undefined : cookies[visitor];
    const form = route.method === 'POST' ? { ...(await route.form?.(context)), ...(visitor === 'signed out' ? {} : { csrf: csrf[visitor] }) } : undefined;
    const response = form ? await f.post(path, form, cookie) : await f.get(path, cookie);
    const outcome = expected(visitor, route);
    if (outcome === 'sign in') {
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/signin?return=${encodeURIComponent(path)}`);
    } else if (outcome === 'allowed') {
      expect([200, 303], response.body.slice(0, 2000)).toContain(response.statusCode);
      if (response.statusCode === 200) expect(response.headers['content-security-policy']).toContain("script-src 'self'");
      else expect(response.headers.location).toMatch(/^\/admin/);
    } else {
      expect(response.statusCode).toBe(403);
      expect(response.body).toContain(`<code>${outcome}</code>`);
    }
  });
});
