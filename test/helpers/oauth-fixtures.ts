import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/**
 * What the OAuth end-to-end suites share: the three endpoint families, a reader of the
 * sign-in page (its form, hidden fields and CSRF cookie), and drivers that walk the page and
 * the token endpoint through app.inject() or through real HTTP (fetch).
 */

/** The token and authorization endpoints, by family; only the legacy one says expires_in as a string. */
export const FAMILIES = [
  { family: 'legacy', prefix: '/oauth2', expiresIn: 'string' },
  { family: 'auth URL', prefix: '/auth/oauth2', expiresIn: 'number' },
  { family: 'v4', prefix: '/v4/oauth2', expiresIn: 'number' },
] as const;
export type Family = (typeof FAMILIES)[number];

export const CSRF_COOKIE = 'stockroom_oauth_csrf';

// ---------------------------------------------------------------------------------------------
// Reading the sign-in page

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The hidden fields of a page's forms (a form token, a key), by name, entity-decoded. */
export function hiddenFields(page: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = decodeEntities(match[2]!);
  return fields;
}

/** The attributes of one start tag (`<input type="hidden" name=… value=…>`), entity-decoded. */
export function parseAttributes(tag: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  const body = tag.replace(/^<\s*[a-z0-9-]+/i, '').replace(/\/?>$/, '');
  for (const match of body.matchAll(/([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    const name = match[1]!.toLowerCase();
    attributes[name] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

export interface SignInForm {
  /** The form's action, as written (may be relative or empty). */
  action: string;
  method: string;
  /** Every hidden input, by name. */
  hidden: Record<string, string>;
  /** Names of the visible inputs (username, password, …). */
  inputs: string[];
  /** The submit buttons: name and value. */
  buttons: Array<{ name: string; value: string }>;
  /** The text of every <label>, keyed by its `for`. */
  labels: Record<string, string>;
  /** id of each visible input, by name. */
  inputIds: Record<string, string>;
}

/** The sign-in and consent form of an authorization page. Throws when there is none. */
export function parseSignInPage(html: string): SignInForm {
  const formMatch = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!formMatch) throw new Error(`no <form> on the page:\n${html.slice(0, 2000)}`);
  const formTag = /<form\b[^>]*>/i.exec(formMatch[0])![0];
  const formAttributes = parseAttributes(formTag);
  const inner = formMatch[1]!;
  const hidden: Record<string, string> = {};
  const inputs: string[] = [];
  const inputIds: Record<string, string> = {};
  for (const [tag] of inner.matchAll(/<input\b[^>]*>/gi)) {
    const attributes = parseAttributes(tag);
    const name = attributes.name;
    if (name === undefined) continue;
    if ((attributes.type ?? 'text').toLowerCase() === 'hidden') hidden[name] = attributes.value ?? '';
    else {
      inputs.push(name);
      if (attributes.id !== undefined) inputIds[name] = attributes.id;
    }
  }
  const buttons: Array<{ name: string; value: string }> = [];
  for (const [tag] of inner.matchAll(/<button\b[^>]*>/gi)) {
    const attributes = parseAttributes(tag);
    if (attributes.name !== undefined) buttons.push({ name: attributes.name, value: attributes.value ?? '' });
  }
  const labels: Record<string, string> = {};
  for (const match of html.matchAll(/<label\b([^>]*)>([\s\S]*?)<\/label>/gi)) {
    const attributes = parseAttributes(`<label ${match[1]!}>`);
    const text = decodeEntities(match[2]!.replace(/<[^>]*>/g, '')).trim();
    if (attributes.for !== undefined) labels[attributes.for] = text;
  }
  return {
    action: formAttributes.action ?? '',
    method: (formAttributes.method ?? 'get').toLowerCase(),
    hidden,
    inputs,
    buttons,
    labels,
    inputIds,
  };
}

/** The value of a cookie among Set-Cookie headers. */
export function cookieValue(setCookie: string | string[] | undefined, name: string): string | undefined {
  const headers = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
  for (const header of headers) {
    const [pair] = header.split(';');
    const index = pair!.indexOf('=');
    if (index > 0 && pair!.slice(0, index).trim() === name) return pair!.slice(index + 1).trim();
  }
  return undefined;
}

/** The whole Set-Cookie header of a cookie (with its attributes). */
export function cookieHeader(setCookie: string | string[] | undefined, name: string): string | undefined {
  const headers = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
  return headers.find((header) => header.split('=')[0]!.trim() === name);
}

// ---------------------------------------------------------------------------------------------
// Small protocol pieces

/** RFC 6749 §2.3.1: each part form-urlencoded, then Base64 of "id:secret". */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

/** A PKCE verifier and its S256 challenge (RFC 7636 §4.1, §4.2). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

let addressCounter = 0;
/**
 * A client address of its own (sent as the remote address of an injected request), so that
 * the per-address sign-in throttle of one test never reaches into another.
 */
export function freshAddress(): string {
  addressCounter += 1;
  return `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
}

let nameCounter = 0;
export function uniqueName(prefix: string): string {
  nameCounter += 1;
  return `${prefix}-${nameCounter}-${randomBytes(3).toString('hex')}`;
}

/** Parameters of a redirect location: the query, or the fragment (implicit). */
export function locationParameters(location: string): { url: URL; query: URLSearchParams; fragment: URLSearchParams } {
  const url = new URL(location);
  return { url, query: url.searchParams, fragment: new URLSearchParams(url.hash.replace(/^#/, '')) };
}

/** Token endpoint headers every answer (success or error) must carry: RFC 6749 §5.1, §5.2 and the spec. */
export function expectTokenEndpointHeaders(headers: Record<string, unknown>): void {
  expect(String(headers['cache-control'])).toMatch(/\bno-store\b/);
  expect(String(headers.pragma)).toMatch(/\bno-cache\b/);
  const cors = Object.keys(headers).filter((name) => name.toLowerCase().startsWith('access-control-'));
  expect(cors).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// Driving the app with app.inject()

export interface InjectOptions {
  remoteAddress?: string;
  headers?: Record<string, string>;
}

export async function tokenRequest(
  app: FastifyInstance,
  prefix: string,
  fields: Record<string, string | undefined>,
  options: InjectOptions & { basic?: { clientId: string; clientSecret: string } } = {},
): Promise<LightMyRequestResponse> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body.append(name, value);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...options.headers };
  if (options.basic) headers.authorization = basicAuthorization(options.basic.clientId, options.basic.clientSecret);
  return app.inject({
    method: 'POST',
    url: `${prefix}/token`,
    headers,
    payload: body.toString(),
    remoteAddress: options.remoteAddress ?? freshAddress(),
  });
}

export interface AuthorizationQuery {
  client_id?: string;
  response_type?: string;
  redirect_uri?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  [extra: string]: string | undefined;
}

export function authorizationUrl(prefix: string, query: AuthorizationQuery): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.append(name, value);
  return `${prefix}/auth?${search.toString()}`;
}

/** GET the authorization endpoint. */
export function openAuthorizationPage(
  app: FastifyInstance,
  prefix: string,
  query: AuthorizationQuery,
  options: InjectOptions = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'GET',
    url: authorizationUrl(prefix, query),
    headers: options.headers ?? {},
    remoteAddress: options.remoteAddress ?? freshAddress(),
  });
}

export interface PageSubmission {
  username: string;
  password: string;
  decision?: 'allow' | 'deny';
  /** Overrides of the hidden fields, or `null` to drop one. */
  override?: Record<string, string | null>;
  /** Send the CSRF cookie back (default true). */
  withCookie?: boolean;
}

/** Where a page's form posts: its action resolved against the page's own URL, as a path. */
export function formTarget(pageUrl: string, action: string): string {
  const resolved = new URL(action, new URL(pageUrl, 'http://stockroom.test'));
  return `${resolved.pathname}${resolved.search}`;
}

/** POSTs the sign-in form of `page` (the GET's response) as a browser would. */
export async function submitAuthorizationPage(
  app: FastifyInstance,
  pageUrl: string,
  page: LightMyRequestResponse,
  submission: PageSubmission,
  options: InjectOptions = {},
): Promise<LightMyRequestResponse> {
  const form = parseSignInPage(page.body);
  const csrf = cookieValue(page.headers['set-cookie'], CSRF_COOKIE);
  const fields: Record<string, string> = { ...form.hidden };
  for (const [name, value] of Object.entries(submission.override ?? {})) {
    if (value === null) delete fields[name];
    else fields[name] = value;
  }
  fields.username = submission.username;
  fields.password = submission.password;
  fields.decision = submission.decision ?? 'allow';
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...options.headers };
  if (submission.withCookie !== false && csrf !== undefined) headers.cookie = `${CSRF_COOKIE}=${csrf}`;
  return app.inject({
    method: 'POST',
    url: formTarget(pageUrl, form.action),
    headers,
    payload: new URLSearchParams(fields).toString(),
    remoteAddress: options.remoteAddress ?? freshAddress(),
  });
}

export interface AuthorizeInput extends PageSubmission {
  query: AuthorizationQuery;
  remoteAddress?: string;
}

/**
 * The whole page step: GET the page (expects 200), POST the form, return the final response
 * (302 on success) and its parsed Location when there is one.
 */
export async function authorize(
  app: FastifyInstance,
  prefix: string,
  input: AuthorizeInput,
): Promise<{ page: LightMyRequestResponse; response: LightMyRequestResponse; location: ReturnType<typeof locationParameters> | undefined }> {
  const remoteAddress = input.remoteAddress ?? freshAddress();
  const url = authorizationUrl(prefix, input.query);
  const page = await app.inject({ method: 'GET', url, remoteAddress });
  expect(page.statusCode, page.body.slice(0, 500)).toBe(200);
  const response = await submitAuthorizationPage(app, url, page, input, { remoteAddress });
  const location = response.headers.location;
  return { page, response, location: typeof location === 'string' ? locationParameters(location) : undefined };
}

/** The authorization code the page step ends with (code flow); fails the test when there is none. */
export async function obtainCode(
  app: FastifyInstance,
  prefix: string,
  input: AuthorizeInput,
): Promise<{ code: string; location: ReturnType<typeof locationParameters> }> {
  const { response, location } = await authorize(app, prefix, input);
  expect(response.statusCode, response.body.slice(0, 500)).toBe(302);
  if (location === undefined) throw new Error('no Location');
  const code = location.query.get('code');
  if (code === null) throw new Error(`no code in ${location.url.href}`);
  return { code, location };
}

/** A search as a client application makes it: its key, and a bearer token when given. */
export function searchAs(app: FastifyInstance, apiKey: string, token?: string): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { 'api-key': apiKey };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return app.inject({ method: 'GET', url: '/v3/search/images?phrase=harbour', headers });
}

/** expires_in as the family writes it: a string of digits (legacy) or an integer. */
export function expectExpiresIn(value: unknown, kind: 'string' | 'number'): number {
  if (kind === 'string') {
    expect(typeof value, `expires_in ${JSON.stringify(value)}`).toBe('string');
    expect(value).toMatch(/^[0-9]+$/);
    return Number(value);
  }
  expect(typeof value, `expires_in ${JSON.stringify(value)}`).toBe('number');
  expect(Number.isInteger(value)).toBe(true);
  return value as number;
}

// ---------------------------------------------------------------------------------------------
// Real HTTP (fetch) for the suites that listen

export { freePort } from './network.js';

/**
 * The page step over real HTTP, as a browser without JavaScript would do it: GET the page,
 * POST its form with the CSRF cookie, and return the 302's Location.
 */
export async function authorizeOverHttp(
  authorizationUrlHref: string,
  submission: PageSubmission,
): Promise<{ status: number; location: string | null; body: string }> {
  const page = await fetch(authorizationUrlHref, { redirect: 'manual' });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`the authorization page answered ${page.status}: ${html.slice(0, 500)}`);
  const form = parseSignInPage(html);
  const csrf = cookieValue(page.headers.getSetCookie(), CSRF_COOKIE);
  const fields: Record<string, string> = { ...form.hidden, username: submission.username, password: submission.password };
  fields.decision = submission.decision ?? 'allow';
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (csrf !== undefined) headers.cookie = `${CSRF_COOKIE}=${csrf}`;
  const response = await fetch(new URL(form.action, authorizationUrlHref), {
    method: 'POST',
    headers,
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: response.status, location: response.headers.get('location'), body: await response.text() };
}
