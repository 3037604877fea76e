import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import swagger from '@fastify/swagger';
import { afterEach, describe, expect, it } from 'vitest';
import { oauthRoutes, type OAuthRoutesOptions } from '../../src/oauth/oauth.routes.js';
import { SITE_HEADER } from '../../src/oauth/sign-in-page.js';
import {
  OAuthError,
  type AuthorizationCheck,
  type AuthorizationRequest,
  type OAuthEndpoints,
  type PresentedClient,
  type SignInResult,
  type TokenResponse,
} from '../../src/oauth/oauth.types.js';
import { registerOpenCors } from '../../src/platform/http/cors.js';

const PUBLIC_URL = 'http://api.stockroom.test';
const TOKEN: TokenResponse = { access_token: 'at-123', token_type: 'Bearer', expires_in: 1800, refresh_token: 'rt-456' };
const REDIRECT_URI = 'https://client.example.test:8443/callback?tenant=7';
const CHECKED: AuthorizationRequest = {
  clientId: 'key-abc',
  clientName: 'Lightbox Pro',
  firstParty: false,
  responseType: 'code',
  redirectUri: REDIRECT_URI,
  state: 'xyz',
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
};
const AUTH_QUERY = {
  client_id: 'key-abc',
  response_type: 'code',
  redirect_uri: REDIRECT_URI,
  state: 'xyz',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
};

/** Canned answers, and every call the HTTP layer made. */
class FakeOAuth implements OAuthEndpoints {
  tokenCalls: { form: Record<string, string>; basic: PresentedClient | undefined; remoteAddress: string }[] = [];
  checkCalls: Record<string, string>[] = [];
  signInCalls: { username: string; password: string; remoteAddress: string }[] = [];
  completeCalls: { request: AuthorizationRequest; userId: number; decision: 'allow' | 'deny' }[] = [];

  tokenAnswer: () => Promise<TokenResponse> = async () => TOKEN;
  checkAnswer: () => Promise<AuthorizationCheck> = async () => ({ kind: 'ok', request: CHECKED });
  signInAnswer: SignInResult = { ok: true, userId: 42 };

  async token(form: Record<string, string>, basic: PresentedClient | undefined, remoteAddress: string): Promise<TokenResponse> {
    this.tokenCalls.push({ form: { ...form }, basic, remoteAddress });
    return this.tokenAnswer();
  }
  async checkAuthorization(query: Record<string, string>): Promise<AuthorizationCheck> {
    this.checkCalls.push({ ...query });
    return this.checkAnswer();
  }
  async signIn(username: string, password: string, remoteAddress: string): Promise<SignInResult> {
    this.signInCalls.push({ username, password, remoteAddress });
    return this.signInAnswer;
  }
  async completeAuthorization(request: AuthorizationRequest, userId: number, decision: 'allow' | 'deny'): Promise<string> {
    this.completeCalls.push({ request, userId, decision });
    return decision === 'allow' ? `${CHECKED.redirectUri}&code=the-code&state=xyz` : `${CHECKED.redirectUri}&error=access_denied&state=xyz`;
  }
}

let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(options: Partial<OAuthRoutesOptions> = {}, oauth = new FakeOAuth()): Promise<{ app: FastifyInstance; oauth: FakeOAuth }> {
  app = Fastify({ trustProxy: true });
  await app.register(oauthRoutes, { oauth, publicUrl: PUBLIC_URL, authUrl: `${PUBLIC_URL}/auth`, ...options });
  await app.ready();
  return { app, oauth };
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

function postForm(target: FastifyInstance, url: string, body: string, headers: Record<string, string> = {}) {
  return target.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
}

function basic(credentials: string): string {
  return `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
}

function expectNoStore(response: LightMyRequestResponse): void {
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers.pragma).toBe('no-cache');
}

const GRANT = form({ grant_type: 'client_credentials', client_id: 'key-abc', client_secret: 's3cret' });

describe('token endpoint', () => {
  it('answers at /oauth2/token with expires_in as a string (the earlier family)', async () => {
    const { app, oauth } = await start();
    const response = await postForm(app, '/oauth2/token', GRANT);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ access_token: 'at-123', token_type: 'Bearer', expires_in: '1800', refresh_token: 'rt-456' });
    expect(oauth.tokenCalls).toEqual([
      { form: { grant_type: 'client_credentials', client_id: 'key-abc', client_secret: 's3cret' }, basic: undefined, remoteAddress: '127.0.0.1' },
    ]);
  });

  it.each(['/v4/oauth2/token', '/auth/oauth2/token'])('answers at %s with expires_in as an integer (the newer family)', async (url) => {
    const { app } = await start();
    const response = await postForm(app, url, GRANT);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ access_token: 'at-123', token_type: 'Bearer', expires_in: 1800, refresh_token: 'rt-456' });
  });

  it('puts the newer endpoints under the path of the auth URL', async () => {
    const { app } = await start({ authUrl: `${PUBLIC_URL}/login/` });
    expect((await postForm(app, '/login/oauth2/token', GRANT)).json().expires_in).toBe(1800);
    expect((await postForm(app, '/oauth2/token', GRANT)).json().expires_in).toBe('1800');
  });

  it('sends only the fields of RFC 6749 §5.1 and leaves refresh_token out when there is none', async () => {
    const oauth = new FakeOAuth();
    oauth.tokenAnswer = async () => ({ access_token: 'at', token_type: 'Bearer', expires_in: 60, internal: 'no' }) as TokenResponse;
    const { app } = await start({}, oauth);
    expect((await postForm(app, '/v4/oauth2/token', GRANT)).json()).toEqual({ access_token: 'at', token_type: 'Bearer', expires_in: 60 });
  });

  describe('on a separate auth host', () => {
    it('answers /oauth2/token as the newer family when the Host is the auth host and the auth URL has no path', async () => {
      const { app } = await start({ authUrl: 'https://login.stockroom.test' });
      const onAuthHost = await postForm(app, '/oauth2/token', GRANT, { host: 'login.stockroom.test' });
      expect(onAuthHost.json().expires_in).toBe(1800);
      const onApiHost = await postForm(app, '/oauth2/token', GRANT, { host: 'api.stockroom.test' });
      expect(onApiHost.json().expires_in).toBe('1800');
    });

    it('decides by the forwarded host behind a proxy, whatever its case and default port', async () => {
      const { app } = await start({ authUrl: 'https://login.stockroom.test/' });
      const response = await postForm(app, '/oauth2/token', GRANT, {
        host: '10.0.0.5:3000',
        'x-forwarded-host': 'LOGIN.stockroom.test:443',
        'x-forwarded-proto': 'https',
      });
      expect(response.json().expires_in).toBe(1800);
    });

    it('answers the authorization endpoint at /oauth2/auth of the auth host', async () => {
      const { app, oauth } = await start({ authUrl: 'https://login.stockroom.test' });
      const response = await app.inject({ method: 'GET', url: `/oauth2/auth?${form(AUTH_QUERY)}`, headers: { host: 'login.stockroom.test' } });
      expect(response.statusCode).toBe(200);
      expect(oauth.checkCalls).toEqual([AUTH_QUERY]);
    });

    it('answers the newer family under the auth URL path on that host', async () => {
      const { app } = await start({ authUrl: 'https://login.stockroom.test/sso' });
      const response = await postForm(app, '/sso/oauth2/token', GRANT, { host: 'login.stockroom.test' });
      expect(response.json().expires_in).toBe(1800);
      expect((await postForm(app, '/oauth2/token', GRANT, { host: 'login.stockroom.test' })).json().expires_in).toBe('1800');
    });
  });

  it('accepts a charset parameter on the content type', async () => {
    const { app, oauth } = await start();
    const response = await postForm(app, '/v4/oauth2/token', GRANT, { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' });
    expect(response.statusCode).toBe(200);
    expect(oauth.tokenCalls).toHaveLength(1);
  });

  it('treats parameters without a value as omitted (RFC 6749 §3.2)', async () => {
    const { app, oauth } = await start();
    await postForm(app, '/v4/oauth2/token', 'grant_type=client_credentials&client_id=key-abc&client_secret=&scope');
    expect(oauth.tokenCalls[0]?.form).toEqual({ grant_type: 'client_credentials', client_id: 'key-abc' });
  });

  it('decodes form values: + is a space and percent-escapes are UTF-8', async () => {
    const { app, oauth } = await start();
    await postForm(app, '/v4/oauth2/token', 'grant_type=password&username=ana+lima&password=p%C3%A4ss%26word%2B');
    expect(oauth.tokenCalls[0]?.form).toEqual({ grant_type: 'password', username: 'ana lima', password: 'päss&word+' });
  });

  describe('no-store on every answer (RFC 6749 §5.1)', () => {
    it('on success', async () => {
      const { app } = await start();
      expectNoStore(await postForm(app, '/oauth2/token', GRANT));
    });

    it('on a refusal, a framework error, a 405 and a 500', async () => {
      const oauth = new FakeOAuth();
      oauth.tokenAnswer = async () => {
        throw new OAuthError('invalid_grant', 'The code has expired');
      };
      const { app } = await start({}, oauth);
      expectNoStore(await postForm(app, '/v4/oauth2/token', GRANT));
      expectNoStore(await app.inject({ method: 'POST', url: '/v4/oauth2/token', payload: '{}', headers: { 'content-type': 'application/json' } }));
      expectNoStore(await app.inject({ method: 'GET', url: '/v4/oauth2/token' }));
      oauth.tokenAnswer = async () => {
        throw new Error('boom');
      };
      expectNoStore(await postForm(app, '/v4/oauth2/token', GRANT));
    });
  });

  describe('client authentication with HTTP Basic (RFC 6749 §2.3.1)', () => {
    it('URL-decodes both parts after splitting on the first colon', async () => {
      const { app, oauth } = await start();
      await postForm(app, '/v4/oauth2/token', form({ grant_type: 'client_credentials' }), {
        authorization: basic('key%3Aabc+1:s%3Acr%26t:with:colons%25'),
      });
      expect(oauth.tokenCalls[0]?.basic).toEqual({ clientId: 'key:abc 1', clientSecret: 's:cr&t:with:colons%', via: 'basic' });
    });

    it('passes the Basic credentials and the body credentials each as they came', async () => {
      const { app, oauth } = await start();
      await postForm(app, '/v4/oauth2/token', form({ grant_type: 'refresh_token', refresh_token: 'rt', client_id: 'key-abc' }), {
        authorization: basic('key-abc:s3cret'),
      });
      expect(oauth.tokenCalls[0]).toEqual({
        form: { grant_type: 'refresh_token', refresh_token: 'rt', client_id: 'key-abc' },
        basic: { clientId: 'key-abc', clientSecret: 's3cret', via: 'basic' },
        remoteAddress: '127.0.0.1',
      });
    });

    it('passes an empty Basic secret as no secret', async () => {
      const { app, oauth } = await start();
      await postForm(app, '/v4/oauth2/token', form({ grant_type: 'client_credentials' }), { authorization: basic('key-abc:') });
      expect(oauth.tokenCalls[0]?.basic).toEqual({ clientId: 'key-abc', clientSecret: undefined, via: 'basic' });
    });

    it('ignores an Authorization header of another scheme', async () => {
      const { app, oauth } = await start();
      await postForm(app, '/v4/oauth2/token', GRANT, { authorization: 'Bearer something' });
      expect(oauth.tokenCalls[0]?.basic).toBeUndefined();
    });

    it.each([
      ['not base64', 'Basic !!!!'],
      ['no colon', basic('key-abc')],
      ['a bad percent-escape', basic('key-abc:%zz')],
      ['an empty client id', basic(':secret')],
      ['no credentials', 'Basic'],
      ['a control character', basic('key-abc:se%0Acret')],
    ])('refuses a malformed header (%s) with 401 invalid_client and the Basic challenge', async (_case, header) => {
      const { app, oauth } = await start();
      const response = await postForm(app, '/v4/oauth2/token', GRANT, { authorization: header });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('invalid_client');
      expect(response.headers['www-authenticate']).toBe('Basic realm="Stockroom"');
      expectNoStore(response);
      expect(oauth.tokenCalls).toHaveLength(0);
    });

    it('adds the Basic challenge with the configured realm to invalid_client when the client used Basic', async () => {
      const oauth = new FakeOAuth();
      oauth.tokenAnswer = async () => {
        throw new OAuthError('invalid_client', 'Client authentication failed');
      };
      const { app } = await start({ realm: 'Photo Desk' }, oauth);
      const withBasic = await postForm(app, '/v4/oauth2/token', form({ grant_type: 'client_credentials' }), { authorization: basic('key-abc:wrong') });
      expect(withBasic.statusCode).toBe(401);
      expect(withBasic.headers['www-authenticate']).toBe('Basic realm="Photo Desk"');
      const withBody = await postForm(app, '/v4/oauth2/token', GRANT);
      expect(withBody.statusCode).toBe(401);
      expect(withBody.headers['www-authenticate']).toBeUndefined();
      expect(withBody.json()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
    });
  });

  describe('refusals as RFC 6749 §5.2 errors', () => {
    it('refuses a repeated parameter with invalid_request, before the rules see it', async () => {
      const { app, oauth } = await start();
      const response = await postForm(app, '/v4/oauth2/token', 'grant_type=client_credentials&client_id=a&client_id=b');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: 'The parameter client_id was given more than once' });
      expect(oauth.tokenCalls).toHaveLength(0);
    });

    it('refuses a malformed percent-escape with invalid_request', async () => {
      const { app } = await start();
      const response = await postForm(app, '/v4/oauth2/token', 'grant_type=%E0%A4%A');
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_request');
    });

    it.each([
      ['JSON', { 'content-type': 'application/json' }, '{"grant_type":"client_credentials"}'],
      ['text', { 'content-type': 'text/plain' }, 'grant_type=client_credentials'],
      ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }, '--x--'],
      ['no content type', {}, 'grant_type=client_credentials'],
    ])('refuses a %s body with 400 invalid_request', async (_case, headers, payload) => {
      const { app, oauth } = await start();
      const response = await app.inject({ method: 'POST', url: '/v4/oauth2/token', payload, headers });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_request');
      expect(oauth.tokenCalls).toHaveLength(0);
    });

    it('refuses a missing or empty body with 400 invalid_request', async () => {
      const { app } = await start();
      const missing = await app.inject({ method: 'POST', url: '/v4/oauth2/token' });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error).toBe('invalid_request');
      const empty = await postForm(app, '/v4/oauth2/token', '');
      expect(empty.statusCode).toBe(400);
      expect(empty.json().error).toBe('invalid_request');
    });

    it('refuses a body over 16 KB with 400 invalid_request', async () => {
      const { app } = await start();
      const response = await postForm(app, '/v4/oauth2/token', `grant_type=password&password=${'a'.repeat(17 * 1024)}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: 'The request body is larger than 16 KB' });
    });

    it('answers an OAuthError with its status, code and description', async () => {
      const oauth = new FakeOAuth();
      oauth.tokenAnswer = async () => {
        throw new OAuthError('unsupported_grant_type', 'grant_type implicit is not supported at the token endpoint');
      };
      const { app } = await start({}, oauth);
      const response = await postForm(app, '/oauth2/token', GRANT);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual({ error: 'unsupported_grant_type', error_description: 'grant_type implicit is not supported at the token endpoint' });
    });

    it('answers a throttled password grant with 429 and Retry-After', async () => {
      const oauth = new FakeOAuth();
      oauth.tokenAnswer = async () => {
        throw new OAuthError('invalid_grant', 'Too many sign-in attempts; try again later', 429, 29.2);
      };
      const { app } = await start({}, oauth);
      const response = await postForm(app, '/v4/oauth2/token', form({ grant_type: 'password', username: 'ana', password: 'x' }));
      expect(response.statusCode).toBe(429);
      expect(response.headers['retry-after']).toBe('30');
      expect(response.json()).toEqual({ error: 'invalid_grant', error_description: 'Too many sign-in attempts; try again later' });
    });

    it('answers an unexpected failure with 500 server_error and nothing of the inside', async () => {
      const oauth = new FakeOAuth();
      oauth.tokenAnswer = async () => {
        throw new Error('SQLITE_BUSY: database is locked at /var/lib/stockroom/stockroom.sqlite');
      };
      const { app } = await start({}, oauth);
      const response = await postForm(app, '/v4/oauth2/token', GRANT);
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: 'server_error', error_description: 'The server could not complete the request' });
      expect(response.body).not.toMatch(/SQLITE|stockroom\.sqlite|stack/);
    });

    it('answers GET with 405, Allow: POST and invalid_request', async () => {
      const { app, oauth } = await start();
      const response = await app.inject({ method: 'GET', url: '/oauth2/token?grant_type=client_credentials' });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(response.json().error).toBe('invalid_request');
      expect(oauth.tokenCalls).toHaveLength(0);
    });
  });
});

describe('no CORS on the OAuth endpoints', () => {
  it('sends no Access-Control-* header, not even to a preflight, while the API next to it does', async () => {
    const oauth = new FakeOAuth();
    app = Fastify();
    await app.register(
      async (api) => {
        registerOpenCors(api, { allowedHeaders: ['Api-Key', 'Authorization'] });
        api.get('/images', async () => ({ ok: true }));
      },
      { prefix: '/v3' },
    );
    await app.register(oauthRoutes, { oauth, publicUrl: PUBLIC_URL, authUrl: `${PUBLIC_URL}/auth` });
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/v3/images' })).headers['access-control-allow-origin']).toBe('*');

    const origin = { origin: 'https://elsewhere.example.test' };
    const responses = [
      await postForm(app, '/oauth2/token', GRANT, origin),
      await postForm(app, '/v4/oauth2/token', 'bad=1&bad=2', origin),
      await app.inject({ method: 'GET', url: `/auth/oauth2/auth?${form(AUTH_QUERY)}`, headers: origin }),
      ...(await Promise.all(
        ['/oauth2/token', '/v4/oauth2/token', '/auth/oauth2/token', '/oauth2/auth', '/v4/oauth2/auth'].map((url) =>
          app!.inject({
            method: 'OPTIONS',
            url,
            headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
          }),
        ),
      )),
    ];
    for (const response of responses) {
      expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });
});

describe('OpenAPI', () => {
  it('documents the token and authorization endpoints of every family, without their 405 and OPTIONS answers', async () => {
    app = Fastify();
    await app.register(swagger, { openapi: { info: { title: 'test', version: '3' } } });
    await app.register(oauthRoutes, { oauth: new FakeOAuth(), publicUrl: PUBLIC_URL, authUrl: `${PUBLIC_URL}/auth` });
    await app.ready();
    const paths = (app.swagger() as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
    const operations = Object.entries(paths)
      .filter(([path]) => path.includes('oauth2'))
      .map(([path, item]) => `${Object.keys(item).sort().join(',')} ${path}`)
      .sort();
    expect(operations).toEqual([
      'get,post /auth/oauth2/auth',
      'get,post /oauth2/auth',
      'get,post /v4/oauth2/auth',
      'post /auth/oauth2/token',
      'post /oauth2/token',
      'post /v4/oauth2/token',
    ]);
  });
});

function csrfCookieOf(response: LightMyRequestResponse): { value: string; attributes: string[] } {
  const header = response.headers['set-cookie'];
  const line = Array.isArray(header) ? header[0] : header;
  const [pair = '', ...attributes] = (line ?? '').split(';').map((part) => part.trim());
  expect(pair.startsWith('stockroom_oauth_csrf=')).toBe(true);
  return { value: pair.slice('stockroom_oauth_csrf='.length), attributes };
}

describe('authorization endpoint, GET', () => {
  it.each(['/oauth2/auth', '/v4/oauth2/auth', '/auth/oauth2/auth'])('shows the sign-in page at %s', async (url) => {
    const { app, oauth } = await start();
    const response = await app.inject({ method: 'GET', url: `${url}?${form(AUTH_QUERY)}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(oauth.checkCalls).toEqual([AUTH_QUERY]);
    expect(response.body).toContain('<form method="post" action="auth">');
    expect(csrfCookieOf(response).attributes.some((attribute) => attribute.startsWith('Path='))).toBe(false);
  });

  it('sends the page with a policy that forbids framing, scripts, and form posts other than to itself and the client', async () => {
    const { app } = await start();
    const response = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form(AUTH_QUERY)}` });
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("base-uri 'none'");
    expect(policy).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(policy).toContain("form-action 'self' https://client.example.test:8443");
    expect(policy).not.toContain('unsafe');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('sets the CSRF cookie: 256 random bits, HttpOnly, SameSite=Strict, in the endpoint’s folder, and the form carries it', async () => {
    const { app } = await start();
    const first = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form(AUTH_QUERY)}` });
    const second = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form(AUTH_QUERY)}` });
    const cookie = csrfCookieOf(first);
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.value).not.toBe(csrfCookieOf(second).value);
    // No Path: the browser's default (the endpoint's folder) also holds behind a proxy's prefix.
    expect(cookie.attributes).toEqual(['HttpOnly', 'SameSite=Strict']);
    expect(first.body).toContain(`<input type="hidden" name="csrf_token" value="${cookie.value}">`);
  });

  it('marks the CSRF cookie Secure when the request came over HTTPS', async () => {
    const { app } = await start();
    const response = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form(AUTH_QUERY)}`, headers: { 'x-forwarded-proto': 'https' } });
    expect(csrfCookieOf(response).attributes).toContain('Secure');
  });

  it('has labelled inputs, the two decisions, and the request parameters as hidden fields', async () => {
    const { app } = await start();
    const { body } = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form({ ...AUTH_QUERY, scope: 'ignored' })}` });
    expect(body).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(body).toContain('<label for="username">');
    expect(body).toMatch(/<input id="username" name="username" type="text" autocomplete="username"[^>]* required/);
    expect(body).toContain('<label for="password">');
    expect(body).toMatch(/<input id="password" name="password" type="password" autocomplete="current-password" required/);
    expect(body).toContain('<button type="submit" name="decision" value="allow">');
    expect(body).toMatch(/<button type="submit" name="decision" value="deny"[^>]* formnovalidate>Deny<\/button>/);
    for (const [name, value] of Object.entries(AUTH_QUERY)) {
      expect(body).toContain(`<input type="hidden" name="${name}" value="${value.replace(/&/g, '&amp;')}">`);
    }
    expect(body).not.toContain('name="scope"');
    expect(body).toContain('Lightbox Pro');
    expect(body).toContain('client.example.test:8443');
    // Nothing loaded but the site's own icon (in its header), from this server.
    expect(body.replace(SITE_HEADER, '')).not.toMatch(/<script|\bsrc=|https?:\/\/(?!client\.example)/);
  });

  it('escapes a hostile client name and state', async () => {
    const oauth = new FakeOAuth();
    const hostile = `<script>alert("name")</script> & 'Co'`;
    oauth.checkAnswer = async () => ({ kind: 'ok', request: { ...CHECKED, clientName: hostile, state: '"><script>x()</script>' } });
    const { app } = await start({}, oauth);
    const state = `"><script>alert('state')</script>`;
    const { body } = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form({ ...AUTH_QUERY, state })}` });
    expect(body).not.toContain('<script');
    expect(body).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; &amp; &#39;Co&#39;');
    expect(body).toContain('<input type="hidden" name="state" value="&quot;&gt;&lt;script&gt;alert(&#39;state&#39;)&lt;/script&gt;">');
  });

  it('shows an error page (400, HTML, no redirect) when the rules say so', async () => {
    const oauth = new FakeOAuth();
    oauth.checkAnswer = async () => ({ kind: 'error-page', message: 'The redirect_uri <b>is not registered</b> for this application' });
    const { app } = await start({}, oauth);
    const response = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form(AUTH_QUERY)}` });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.body).toContain('The redirect_uri &lt;b&gt;is not registered&lt;/b&gt; for this application');
  });

  it('shows an error page for a repeated parameter without asking the rules', async () => {
    const { app, oauth } = await start();
    const response = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form(AUTH_QUERY)}&redirect_uri=https%3A%2F%2Fevil.example.test%2F` });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain('The parameter redirect_uri was given more than once');
    expect(oauth.checkCalls).toHaveLength(0);
  });

  it('redirects with 302 when the rules send the error back to the client', async () => {
    const oauth = new FakeOAuth();
    const location = `${REDIRECT_URI}&error=unsupported_response_type&state=xyz`;
    oauth.checkAnswer = async () => ({ kind: 'redirect', location });
    const { app } = await start({}, oauth);
    const response = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form({ ...AUTH_QUERY, response_type: 'id_token' })}` });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(location);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('answers an unexpected failure with a 500 page that shows nothing of the inside', async () => {
    const oauth = new FakeOAuth();
    oauth.checkAnswer = async () => {
      throw new Error('connection refused to postgres://admin@db');
    };
    const { app } = await start({}, oauth);
    const response = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form(AUTH_QUERY)}` });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).not.toContain('postgres');
  });
});

describe('authorization endpoint, POST', () => {
  /** The page's form as a browser would submit it, with the cookie the GET set. */
  async function signInForm(target: FastifyInstance, url = '/v4/oauth2/auth'): Promise<{ cookie: string; fields: Record<string, string> }> {
    const page = await target.inject({ method: 'GET', url: `${url}?${form(AUTH_QUERY)}` });
    const token = csrfCookieOf(page).value;
    return { cookie: `stockroom_oauth_csrf=${token}`, fields: { ...AUTH_QUERY, csrf_token: token } };
  }

  function submit(target: FastifyInstance, cookie: string | undefined, fields: Record<string, string>, url = '/v4/oauth2/auth') {
    return postForm(target, url, form(fields), cookie === undefined ? {} : { cookie });
  }

  it('refuses a post without the CSRF cookie with 403 and asks to start again', async () => {
    const { app, oauth } = await start();
    const { fields } = await signInForm(app);
    oauth.checkCalls = [];
    const response = await submit(app, undefined, { ...fields, username: 'ana', password: 'pw', decision: 'allow' });
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('The sign-in form has expired; start again from the application');
    expect(oauth.checkCalls).toHaveLength(0);
    expect(oauth.signInCalls).toHaveLength(0);
  });

  it('refuses a post whose CSRF field does not match the cookie with 403', async () => {
    const { app, oauth } = await start();
    const { cookie, fields } = await signInForm(app);
    const forged = await submit(app, cookie, { ...fields, csrf_token: 'A'.repeat(43), username: 'ana', password: 'pw', decision: 'allow' });
    expect(forged.statusCode).toBe(403);
    const missing = await submit(app, cookie, { ...AUTH_QUERY, username: 'ana', password: 'pw', decision: 'allow' });
    expect(missing.statusCode).toBe(403);
    expect(oauth.signInCalls).toHaveLength(0);
  });

  it('signs in, completes with allow and answers 302, the spec’s status, to the location the rules made (never 307: RFC 9700 §4.12)', async () => {
    const { app, oauth } = await start();
    const { cookie, fields } = await signInForm(app);
    oauth.checkCalls = [];
    const response = await submit(app, cookie, { ...fields, username: 'ana', password: 'correct horse', decision: 'allow' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`${REDIRECT_URI}&code=the-code&state=xyz`);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(oauth.checkCalls).toEqual([AUTH_QUERY]);
    expect(oauth.signInCalls).toEqual([{ username: 'ana', password: 'correct horse', remoteAddress: '127.0.0.1' }]);
    expect(oauth.completeCalls).toEqual([{ request: CHECKED, userId: 42, decision: 'allow' }]);
  });

  it('works the same at every endpoint path', async () => {
    const { app } = await start();
    for (const url of ['/oauth2/auth', '/auth/oauth2/auth']) {
      const { cookie, fields } = await signInForm(app, url);
      const response = await submit(app, cookie, { ...fields, username: 'ana', password: 'pw', decision: 'allow' }, url);
      expect(response.statusCode).toBe(302);
    }
  });

  it('completes a deny with 302 without asking for the password', async () => {
    const { app, oauth } = await start();
    const { cookie, fields } = await signInForm(app);
    const response = await submit(app, cookie, { ...fields, username: '', password: '', decision: 'deny' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`${REDIRECT_URI}&error=access_denied&state=xyz`);
    expect(oauth.signInCalls).toHaveLength(0);
    expect(oauth.completeCalls.map((call) => call.decision)).toEqual(['deny']);
  });

  it('shows the page again after a wrong password: 401, the message as an alert, the inputs marked, the username kept', async () => {
    const oauth = new FakeOAuth();
    oauth.signInAnswer = { ok: false, reason: 'invalid', message: 'The username or password is not right' };
    const { app } = await start({}, oauth);
    const { cookie, fields } = await signInForm(app);
    const response = await submit(app, cookie, { ...fields, username: 'ana"<b>', password: 'hunter2-secret', decision: 'allow' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toContain("form-action 'self' https://client.example.test:8443");
    const { body } = response;
    expect(body).toMatch(/<p id="sign-in-problem" class="problem" role="alert">The username or password is not right<\/p>/);
    expect(body).toMatch(/<input id="username"[^>]* value="ana&quot;&lt;b&gt;" aria-invalid="true" aria-describedby="sign-in-problem">/);
    expect(body).toMatch(/<input id="password"[^>]* aria-invalid="true" aria-describedby="sign-in-problem">/);
    expect(body).not.toContain('hunter2-secret');
    expect(body).toContain(`<input type="hidden" name="csrf_token" value="${fields.csrf_token}">`);
    expect(body).toContain('<input type="hidden" name="client_id" value="key-abc">');
    expect(oauth.completeCalls).toHaveLength(0);
  });

  it('answers a throttled sign-in with 429 and Retry-After', async () => {
    const oauth = new FakeOAuth();
    oauth.signInAnswer = { ok: false, reason: 'throttled', message: 'Too many attempts; wait a minute', retryAfterSeconds: 45 };
    const { app } = await start({}, oauth);
    const { cookie, fields } = await signInForm(app);
    const response = await submit(app, cookie, { ...fields, username: 'ana', password: 'x', decision: 'allow' });
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('45');
    expect(response.body).toContain('role="alert">Too many attempts; wait a minute</p>');
  });

  it('asks for what is missing without trying to sign in', async () => {
    const { app, oauth } = await start();
    const { cookie, fields } = await signInForm(app);
    const response = await submit(app, cookie, { ...fields, username: 'ana', password: '', decision: 'allow' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('role="alert">Enter your username and password.</p>');
    expect(response.body).toMatch(/<input id="password"[^>]* aria-invalid="true"/);
    expect(response.body).not.toMatch(/<input id="username"[^>]* aria-invalid/);
    expect(oauth.signInCalls).toHaveLength(0);
  });

  it('checks the posted parameters again and redirects with 302 when the rules send an error back', async () => {
    const oauth = new FakeOAuth();
    const { app } = await start({}, oauth);
    const { cookie, fields } = await signInForm(app);
    oauth.checkAnswer = async () => ({ kind: 'redirect', location: `${REDIRECT_URI}&error=invalid_request` });
    const response = await submit(app, cookie, { ...fields, username: 'ana', password: 'pw', decision: 'allow' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`${REDIRECT_URI}&error=invalid_request`);
    expect(oauth.signInCalls).toHaveLength(0);
  });

  it('shows the error page when the posted client or redirect URI is refused', async () => {
    const oauth = new FakeOAuth();
    const { app } = await start({}, oauth);
    const { cookie, fields } = await signInForm(app);
    oauth.checkAnswer = async () => ({ kind: 'error-page', message: 'Unknown client' });
    const response = await submit(app, cookie, { ...fields, client_id: 'other', username: 'ana', password: 'pw', decision: 'allow' });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain('Unknown client');
    expect(oauth.signInCalls).toHaveLength(0);
  });

  it('refuses a form with a repeated field, or of another content type, with a 400 page', async () => {
    const { app, oauth } = await start();
    const { cookie, fields } = await signInForm(app);
    const repeated = await postForm(app, '/v4/oauth2/auth', `${form(fields)}&decision=allow&decision=deny`, { cookie });
    expect(repeated.statusCode).toBe(400);
    expect(repeated.headers['content-type']).toBe('text/html; charset=utf-8');
    const json = await app.inject({ method: 'POST', url: '/v4/oauth2/auth', payload: JSON.stringify(fields), headers: { cookie, 'content-type': 'application/json' } });
    expect(json.statusCode).toBe(400);
    expect(json.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(json.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(oauth.signInCalls).toHaveLength(0);
  });
});

describe('what each endpoint’s schema refuses, answered in RFC 6749’s terms', () => {
  describe('token endpoint', () => {
    it.each([
      ['a missing grant_type', form({ client_id: 'key-abc' }), 'invalid_request', 'The grant_type parameter is missing'],
      ['a blank grant_type', 'grant_type=&client_id=key-abc', 'invalid_request', 'The grant_type parameter is missing'],
      ['the password grant without a password', form({ grant_type: 'password', username: 'ana' }), 'invalid_request', 'The password parameter is missing'],
      ['the code grant without its redirect_uri', form({ grant_type: 'authorization_code', code: 'c' }), 'invalid_request', 'The redirect_uri parameter is missing'],
      ['the refresh grant with a blank refresh_token', 'grant_type=refresh_token&refresh_token=', 'invalid_request', 'The refresh_token parameter is missing'],
      [
        'a grant_type no form names',
        form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code' }),
        'unsupported_grant_type',
        'The grant_type is not one this server supports (password, client_credentials, authorization_code, refresh_token)',
      ],
      ['implicit, whose token comes from the authorization endpoint', form({ grant_type: 'implicit' }), 'unsupported_grant_type', expect.stringContaining('not one this server supports')],
      ['an empty body', '', 'invalid_request', 'The request needs a body of type application/x-www-form-urlencoded'],
    ])('refuses %s before the rules see it', async (_case, body, error, description) => {
      const { app, oauth } = await start();
      const response = await postForm(app, '/v4/oauth2/token', body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error, error_description: description });
      expectNoStore(response);
      expect(oauth.tokenCalls).toHaveLength(0);
    });

    it('passes parameters no form names on to the rules, which ignore them (RFC 6749 §3.2)', async () => {
      const { app, oauth } = await start();
      await postForm(app, '/v4/oauth2/token', form({ grant_type: 'client_credentials', client_id: 'key-abc', scope: 'read' }));
      expect(oauth.tokenCalls[0]?.form).toEqual({ grant_type: 'client_credentials', client_id: 'key-abc', scope: 'read' });
    });

    it('refuses a token parameter in the URL even when given twice there, and takes other query parameters', async () => {
      const { app, oauth } = await start();
      const twice = await postForm(app, '/v4/oauth2/token?client_secret=a&client_secret=b', form({ grant_type: 'client_credentials', client_id: 'key-abc' }));
      expect(twice.json()).toEqual({ error: 'invalid_request', error_description: 'Send client_secret in the form body, not in the URL' });
      const other = await postForm(app, '/v4/oauth2/token?tenant=7', GRANT);
      expect(other.statusCode).toBe(200);
      expect(oauth.tokenCalls).toHaveLength(1);
    });
  });

  describe('authorization endpoint', () => {
    it('hands a refused request to the rules with its parameters as sent, blank ones left out, and answers as they say', async () => {
      const oauth = new FakeOAuth();
      const location = `${REDIRECT_URI}&error=invalid_request&state=xyz`;
      oauth.checkAnswer = async () => ({ kind: 'redirect', location });
      const { app } = await start({}, oauth);
      const { response_type: _omitted, ...withoutResponseType } = AUTH_QUERY;
      const response = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form({ ...withoutResponseType, code_challenge_method: '' })}` });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe(location);
      const { code_challenge_method: _blank, ...sent } = withoutResponseType;
      expect(oauth.checkCalls).toEqual([sent]);
    });

    it('shows the rules’ page for a refused request whose client they do not know', async () => {
      const oauth = new FakeOAuth();
      oauth.checkAnswer = async () => ({ kind: 'error-page', message: 'The request has no client_id.' });
      const { app } = await start({}, oauth);
      const { client_id: _omitted, ...withoutClient } = AUTH_QUERY;
      const response = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form(withoutClient)}` });
      expect(response.statusCode).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toContain('The request has no client_id.');
    });

    it('never redirects what the schema refuses and the rules took: a page names the parameter', async () => {
      const { app, oauth } = await start();
      const response = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form({ ...AUTH_QUERY, state: 's'.repeat(2049) })}` });
      expect(response.statusCode).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(response.body).toContain('The state parameter is not valid');
      expect(oauth.checkCalls).toHaveLength(1);
    });

    it('shows the page again, asking for a decision, when the form has none or another one', async () => {
      const { app, oauth } = await start();
      const page = await app.inject({ method: 'GET', url: `/v4/oauth2/auth?${form(AUTH_QUERY)}` });
      const token = csrfCookieOf(page).value;
      const cookie = `stockroom_oauth_csrf=${token}`;
      for (const decision of [undefined, 'maybe']) {
        const fields = { ...AUTH_QUERY, csrf_token: token, username: 'ana', password: 'pw', ...(decision ? { decision } : {}) };
        const response = await postForm(app, '/v4/oauth2/auth', form(fields), { cookie });
        expect(response.statusCode, decision).toBe(400);
        expect(response.body).toContain('role="alert">Choose Allow or Deny.</p>');
        expect(response.body).toMatch(/<input id="username"[^>]* value="ana"/);
        expect(response.body).toContain(`<input type="hidden" name="csrf_token" value="${token}">`);
      }
      expect(oauth.signInCalls).toHaveLength(0);
      expect(oauth.completeCalls).toHaveLength(0);
    });

    it('holds a refused form to its CSRF cookie before anything else', async () => {
      const { app, oauth } = await start();
      oauth.checkCalls = [];
      const response = await postForm(app, '/v4/oauth2/auth', form({ ...AUTH_QUERY, decision: 'maybe' }));
      expect(response.statusCode).toBe(403);
      expect(response.body).toContain('The sign-in form has expired');
      expect(oauth.checkCalls).toHaveLength(0);
    });
  });
});
