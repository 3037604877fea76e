import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { addImage } from '../helpers/catalog-fixtures.js';
import {
  CSRF_COOKIE,
  FAMILIES,
  authorizationUrl,
  authorize,
  cookieHeader,
  cookieValue,
  expectExpiresIn,
  expectTokenEndpointHeaders,
  freshAddress,
  locationParameters,
  obtainCode,
  openAuthorizationPage,
  parseSignInPage,
  pkcePair,
  searchAs,
  submitAuthorizationPage,
  tokenRequest,
  uniqueName,
  type AuthorizationQuery,
} from '../helpers/oauth-fixtures.js';

/**
 * The OAuth 2.0 authorization server end to end, through app.inject(): the sign-in and consent
 * page, the token endpoint of each of the three families, and the tokens used against /v3.
 */

const REDIRECT = 'https://client.example/callback';
const OTHER_REDIRECT = 'https://client.example/other';
const PASSWORD = 'correct horse battery staple';
/** A state that needs percent-encoding in a URL, and entity-encoding in a hidden input. */
const AWKWARD_STATE = 'st ate/&=?#+%é"<>\'';

type GrantType = 'authorization_code' | 'implicit' | 'password' | 'client_credentials' | 'refresh_token';

interface TestClient {
  id: number;
  apiKey: string;
  apiSecret: string | undefined;
}

interface TokenBody {
  access_token?: unknown;
  token_type?: unknown;
  expires_in?: unknown;
  refresh_token?: unknown;
  error?: unknown;
  error_description?: unknown;
}

const BEARER_INVALID_TOKEN = /^Bearer realm="[^"]+", error="invalid_token", error_description="[^"]+"$/;

function secretOf(client: TestClient): string {
  if (client.apiSecret === undefined) throw new Error('this client has no secret');
  return client.apiSecret;
}

/** An RFC 6749 §5.2 error: the status, the JSON shape, the code and the headers. */
function expectTokenError(response: LightMyRequestResponse, status: number, error: string | readonly string[]): TokenBody {
  expect(response.statusCode, response.body).toBe(status);
  expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
  const body = response.json<TokenBody>();
  if (typeof error === 'string') expect(body.error, response.body).toBe(error);
  else expect(error, response.body).toContain(body.error);
  expect(typeof body.error_description).toBe('string');
  expect(body.access_token).toBeUndefined();
  expect(body.refresh_token).toBeUndefined();
  expectTokenEndpointHeaders(response.headers);
  return body;
}

/** A 302 from the authorization endpoint carrying an error to the client's redirect URI. */
function expectErrorRedirect(
  response: LightMyRequestResponse,
  redirectUri: string,
  error: string | readonly string[],
  where: 'query' | 'fragment',
  state?: string,
): URLSearchParams {
  expect(response.statusCode, response.body.slice(0, 500)).toBe(302);
  const location = response.headers.location;
  expect(typeof location).toBe('string');
  const { url, query, fragment } = locationParameters(String(location));
  expect(`${url.origin}${url.pathname}`).toBe(new URL(redirectUri).origin + new URL(redirectUri).pathname);
  const parameters = where === 'query' ? query : fragment;
  const other = where === 'query' ? fragment : query;
  if (typeof error === 'string') expect(parameters.get('error'), url.href).toBe(error);
  else expect(error, url.href).toContain(parameters.get('error'));
  expect(other.get('error')).toBeNull();
  expect(parameters.get('code')).toBeNull();
  expect(parameters.get('access_token')).toBeNull();
  if (state !== undefined) expect(parameters.get('state')).toBe(state);
  return parameters;
}

/** A 400 HTML error page that does not send the browser anywhere. */
function expectErrorPage(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body.slice(0, 500)).toBe(400);
  expect(String(response.headers['content-type'])).toMatch(/^text\/html/);
  expect(response.headers.location).toBeUndefined();
  expect(response.body).not.toMatch(/<form\b/i);
}

for (const { family, prefix, expiresIn } of FAMILIES) {
  describe(`OAuth 2.0 at ${prefix} (${family}; expires_in as ${expiresIn === 'string' ? 'a string' : 'an integer'})`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(async () => {
      await t?.close();
    });

    async function newClient(options: {
      confidential?: boolean;
      sandbox?: boolean;
      redirectUris?: string[];
      grantTypes?: GrantType[];
    } = {}): Promise<TestClient> {
      const { client, apiKey, apiSecret } = await t.services.clients.create({
        name: uniqueName('app'),
        redirectUris: options.redirectUris ?? [REDIRECT, OTHER_REDIRECT],
        queriesPerSecond: 100_000,
        queriesPerDay: 10_000_000,
        ...(options.confidential !== undefined ? { confidential: options.confidential } : {}),
        ...(options.sandbox !== undefined ? { sandbox: options.sandbox } : {}),
        ...(options.grantTypes !== undefined ? { grantTypes: options.grantTypes } : {}),
      });
      return { id: client.id, apiKey, apiSecret };
    }

    async function newUser(): Promise<{ username: string; password: string }> {
      const username = uniqueName('user');
      await t.services.users.create({ username, password: PASSWORD });
      return { username, password: PASSWORD };
    }

    /** Exchanges a code; the secret goes in the form unless `via` says basic or none. */
    function exchange(
      client: TestClient,
      code: string,
      options: { redirectUri?: string | null; verifier?: string; via?: 'body' | 'basic' | 'none'; remoteAddress?: string } = {},
    ): Promise<LightMyRequestResponse> {
      const via = options.via ?? (client.apiSecret === undefined ? 'none' : 'body');
      return tokenRequest(
        t.app,
        prefix,
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: options.redirectUri === null ? undefined : (options.redirectUri ?? REDIRECT),
          client_id: via === 'basic' ? undefined : client.apiKey,
          client_secret: via === 'body' ? secretOf(client) : undefined,
          code_verifier: options.verifier,
        },
        via === 'basic' ? { basic: { clientId: client.apiKey, clientSecret: secretOf(client) } } : {},
      );
    }

    /** A successful token response: its shape, its headers, and the expires_in of this family. */
    function expectTokens(response: LightMyRequestResponse, refresh: 'with refresh token' | 'without refresh token') {
      expect(response.statusCode, response.body).toBe(200);
      expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
      expectTokenEndpointHeaders(response.headers);
      const body = response.json<TokenBody>();
      expect(typeof body.access_token).toBe('string');
      expect((body.access_token as string).length).toBeGreaterThanOrEqual(20);
      expect(body.token_type).toBe('Bearer');
      const lifetime = expectExpiresIn(body.expires_in, expiresIn);
      expect(lifetime).toBeGreaterThan(0);
      if (refresh === 'with refresh token') {
        expect(typeof body.refresh_token).toBe('string');
        expect(body.refresh_token).not.toBe(body.access_token);
      } else {
        expect(body.refresh_token).toBeUndefined();
      }
      return {
        accessToken: body.access_token as string,
        refreshToken: body.refresh_token as string | undefined,
        expiresIn: lifetime,
      };
    }

    /** The token grants a search to its client: 200. */
    async function expectTokenWorks(client: TestClient, token: string): Promise<void> {
      const response = await searchAs(t.app, client.apiKey, token);
      expect(response.statusCode, response.body).toBe(200);
    }

    /** The token is refused: 401 with the RFC 6750 invalid_token challenge. */
    async function expectTokenRefused(client: TestClient, token: string): Promise<void> {
      const response = await searchAs(t.app, client.apiKey, token);
      expect(response.statusCode, response.body).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(BEARER_INVALID_TOKEN);
    }

    function passwordGrant(client: TestClient, username: string, password: string, remoteAddress?: string) {
      return tokenRequest(
        t.app,
        prefix,
        { grant_type: 'password', username, password, client_id: client.apiKey, client_secret: client.apiSecret },
        remoteAddress === undefined ? {} : { remoteAddress },
      );
    }

    function refreshGrant(client: TestClient, refreshToken: string) {
      return tokenRequest(t.app, prefix, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: client.apiKey,
        client_secret: client.apiSecret,
      });
    }

    /** The code flow up to the token response, for a confidential client (or public with PKCE). */
    async function codeFlowTokens(client: TestClient) {
      const user = await newUser();
      const pkce = pkcePair();
      const isPublic = client.apiSecret === undefined;
      const { code } = await obtainCode(t.app, prefix, {
        query: {
          client_id: client.apiKey,
          response_type: 'code',
          redirect_uri: REDIRECT,
          state: 's1',
          ...(isPublic ? { code_challenge: pkce.challenge, code_challenge_method: 'S256' } : {}),
        },
        ...user,
      });
      const response = await exchange(client, code, isPublic ? { verifier: pkce.verifier } : {});
      return { user, ...expectTokens(response, 'with refresh token') };
    }

    describe('authorization code grant', () => {
      it('shows a sign-in and consent page, sends a code back, and exchanges it with the secret in the form', async () => {
        const client = await newClient();
        const user = await newUser();
        const query: AuthorizationQuery = {
          client_id: client.apiKey,
          // The spec's own spelling of the code response type.
          response_type: 'authorization_code',
          redirect_uri: REDIRECT,
          state: 'xyz-123',
        };
        const remoteAddress = freshAddress();
        const page = await openAuthorizationPage(t.app, prefix, query, { remoteAddress });
        expect(page.statusCode, page.body.slice(0, 500)).toBe(200);
        expect(String(page.headers['content-type'])).toMatch(/^text\/html/);
        // The page must not be framed (RFC 6749 §10.13) nor kept by caches.
        const framing = `${String(page.headers['content-security-policy'] ?? '')} ${String(page.headers['x-frame-options'] ?? '')}`;
        expect(framing).toMatch(/frame-ancestors 'none'|DENY/i);
        expect(String(page.headers['cache-control'])).toMatch(/no-store/);

        const csrf = cookieValue(page.headers['set-cookie'], CSRF_COOKIE);
        expect(csrf, `Set-Cookie: ${JSON.stringify(page.headers['set-cookie'])}`).toBeTruthy();
        expect(cookieHeader(page.headers['set-cookie'], CSRF_COOKIE)).toMatch(/;\s*HttpOnly/i);
        const form = parseSignInPage(page.body);
        expect(form.method).toBe('post');
        expect(form.hidden.csrf_token).toBeTruthy();
        expect(form.hidden.client_id).toBe(client.apiKey);
        expect(form.hidden.redirect_uri).toBe(REDIRECT);
        expect(form.hidden.state).toBe('xyz-123');
        expect(form.inputs).toEqual(expect.arrayContaining(['username', 'password']));
        // Each field has a <label for> naming it.
        expect(form.labels[form.inputIds.username ?? '-']).toMatch(/user ?name/i);
        expect(form.labels[form.inputIds.password ?? '-']).toMatch(/password/i);
        expect(form.buttons).toEqual(
          expect.arrayContaining([
            { name: 'decision', value: 'allow' },
            { name: 'decision', value: 'deny' },
          ]),
        );

        const response = await submitAuthorizationPage(t.app, authorizationUrl(prefix, query), page, user, { remoteAddress });
        expect(response.statusCode, response.body.slice(0, 500)).toBe(302);
        const { url, query: back, fragment } = locationParameters(String(response.headers.location));
        expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
        expect(back.get('state')).toBe('xyz-123');
        expect(back.get('code')).toMatch(/^[A-Za-z0-9._~-]{16,}$/);
        expect(back.get('access_token')).toBeNull();
        expect(fragment.get('access_token')).toBeNull();

        const tokens = expectTokens(await exchange(client, back.get('code')!), 'with refresh token');
        await expectTokenWorks(client, tokens.accessToken);
      });

      it('takes the client secret through HTTP Basic', async () => {
        const client = await newClient();
        const user = await newUser();
        const { code } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT, state: 'b' },
          ...user,
        });
        const tokens = expectTokens(await exchange(client, code, { via: 'basic' }), 'with refresh token');
        await expectTokenWorks(client, tokens.accessToken);
      });

      it('lets a public client in with PKCE S256 and no secret', async () => {
        const client = await newClient({ confidential: false });
        expect(client.apiSecret).toBeUndefined();
        const user = await newUser();
        const pkce = pkcePair();
        const { code, location } = await obtainCode(t.app, prefix, {
          query: {
            client_id: client.apiKey,
            response_type: 'code',
            redirect_uri: REDIRECT,
            state: 'pub',
            code_challenge: pkce.challenge,
            code_challenge_method: 'S256',
          },
          ...user,
        });
        expect(location.query.get('state')).toBe('pub');
        const tokens = expectTokens(await exchange(client, code, { verifier: pkce.verifier }), 'with refresh token');
        await expectTokenWorks(client, tokens.accessToken);
      });

      it('refuses a code used twice, and revokes the tokens its first use gave', async () => {
        const client = await newClient();
        const user = await newUser();
        const { code } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT },
          ...user,
        });
        const first = expectTokens(await exchange(client, code), 'with refresh token');
        await expectTokenWorks(client, first.accessToken);
        // An access token minted later through that code's refresh token is "based on" the code too.
        const refreshed = expectTokens(await refreshGrant(client, first.refreshToken!), 'with refresh token');

        expectTokenError(await exchange(client, code), 400, 'invalid_grant');
        // RFC 6749 §4.1.2: the tokens issued on that code are revoked.
        await expectTokenRefused(client, first.accessToken);
        await expectTokenRefused(client, refreshed.accessToken);
        expectTokenError(await refreshGrant(client, first.refreshToken!), 400, 'invalid_grant');
        // …and the code stays spent.
        expectTokenError(await exchange(client, code), 400, 'invalid_grant');
      });

      it('lets exactly one of several simultaneous exchanges of a code succeed', async () => {
        const client = await newClient();
        const user = await newUser();
        const { code } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT },
          ...user,
        });
        const responses = await Promise.all([1, 2, 3, 4].map(() => exchange(client, code)));
        expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 400, 400, 400]);
        for (const response of responses.filter((each) => each.statusCode === 400)) expectTokenError(response, 400, 'invalid_grant');
      });

      it("refuses a code presented by another client, even one with the right credentials of its own", async () => {
        const owner = await newClient();
        const other = await newClient();
        const user = await newUser();
        const { code } = await obtainCode(t.app, prefix, {
          query: { client_id: owner.apiKey, response_type: 'code', redirect_uri: REDIRECT },
          ...user,
        });
        expectTokenError(await exchange(other, code), 400, 'invalid_grant');
        expectTokenError(await exchange(other, code, { via: 'basic' }), 400, 'invalid_grant');
      });

      it('refuses a redirect_uri other than the one the code was issued for', async () => {
        const client = await newClient();
        const user = await newUser();
        const { code } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT },
          ...user,
        });
        // Registered for this client, but not the one of the authorization request.
        expectTokenError(await exchange(client, code, { redirectUri: OTHER_REDIRECT }), 400, 'invalid_grant');
        expectTokenError(await exchange(client, code, { redirectUri: `${REDIRECT}?extra=1` }), 400, 'invalid_grant');
        // RFC 6749 §4.1.3: required when the authorization request had one.
        expectTokenError(await exchange(client, code, { redirectUri: null }), 400, ['invalid_grant', 'invalid_request']);
      });

      it('refuses an expired code', async () => {
        const client = await newClient();
        const user = await newUser();
        const { code } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT },
          ...user,
        });
        // At most 10 minutes (RFC 6749 §4.1.2).
        const row = await t.services.database.db
          .selectFrom('authorization_codes')
          .select(['issued_at', 'expires_at'])
          .where('code_hash', '=', sha256(code))
          .executeTakeFirstOrThrow();
        expect(Date.parse(row.expires_at) - Date.parse(row.issued_at)).toBeLessThanOrEqual(600_000);
        await expireCodesOf(t, client.id);
        expectTokenError(await exchange(client, code), 400, 'invalid_grant');
      });

      describe('PKCE', () => {
        async function publicCode() {
          const client = await newClient({ confidential: false });
          const user = await newUser();
          const pkce = pkcePair();
          const { code } = await obtainCode(t.app, prefix, {
            query: {
              client_id: client.apiKey,
              response_type: 'code',
              redirect_uri: REDIRECT,
              code_challenge: pkce.challenge,
              code_challenge_method: 'S256',
            },
            ...user,
          });
          return { client, code, pkce };
        }

        it('refuses a wrong verifier', async () => {
          const { client, code } = await publicCode();
          expectTokenError(await exchange(client, code, { verifier: pkcePair().verifier }), 400, 'invalid_grant');
        });

        it('refuses a missing verifier', async () => {
          const { client, code } = await publicCode();
          // RFC 7636 §4.6 names invalid_grant for a failed check; a missing parameter may be invalid_request.
          expectTokenError(await exchange(client, code), 400, ['invalid_grant', 'invalid_request']);
        });

        it('checks the verifier of a confidential client that used PKCE', async () => {
          const client = await newClient();
          const user = await newUser();
          const pkce = pkcePair();
          const { code } = await obtainCode(t.app, prefix, {
            query: {
              client_id: client.apiKey,
              response_type: 'code',
              redirect_uri: REDIRECT,
              code_challenge: pkce.challenge,
              code_challenge_method: 'S256',
            },
            ...user,
          });
          expectTokenError(await exchange(client, code, { verifier: pkcePair().verifier }), 400, 'invalid_grant');
        });

        it('refuses the plain method, and a public client without a challenge, at the authorization endpoint', async () => {
          const client = await newClient({ confidential: false });
          const verifier = pkcePair().verifier;
          const plain = await openAuthorizationPage(t.app, prefix, {
            client_id: client.apiKey,
            response_type: 'code',
            redirect_uri: REDIRECT,
            state: 'p1',
            code_challenge: verifier,
            code_challenge_method: 'plain',
          });
          expectErrorRedirect(plain, REDIRECT, 'invalid_request', 'query', 'p1');

          const none = await openAuthorizationPage(t.app, prefix, {
            client_id: client.apiKey,
            response_type: 'code',
            redirect_uri: REDIRECT,
            state: 'p2',
          });
          expectErrorRedirect(none, REDIRECT, 'invalid_request', 'query', 'p2');

          // A challenge without its method means plain (RFC 7636 §4.3); a challenge that is no S256 digest is malformed.
          const noMethod = await openAuthorizationPage(t.app, prefix, {
            client_id: client.apiKey,
            response_type: 'code',
            redirect_uri: REDIRECT,
            state: 'p3',
            code_challenge: pkcePair().challenge,
          });
          expectErrorRedirect(noMethod, REDIRECT, 'invalid_request', 'query', 'p3');
          const malformed = await openAuthorizationPage(t.app, prefix, {
            client_id: client.apiKey,
            response_type: 'code',
            redirect_uri: REDIRECT,
            state: 'p4',
            code_challenge: 'abc',
            code_challenge_method: 'S256',
          });
          expectErrorRedirect(malformed, REDIRECT, 'invalid_request', 'query', 'p4');
        });

        it('refuses a verifier that is not 43 to 128 unreserved characters, even when it matches', async () => {
          const client = await newClient({ confidential: false });
          const user = await newUser();
          const verifier = 'short';
          const { code } = await obtainCode(t.app, prefix, {
            query: {
              client_id: client.apiKey,
              response_type: 'code',
              redirect_uri: REDIRECT,
              code_challenge: createHash('sha256').update(verifier).digest('base64url'),
              code_challenge_method: 'S256',
            },
            ...user,
          });
          expectTokenError(await exchange(client, code, { verifier }), 400, ['invalid_request', 'invalid_grant']);
        });
      });

      it('refuses a public client that sends a client_secret', async () => {
        const client = await newClient({ confidential: false });
        const user = await newUser();
        const pkce = pkcePair();
        const { code } = await obtainCode(t.app, prefix, {
          query: {
            client_id: client.apiKey,
            response_type: 'code',
            redirect_uri: REDIRECT,
            code_challenge: pkce.challenge,
            code_challenge_method: 'S256',
          },
          ...user,
        });
        const response = await tokenRequest(t.app, prefix, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          client_id: client.apiKey,
          client_secret: 'a-secret-a-public-client-does-not-have',
          code_verifier: pkce.verifier,
        });
        expectTokenError(response, 401, 'invalid_client');
      });

      it('refuses a confidential client without its secret or with a wrong one', async () => {
        const client = await newClient();
        const user = await newUser();
        const { code } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT },
          ...user,
        });
        const base = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client.apiKey };
        expectTokenError(await tokenRequest(t.app, prefix, base), 401, 'invalid_client');
        expectTokenError(await tokenRequest(t.app, prefix, { ...base, client_secret: 'wrong' }), 401, 'invalid_client');
        // The code was not spent by the failed attempts.
        expectTokens(await exchange(client, code), 'with refresh token');
      });

      it('sends the user back with access_denied when they deny', async () => {
        const client = await newClient();
        const user = await newUser();
        const { response, location } = await authorize(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT, state: 'd' },
          ...user,
          decision: 'deny',
        });
        expect(response.statusCode).toBe(302);
        expect(location?.query.get('error')).toBe('access_denied');
        expect(location?.query.get('state')).toBe('d');
        expect(location?.query.get('code')).toBeNull();
      });

      it('answers a wrong password with the page again and an alert, and no redirect', async () => {
        const client = await newClient();
        const user = await newUser();
        const { response } = await authorize(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT, state: 'w' },
          username: user.username,
          password: 'not the password',
        });
        expect(response.statusCode).toBe(401);
        expect(response.headers.location).toBeUndefined();
        expect(response.body).toMatch(/role=["']?alert/);
        // The form is there to try again, with the request still in it.
        const form = parseSignInPage(response.body);
        expect(form.hidden.client_id).toBe(client.apiKey);
        expect(form.hidden.state).toBe('w');
        expect(form.hidden.csrf_token).toBeTruthy();
      });

      it('refuses a form post without the CSRF cookie, or with a token that does not match it', async () => {
        const client = await newClient();
        const user = await newUser();
        const query = { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT, state: 'c' };
        const url = authorizationUrl(prefix, query);
        const page = await openAuthorizationPage(t.app, prefix, query);
        const noCookie = await submitAuthorizationPage(t.app, url, page, { ...user, withCookie: false });
        expect(noCookie.statusCode).toBeGreaterThanOrEqual(400);
        expect(noCookie.statusCode).toBeLessThan(500);
        expect(String(noCookie.headers.location ?? '')).not.toContain('code=');

        const forged = await submitAuthorizationPage(t.app, url, page, { ...user, override: { csrf_token: 'forged-token-value' } });
        expect(forged.statusCode).toBeGreaterThanOrEqual(400);
        expect(forged.statusCode).toBeLessThan(500);
        expect(String(forged.headers.location ?? '')).not.toContain('code=');
      });

      it('does not let the form change the request it was shown for', async () => {
        // The hidden fields are copies: posting another redirect_uri must not send the code there.
        const client = await newClient();
        const user = await newUser();
        const query = { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT, state: 'f' };
        const url = authorizationUrl(prefix, query);
        const page = await openAuthorizationPage(t.app, prefix, query);
        const response = await submitAuthorizationPage(t.app, url, page, {
          ...user,
          override: { redirect_uri: 'https://evil.example/steal' },
        });
        expect(String(response.headers.location ?? '')).not.toContain('evil.example');
      });
    });

    describe('implicit grant', () => {
      it('returns a one-year token in the fragment, with no refresh token', async () => {
        const client = await newClient({ confidential: false });
        const user = await newUser();
        const { response, location } = await authorize(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'token', redirect_uri: REDIRECT, state: AWKWARD_STATE },
          ...user,
        });
        expect(response.statusCode, response.body.slice(0, 500)).toBe(302);
        if (!location) throw new Error('no Location');
        expect(`${location.url.origin}${location.url.pathname}`).toBe(REDIRECT);
        // Nothing in the query: a token must never reach the client's server logs.
        expect(location.query.get('access_token')).toBeNull();
        expect(location.query.get('code')).toBeNull();
        const fragment = location.fragment;
        expect(fragment.get('access_token')).toBeTruthy();
        expect(fragment.get('token_type')).toBe('Bearer');
        expect(fragment.get('expires_in')).toBe('31536000');
        expect(fragment.get('state')).toBe(AWKWARD_STATE);
        expect(fragment.get('refresh_token')).toBeNull();
        expect(fragment.get('code')).toBeNull();
        await expectTokenWorks(client, fragment.get('access_token')!);
      });

      it('works for a confidential client too (a default grant)', async () => {
        const client = await newClient();
        const user = await newUser();
        const { location } = await authorize(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'token', redirect_uri: REDIRECT },
          ...user,
        });
        const token = location?.fragment.get('access_token');
        expect(token).toBeTruthy();
        await expectTokenWorks(client, token!);
      });

      it('sends its errors in the fragment', async () => {
        const client = await newClient({ grantTypes: ['authorization_code', 'refresh_token'] });
        const response = await openAuthorizationPage(t.app, prefix, {
          client_id: client.apiKey,
          response_type: 'token',
          redirect_uri: REDIRECT,
          state: 'imp',
        });
        expectErrorRedirect(response, REDIRECT, 'unauthorized_client', 'fragment', 'imp');
      });

      it('sends access_denied in the fragment when the user denies', async () => {
        const client = await newClient({ confidential: false });
        const user = await newUser();
        const { response, location } = await authorize(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'token', redirect_uri: REDIRECT, state: 'dn' },
          ...user,
          decision: 'deny',
        });
        expect(response.statusCode).toBe(302);
        expect(location?.fragment.get('error')).toBe('access_denied');
        expect(location?.fragment.get('state')).toBe('dn');
        expect(location?.fragment.get('access_token')).toBeNull();
        expect(location?.query.get('error')).toBeNull();
      });
    });

    describe('resource owner password grant', () => {
      it('issues an access and a refresh token to a client granted it', async () => {
        const client = await newClient({ grantTypes: ['password', 'refresh_token'] });
        const user = await newUser();
        const tokens = expectTokens(await passwordGrant(client, user.username, user.password), 'with refresh token');
        await expectTokenWorks(client, tokens.accessToken);
      });

      it('refuses a client not granted it (unauthorized_client)', async () => {
        const client = await newClient();
        const user = await newUser();
        expectTokenError(await passwordGrant(client, user.username, user.password), 400, 'unauthorized_client');
      });

      it('refuses a wrong password and an unknown user alike (invalid_grant)', async () => {
        const client = await newClient({ grantTypes: ['password'] });
        const user = await newUser();
        const wrong = expectTokenError(await passwordGrant(client, user.username, 'wrong password'), 400, 'invalid_grant');
        const unknown = expectTokenError(await passwordGrant(client, uniqueName('nobody'), 'wrong password'), 400, 'invalid_grant');
        // The answer does not tell which usernames exist.
        expect(unknown.error_description).toBe(wrong.error_description);
      });

      it('locks an account after 5 failed sign-ins, even for the right password (and on the page too)', async () => {
        const client = await newClient({ grantTypes: ['password', 'authorization_code'] });
        const user = await newUser();
        // Each failure from an address of its own: the lockout is per account, not per address.
        for (let attempt = 1; attempt <= 5; attempt++) {
          expectTokenError(await passwordGrant(client, user.username, `wrong ${attempt}`, freshAddress()), 400, 'invalid_grant');
        }
        expectTokenError(await passwordGrant(client, user.username, user.password, freshAddress()), 400, 'invalid_grant');
        const { response } = await authorize(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT },
          ...user,
        });
        expect(response.statusCode).not.toBe(302);
        expect(response.headers.location).toBeUndefined();
        expect(response.body).toMatch(/role=["']?alert/);

        // For 15 minutes…
        const row = await t.services.database.db
          .selectFrom('users')
          .select('locked_until')
          .where('username', '=', user.username)
          .executeTakeFirstOrThrow();
        expect(row.locked_until).not.toBeNull();
        expect(Math.abs(Date.parse(row.locked_until!) - (Date.now() + 15 * 60_000))).toBeLessThan(60_000);
        // …and no longer: once the lock has run out, the right password works again.
        await t.services.database.db
          .updateTable('users')
          .set({ locked_until: new Date(Date.now() - 1000).toISOString() })
          .where('username', '=', user.username)
          .execute();
        expectTokens(await passwordGrant(client, user.username, user.password, freshAddress()), 'with refresh token');
      });

      it('counts failures on the sign-in page and at the token endpoint together', async () => {
        const client = await newClient({ grantTypes: ['password', 'authorization_code'] });
        const user = await newUser();
        for (let attempt = 1; attempt <= 5; attempt++) {
          const { response } = await authorize(t.app, prefix, {
            query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT },
            username: user.username,
            password: `wrong ${attempt}`,
          });
          expect(response.statusCode).toBe(401);
        }
        expectTokenError(await passwordGrant(client, user.username, user.password, freshAddress()), 400, 'invalid_grant');
      });

      it('does not lock an account after 4 failures', async () => {
        const client = await newClient({ grantTypes: ['password'] });
        const user = await newUser();
        for (let attempt = 1; attempt <= 4; attempt++) {
          expectTokenError(await passwordGrant(client, user.username, `wrong ${attempt}`, freshAddress()), 400, 'invalid_grant');
        }
        expectTokens(await passwordGrant(client, user.username, user.password, freshAddress()), 'with refresh token');
      });

      it('throttles one address that keeps failing (429 with Retry-After), and only that address', async () => {
        const client = await newClient({ grantTypes: ['password'] });
        const user = await newUser();
        const address = freshAddress();
        let throttled: LightMyRequestResponse | undefined;
        for (let attempt = 1; attempt <= 60 && throttled === undefined; attempt++) {
          // Different (unknown) usernames: no single account's lockout is involved.
          const response = await passwordGrant(client, uniqueName('guess'), 'guessing', address);
          if (response.statusCode === 429) throttled = response;
          else expectTokenError(response, 400, 'invalid_grant');
        }
        if (throttled === undefined) throw new Error('60 failed sign-ins from one address were never throttled');
        expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
        expect(typeof throttled.json<TokenBody>().error).toBe('string');
        expectTokenEndpointHeaders(throttled.headers);
        // Even the right password waits…
        expect((await passwordGrant(client, user.username, user.password, address)).statusCode).toBe(429);
        // …but from elsewhere it works.
        expectTokens(await passwordGrant(client, user.username, user.password, freshAddress()), 'with refresh token');
      });

      it('throttles the sign-in page of one address that keeps failing (429)', async () => {
        const client = await newClient();
        const address = freshAddress();
        let throttled: LightMyRequestResponse | undefined;
        for (let attempt = 1; attempt <= 60 && throttled === undefined; attempt++) {
          const { response } = await authorize(t.app, prefix, {
            query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT },
            username: uniqueName('guess'),
            password: 'guessing',
            remoteAddress: address,
          });
          if (response.statusCode === 429) throttled = response;
          else expect(response.statusCode).toBe(401);
        }
        if (throttled === undefined) throw new Error('60 failed sign-ins on the page from one address were never throttled');
        expect(throttled.headers.location).toBeUndefined();
        expect(throttled.body).toMatch(/role=["']?alert/);
      });
    });

    describe('client credentials grant', () => {
      it('issues a user-less token without a refresh token (secret in the form)', async () => {
        const client = await newClient();
        const response = await tokenRequest(t.app, prefix, {
          grant_type: 'client_credentials',
          client_id: client.apiKey,
          client_secret: secretOf(client),
        });
        const tokens = expectTokens(response, 'without refresh token');
        await expectTokenWorks(client, tokens.accessToken);
      });

      it('takes HTTP Basic', async () => {
        const client = await newClient();
        const response = await tokenRequest(
          t.app,
          prefix,
          { grant_type: 'client_credentials' },
          { basic: { clientId: client.apiKey, clientSecret: secretOf(client) } },
        );
        const tokens = expectTokens(response, 'without refresh token');
        await expectTokenWorks(client, tokens.accessToken);
      });

      it('is the only grant of a sandbox client', async () => {
        const sandbox = await newClient({ sandbox: true, redirectUris: [] });
        const user = await newUser();
        const tokens = expectTokens(
          await tokenRequest(t.app, prefix, { grant_type: 'client_credentials', client_id: sandbox.apiKey, client_secret: secretOf(sandbox) }),
          'without refresh token',
        );
        await expectTokenWorks(sandbox, tokens.accessToken);
        expectTokenError(await passwordGrant(sandbox, user.username, user.password), 400, 'unauthorized_client');
        expectTokenError(await refreshGrant(sandbox, 'any-refresh-token'), 400, ['unauthorized_client', 'invalid_grant']);
        expectTokenError(
          await tokenRequest(t.app, prefix, {
            grant_type: 'authorization_code',
            code: 'any-code',
            redirect_uri: 'http://localhost:8123/cb',
            client_id: sandbox.apiKey,
            client_secret: secretOf(sandbox),
          }),
          400,
          ['unauthorized_client', 'invalid_grant'],
        );
        // At the authorization endpoint: a client that may use neither redirecting grant is
        // shown an error page, never redirected (not even to a local URI).
        for (const responseType of ['code', 'token'] as const) {
          const response = await openAuthorizationPage(t.app, prefix, {
            client_id: sandbox.apiKey,
            response_type: responseType,
            redirect_uri: 'http://localhost:8123/cb',
            state: 'sb',
          });
          expectErrorPage(response);
        }
      });

      it('an expired access token gets 401 invalid_token', async () => {
        const client = await newClient();
        const tokens = expectTokens(
          await tokenRequest(t.app, prefix, { grant_type: 'client_credentials', client_id: client.apiKey, client_secret: secretOf(client) }),
          'without refresh token',
        );
        await expectTokenWorks(client, tokens.accessToken);
        await t.services.database.db
          .updateTable('access_tokens')
          .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
          .where('token_hash', '=', sha256(tokens.accessToken))
          .execute();
        await expectTokenRefused(client, tokens.accessToken);
      });

      it("does not let one client's token work with another client's API key", async () => {
        const client = await newClient();
        const other = await newClient();
        const tokens = expectTokens(
          await tokenRequest(t.app, prefix, { grant_type: 'client_credentials', client_id: client.apiKey, client_secret: secretOf(client) }),
          'without refresh token',
        );
        await expectTokenRefused(other, tokens.accessToken);
      });
    });

    describe('refresh token grant', () => {
      it('gives a confidential client a new access token of at most 30 minutes, and lets it reuse the refresh token', async () => {
        const client = await newClient();
        const { refreshToken } = await codeFlowTokens(client);
        const first = expectTokens(await refreshGrant(client, refreshToken!), 'with refresh token');
        expect(first.expiresIn).toBeLessThanOrEqual(1800);
        expect(first.refreshToken).toBe(refreshToken);
        await expectTokenWorks(client, first.accessToken);
        const second = expectTokens(await refreshGrant(client, refreshToken!), 'with refresh token');
        expect(second.expiresIn).toBeLessThanOrEqual(1800);
        expect(second.accessToken).not.toBe(first.accessToken);
        await expectTokenWorks(client, second.accessToken);
      });

      it('lives one year, and not longer', async () => {
        const client = await newClient();
        const { refreshToken } = await codeFlowTokens(client);
        const db = t.services.database.db;
        const row = await db
          .selectFrom('refresh_tokens')
          .select(['issued_at', 'expires_at'])
          .where('token_hash', '=', sha256(refreshToken!))
          .executeTakeFirstOrThrow();
        const lifetimeDays = (Date.parse(row.expires_at) - Date.parse(row.issued_at)) / 86_400_000;
        // Issued and expiry instants may be read a millisecond apart.
        expect(lifetimeDays).toBeGreaterThanOrEqual(365 - 1 / 1440);
        expect(lifetimeDays).toBeLessThanOrEqual(366);
        await db
          .updateTable('refresh_tokens')
          .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
          .where('token_hash', '=', sha256(refreshToken!))
          .execute();
        expectTokenError(await refreshGrant(client, refreshToken!), 400, 'invalid_grant');
      });

      it('takes the secret through HTTP Basic', async () => {
        const client = await newClient();
        const { refreshToken } = await codeFlowTokens(client);
        const response = await tokenRequest(
          t.app,
          prefix,
          { grant_type: 'refresh_token', refresh_token: refreshToken },
          { basic: { clientId: client.apiKey, clientSecret: secretOf(client) } },
        );
        expectTokens(response, 'with refresh token');
      });

      it('is no access token', async () => {
        const client = await newClient();
        const { refreshToken } = await codeFlowTokens(client);
        await expectTokenRefused(client, refreshToken!);
      });

      it('rotates the refresh token of a public client, and a reused old one revokes the whole family', async () => {
        const client = await newClient({ confidential: false });
        const { refreshToken: original, accessToken: firstAccess } = await codeFlowTokens(client);
        const rotated = expectTokens(await refreshGrant(client, original!), 'with refresh token');
        expect(rotated.refreshToken).not.toBe(original);
        expect(rotated.expiresIn).toBeLessThanOrEqual(1800);
        await expectTokenWorks(client, rotated.accessToken);
        const again = expectTokens(await refreshGrant(client, rotated.refreshToken!), 'with refresh token');
        expect(again.refreshToken).not.toBe(rotated.refreshToken);

        // The original comes back: someone else holds a copy (RFC 9700 §4.14.2).
        expectTokenError(await refreshGrant(client, original!), 400, 'invalid_grant');
        expectTokenError(await refreshGrant(client, again.refreshToken!), 400, 'invalid_grant');
        await expectTokenRefused(client, again.accessToken);
        await expectTokenRefused(client, rotated.accessToken);
        await expectTokenRefused(client, firstAccess);
      });

      it('lets exactly one of several simultaneous rotations of a public refresh token succeed', async () => {
        const client = await newClient({ confidential: false });
        const { refreshToken } = await codeFlowTokens(client);
        const responses = await Promise.all([1, 2, 3].map(() => refreshGrant(client, refreshToken!)));
        expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 400, 400]);
      });

      it('refuses a client_secret from a public client on refresh', async () => {
        const client = await newClient({ confidential: false });
        const { refreshToken } = await codeFlowTokens(client);
        const response = await tokenRequest(t.app, prefix, {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: client.apiKey,
          client_secret: 'made-up',
        });
        expectTokenError(response, 401, 'invalid_client');
      });

      it("refuses another client's refresh token", async () => {
        const owner = await newClient();
        const other = await newClient();
        const { refreshToken } = await codeFlowTokens(owner);
        expectTokenError(await refreshGrant(other, refreshToken!), 400, 'invalid_grant');
        const publicOther = await newClient({ confidential: false });
        expectTokenError(await refreshGrant(publicOther, refreshToken!), 400, 'invalid_grant');
        // The owner still can.
        expectTokens(await refreshGrant(owner, refreshToken!), 'with refresh token');
      });

      it("a password change revokes the user's refresh and access tokens, implicit ones included", async () => {
        const client = await newClient({ grantTypes: ['password', 'implicit', 'authorization_code', 'refresh_token', 'client_credentials'] });
        const user = await newUser();
        const viaPassword = expectTokens(await passwordGrant(client, user.username, user.password), 'with refresh token');
        const { location } = await authorize(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'token', redirect_uri: REDIRECT },
          ...user,
        });
        const implicitToken = location?.fragment.get('access_token');
        if (!implicitToken) throw new Error('no implicit token');
        const appToken = expectTokens(
          await tokenRequest(t.app, prefix, { grant_type: 'client_credentials', client_id: client.apiKey, client_secret: secretOf(client) }),
          'without refresh token',
        );
        await expectTokenWorks(client, viaPassword.accessToken);
        await expectTokenWorks(client, implicitToken);

        await t.services.users.changePassword(user.username, 'a brand new password');

        await expectTokenRefused(client, viaPassword.accessToken);
        await expectTokenRefused(client, implicitToken);
        expectTokenError(await refreshGrant(client, viaPassword.refreshToken!), 400, 'invalid_grant');
        // The client's own token speaks for no user: untouched.
        await expectTokenWorks(client, appToken.accessToken);
        // The new password works, the old one does not.
        expectTokenError(await passwordGrant(client, user.username, user.password), 400, 'invalid_grant');
        expectTokens(await passwordGrant(client, user.username, 'a brand new password'), 'with refresh token');
      });

      it('a password change also voids a code not exchanged yet', async () => {
        const client = await newClient();
        const user = await newUser();
        const { code } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT },
          ...user,
        });
        await t.services.users.changePassword(user.username, 'a brand new password');
        expectTokenError(await exchange(client, code), 400, 'invalid_grant');
      });
    });

    describe('token endpoint requests', () => {
      it('refuses an unsupported grant type', async () => {
        const client = await newClient();
        const response = await tokenRequest(t.app, prefix, {
          grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
          client_id: client.apiKey,
          client_secret: secretOf(client),
        });
        expectTokenError(response, 400, 'unsupported_grant_type');
      });

      it('refuses missing parameters with invalid_request', async () => {
        const client = await newClient({ grantTypes: ['authorization_code', 'password', 'refresh_token', 'client_credentials'] });
        const credentials = { client_id: client.apiKey, client_secret: secretOf(client) };
        const cases: Array<Record<string, string>> = [
          { ...credentials },
          { ...credentials, grant_type: 'authorization_code', redirect_uri: REDIRECT },
          { ...credentials, grant_type: 'password', username: 'someone' },
          { ...credentials, grant_type: 'password', password: 'something' },
          { ...credentials, grant_type: 'refresh_token' },
        ];
        const answers = [];
        for (const fields of cases) {
          const response = await tokenRequest(t.app, prefix, fields);
          expectTokenEndpointHeaders(response.headers);
          answers.push({ sent: Object.keys(fields).join(','), status: response.statusCode, error: response.json<TokenBody>().error });
        }
        expect(answers).toEqual(answers.map(({ sent }) => ({ sent, status: 400, error: 'invalid_request' })));
      });

      it('refuses a parameter given twice', async () => {
        const client = await newClient();
        const response = await t.app.inject({
          method: 'POST',
          url: `${prefix}/token`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `grant_type=client_credentials&grant_type=client_credentials&client_id=${encodeURIComponent(client.apiKey)}&client_secret=${encodeURIComponent(secretOf(client))}`,
          remoteAddress: freshAddress(),
        });
        expectTokenError(response, 400, 'invalid_request');
      });

      it('refuses client credentials sent both through HTTP Basic and in the form (RFC 6749 §2.3)', async () => {
        const client = await newClient();
        const response = await tokenRequest(
          t.app,
          prefix,
          { grant_type: 'client_credentials', client_id: client.apiKey, client_secret: secretOf(client) },
          { basic: { clientId: client.apiKey, clientSecret: secretOf(client) } },
        );
        expectTokenError(response, 400, 'invalid_request');
      });

      it('answers a body that is not form-encoded, or none, with invalid_request', async () => {
        const client = await newClient();
        const json = await t.app.inject({
          method: 'POST',
          url: `${prefix}/token`,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ grant_type: 'client_credentials', client_id: client.apiKey, client_secret: secretOf(client) }),
          remoteAddress: freshAddress(),
        });
        expectTokenError(json, 400, 'invalid_request');
        const empty = await t.app.inject({ method: 'POST', url: `${prefix}/token`, remoteAddress: freshAddress() });
        expectTokenError(empty, 400, 'invalid_request');
      });

      it('issues nothing on GET', async () => {
        const client = await newClient();
        const query = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.apiKey, client_secret: secretOf(client) });
        const response = await t.app.inject({ method: 'GET', url: `${prefix}/token?${query.toString()}` });
        expect([404, 405]).toContain(response.statusCode);
        expect(response.body).not.toContain('access_token');
      });

      it('refuses an unknown client with invalid_client (401)', async () => {
        const response = await tokenRequest(t.app, prefix, {
          grant_type: 'client_credentials',
          client_id: 'no-such-client',
          client_secret: 'whatever',
        });
        expectTokenError(response, 401, 'invalid_client');
      });

      it('refuses a request that names no client with invalid_client (401)', async () => {
        expectTokenError(await tokenRequest(t.app, prefix, { grant_type: 'client_credentials' }), 401, 'invalid_client');
      });

      it('answers a failed HTTP Basic authentication with 401, invalid_client and a Basic challenge', async () => {
        const client = await newClient();
        const response = await tokenRequest(
          t.app,
          prefix,
          { grant_type: 'client_credentials' },
          { basic: { clientId: client.apiKey, clientSecret: 'not-the-secret' } },
        );
        expectTokenError(response, 401, 'invalid_client');
        expect(String(response.headers['www-authenticate'])).toMatch(/^Basic\b/i);

        const unknown = await tokenRequest(
          t.app,
          prefix,
          { grant_type: 'client_credentials' },
          { basic: { clientId: 'no-such-client', clientSecret: 'x' } },
        );
        expectTokenError(unknown, 401, 'invalid_client');
        expect(String(unknown.headers['www-authenticate'])).toMatch(/^Basic\b/i);
      });

      it('sends no-store and no-cache, and no CORS headers, even to a cross-origin caller', async () => {
        const client = await newClient();
        const origin = { origin: 'https://some-site.example' };
        const success = await tokenRequest(
          t.app,
          prefix,
          { grant_type: 'client_credentials', client_id: client.apiKey, client_secret: secretOf(client) },
          { headers: origin },
        );
        expect(success.statusCode).toBe(200);
        expectTokenEndpointHeaders(success.headers);
        const failure = await tokenRequest(t.app, prefix, { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' }, { headers: origin });
        expect(failure.statusCode).toBe(401);
        expectTokenEndpointHeaders(failure.headers);
        // A preflight learns nothing that would let a page call it.
        const preflight = await t.app.inject({
          method: 'OPTIONS',
          url: `${prefix}/token`,
          headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
        const cors = Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'));
        expect(cors).toEqual([]);
      });
    });

    describe('authorization endpoint', () => {
      it('shows an error page, and never redirects, for an unknown or missing client_id', async () => {
        expectErrorPage(
          await openAuthorizationPage(t.app, prefix, { client_id: 'no-such-client', response_type: 'code', redirect_uri: REDIRECT, state: 's' }),
        );
        expectErrorPage(await openAuthorizationPage(t.app, prefix, { response_type: 'code', redirect_uri: REDIRECT, state: 's' }));
      });

      it('shows an error page, and never redirects, for an unregistered or a non-HTTPS redirect_uri', async () => {
        const client = await newClient();
        for (const redirectUri of [
          'https://evil.example/callback',
          'https://client.example/callback/more',
          'https://client.example.evil.example/callback',
          'http://client.example/callback',
          // Local only in appearance.
          'http://localhost.evil.example/cb',
          'http://127.0.0.1.evil.example/cb',
          'http://127.0.0.1@evil.example/cb',
          // A registered URI with something added that is not a query parameter.
          'https://attacker@client.example/callback',
          'https://client.example/callback#fragment',
          'javascript:alert(1)',
          'not a uri',
          'https://evil.example/"><script>alert(1)</script>',
        ]) {
          const response = await openAuthorizationPage(t.app, prefix, {
            client_id: client.apiKey,
            response_type: 'code',
            redirect_uri: redirectUri,
            state: 's',
          });
          expect.soft(response.statusCode, redirectUri).toBe(400);
          expectErrorPage(response);
          expect(response.body).not.toContain('<script>alert(1)</script>');
        }
      });

      it('shows an error page for a bad redirect_uri even when the rest of the request is bad too', async () => {
        const client = await newClient();
        const response = await openAuthorizationPage(t.app, prefix, {
          client_id: client.apiKey,
          response_type: 'nonsense',
          redirect_uri: 'https://evil.example/callback',
        });
        expectErrorPage(response);
      });

      it('accepts a registered redirect URI with extra query parameters, and keeps them', async () => {
        const client = await newClient();
        const user = await newUser();
        const redirectUri = `${REDIRECT}?tenant=acme&lang=pt`;
        const { code, location } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: redirectUri, state: 'x' },
          ...user,
        });
        expect(location.query.get('tenant')).toBe('acme');
        expect(location.query.get('lang')).toBe('pt');
        expect(location.query.get('state')).toBe('x');
        expectTokens(await exchange(client, code, { redirectUri }), 'with refresh token');
      });

      it('accepts local redirect URIs over plain HTTP without registration', async () => {
        const client = await newClient({ redirectUris: [REDIRECT] });
        const user = await newUser();
        for (const redirectUri of ['http://localhost:8123/cb', 'http://127.0.0.1:8123/cb', 'http://[::1]:8123/cb', 'http://127.0.0.1/cb']) {
          const page = await openAuthorizationPage(t.app, prefix, { client_id: client.apiKey, response_type: 'code', redirect_uri: redirectUri });
          expect.soft(page.statusCode, `${redirectUri}: ${page.body.slice(0, 300)}`).toBe(200);
        }
        const redirectUri = 'http://127.0.0.1:8123/cb';
        const { code, location } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: redirectUri },
          ...user,
        });
        expect(`${location.url.origin}${location.url.pathname}`).toBe(redirectUri);
        expectTokens(await exchange(client, code, { redirectUri }), 'with refresh token');
      });

      it('returns the state unchanged, characters that need encoding included', async () => {
        const client = await newClient();
        const user = await newUser();
        const { location } = await obtainCode(t.app, prefix, {
          query: { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT, state: AWKWARD_STATE },
          ...user,
        });
        expect(location.query.get('state')).toBe(AWKWARD_STATE);
        // …and on an error redirect.
        const error = await openAuthorizationPage(t.app, prefix, {
          client_id: client.apiKey,
          response_type: 'unknown_type',
          redirect_uri: REDIRECT,
          state: AWKWARD_STATE,
        });
        expectErrorRedirect(error, REDIRECT, 'unsupported_response_type', 'query', AWKWARD_STATE);
      });

      it('redirects with unauthorized_client for a client not granted the code flow', async () => {
        const client = await newClient({ grantTypes: ['implicit'] });
        const response = await openAuthorizationPage(t.app, prefix, {
          client_id: client.apiKey,
          response_type: 'code',
          redirect_uri: REDIRECT,
          state: 'u',
        });
        expectErrorRedirect(response, REDIRECT, 'unauthorized_client', 'query', 'u');
      });

      it('shows an error page, never a redirect, for a client granted neither the code nor the implicit flow', async () => {
        const client = await newClient({ grantTypes: ['password'] });
        expectErrorPage(await openAuthorizationPage(t.app, prefix, { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT, state: 'u' }));
      });

      it('shows errors for an unregistered local redirect URI on a page: no redirect before the user has signed in (RFC 9700 §4.11.2)', async () => {
        const client = await newClient();
        const local = 'http://127.0.0.1:2375/containers/json';
        expectErrorPage(await openAuthorizationPage(t.app, prefix, { client_id: client.apiKey, response_type: 'nonsense', redirect_uri: local }));
        expectErrorPage(await openAuthorizationPage(t.app, prefix, { client_id: client.apiKey, redirect_uri: local }));
        // A good request still shows the sign-in page, which names where it leads.
        const page = await openAuthorizationPage(t.app, prefix, { client_id: client.apiKey, response_type: 'code', redirect_uri: local });
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain('127.0.0.1:2375');
      });

      it('shows an error page for a state longer than 2048 characters', async () => {
        const client = await newClient();
        expectErrorPage(
          await openAuthorizationPage(t.app, prefix, { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT, state: 'x'.repeat(2049) }),
        );
      });

      it('redirects a request without response_type with invalid_request', async () => {
        const client = await newClient();
        const response = await openAuthorizationPage(t.app, prefix, { client_id: client.apiKey, redirect_uri: REDIRECT, state: 'r' });
        expectErrorRedirect(response, REDIRECT, 'invalid_request', 'query', 'r');
      });

      it('escapes what it echoes into the page', async () => {
        const client = await newClient();
        const state = '"><script>alert(1)</script>';
        const page = await openAuthorizationPage(t.app, prefix, {
          client_id: client.apiKey,
          response_type: 'code',
          redirect_uri: REDIRECT,
          state,
        });
        expect(page.statusCode).toBe(200);
        expect(page.body).not.toContain('<script>alert(1)</script>');
        expect(parseSignInPage(page.body).hidden.state).toBe(state);
      });
    });
  });
}

describe('bearer challenges of the API (RFC 6750 §3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await addImage(t.services, '1001');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('asks for a token without an error code when none was sent', async () => {
    for (const url of ['/v3/images/1001?fields=downloads', '/v3/images/1001/similar']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { 'api-key': t.apiKey } });
      expect.soft(response.statusCode, url).toBe(401);
      expect.soft(response.headers['www-authenticate'], url).toMatch(/^Bearer realm="[^"]+"$/);
    }
  });

  it('says invalid_token for a token that is not one', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/v3/images/1001?fields=downloads',
      headers: { 'api-key': t.apiKey, authorization: 'Bearer not-a-token' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(BEARER_INVALID_TOKEN);
  });
});

describe('the per-address sign-in throttle', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('cannot be escaped by a forged X-Forwarded-For header (no proxy is configured)', async () => {
    const { apiKey, apiSecret } = await t.services.clients.create({ name: 'xff', grantTypes: ['password'] });
    // One directly connected client (a public address, not a proxy of ours) making up a new
    // X-Forwarded-For for every attempt; from one address, the 21st failure is throttled.
    const attempts = async (remoteAddress: string, forge: boolean) => {
      const statuses: number[] = [];
      for (let attempt = 1; attempt <= 40; attempt++) {
        const response = await tokenRequest(
          t.app,
          '/auth/oauth2',
          { grant_type: 'password', username: uniqueName('guess'), password: 'guessing', client_id: apiKey, client_secret: apiSecret },
          { remoteAddress, headers: forge ? { 'x-forwarded-for': `198.51.100.${attempt}` } : {} },
        );
        statuses.push(response.statusCode);
      }
      return statuses;
    };
    // The control: without the header, the same kind of address is throttled.
    expect(await attempts('203.0.113.8', false), 'without X-Forwarded-For').toContain(429);
    expect(await attempts('203.0.113.7', true), 'statuses of 40 failed password grants from 203.0.113.7 with a different forged X-Forwarded-For each').toContain(429);
  });
});

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Sets every authorization code of a client to have expired a minute ago. */
async function expireCodesOf(t: TestApp, clientId: number): Promise<void> {
  const past = new Date(Date.now() - 60_000).toISOString();
  const result = await t.services.database.db
    .updateTable('authorization_codes')
    .set({ expires_at: past })
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  expect(Number(result.numUpdatedRows)).toBeGreaterThan(0);
}

// The same rules on each store: the main flows once more, on PostgreSQL when it is configured.
for (const { name, url } of STORES.filter((store) => store.name === 'postgres')) {
  describe(`OAuth 2.0 on ${name}`, () => {
    const prefix = '/auth/oauth2';
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ databaseUrl: url });
    });
    afterAll(async () => {
      await t?.close();
    });

    async function newClient(confidential = true, grantTypes?: GrantType[]): Promise<TestClient> {
      const { client, apiKey, apiSecret } = await t.services.clients.create({
        name: uniqueName('pg-app'),
        confidential,
        redirectUris: [REDIRECT],
        queriesPerSecond: 100_000,
        queriesPerDay: 10_000_000,
        ...(grantTypes ? { grantTypes } : {}),
      });
      return { id: client.id, apiKey, apiSecret };
    }

    async function newUser() {
      const username = uniqueName('pg-user');
      await t.services.users.create({ username, password: PASSWORD });
      return { username, password: PASSWORD };
    }

    it('code flow with PKCE for a public client, rotation and reuse detection', async () => {
      const client = await newClient(false);
      const user = await newUser();
      const pkce = pkcePair();
      const { code } = await obtainCode(t.app, prefix, {
        query: {
          client_id: client.apiKey,
          response_type: 'code',
          redirect_uri: REDIRECT,
          state: 'pg',
          code_challenge: pkce.challenge,
          code_challenge_method: 'S256',
        },
        ...user,
      });
      const exchange = () =>
        tokenRequest(t.app, prefix, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          client_id: client.apiKey,
          code_verifier: pkce.verifier,
        });
      const first = await exchange();
      expect(first.statusCode, first.body).toBe(200);
      const tokens = first.json<{ access_token: string; refresh_token: string; expires_in: number }>();
      expect(typeof tokens.expires_in).toBe('number');
      expect((await searchAs(t.app, client.apiKey, tokens.access_token)).statusCode).toBe(200);

      const refreshed = await tokenRequest(t.app, prefix, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.apiKey });
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      const rotated = refreshed.json<{ access_token: string; refresh_token: string; expires_in: number }>();
      expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
      expect(rotated.expires_in).toBeLessThanOrEqual(1800);
      const reuse = await tokenRequest(t.app, prefix, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.apiKey });
      expect(reuse.json<TokenBody>().error).toBe('invalid_grant');
      expect((await searchAs(t.app, client.apiKey, rotated.access_token)).statusCode).toBe(401);

      // The code, used again, fails.
      expect((await exchange()).json<TokenBody>().error).toBe('invalid_grant');
    });

    it('a reused code revokes its tokens; an expired code fails', async () => {
      const client = await newClient();
      const user = await newUser();
      const query = { client_id: client.apiKey, response_type: 'code', redirect_uri: REDIRECT };
      const { code } = await obtainCode(t.app, prefix, { query, ...user });
      const fields = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client.apiKey, client_secret: client.apiSecret };
      const first = await tokenRequest(t.app, prefix, fields);
      expect(first.statusCode, first.body).toBe(200);
      const access = first.json<{ access_token: string }>().access_token;
      expect((await tokenRequest(t.app, prefix, fields)).json<TokenBody>().error).toBe('invalid_grant');
      expect((await searchAs(t.app, client.apiKey, access)).statusCode).toBe(401);

      const second = await obtainCode(t.app, prefix, { query, ...user });
      await expireCodesOf(t, client.id);
      const expired = await tokenRequest(t.app, prefix, { ...fields, code: second.code });
      expect(expired.json<TokenBody>().error).toBe('invalid_grant');
    });

    it('password, client credentials, refresh reuse and password change', async () => {
      const client = await newClient(true, ['password', 'client_credentials', 'refresh_token']);
      const user = await newUser();
      const password = await tokenRequest(t.app, prefix, {
        grant_type: 'password',
        username: user.username,
        password: user.password,
        client_id: client.apiKey,
        client_secret: client.apiSecret,
      });
      expect(password.statusCode, password.body).toBe(200);
      const tokens = password.json<{ access_token: string; refresh_token: string }>();
      const credentials = await tokenRequest(t.app, prefix, { grant_type: 'client_credentials', client_id: client.apiKey, client_secret: client.apiSecret });
      expect(credentials.statusCode, credentials.body).toBe(200);
      expect(credentials.json<TokenBody>().refresh_token).toBeUndefined();

      const refresh = () =>
        tokenRequest(t.app, prefix, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.apiKey, client_secret: client.apiSecret });
      const refreshed = await refresh();
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      expect(refreshed.json<TokenBody>().refresh_token).toBe(tokens.refresh_token);
      expect((await refresh()).statusCode).toBe(200);

      await t.services.users.changePassword(user.username, 'another good password');
      expect((await searchAs(t.app, client.apiKey, tokens.access_token)).statusCode).toBe(401);
      expect((await refresh()).json<TokenBody>().error).toBe('invalid_grant');
    });
  });
}
