import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, createTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * The catalogue browser's own OAuth client is held to its registered callback exactly: a page
 * on the user's machine (any localhost redirect) must never receive its codes. The local
 * exemption stays for third-party clients in development.
 */
describe.each(STORES)('the first-party web client’s redirect ($name)', ({ url }) => {
  let t: TestApp;
  let authorize: URL;
  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url, env: { STOCKROOM_PUBLIC_URL: 'https://stockroom.test' } });
    // The browser's sign-in registers its client and sends the browser to the authorization endpoint.
    const start = await t.app.inject({ method: 'GET', url: '/signin' });
    expect(start.statusCode).toBe(303);
    authorize = new URL(start.headers.location as string);
  }, 60_000);
  afterAll(() => t?.close());

  const withRedirect = (redirectUri: string) => {
    const target = new URL(authorize);
    target.searchParams.set('redirect_uri', redirectUri);
    return t.app.inject({ method: 'GET', url: `${target.pathname}${target.search}` });
  };

  it('its registered callback opens the sign-in page', async () => {
    expect(authorize.searchParams.get('redirect_uri')).toBe('https://stockroom.test/signin/callback');
    const page = await withRedirect('https://stockroom.test/signin/callback');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<form');
  });

  it.each([
    ['a localhost address', 'http://localhost:8123/steal'],
    ['a loopback address', 'http://127.0.0.1/cb'],
    ['an IPv6 loopback address', 'http://[::1]:9000/'],
    ['its callback with a parameter added', 'https://stockroom.test/signin/callback?next=1'],
  ])('%s is refused on the error page, never redirected to', async (_case, redirectUri) => {
    const page = await withRedirect(redirectUri);
    expect(page.statusCode).toBe(400);
    expect(page.headers.location).toBeUndefined();
    expect(page.body).toContain('is not the one registered for this application');
  });

  it('a third-party public client in development keeps the local exemption', async () => {
    const { apiKey } = await t.services.clients.create({ name: 'A developer’s app', confidential: false, grantTypes: ['authorization_code'] });
    const query = new URLSearchParams({
      client_id: apiKey,
      response_type: 'code',
      redirect_uri: 'http://localhost:8123/cb',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const page = await t.app.inject({ method: 'GET', url: `/oauth2/auth?${query}` });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('<form');
  });
});
