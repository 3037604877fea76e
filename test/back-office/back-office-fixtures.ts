import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { hiddenFields } from '../helpers/oauth-fixtures.js';

export { hiddenFields };

export const PUBLIC_URL = 'https://stockroom.example';
/** The session cookie of an https site. */
export const COOKIE = '__Host-stockroom-session';

/** The people of the access matrix: a customer, an editor and an admin, each with a password. */
export const PEOPLE = {
  customer: { username: 'cora', password: 'customer password 1', role: null },
  editor: { username: 'eddie', password: 'editor password 22', role: 'editor' },
  admin: { username: 'ada', password: 'admin password 333', role: 'admin' },
} as const;

export type Person = keyof typeof PEOPLE;

/** What the pages act on: an application, a customer who signs in nowhere (\`target\`, of the team "Picture desk") and a product of theirs. */
export interface FixtureThings {
  applicationId: number;
  targetId: number;
  productId: number;
  team: string;
}

export interface BackOfficeFixture {
  t: TestApp;
  ids: Record<Person, number>;
  things: FixtureThings;
  get(path: string, cookie?: string): Promise<LightMyRequestResponse>;
  post(path: string, form: Record<string, string>, cookie?: string): Promise<LightMyRequestResponse>;
  /** Signs in the way a browser does (through the server's own OAuth sign-in page); the session cookie. */
  signIn(person: Person | { username: string; password: string }): Promise<string>;
  /** The CSRF token of a signed-in session, read from a page's form. */
  csrfOf(cookie: string, path?: string): Promise<string>;
}

export function cookieOf(response: LightMyRequestResponse, name: string): string | undefined {
  return (response.cookies as Array<{ name: string; value: string }>).find((cookie) => cookie.name === name)?.value;
}


const pathOf = (url: string) => {
  const parsed = new URL(url, PUBLIC_URL);
  return parsed.pathname + parsed.search;
};

/** An app on a fresh store with a customer, an editor and an admin. */
export async function backOfficeFixture(options: { databaseUrl?: string | undefined; env?: Record<string, string>; clock?: () => Date } = {}): Promise<BackOfficeFixture> {
  const t = await createTestApp({ databaseUrl: options.databaseUrl, env: { STOCKROOM_PUBLIC_URL: PUBLIC_URL, ...options.env }, ...(options.clock ? { clock: options.clock } : {}) });
  const ids = {} as Record<Person, number>;
  for (const [person, { username, password, role }] of Object.entries(PEOPLE) as Array<[Person, (typeof PEOPLE)[Person]]>) {
    ids[person] = (await t.services.users.create({ username, password, role, team: person === 'customer' ? 'Picture desk' : null })).id;
  }
  const team = 'Picture desk';
  const target = await t.services.users.create({ username: 'tess', password: 'target password 4444', team, first_name: 'Tess', last_name: 'Ng' });
  const product = await t.services.products.grant({ userId: target.id, type: 'premiumaccess', downloads: 20, period: 'month' });
  const application = await t.services.clients.create({ name: 'Matrix application' });
  const things: FixtureThings = { applicationId: application.client.id, targetId: target.id, productId: product.id, team };
  const get = (path: string, cookie?: string) => t.app.inject({ method: 'GET', url: path, headers: cookie ? { cookie: `${COOKIE}=${cookie}` } : {} });
  const post = (path: string, form: Record<string, string>, cookie?: string) =>
    t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie: `${COOKIE}=${cookie}` } : {}) },
      payload: new URLSearchParams(form).toString(),
    });
  async function signIn(person: Person | { username: string; password: string }): Promise<string> {
    const { username, password } = typeof person === 'string' ? PEOPLE[person] : person;
    const start = await get('/signin?return=%2Fadmin');
    expect(start.statusCode).toBe(303);
    const pending = cookieOf(start, COOKIE)!;
    const authorize = await get(pathOf(start.headers.location as string));
    expect(authorize.statusCode).toBe(200);
    const csrf = (authorize.cookies as Array<{ name: string; value: string }>)[0]!;
    const allowed = await t.app.inject({
      method: 'POST',
      url: new URL(start.headers.location as string).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${csrf.name}=${csrf.value}` },
      payload: new URLSearchParams({ ...hiddenFields(authorize.body), username, password, decision: 'allow' }).toString(),
    });
    expect(allowed.statusCode, allowed.body).toBe(302);
    const back = await get(pathOf(allowed.headers.location as string), pending);
    expect(back.statusCode, back.body).toBe(303);
    return cookieOf(back, COOKIE)!;
  }
  async function csrfOf(cookie: string, path = '/downloads'): Promise<string> {
    const page = await get(path, cookie);
    const token = hiddenFields(page.body).csrf;
    if (!token) throw new Error(`no form token on ${path}: ${page.statusCode}`);
    return token;
  }
  return { t, ids, things, get, post, signIn, csrfOf };
}
