import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { StoredKeyword } from '../../src/catalog/catalog.records.js';
import { STORES, createTestApp } from '../helpers/test-app.js';
import { hiddenFields } from '../helpers/oauth-fixtures.js';
import { escapeHtml as escape } from '../../src/platform/http/escape-html.js';
import { humanWords } from '../../src/web/web.pages.js';
import { clipLength } from '../../src/web/web.service.js';
import { safeReturnPath } from '../../src/web/web-sessions.service.js';
import { webFixture, type WebFixture } from './web-fixtures.js';

/*
 * The catalogue browser's pages through app.inject on each store: what a page shows (the same
 * results as the JSON search it wraps, the reader's language), what it refuses (4xx pages, never
 * JSON or a stack trace), and how its session keeps to the rules (sign-in through the server's
 * OAuth with PKCE and a state bound to the browser, cookies HttpOnly/Secure/SameSite, CSRF on
 * every form, tokens sealed server-side and never in a URL).
 */

const PUBLIC_URL = 'https://stockroom.test';
const COOKIE = '__Host-stockroom-session';

function cookieOf(response: LightMyRequestResponse, name: string): { value: string; [key: string]: unknown } | undefined {
  return (response.cookies as Array<{ name: string; value: string }>).find((cookie) => cookie.name === name);
}


const pathOf = (url: string) => {
  const parsed = new URL(url, PUBLIC_URL);
  return parsed.pathname + parsed.search;
};

describe.each(STORES)('catalogue browser pages on $name', ({ url }) => {
  let f: WebFixture;

  beforeAll(async () => {
    f = await webFixture({ publicUrl: PUBLIC_URL, databaseUrl: url });
  }, 180_000);
  afterAll(async () => {
    await f?.t.close();
  });

  const get = (path: string, cookie?: string, headers: Record<string, string> = {}) =>
    f.t.app.inject({ method: 'GET', url: path, headers: { ...headers, ...(cookie ? { cookie: `${COOKIE}=${cookie}` } : {}) } });
  const post = (path: string, form: Record<string, string>, cookie?: string) =>
    f.t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie: `${COOKIE}=${cookie}` } : {}) },
      payload: new URLSearchParams(form).toString(),
    });

  /** Signs in as the fixture's customer the way a browser does; returns the session cookie and every Location seen. */
  async function signIn(returnTo = '/boards'): Promise<{ cookie: string; locations: string[] }> {
    const locations: string[] = [];
    const start = await get(`/signin?return=${encodeURIComponent(returnTo)}`);
    expect(start.statusCode).toBe(303);
    const pending = cookieOf(start, COOKIE)!.value;
    locations.push(start.headers.location as string);
    const authorize = await get(pathOf(start.headers.location as string));
    expect(authorize.statusCode).toBe(200);
    const csrf = (authorize.cookies as Array<{ name: string; value: string }>)[0]!;
    const form = { ...hiddenFields(authorize.body), username: f.username, password: f.password, decision: 'allow' };
    const allowed = await f.t.app.inject({
      method: 'POST',
      url: new URL(start.headers.location as string).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${csrf.name}=${csrf.value}` },
      payload: new URLSearchParams(form).toString(),
    });
    expect(allowed.statusCode).toBe(302);
    locations.push(allowed.headers.location as string);
    const back = await get(pathOf(allowed.headers.location as string), pending);
    expect(back.statusCode, back.body).toBe(303);
    locations.push(back.headers.location as string);
    return { cookie: cookieOf(back, COOKIE)!.value, locations };
  }

  it('the search page shows what the JSON search it wraps finds, in the same order, with facets as links', async () => {
    const page = await get('/?kind=editorial&phrase=marathon&sort_order=newest');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const json = await f.t.app.inject({ url: '/v3/search/images/editorial?phrase=marathon&sort_order=newest&fields=id', headers: { 'api-key': f.t.apiKey } });
    const ids = (json.json() as { images: Array<{ id: string }> }).images.map((image) => image.id);
    expect(ids.length).toBeGreaterThan(0);
    const shown = [...page.body.matchAll(/<a class="title" href="\/asset\/([^"]+)">/g)].map((match) => decodeURIComponent(match[1]!));
    expect(shown).toEqual(ids);
    expect(page.body).toContain(`${ids.length} result`);
    // An event facet links to the same search refined by it; the refined page shows it as a chip.
    const facet = /href="(\/\?[^"]*event_ids=(\d+)[^"]*)"/.exec(page.body)!;
    const refined = await get(facet[1]!.replaceAll('&amp;', '&'));
    expect(refined.statusCode).toBe(200);
    expect(refined.body).toContain('Event: ');
  });

  it('result cards show the lightly marked grid picture, whole; the quick look gets the comp with its full mark', async () => {
    const page = (await get('/?kind=editorial&phrase=marathon')).body;
    const card = /<li class="card ar-(\d+)"[^>]* data-comp="([^"]+)">\s*<a class="frame" href="\/asset\/([^"]+)"[^>]*><img src="([^"]+)" alt="" width="(\d+)" height="(\d+)"/.exec(page)!;
    const [, aspect, comp, id, src, width, height] = card;
    expect(src).toMatch(new RegExp(`/display/${id}/grid\\.jpg\\?`));
    expect(comp).toMatch(new RegExp(`/display/${id}/comp\\.jpg\\?`));
    expect(Math.max(Number(width), Number(height))).toBe(480);
    expect(Math.abs(Number(aspect) / 20 - Number(width) / Number(height))).toBeLessThanOrEqual(0.025);
    const file = await f.t.app.inject({ url: pathOf(src!.replaceAll('&amp;', '&')) });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/jpeg');
    // Against the same picture unmarked, the grid's differs in a corner only; the comp's across the picture.
    const record = (await f.t.services.catalog.findAssets('image', [decodeURIComponent(id!)])).found[0]!;
    const original = (await f.t.services.blobs.get(record.original!.key))!;
    const [w, h] = [Number(width), Number(height)];
    const plain = await sharp(original).resize(w, h, { fit: 'fill' }).flatten({ background: '#ffffff' }).raw().toBuffer();
    const compBytes = (await f.t.app.inject({ url: pathOf(comp!.replaceAll('&amp;', '&')) })).rawPayload;
    const changed = async (image: Buffer) => {
      const pixels = await sharp(image).resize(w, h, { fit: 'fill' }).removeAlpha().raw().toBuffer();
      let count = 0;
      for (let i = 0; i < pixels.length; i += 3) if (Math.abs(pixels[i]! - plain[i]!) + Math.abs(pixels[i + 1]! - plain[i + 1]!) + Math.abs(pixels[i + 2]! - plain[i + 2]!) > 60) count++;
      return count / (w * h);
    };
    const gridShare = await changed(file.rawPayload);
    const compShare = await changed(compBytes);
    expect(gridShare).toBeLessThan(0.03);
    expect(compShare).toBeGreaterThan(gridShare * 3);
  });

  it('an embeddable asset’s page lets oEmbed consumers discover its answer', async () => {
    const detail = await f.t.app.inject({ url: `/v3/images/${f.creativeImage}?fields=uri_oembed`, headers: { 'api-key': f.t.apiKey } });
    const uri = (detail.json() as { images: Array<{ uri_oembed: string | null }> }).images[0]!.uri_oembed;
    const page = (await get(`/asset/${f.creativeImage}`)).body;
    if (uri === null) expect(page).not.toContain('application/json+oembed');
    else expect(page).toContain(`<link rel="alternate" type="application/json+oembed" href="${uri.replaceAll('&', '&amp;')}"`);
  });

  it('the video tab searches videos, creative or editorial, with the license model filter of creative video', async () => {
    const json = await f.t.app.inject({ url: '/v3/search/videos/creative?license_models=royaltyfree&fields=id', headers: { 'api-key': f.t.apiKey } });
    const count = (json.json() as { result_count: number }).result_count;
    const page = await get('/?kind=video&license_models=royaltyfree');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`${count} result${count === 1 ? '' : 's'}`);
    expect(page.body).toContain('name="license_models" value="royaltyfree" checked');
    for (const meta of page.body.matchAll(/<span class="meta">([^<]*)<\/span>/g)) expect(meta[1]).toMatch(/^Video/);
    const editorial = await get('/?kind=video&family=editorial');
    expect(editorial.statusCode).toBe(200);
    // License models belong to creative video: on editorial video the checkboxes are not offered.
    expect(editorial.body).not.toContain('name="license_models"');
  });

  it('the API docs stay at /docs and / is the catalogue', async () => {
    expect((await get('/docs')).statusCode).toBeLessThan(400);
    expect((await get('/')).body).toContain('<form method="get" action="/" role="search"');
  });

  it('bad input is a 4xx page, an unknown asset a 404 page: HTML, never JSON or a stack trace', async () => {
    for (const [path, status] of [
      ['/?kind=nonsense', 400],
      ['/?page=0', 400],
      ['/?page=1e3', 400],
      ['/?kind=editorial&date_from=yesterday', 400],
      ['/?orientations=sideways', 400],
      ['/?sort_order=loudest', 400],
      ['/asset/no-such-asset', 404],
      // A NUL is no text any page takes (the platform's rule): 400, on the error page.
      ['/asset/%00', 400],
      ['/boards/shared/not-a-token', 404],
      // A field its route's schema refuses (one value, given twice) is the error page too, not the API's JSON.
      [`/asset/${f.editorialImage}?added=a&added=b`, 400],
      ['/signin/callback?code=a&code=b&state=s', 400],
    ] as const) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(status);
      expect(response.headers['content-type'], path).toBe('text/html; charset=utf-8');
      expect(response.body, path).toContain('role="alert"');
      expect(response.body, path).not.toMatch(/at .*\.ts:\d+|"code":/);
    }
    // A form body the server cannot read is a page too.
    const { cookie } = await signIn();
    const malformed = await f.t.app.inject({
      method: 'POST',
      url: '/boards',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${COOKIE}=${cookie}` },
      payload: 'name=%E0%A4%A',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('role="alert"');
  });

  it('every page has a strict policy: no inline script or style, not framed, no referrer', async () => {
    const page = await get(`/asset/${f.editorialImage}`);
    const policy = page.headers['content-security-policy'] as string;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).not.toMatch(/<script>|<style|style="|onclick=/);
    const script = /<script src="([^"]+)"/.exec(page.body)![1]!;
    expect((await get(script)).headers['content-type']).toBe('text/javascript; charset=utf-8');
    // The site's icon and name head every page, the error pages too.
    for (const body of [page.body, (await get('/')).body, (await get('/asset/no-such-asset')).body]) {
      const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(body)![1]!;
      expect(body).toContain(`<a class="brand" href="/"><img src="${icon}" alt="" width="28" height="28">Stockroom</a>`);
      const served = await get(icon);
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/svg+xml');
    }
    expect((await get('/favicon.ico')).headers['content-type']).toBe('image/svg+xml');
  });

  it('the asset page is in the reader’s language where the data has it', async () => {
    const record = (await f.t.services.catalog.findAssets('image', [f.editorialImage])).found[0]!;
    let id = record.id;
    let keyword = (record.fields.keywords as StoredKeyword[]).find((k) => k.translations.de);
    if (!keyword) {
      for await (const batch of f.t.services.catalog.scanAssets()) {
        for (const candidate of batch) {
          const found = (candidate.fields.keywords as StoredKeyword[]).find((k) => k.translations.de);
          if (found && candidate.asset_type === 'image') {
            id = candidate.id;
            keyword = found;
            break;
          }
        }
        if (keyword) break;
      }
    }
    expect(keyword, 'a demo keyword with a German translation').toBeDefined();
    const german = await get(`/asset/${id}`, undefined, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' });
    expect(german.body).toContain(`lang="de-DE">${keyword!.translations.de}</a>`);
    const english = await get(`/asset/${id}`);
    expect(english.body).not.toContain(`>${keyword!.translations.de}</a>`);
  });

  it('sign-in: authorization code with PKCE through the server’s own page; the session cookie is HttpOnly, Secure, SameSite=Lax; no token in any URL', async () => {
    const start = await get('/signin?return=/downloads');
    const location = new URL(start.headers.location as string);
    expect(location.origin + location.pathname).toBe(`${PUBLIC_URL}/oauth2/auth`);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('response_type')).toBe('code');
    const set = cookieOf(start, COOKIE)!;
    expect(set).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    // The site's own sign-in page: its header, and no third-party consent wording for its own client.
    const own = await get(pathOf(start.headers.location as string));
    expect(own.body).toContain('<h1>Sign in to Stockroom</h1>');
    expect(own.body).toContain('class="brand" href="/"');
    expect(own.body).not.toMatch(/to allow|Sign in and allow|Stockroom web/);

    const { cookie, locations } = await signIn('/downloads');
    expect(locations.at(-1)).toBe('/downloads');
    for (const seen of locations) expect(seen).not.toMatch(/access_token|refresh_token|token=/);
    const downloads = await get('/downloads', cookie);
    expect(downloads.statusCode).toBe(200);
    expect(downloads.body).toContain('Signed in as Ana Lima');
    expect(downloads.body).not.toMatch(/access_token|refresh_token|Bearer/);

    // The tokens are sealed in the store: what the row holds is no bearer token.
    const rows = await f.t.services.database.db.selectFrom('web_sessions').select(['access_token', 'refresh_token']).where('user_id', 'is not', null).execute();
    expect(rows.length).toBeGreaterThan(0);
    const client = await f.t.services.database.db.selectFrom('api_clients').select('id').where('name', '=', 'Stockroom web').executeTakeFirstOrThrow();
    for (const row of rows) expect((await f.t.services.tokens.verify(row.access_token!, client.id)).valid).toBe(false);
  });

  it('a third-party client keeps the consent screen on the same sign-in page', async () => {
    const redirect = 'https://lightbox.example.test/callback';
    const third = await f.t.services.clients.create({ name: 'Lightbox Pro', confidential: false, redirectUris: [redirect], grantTypes: ['authorization_code'] });
    const query = new URLSearchParams({ client_id: third.apiKey, redirect_uri: redirect, response_type: 'code', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
    const consent = await get(`/oauth2/auth?${query}`);
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('<h1>Sign in to allow Lightbox Pro to use your account</h1>');
    expect(consent.body).toContain('Sign in and allow');
    expect(consent.body).toContain('class="brand" href="/"');
  });

  it('sign-in refuses a state of another browser, a replayed callback, and a return to another host', async () => {
    const mine = await get('/signin?return=//evil.example/path');
    const theirs = await get('/signin');
    const state = new URL(theirs.headers.location as string).searchParams.get('state')!;
    // Their state in my browser: refused, whatever the code.
    const crossed = await get(`/signin/callback?code=anything&state=${state}`, cookieOf(mine, COOKIE)!.value);
    expect(crossed.statusCode).toBe(400);
    expect(crossed.body).toContain('Sign in again');
    // A full sign-in returning to another host lands on this site instead.
    const { locations } = await signIn('//evil.example/path');
    expect(locations.at(-1)).toBe('/');
    const cancelled = await get('/signin/callback?error=access_denied&state=x');
    expect(cancelled.statusCode).toBe(400);
    expect(cancelled.body).toContain('Sign-in was cancelled');
  });

  it('a return path outside ASCII is percent-encoded into the Location header: a page, never a 500, and the sign-in completes', async () => {
    const started = await get('/signin?return=/%C4%80');
    expect(started.statusCode).toBe(303);
    const { cookie, locations } = await signIn('/Ā?x=ü y');
    expect(locations.at(-1)).toBe('/%C4%80?x=%C3%BC%20y');
    const csrf = hiddenFields((await get('/boards', cookie)).body).csrf!;
    const boardPath = (await post('/boards', { name: 'Unicode return', csrf }, cookie)).headers.location as string;
    const added = await post('/boards/add', { csrf, board_id: boardPath.split('/').pop()!, asset_id: f.creativeImage, return: '/Ā' }, cookie);
    expect(added.statusCode, added.body).toBe(303);
    expect(added.headers.location).toBe('/%C4%80');
    // What no URL can carry (a lone surrogate, a control character) goes home instead.
    expect(safeReturnPath('/a\ud800b')).toBe('/');
    expect(safeReturnPath('/a\u007fb')).toBe('/');
    expect(safeReturnPath('/%C4%80')).toBe('/%C4%80');
  });

  it('the API docs at /docs may not be framed, as no other page may', async () => {
    for (const path of ['/docs', '/docs/static/index.css', '/docs/static/oauth2-redirect.html']) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(200);
      expect(response.headers['x-frame-options'], path).toBe('DENY');
      expect(response.headers['content-security-policy'], path).toContain("frame-ancestors 'none'");
    }
  });

  it('the docs page is Stockroom’s: its name, a getting-started guide naming /v3/openapi.json, and OAuth2 with PKCE in its Authorize dialog', async () => {
    const page = await get('/docs');
    expect(page.body).toContain('<title>Stockroom API — docs</title>');
    const initializer = (await get('/docs/static/swagger-initializer.js')).body;
    expect(initializer).toContain('"usePkceWithAuthorizationCodeGrant":true');
    expect(initializer).toContain('"layout":"BaseLayout"');
    const document = (await get('/docs/json')).json() as {
      info: { title: string; description: string };
      components: { securitySchemes: Record<string, { type: string; flows?: { authorizationCode?: { authorizationUrl: string; tokenUrl: string } } }> };
    };
    expect(document.info.title).toContain('Stockroom');
    for (const step of ['## Getting started', 'Api-Key', 'grant_type=password', '/v3/search/images/creative', '/v3/downloads/images/', `${PUBLIC_URL}/v3/openapi.json`]) {
      expect(document.info.description).toContain(step);
    }
    const oauth = document.components.securitySchemes.OAuth2!;
    expect(oauth.type).toBe('oauth2');
    const { authorizationUrl, tokenUrl } = oauth.flows!.authorizationCode!;
    expect(authorizationUrl).toMatch(new RegExp(`^${PUBLIC_URL}(/[a-z]+)?/oauth2/auth$`));
    expect(tokenUrl).toBe(authorizationUrl.replace(/auth$/, 'token'));
    // This server's own authorization endpoint: it answers there (a request without parameters is refused as a page).
    expect((await get(pathOf(authorizationUrl))).statusCode).toBe(400);
    // The API's own document at its address is the same, without the page's guide.
    const published = (await get('/v3/openapi.json')).json() as { paths: object; info: { description: string } };
    expect(Object.keys(published.paths)).toEqual(Object.keys((await get('/docs/json')).json().paths as object));
    expect(published.info.description).not.toContain('## Getting started');
  });

  it('the docs page has an OAuth client of its own, prefilled, held to the page’s redirect, signing in on the site’s page; it shows the document’s own address', async () => {
    const initializer = (await get('/docs/static/swagger-initializer.js')).body;
    expect(initializer).toContain(`"documentAddress":"${PUBLIC_URL}/v3/openapi.json"`);
    expect(initializer).toContain('SwaggerUIBundle.plugins.DownloadUrl');
    // Swagger UI's own redirect: the page's folder, static/oauth2-redirect.html.
    expect(initializer).toContain("oauth2RedirectUrl: resolveUrl('./static/oauth2-redirect.html')");
    const clientId = /"clientId":"([^"]+)"/.exec(initializer)?.[1];
    expect(clientId).toBeDefined();
    const client = (await f.t.services.clients.find(clientId))!;
    expect(client).toMatchObject({ name: 'Stockroom API docs', confidential: false, exactRedirects: true, redirectUris: [`${PUBLIC_URL}/docs/static/oauth2-redirect.html`] });
    expect([...client.grantTypes].sort()).toEqual(['authorization_code', 'refresh_token']);
    // Swagger UI's request: the code with PKCE, back to the docs page; the site's own sign-in page answers.
    const query = (redirect: string) =>
      new URLSearchParams({ client_id: clientId!, redirect_uri: redirect, response_type: 'code', state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
    const signIn = await get(`/oauth2/auth?${query(`${PUBLIC_URL}/docs/static/oauth2-redirect.html`)}`);
    expect(signIn.statusCode).toBe(200);
    expect(signIn.body).toContain('<h1>Sign in to Stockroom</h1>');
    // Held to it exactly: a page on the user's machine gets no code of it.
    expect((await get(`/oauth2/auth?${query('http://127.0.0.1:8080/docs/static/oauth2-redirect.html')}`)).statusCode).toBe(400);
    // Built again (another node, a restart), the server keeps the one client.
    const again = await f.t.services.firstPartyClients.keyOf({ name: 'Stockroom API docs', redirectUri: `${PUBLIC_URL}/docs/static/oauth2-redirect.html` }, 'docs_client');
    expect(again).toBe(clientId);
  });

  it('every form needs the session’s CSRF token: without it, or with another’s, nothing is written', async () => {
    const { cookie } = await signIn();
    const other = await signIn();
    const page = await get('/boards', cookie);
    const csrf = hiddenFields(page.body).csrf!;
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const before = await f.t.services.database.db.selectFrom('boards').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const form of [{ name: 'No token' } as Record<string, string>, { name: 'Wrong token', csrf: 'x'.repeat(43) }, { name: 'Another session’s', csrf: hiddenFields((await get('/boards', other.cookie)).body).csrf! }]) {
      const refused = await post('/boards', form, cookie);
      expect(refused.statusCode, form.name).toBe(403);
      expect(refused.body).toContain('role="alert"');
    }
    const signedOut = await post('/boards', { name: 'Signed out', csrf });
    expect(signedOut.statusCode).toBe(403);
    const after = await f.t.services.database.db.selectFrom('boards').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const made = await post('/boards', { name: 'With token', csrf }, cookie);
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toMatch(/^\/boards\/[A-Za-z0-9_-]+$/);
  });

  it('a signed-out person is sent to sign in for their pages; a share link opens without sign-in; sign-out ends the session', async () => {
    for (const path of ['/boards', '/downloads', '/boards/abc']) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(303);
      expect(response.headers.location).toBe(`/signin?return=${encodeURIComponent(path)}`);
    }
    const { cookie } = await signIn();
    const csrf = hiddenFields((await get('/boards', cookie)).body).csrf!;
    const made = await post('/boards', { name: 'For the client', csrf }, cookie);
    const boardPath = made.headers.location as string;
    expect((await post('/boards/add', { csrf, board_id: boardPath.split('/').pop()!, asset_id: f.creativeImage, return: `/asset/${f.creativeImage}` }, cookie)).statusCode).toBe(303);
    const board = await get(boardPath, cookie);
    const share = /id="share-link" value="([^"]+)"/.exec(board.body)![1]!;
    const shared = await get(pathOf(share));
    expect(shared.statusCode).toBe(200);
    expect(shared.body).toContain('For the client');
    expect(shared.body).toContain(`href="/asset/${f.creativeImage}"`);
    // The share page shows each asset's caption, for a client reading the board.
    const caption = (await f.t.services.catalog.findAssets('image', [f.creativeImage])).found[0]!.fields.caption as string;
    expect(shared.body).toContain(`<p class="caption">${escape(caption)}</p>`);
    expect(shared.body).not.toContain('method="post"');

    expect((await post('/signout', { csrf }, cookie)).statusCode).toBe(303);
    const after = await get('/boards', cookie);
    expect(after.statusCode).toBe(303);
  });

  it('a download from the asset page goes through licensing: the ledger counts it and the browser is sent to the file', async () => {
    const { cookie } = await signIn();
    const page = await get(`/asset/${f.creativeImage}`, cookie);
    const csrf = hiddenFields(page.body).csrf!;
    const choice = /name="choice" value="([^"]+)"/.exec(page.body)![1]!.replaceAll('&#39;', "'");
    const downloaded = await post(`/asset/${f.creativeImage}/download`, { csrf, choice }, cookie);
    expect(downloaded.statusCode, downloaded.body).toBe(303);
    const file = await f.t.app.inject({ url: pathOf(downloaded.headers.location as string) });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toContain('attachment');
    const history = await get('/downloads', cookie);
    expect(history.body).toContain(`href="/asset/${f.creativeImage}"`);
    // A choice the person's products do not offer is refused by licensing, as a page.
    const refused = await post(`/asset/${f.creativeImage}/download`, { csrf, choice: '999999|424242|premiumaccess' }, cookie);
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused.statusCode).toBeLessThan(500);
    expect(refused.body).toContain('role="alert"');
  });

  it('the asset page states the licence terms and what each product type charges, signed out, as the API has them', async () => {
    for (const id of [f.editorialImage, f.creativeImage]) {
      const api = (
        await f.t.app.inject({ url: `/v3/images/${id}?fields=allowed_use,copyright,credit_line,license_model,product_types`, headers: { 'api-key': f.t.apiKey } })
      ).json<{ images: Array<{ allowed_use: { usage_restrictions: string[]; release_info: string; how_can_i_use_it: string }; copyright: string; credit_line: string; license_model: string }> }>().images[0]!;
      const page = (await get(`/asset/${id}`)).body;
      const terms = /<section class="panel terms"[\s\S]*?<\/section>/.exec(page)![0];
      for (const restriction of api.allowed_use.usage_restrictions) expect(terms).toContain(`<li>${restriction}</li>`);
      for (const words of [api.allowed_use.release_info, api.allowed_use.how_can_i_use_it, api.copyright, api.credit_line]) expect(terms).toContain(escape(words));
      expect(terms).toContain(api.license_model === 'royaltyfree' ? 'Royalty-free' : 'Rights-');
    }
    expect((await get(`/asset/${f.editorialImage}`)).body).toContain('<li>Editorial use only</li>');
    // Prices: every product type that licenses the asset, in words; a credit pack says how many credits.
    const creative = (await get(`/asset/${f.creativeImage}`)).body;
    const prices = [...creative.matchAll(/<li><span class="product">([^<]+)<\/span> <span class="cost">([^<]+)<\/span><\/li>/g)].map((match) => [match[1], match[2]]);
    expect(prices.length).toBeGreaterThan(0);
    expect(prices).toContainEqual(['Credit Pack', expect.stringMatching(/^\d+ credits?$/)]);
    const editorial = (await get(`/asset/${f.editorialImage}`)).body;
    expect(editorial).not.toContain('<span class="product">Credit Pack</span>');
    expect(editorial).toContain('<span class="product">Premium Access</span>');
  });

  it('signed in, the largest size is preselected; once licensed the page says so and the download again costs nothing; the download is recorded as the web site’s', async () => {
    const { cookie } = await signIn();
    const record = (await f.t.services.catalog.findAssets('image', [f.editorialImage])).found[0]!;
    const largest = (record.fields.download_sizes as Array<{ height: number; width: number }>).reduce((best, size) => (size.width * size.height > best.width * best.height ? size : best));
    const page = (await get(`/asset/${f.editorialImage}`, cookie)).body;
    const checked = /name="choice" value="([^"]+)" required checked/.exec(page)![1]!.replaceAll('&#39;', "'");
    expect(checked.split('|')[0]).toBe(String(largest.height));
    expect(page).not.toContain('licensed this image already');
    const csrf = hiddenFields(page).csrf!;
    expect((await post(`/asset/${f.editorialImage}/download`, { csrf, choice: checked }, cookie)).statusCode).toBe(303);
    const again = (await get(`/asset/${f.editorialImage}`, cookie)).body;
    expect(again).toContain('You have licensed this image already');
    const productId = checked.split('|')[1];
    const option = new RegExp(`value="[^"|]+\\|${productId}\\|[^"]+"[^>]*>\\s*<span>[^<]*(?:<[^>]+>[^<]*)*?<span class="cost">([^<]+)</span>`).exec(again)!;
    expect(option[1]).toBe('Already licensed: downloading it again costs nothing');
    const source = await f.t.services.database.db.selectFrom('downloads').select('source').where('asset_id', '=', f.editorialImage).executeTakeFirstOrThrow();
    expect(source.source).toBe(new URL(PUBLIC_URL).host);
  });

  it('an asset without a title is called by its caption or its file name, never its id; API words read as words', async () => {
    const captioned = (await get(`/asset/${f.withoutFile.captioned}`)).body;
    expect(captioned).toContain('<h1>A quiet harbour at dawn.</h1>');
    expect((await get(`/asset/${f.withoutFile.named}`)).body).toContain('<h1>harbour-dawn-0412.jpg</h1>');
    const bare = (await get(`/asset/${f.withoutFile.bare}`)).body;
    expect(bare).toContain('<h1>Untitled image</h1>');
    expect(bare).not.toContain(`<h1>${f.withoutFile.bare}`);
    // The search's cards use the same names.
    const search = (await get('/?phrase=harbour')).body;
    expect(search).toContain('>A quiet harbour at dawn.</a>');
    expect(humanWords('PanoramicVertical')).toBe('Panoramic vertical');
    expect(humanWords('Horizontal')).toBe('Horizontal');
    expect(clipLength('00:00:04:08')).toBe('0:04');
    expect(clipLength('01:02:03:00')).toBe('1:02:03');
    const video = (await get(`/asset/${f.video}`)).body;
    expect(video).toMatch(/<dt>Length<\/dt><dd>\d+:\d\d<\/dd>/);
    expect(video).toMatch(/<dt>Resolution<\/dt><dd>(4K|HD 1080p|HD 720p|SD) \(\d+ × \d+\)<\/dd>/);
  });

  it('suggestions complete the last word typed from the catalogue’s vocabulary; a search that finds nothing asks “did you mean”', async () => {
    const ask = (phrase: string) => f.t.app.inject({ url: `/suggestions?phrase=${encodeURIComponent(phrase)}` });
    const one = await ask('marat');
    expect(one.statusCode).toBe(200);
    expect(one.headers['content-type']).toMatch(/^application\/json/);
    expect((one.json() as { suggestions: string[] }).suggestions).toContain('marathon');
    const two = (await ask('Harbourside marat')).json() as { suggestions: string[] };
    expect(two.suggestions).toContain('Harbourside marathon');
    for (const suggestion of two.suggestions) expect(suggestion.startsWith('Harbourside marat')).toBe(true);
    expect((await ask('m')).json()).toEqual({ suggestions: [] });
    expect((await ask('')).json()).toEqual({ suggestions: [] });
    expect((await ask('zzqqxx')).json()).toEqual({ suggestions: [] });
    const tooLong = await ask('a'.repeat(501));
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toMatchObject({ code: 'InvalidParameterValue' });
    expect((await f.t.app.inject({ url: '/suggestions?phrase=a&phrase=b' })).statusCode).toBe(400);

    const nothing = await get('/?kind=editorial&phrase=marathn');
    expect(nothing.body).toContain('0 results');
    expect(nothing.body).toMatch(/Did you mean <a href="[^"]*phrase=marathon[^"]*">marathon<\/a>\?/);
  });

  it('sign-in through a disabled web client is a 503 page naming what to do; enabled again, it works', async () => {
    const client = await f.t.services.database.db.selectFrom('api_clients').select('id').where('name', '=', 'Stockroom web').executeTakeFirstOrThrow();
    await f.t.services.clients.disable(String(client.id));
    const refused = await get('/signin');
    expect(refused.statusCode).toBe(503);
    expect(refused.body).toContain('stockroom admin client enable');
    await f.t.services.clients.enable(String(client.id));
    const { cookie } = await signIn('/downloads');
    expect((await get('/downloads', cookie)).statusCode).toBe(200);
  });

  /** A new board of the signed-in person holding these assets; its path. */
  async function boardWith(cookie: string, name: string, assetIds: readonly string[]): Promise<string> {
    const csrf = hiddenFields((await get('/boards', cookie)).body).csrf!;
    const boardPath = (await post('/boards', { name, csrf }, cookie)).headers.location as string;
    const boardId = boardPath.split('/').pop()!;
    for (const assetId of assetIds) {
      const added = await post('/boards/add', { csrf, board_id: boardId, asset_id: assetId, return: boardPath }, cookie);
      expect(added.statusCode, added.body).toBe(303);
    }
    return boardPath;
  }
  const orderOf = (page: string) => [...page.matchAll(/<li class="card [^"]*" id="asset-([^"]+)"/g)].map((match) => match[1]!);

  it('a board keeps the owner’s order (buttons a place at a time, or to a place) and a note on each asset; the API lists the same order and no note', async () => {
    const { cookie } = await signIn();
    const boardPath = await boardWith(cookie, 'Front page', [f.creativeImage, f.editorialImage, f.withoutFile.captioned]);
    const boardId = boardPath.split('/').pop()!;
    const page = (await get(boardPath, cookie)).body;
    const [a, b, c] = orderOf(page) as [string, string, string];
    expect(new Set([a, b, c])).toEqual(new Set([f.creativeImage, f.editorialImage, f.withoutFile.captioned]));
    expect(page).toContain('1 of 3');
    const csrf = hiddenFields(page).csrf!;
    // Without script or mouse: the card's own button, and the focus comes back to it on the page that follows.
    const down = await post(`${boardPath}/order`, { csrf, asset_id: a, move: 'down' }, cookie);
    expect(down.statusCode, down.body).toBe(303);
    expect(down.headers.location).toBe(`${boardPath}?moved=${a}&dir=down`);
    const after = (await get(pathOf(down.headers.location as string), cookie)).body;
    expect(orderOf(after)).toEqual([b, a, c]);
    const movedCard = new RegExp(`id="asset-${a}"[\\s\\S]*?</li>`).exec(after)![0];
    expect(movedCard).toMatch(/value="down" autofocus>.*Move down/);
    // What the script sends after a drag: a place from 0.
    expect((await post(`${boardPath}/order`, { csrf, asset_id: c, to: '0' }, cookie)).statusCode).toBe(303);
    expect(orderOf((await get(boardPath, cookie)).body)).toEqual([c, b, a]);
    // A move past the end changes nothing; an asset not on the board, or no place, is a page that says so.
    expect((await post(`${boardPath}/order`, { csrf, asset_id: c, move: 'up' }, cookie)).statusCode).toBe(303);
    expect(orderOf((await get(boardPath, cookie)).body)).toEqual([c, b, a]);
    const notOn = await post(`${boardPath}/order`, { csrf, asset_id: f.video, move: 'up' }, cookie);
    expect(notOn.statusCode).toBe(404);
    expect(notOn.body).toContain(`Asset ${f.video} is not on this board`);
    expect((await post(`${boardPath}/order`, { csrf, asset_id: c, to: 'first' }, cookie)).statusCode).toBe(400);
    // The API's BoardDetail lists the assets in the same order, with the contract's fields only.
    const user = await f.t.services.database.db.selectFrom('users').select('id').where('username', '=', f.username).executeTakeFirstOrThrow();
    const detail = await f.t.services.boards.get(user.id, boardId);
    expect(detail.assets.map((asset) => asset.id)).toEqual([c, b, a]);
    for (const asset of detail.assets) expect(Object.keys(asset).sort()).toEqual(['asset_type', 'date_added', 'display_sizes', 'id']);

    // A note: shown on its card; too long is refused; blank clears it.
    const noted = await post(`${boardPath}/notes`, { csrf, asset_id: b, note: '  Cover candidate <b>first</b>  ' }, cookie);
    expect(noted.statusCode).toBe(303);
    const withNote = (await get(boardPath, cookie)).body;
    expect(new RegExp(`id="asset-${b}"[\\s\\S]*?</li>`).exec(withNote)![0]).toContain('<p class="asset-note"><strong>Note:</strong> Cover candidate &lt;b&gt;first&lt;/b&gt;</p>');
    expect((await post(`${boardPath}/notes`, { csrf, asset_id: b, note: 'x'.repeat(501) }, cookie)).statusCode).toBe(400);
    expect((await post(`${boardPath}/notes`, { csrf, asset_id: b, note: ' ' }, cookie)).statusCode).toBe(303);
    expect((await get(boardPath, cookie)).body).not.toContain('class="asset-note"');
    // Without the form's token nothing is written.
    expect((await post(`${boardPath}/order`, { asset_id: a, move: 'up' }, cookie)).statusCode).toBe(403);

    // An editor may write notes, not reorder nor choose what the share link shows.
    const editor = await f.t.services.users.create({ username: `ed-${boardId}`, password: 'a long enough passphrase', first_name: 'Ed', last_name: 'Itor', email: `ed-${boardId}@example.com` });
    const invitation = detail.links.invitation!;
    await f.t.services.boards.acceptInvitation(editor.id, invitation.slice(invitation.lastIndexOf('/') + 1));
    await f.t.services.boards.setNote(editor.id, boardId, a, 'Ask for the wider crop');
    await expect(f.t.services.boards.moveAsset(editor.id, boardId, a, 'up')).rejects.toMatchObject({ statusCode: 403, code: 'InsufficientAccess' });
    await expect(f.t.services.boards.setShareComments(editor.id, boardId, true)).rejects.toMatchObject({ statusCode: 403 });
    expect((await f.t.services.boards.arrangement(editor.id, boardId)).notes.get(a)).toBe('Ask for the wider crop');
  });

  it('the share link shows the comments only when the owner chooses so, each by its author’s first name', async () => {
    const { cookie } = await signIn();
    const boardPath = await boardWith(cookie, 'For the client', [f.creativeImage]);
    const page = (await get(boardPath, cookie)).body;
    const csrf = hiddenFields(page).csrf!;
    expect(page).toContain('The share link shows the assets and their captions, not the comments.');
    await post(`${boardPath}/comments`, { csrf, text: 'Second from the left, please.' }, cookie);
    const shared = pathOf(/id="share-link" value="([^"]+)"/.exec(page)![1]!);
    expect((await get(shared)).body).not.toContain('Second from the left');
    const shown = await post(`${boardPath}/share-comments`, { csrf, show: '1' }, cookie);
    expect(shown.statusCode).toBe(303);
    expect((await get(boardPath, cookie)).body).toContain('Hide the comments from the share link');
    const open = (await get(shared)).body;
    expect(open).toContain('<p>Second from the left, please.</p>');
    expect(open).toMatch(/<p class="by">Ana · /);
    expect(open).not.toContain('Lima');
    expect(open).not.toContain('method="post"');
    expect((await post(`${boardPath}/share-comments`, { csrf, show: 'maybe' }, cookie)).statusCode).toBe(400);
    await post(`${boardPath}/share-comments`, { csrf, show: '0' }, cookie);
    expect((await get(shared)).body).not.toContain('Second from the left');
  });

  it('a board’s licensed assets download as one zip, each at the largest size licensed, with a manifest of credit lines naming what was left out and why', async () => {
    const { cookie } = await signIn();
    // Licensed at the largest size (the preselected choice).
    const assetPage = (await get(`/asset/${f.creativeImage}`, cookie)).body;
    const choice = /name="choice" value="([^"]+)" required checked/.exec(assetPage)![1]!.replaceAll('&#39;', "'");
    expect((await post(`/asset/${f.creativeImage}/download`, { csrf: hiddenFields(assetPage).csrf!, choice }, cookie)).statusCode).toBe(303);
    const boardPath = await boardWith(cookie, 'Zip me: "quotes" & all', [f.creativeImage, f.video, f.withoutFile.named]);
    const zip = await get(`${boardPath}/download`, cookie);
    expect(zip.statusCode, zip.body).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.headers['content-disposition']).toBe('attachment; filename="Zip-me-quotes-all.zip"');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-zip-'));
    try {
      const file = path.join(dir, 'board.zip');
      fs.writeFileSync(file, zip.rawPayload);
      const script = [
        'import sys, zipfile, json, base64',
        'z = zipfile.ZipFile(sys.argv[1])',
        'print(json.dumps({"bad": z.testzip(), "files": {i.filename: base64.b64encode(z.read(i)).decode() for i in z.infolist()}}))',
      ].join('\n');
      const read = JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as { bad: string | null; files: Record<string, string> };
      expect(read.bad).toBeNull();
      const names = Object.keys(read.files);
      expect(names).toHaveLength(2);
      const picture = names.find((name) => name.endsWith('.jpg'))!;
      const [height] = choice.split('|');
      const metadata = await sharp(Buffer.from(read.files[picture]!, 'base64')).metadata();
      expect(String(metadata.height)).toBe(height);
      expect(picture).toBe(`stockroom-${f.creativeImage}-${metadata.width}x${metadata.height}.jpg`);
      expect(names[1]).toBe('manifest.csv');
      const manifest = Buffer.from(read.files['manifest.csv']!, 'base64').toString('utf8').trim().split('\r\n');
      expect(manifest[0]).toBe('asset_id,title,credit_line,copyright,license_model,licensed_as,file,left_out_because');
      expect(manifest).toHaveLength(4);
      const api = (await f.t.app.inject({ url: `/v3/images/${f.creativeImage}?fields=credit_line,copyright,license_model`, headers: { 'api-key': f.t.apiKey } })).json<{ images: Array<Record<string, string>> }>().images[0]!;
      const line = manifest.find((row) => row.startsWith(`"${f.creativeImage}"`))!;
      expect(line).toContain(`"${api.credit_line!.replace(/"/g, '""')}"`);
      expect(line).toContain(`"${api.copyright!.replace(/"/g, '""')}"`);
      expect(line).toContain(`"${picture}",""`);
      expect(line).toContain(`${metadata.width} × ${metadata.height} px`);
      expect(line).toContain(api.license_model === 'royaltyfree' ? '"Royalty-free"' : '"Rights-');
      for (const left of [f.video, f.withoutFile.named]) {
        expect(manifest.find((row) => row.startsWith(`"${left}"`))).toMatch(/,"","Not licensed by you yet: download it from its page first\."$/);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Somebody else's board, or none: a page, not a zip.
    expect((await get('/boards/no-such-board/download', cookie)).statusCode).toBe(404);
    expect((await get(`${boardPath}/download`)).statusCode).toBe(303);
  });

  it('an invitation link lets another signed-in person join the board and comment; signed out, it asks to sign in first', async () => {
    const owner = await signIn();
    const csrf = hiddenFields((await get('/boards', owner.cookie)).body).csrf!;
    const boardPath = (await post('/boards', { name: 'Team picks', csrf }, owner.cookie)).headers.location as string;
    const invitation = /id="invitation-link" value="([^"]+)"/.exec((await get(boardPath, owner.cookie)).body)![1]!;
    const signedOut = await get(pathOf(invitation));
    expect(signedOut.statusCode).toBe(200);
    expect(signedOut.body).toContain(`/signin?return=${encodeURIComponent(pathOf(invitation))}`);
    expect(signedOut.body).not.toContain('method="post"');

    await f.t.services.users.create({ username: 'ben', password: 'another long passphrase', first_name: 'Ben', last_name: 'Ode', email: 'ben@example.com' });
    const start = await get(`/signin?return=${encodeURIComponent(pathOf(invitation))}`);
    const authorize = await get(pathOf(start.headers.location as string));
    const csrfCookie = (authorize.cookies as Array<{ name: string; value: string }>)[0]!;
    const allowed = await f.t.app.inject({
      method: 'POST',
      url: new URL(start.headers.location as string).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${csrfCookie.name}=${csrfCookie.value}` },
      payload: new URLSearchParams({ ...hiddenFields(authorize.body), username: 'ben', password: 'another long passphrase', decision: 'allow' }).toString(),
    });
    const back = await get(pathOf(allowed.headers.location as string), cookieOf(start, COOKIE)!.value);
    expect(back.headers.location).toBe(pathOf(invitation));
    const ben = cookieOf(back, COOKIE)!.value;
    const page = await get(pathOf(invitation), ben);
    const joined = await post(pathOf(invitation), { csrf: hiddenFields(page.body).csrf! }, ben);
    expect(joined.statusCode).toBe(303);
    expect(joined.headers.location).toBe(boardPath);
    const board = await get(boardPath, ben);
    expect(board.statusCode).toBe(200);
    expect(board.body).toContain('Team picks');
    const commented = await post(`${boardPath}/comments`, { csrf: hiddenFields(board.body).csrf!, text: 'Joined, thanks.' }, ben);
    expect(commented.statusCode).toBe(303);
    expect((await get(boardPath, owner.cookie)).body).toContain('Joined, thanks.');
  });

  it('an expired access token is refreshed behind the page; a password change signs the browser out', async () => {
    const { cookie } = await signIn('/downloads');
    const db = f.t.services.database.db;
    const client = await db.selectFrom('api_clients').select('id').where('name', '=', 'Stockroom web').executeTakeFirstOrThrow();
    const sealedBefore = (await db.selectFrom('web_sessions').select('access_token').where('user_id', 'is not', null).execute()).map((row) => row.access_token);
    // Every access token of the web client runs out: the next page takes a new one with the refresh token.
    await db.updateTable('access_tokens').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('client_id', '=', client.id).execute();
    const page = await get('/downloads', cookie);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Signed in as Ana Lima');
    const live = await db.selectFrom('access_tokens').select('token_hash').where('client_id', '=', client.id).where('expires_at', '>', new Date().toISOString()).execute();
    expect(live.length).toBeGreaterThan(0);
    const sealedAfter = (await db.selectFrom('web_sessions').select('access_token').where('user_id', 'is not', null).execute()).map((row) => row.access_token);
    expect(sealedAfter.filter((sealed) => !sealedBefore.includes(sealed)).length).toBeGreaterThan(0);
    // A password change revokes the user's tokens: the session ends, and the page asks to sign in.
    await f.t.services.users.changePassword(f.username, 'a brand new passphrase');
    const after = await get('/downloads', cookie);
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toBe('/signin?return=%2Fdownloads');
    await f.t.services.users.changePassword(f.username, f.password);
  });
});

describe('sign-in on a public URL that is neither https nor local', () => {
  it('is a 503 page naming STOCKROOM_PUBLIC_URL; browsing works without it', async () => {
    const t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: 'http://stockroom.test' } });
    try {
      const refused = await t.app.inject({ url: '/signin?return=/' });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.body).toContain('STOCKROOM_PUBLIC_URL');
      expect(refused.headers['set-cookie']).toBeUndefined();
      expect((await t.app.inject({ url: '/' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
