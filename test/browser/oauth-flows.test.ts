import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, HAS_CHROMIUM, LAUNCH_ARGS, keepToLoopback } from '../helpers/chromium.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { freePort, uniqueName } from '../helpers/oauth-fixtures.js';

/**
 * The OAuth sign-in page as a person meets it, in Debian's Chromium (`apt-get install
 * chromium`) through playwright-core: a small client application (a second loopback server)
 * sends the browser to Stockroom, the user signs in and allows, and the browser lands back on
 * the client's /callback with a code (code flow) or a token in the fragment (implicit).
 * Only loopback is ever contacted. The client application of the code flow is reached as
 * http://localhost:<port>, another site than Stockroom's http://127.0.0.1:<port> (ports do not
 * make sites), so the user arrives at the sign-in page the real way: a cross-site link.
 */

if (!HAS_CHROMIUM) {
  console.log(`stockroom tests: skipped the OAuth browser suite (${CHROMIUM} does not exist; apt-get install chromium)`);
}


const PASSWORD = 'correct horse battery staple';
const PREFIX = '/auth/oauth2';


function escapeHtml(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/**
 * The client application: /callback shows what it received (the query, and — client-side
 * only — the fragment, through a tiny inline script: this page is the client's, not under
 * Stockroom's CSP); /framer puts a URL in an iframe; /plain is a page that may be framed.
 */
function startClientApp(port: number, seen: string[]): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
    const html = (body: string) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(`<!doctype html><html><head><meta charset="utf-8"><title>Client</title></head><body>${body}</body></html>`);
    };
    if (url.pathname === '/callback') {
      seen.push(url.href);
      html(
        `<h1>Callback</h1><pre id="query">${escapeHtml(url.search)}</pre><pre id="fragment"></pre>` +
          `<script>document.getElementById('fragment').textContent = location.hash; document.title = 'Client (script ran)';</script>`,
      );
    } else if (url.pathname === '/framer') {
      html(`<h1>Framer</h1><iframe id="frame" name="frame" width="800" height="600" src="${escapeHtml(url.searchParams.get('src') ?? '')}"></iframe>`);
    } else if (url.pathname === '/start') {
      // The client's own "Sign in with Stockroom" link.
      html(`<h1>Client</h1><a id="start" href="${escapeHtml(url.searchParams.get('to') ?? '')}">Sign in with Stockroom</a>`);
    } else if (url.pathname === '/plain') {
      html('<p id="plain">a page that may be framed</p>');
    } else {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe.skipIf(!HAS_CHROMIUM)(`OAuth sign-in in a real browser (${CHROMIUM})`, () => {
  let t: TestApp;
  let origin: string;
  let clientOrigin: string;
  let clientServer: http.Server;
  let browser: Browser;
  let context: BrowserContext;
  /** Every URL the client application's /callback received (what its server can see). */
  const callbacks: string[] = [];
  /** Requests the browser tried to make beyond loopback; each is refused before it leaves. */
  const outside: string[] = [];

  let confidential: { apiKey: string; apiSecret: string };
  let publicClient: { apiKey: string };
  const user = { username: uniqueName('browser-user'), password: PASSWORD };

  async function newContext(options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
    const created = await browser.newContext(options);
    created.setDefaultTimeout(5_000);
    await keepToLoopback(created, outside);
    return created;
  }

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: origin } });
    await t.app.listen({ port, host: '127.0.0.1' });
    const clientPort = await freePort();
    clientOrigin = `http://127.0.0.1:${clientPort}`;
    clientServer = await startClientApp(clientPort, callbacks);

    const created = await t.services.clients.create({
      name: 'Browser test web app',
      queriesPerSecond: 100_000,
      queriesPerDay: 10_000_000,
    });
    if (created.apiSecret === undefined) throw new Error('a confidential client without a secret');
    confidential = { apiKey: created.apiKey, apiSecret: created.apiSecret };
    const createdPublic = await t.services.clients.create({
      name: 'Browser test single-page app',
      confidential: false,
      queriesPerSecond: 100_000,
      queriesPerDay: 10_000_000,
    });
    publicClient = { apiKey: createdPublic.apiKey };
    await t.services.users.create(user);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    context = await newContext();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (clientServer ? clientServer.close(() => resolve()) : resolve()));
    await t?.close();
  });

  function authorizationUrl(query: Record<string, string>): string {
    return `${origin}${PREFIX}/auth?${new URLSearchParams(query).toString()}`;
  }

  async function exchangeCode(code: string, redirectUri: string): Promise<string> {
    const response = await fetch(`${origin}${PREFIX}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: confidential.apiKey,
        client_secret: confidential.apiSecret,
      }),
    });
    const body = (await response.json()) as { access_token?: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    if (!body.access_token) throw new Error('no access token');
    return body.access_token;
  }

  async function searchStatus(apiKey: string, token: string): Promise<number> {
    const response = await fetch(`${origin}/v3/search/images?phrase=harbour`, {
      headers: { 'api-key': apiKey, authorization: `Bearer ${token}` },
    });
    return response.status;
  }

  /** Signs in on the page and clicks a button; returns after the navigation the click causes. */
  async function signIn(page: Page, password: string, button: RegExp = /allow/i): Promise<void> {
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.getByRole('button', { name: button }).click()]);
  }

  /** Flow A: the code flow of a confidential web application, wrong password first. */
  async function codeFlow(browserContext: BrowserContext, javaScript: boolean): Promise<void> {
    const clientSite = clientOrigin.replace('127.0.0.1', 'localhost');
    const redirectUri = `${clientSite}/callback`;
    const state = `a-${uniqueName('state')}`;
    const page = await browserContext.newPage();
    try {
      const start = authorizationUrl({ client_id: confidential.apiKey, response_type: 'code', redirect_uri: redirectUri, state });
      await page.goto(`${clientSite}/start?to=${encodeURIComponent(start)}`);
      const [opened] = await Promise.all([page.waitForNavigation(), page.locator('#start').click()]);
      expect(opened?.status()).toBe(200);
      expect(new URL(page.url()).origin).toBe(origin);
      // An accessible form: labelled fields, named buttons.
      await expect(page.getByLabel('Username').isVisible()).resolves.toBe(true);
      await expect(page.getByLabel('Password').isVisible()).resolves.toBe(true);
      await expect(page.getByLabel('Password').getAttribute('type')).resolves.toBe('password');
      await expect(page.getByRole('button', { name: /allow/i }).isVisible()).resolves.toBe(true);
      await expect(page.getByRole('button', { name: /deny/i }).isVisible()).resolves.toBe(true);

      // A wrong password: the page again, with an alert, and still Stockroom's.
      await signIn(page, 'not the password');
      expect(new URL(page.url()).origin).toBe(origin);
      await page.getByRole('alert').waitFor({ state: 'visible' });
      expect((await page.getByRole('alert').innerText()).trim().length).toBeGreaterThan(0);
      expect(callbacks.some((url) => url.includes(state))).toBe(false);

      // The right one: back at the client with a code and the state.
      await signIn(page, PASSWORD);
      const landed = new URL(page.url());
      expect(`${landed.origin}${landed.pathname}`).toBe(redirectUri);
      expect(landed.searchParams.get('state')).toBe(state);
      const code = landed.searchParams.get('code');
      if (!code) throw new Error(`no code in ${landed.href}`);
      // The client's server got it too (that is where a confidential client exchanges it).
      const received = callbacks.find((url) => url.includes(state));
      expect(received && new URL(received).searchParams.get('code')).toBe(code);
      expect(await page.locator('#query').innerText()).toContain('code=');
      // The client page's script ran, or (in a context without JavaScript) did not.
      expect(await page.title()).toBe(javaScript ? 'Client (script ran)' : 'Client');

      const token = await exchangeCode(code, redirectUri);
      expect(await searchStatus(confidential.apiKey, token)).toBe(200);
    } finally {
      await page.close();
    }
  }

  it('Flow A: authorization code — wrong password, alert, right password, allow, callback, exchange, search', async () => {
    await codeFlow(context, true);
    expect(outside).toEqual([]);
  });

  it('Flow B: implicit — the token comes back in the fragment, never to the client server', async () => {
    const redirectUri = `${clientOrigin}/callback`;
    const state = `b-${uniqueName('state')}`;
    const page = await context.newPage();
    try {
      const opened = await page.goto(authorizationUrl({ client_id: publicClient.apiKey, response_type: 'token', redirect_uri: redirectUri, state }));
      expect(opened?.status()).toBe(200);
      await signIn(page, PASSWORD);
      const landed = new URL(page.url());
      expect(`${landed.origin}${landed.pathname}`).toBe(redirectUri);
      const fragment = new URLSearchParams(landed.hash.slice(1));
      expect(fragment.get('token_type')).toBe('Bearer');
      expect(fragment.get('state')).toBe(state);
      expect(fragment.get('expires_in')).toBe('31536000');
      expect(fragment.get('refresh_token')).toBeNull();
      const token = fragment.get('access_token');
      if (!token) throw new Error(`no access_token in ${landed.href}`);
      // The client's page read it…
      await expect(page.locator('#fragment').innerText()).resolves.toContain('access_token=');
      // …but its server never saw it.
      expect(callbacks.filter((url) => url.includes('access_token'))).toEqual([]);
      expect(await searchStatus(publicClient.apiKey, token)).toBe(200);
    } finally {
      await page.close();
    }
    expect(outside).toEqual([]);
  });

  it('Deny sends the user back with error=access_denied', async () => {
    const redirectUri = `${clientOrigin}/callback`;
    const page = await context.newPage();
    try {
      await page.goto(authorizationUrl({ client_id: confidential.apiKey, response_type: 'code', redirect_uri: redirectUri, state: 'deny-me' }));
      await signIn(page, PASSWORD, /deny/i);
      const landed = new URL(page.url());
      expect(`${landed.origin}${landed.pathname}`).toBe(redirectUri);
      expect(landed.searchParams.get('error')).toBe('access_denied');
      expect(landed.searchParams.get('state')).toBe('deny-me');
      expect(landed.searchParams.get('code')).toBeNull();
    } finally {
      await page.close();
    }
  });

  it('the sign-in page cannot be framed', async () => {
    const url = authorizationUrl({ client_id: confidential.apiKey, response_type: 'code', redirect_uri: `${clientOrigin}/callback`, state: 'frame' });
    const direct = await fetch(url);
    expect(direct.status).toBe(200);
    const framing = `${direct.headers.get('content-security-policy') ?? ''} ${direct.headers.get('x-frame-options') ?? ''}`;
    expect(framing).toMatch(/frame-ancestors 'none'|DENY/i);

    const page = await context.newPage();
    try {
      // The controls: the same framer shows a page of its own, and one of Stockroom's that may be framed.
      await page.goto(`${clientOrigin}/framer?src=${encodeURIComponent(`${clientOrigin}/plain`)}`, { waitUntil: 'load' });
      const control = page.frames().find((frame) => frame.url().startsWith(`${clientOrigin}/plain`));
      if (!control) throw new Error('the control frame did not load');
      await expect(control.locator('#plain').count()).resolves.toBe(1);
      await page.goto(`${clientOrigin}/framer?src=${encodeURIComponent(`${origin}/v3/openapi.json`)}`, { waitUntil: 'load' });
      const crossOrigin = page.frames().find((frame) => frame.url() === `${origin}/v3/openapi.json`);
      if (!crossOrigin) throw new Error('the cross-origin control frame did not load');
      await expect(crossOrigin.locator('body').innerText()).resolves.toContain('openapi');

      // Stockroom's page in the same place: Chromium refuses to render it.
      await page.goto(`${clientOrigin}/framer?src=${encodeURIComponent(url)}`, { waitUntil: 'load' });
      const child = page.frames().find((frame) => frame !== page.mainFrame());
      if (!child) throw new Error('no child frame at all');
      await expect(child.locator('input[type=password]').count()).resolves.toBe(0);
      await expect(child.locator('form').count()).resolves.toBe(0);
    } finally {
      await page.close();
    }
  });

  it('Flow A works with JavaScript disabled', async () => {
    const noScript = await newContext({ javaScriptEnabled: false });
    try {
      await codeFlow(noScript, false);
    } finally {
      await noScript.close();
    }
    expect(outside).toEqual([]);
  });
});
