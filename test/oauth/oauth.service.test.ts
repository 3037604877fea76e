import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, createTestApp, type TestApp } from '../helpers/test-app.js';
import type { ClientCredentials, NewClient } from '../../src/oauth/clients.service.js';
import { OAuthStore } from '../../src/oauth/oauth.store.js';
import { OAuthService } from '../../src/oauth/oauth.service.js';
import { OAuthError, type AuthorizationCheck, type AuthorizationRequest, type OAuthErrorCode, type PresentedClient, type TokenResponse } from '../../src/oauth/oauth.types.js';
import { SignInGuard } from '../../src/oauth/sign-in-guard.js';
import { TokensService } from '../../src/oauth/tokens.service.js';
import { UsersRepository } from '../../src/oauth/users.repository.js';
import { UsersService } from '../../src/oauth/users.service.js';

const PASSWORD = 'correct horse battery';
const REDIRECT = 'https://app.example.com/callback';
/** RFC 7636 Appendix B. */
const PKCE = { verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' };
const OTHER_VERIFIER = 'x'.repeat(43);

describe.each(STORES)('the OAuth rules on $name', ({ url }) => {
  let t: TestApp;
  let time: number;
  const now = () => new Date(time);
  const advance = (seconds: number) => {
    time += seconds * 1000;
  };
  let oauth: OAuthService;
  let tokens: TokensService;
  let users: UsersService;
  let userCount = 0;
  let addressCount = 0;
  const address = () => `10.3.${Math.floor(++addressCount / 250)}.${addressCount % 250}`;

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url });
    time = Date.now();
    const store = new OAuthStore(t.services.database.db);
    tokens = new TokensService(store, now);
    users = new UsersService(new UsersRepository(t.services.database.db), { revokeTokensOf: (id) => tokens.revokeAllForUser(id), now });
    oauth = new OAuthService({
      clients: t.services.clients,
      tokens,
      store,
      guard: new SignInGuard({ accounts: users, now }),
      lifetimes: t.services.config,
      now,
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const confidentialClient = (options: Partial<NewClient> = {}) =>
    t.services.clients.create({ name: 'Web app', redirectUris: [REDIRECT], ...options, confidential: true });
  const publicClient = (options: Partial<NewClient> = {}) =>
    t.services.clients.create({ name: 'Mobile app', redirectUris: [REDIRECT], ...options, confidential: false });
  const newUser = async () => users.create({ username: `oauth-user-${++userCount}`, password: PASSWORD });
  const basic = (c: ClientCredentials): PresentedClient => ({ clientId: c.apiKey, clientSecret: c.apiSecret, via: 'basic' });
  const withSecret = (c: ClientCredentials) => ({ client_id: c.apiKey, ...(c.apiSecret ? { client_secret: c.apiSecret } : {}) });

  async function refused(attempt: Promise<unknown>, code: OAuthErrorCode, status = code === 'invalid_client' ? 401 : 400): Promise<OAuthError> {
    const error = await attempt.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ code, status });
    return error as OAuthError;
  }

  function ok(check: AuthorizationCheck): AuthorizationRequest {
    if (check.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(check)}`);
    return check.request;
  }

  /** The browser's part: authorize, sign in and allow; returns the code. */
  async function authorize(c: ClientCredentials, userId: number, query: Record<string, string> = {}): Promise<string> {
    const request = ok(await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: REDIRECT, response_type: 'code', state: 's1', ...query }));
    const location = new URL(await oauth.completeAuthorization(request, userId, 'allow'));
    expect(location.searchParams.get('state')).toBe('s1');
    return location.searchParams.get('code')!;
  }

  const exchange = (c: ClientCredentials, code: string, extra: Record<string, string> = {}) =>
    oauth.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...withSecret(c), ...extra }, undefined, address());

  const refresh = (c: ClientCredentials, refreshToken: string) =>
    oauth.token({ grant_type: 'refresh_token', refresh_token: refreshToken, ...withSecret(c) }, undefined, address());

  const isValid = async (token: string, clientId: number) => (await tokens.verify(token, clientId)).valid;

  async function codeTokens(c: ClientCredentials, pkce = !c.apiSecret): Promise<TokenResponse & { refresh_token: string }> {
    const user = await newUser();
    const code = await authorize(c, user.id, pkce ? { code_challenge: PKCE.challenge, code_challenge_method: 'S256' } : {});
    const response = await exchange(c, code, pkce ? { code_verifier: PKCE.verifier } : {});
    return response as TokenResponse & { refresh_token: string };
  }

  describe('the token endpoint’s client authentication', () => {
    it('takes client credentials from the form or from HTTP Basic', async () => {
      const c = await confidentialClient();
      await expect(oauth.token({ grant_type: 'client_credentials', ...withSecret(c) }, undefined, address())).resolves.toMatchObject({ token_type: 'Bearer' });
      await expect(oauth.token({ grant_type: 'client_credentials' }, basic(c), address())).resolves.toMatchObject({ token_type: 'Bearer' });
      await expect(oauth.token({ grant_type: 'client_credentials', client_id: c.apiKey }, basic(c), address())).resolves.toMatchObject({ token_type: 'Bearer' });
    });

    it('refuses credentials sent both in the form and with HTTP Basic (invalid_request)', async () => {
      const c = await confidentialClient();
      await refused(oauth.token({ grant_type: 'client_credentials', ...withSecret(c) }, basic(c), address()), 'invalid_request');
    });

    it('refuses a form client_id that differs from the HTTP Basic one (invalid_request)', async () => {
      const c = await confidentialClient();
      const other = await confidentialClient();
      await refused(oauth.token({ grant_type: 'client_credentials', client_id: other.apiKey }, basic(c), address()), 'invalid_request');
    });

    it('answers invalid_client (401) for a missing, unknown or disabled client', async () => {
      await refused(oauth.token({ grant_type: 'client_credentials' }, undefined, address()), 'invalid_client');
      await refused(oauth.token({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' }, undefined, address()), 'invalid_client');
      const c = await confidentialClient();
      await t.services.clients.disable(c.apiKey);
      await refused(oauth.token({ grant_type: 'client_credentials', ...withSecret(c) }, undefined, address()), 'invalid_client');
    });

    it('answers invalid_client when a confidential client’s secret is missing or wrong', async () => {
      const c = await confidentialClient();
      const missing = await refused(oauth.token({ grant_type: 'client_credentials', client_id: c.apiKey }, undefined, address()), 'invalid_client');
      expect(missing.description).toMatch(/client_secret is missing/);
      await refused(oauth.token({ grant_type: 'client_credentials', client_id: c.apiKey, client_secret: '' }, undefined, address()), 'invalid_client');
      await refused(oauth.token({ grant_type: 'client_credentials' }, { ...basic(c), clientSecret: `${c.apiSecret}x` }, address()), 'invalid_client');
    });

    it('answers invalid_client when a public client sends a client_secret', async () => {
      const c = await publicClient();
      const { refresh_token } = await codeTokens(c);
      const error = await refused(
        oauth.token({ grant_type: 'refresh_token', refresh_token, client_id: c.apiKey, client_secret: 'anything' }, undefined, address()),
        'invalid_client',
      );
      expect(error.description).toBe('A public client must not send a client_secret');
      await refused(oauth.token({ grant_type: 'refresh_token', refresh_token }, { clientId: c.apiKey, clientSecret: 'x', via: 'basic' }, address()), 'invalid_client');
    });
  });

  describe('the token endpoint’s grant checks', () => {
    it('answers invalid_request for a missing grant_type', async () => {
      const c = await confidentialClient();
      await refused(oauth.token({ ...withSecret(c) }, undefined, address()), 'invalid_request');
    });

    it('answers unsupported_grant_type for an unknown grant_type, and for implicit (which has no token request)', async () => {
      const c = await confidentialClient();
      await refused(oauth.token({ grant_type: 'magic', ...withSecret(c) }, undefined, address()), 'unsupported_grant_type');
      await refused(oauth.token({ grant_type: 'toString', ...withSecret(c) }, undefined, address()), 'unsupported_grant_type');
      const implicit = await refused(oauth.token({ grant_type: 'implicit', ...withSecret(c) }, undefined, address()), 'unsupported_grant_type');
      expect(implicit.description).toMatch(/authorization endpoint/);
    });

    it('answers unauthorized_client for a grant the client is not allowed', async () => {
      const c = await confidentialClient();
      await refused(oauth.token({ grant_type: 'password', username: 'u', password: 'p', ...withSecret(c) }, undefined, address()), 'unauthorized_client');
      const sandbox = await t.services.clients.create({ name: 'Sandbox', sandbox: true });
      await refused(oauth.token({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT, ...withSecret(sandbox) }, undefined, address()), 'unauthorized_client');
      const p = await publicClient();
      await refused(oauth.token({ grant_type: 'client_credentials', client_id: p.apiKey }, undefined, address()), 'unauthorized_client');
    });

    it('answers invalid_request naming a missing required parameter', async () => {
      const c = await confidentialClient();
      const error = await refused(oauth.token({ grant_type: 'authorization_code', code: 'abc', ...withSecret(c) }, undefined, address()), 'invalid_request');
      expect(error.description).toBe('The redirect_uri parameter is missing');
      const partner = await confidentialClient({ grantTypes: ['password'] });
      const noPassword = await refused(oauth.token({ grant_type: 'password', username: 'u', ...withSecret(partner) }, undefined, address()), 'invalid_request');
      expect(noPassword.description).toBe('The password parameter is missing');
    });
  });

  describe('the authorization code grant', () => {
    it('exchanges a code for an access token of at most 30 minutes and a refresh token', async () => {
      const c = await confidentialClient();
      const user = await newUser();
      const code = await authorize(c, user.id);
      const response = await exchange(c, code);
      expect(response).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 1800, refresh_token: expect.any(String) });
      const check = await tokens.verify(response.access_token, c.client.id);
      expect(check).toMatchObject({ valid: true, grant: { userId: user.id, grantType: 'authorization_code', clientId: c.client.id } });
    });

    it('requires the redirect_uri of the authorization request, exactly', async () => {
      const c = await confidentialClient();
      const user = await newUser();
      const code = await authorize(c, user.id, { redirect_uri: `${REDIRECT}?lang=de` });
      await refused(exchange(c, code), 'invalid_grant');
      await expect(exchange(c, code, { redirect_uri: `${REDIRECT}?lang=de` })).resolves.toMatchObject({ token_type: 'Bearer' });
    });

    it('refuses a code issued to another client', async () => {
      const c = await confidentialClient();
      const other = await confidentialClient();
      const code = await authorize(c, (await newUser()).id);
      const error = await refused(exchange(other, code), 'invalid_grant');
      expect(error.description).toMatch(/another client/);
      await expect(exchange(c, code)).resolves.toMatchObject({ token_type: 'Bearer' });
    });

    it('refuses an unknown code', async () => {
      const c = await confidentialClient();
      await refused(exchange(c, 'not-a-code'), 'invalid_grant');
    });

    it('refuses a code older than 600 seconds', async () => {
      const c = await confidentialClient();
      const code = await authorize(c, (await newUser()).id);
      advance(600);
      const error = await refused(exchange(c, code), 'invalid_grant');
      expect(error.description).toMatch(/expired/);
    });

    it('refuses a reused code and revokes every access and refresh token issued from it', async () => {
      const c = await confidentialClient();
      const code = await authorize(c, (await newUser()).id);
      const first = await exchange(c, code);
      const refreshed = await refresh(c, first.refresh_token!);
      expect(await isValid(refreshed.access_token, c.client.id)).toBe(true);

      const replay = await refused(exchange(c, code), 'invalid_grant');
      expect(replay.description).toMatch(/already been used/);
      expect(await isValid(first.access_token, c.client.id)).toBe(false);
      expect(await isValid(refreshed.access_token, c.client.id)).toBe(false);
      await refused(refresh(c, first.refresh_token!), 'invalid_grant');
    });

    it('lets exactly one of two concurrent exchanges of one code win (and the loser’s replay revokes the winner’s tokens)', async () => {
      const c = await confidentialClient();
      const code = await authorize(c, (await newUser()).id);
      const outcomes = await Promise.allSettled([exchange(c, code), exchange(c, code), exchange(c, code)]);
      const won = outcomes.filter((o): o is PromiseFulfilledResult<TokenResponse> => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost.map((o) => (o.reason as OAuthError).code)).toEqual(['invalid_grant', 'invalid_grant']);
      expect(await isValid(won[0]!.value.access_token, c.client.id)).toBe(false);
    });

    describe('with PKCE (S256)', () => {
      it('accepts the verifier that hashes to the challenge (RFC 7636 Appendix B)', async () => {
        const c = await confidentialClient();
        const code = await authorize(c, (await newUser()).id, { code_challenge: PKCE.challenge, code_challenge_method: 'S256' });
        await expect(exchange(c, code, { code_verifier: PKCE.verifier })).resolves.toMatchObject({ token_type: 'Bearer' });
      });

      it('requires the verifier when the code has a challenge', async () => {
        const c = await confidentialClient();
        const code = await authorize(c, (await newUser()).id, { code_challenge: PKCE.challenge, code_challenge_method: 'S256' });
        await refused(exchange(c, code), 'invalid_grant');
      });

      it('refuses a verifier that does not hash to the challenge, and a malformed one', async () => {
        const c = await confidentialClient();
        const code = await authorize(c, (await newUser()).id, { code_challenge: PKCE.challenge, code_challenge_method: 'S256' });
        await refused(exchange(c, code, { code_verifier: OTHER_VERIFIER }), 'invalid_grant');
        await refused(exchange(c, code, { code_verifier: 'too-short' }), 'invalid_request');
        await refused(exchange(c, code, { code_verifier: `${PKCE.verifier}!` }), 'invalid_request');
        // Failed checks do not use the code up.
        await expect(exchange(c, code, { code_verifier: PKCE.verifier })).resolves.toMatchObject({ token_type: 'Bearer' });
      });

      it('refuses a verifier when the authorization request had no challenge', async () => {
        const c = await confidentialClient();
        const code = await authorize(c, (await newUser()).id);
        const error = await refused(exchange(c, code, { code_verifier: PKCE.verifier }), 'invalid_grant');
        expect(error.description).toMatch(/no code_challenge/);
      });

      it('lets a public client exchange its code with the verifier and no secret', async () => {
        const c = await publicClient();
        const response = await codeTokens(c, true);
        expect(response).toMatchObject({ token_type: 'Bearer', expires_in: 1800, refresh_token: expect.any(String) });
      });
    });
  });

  describe('the implicit grant', () => {
    it('puts a long-lived access token in the fragment, with no refresh token', async () => {
      const c = await publicClient();
      const user = await newUser();
      const request = ok(await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: `${REDIRECT}?x=1`, response_type: 'token', state: 'a b' }));
      const location = await oauth.completeAuthorization(request, user.id, 'allow');
      expect(location.startsWith(`${REDIRECT}?x=1#`)).toBe(true);
      const fragment = new URLSearchParams(new URL(location).hash.slice(1));
      expect(Object.fromEntries(fragment)).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: '31536000', state: 'a b' });
      const check = await tokens.verify(fragment.get('access_token')!, c.client.id);
      expect(check).toMatchObject({ valid: true, grant: { grantType: 'implicit', userId: user.id } });
      if (check.valid) expect(check.grant.expiresAt.getTime() - check.grant.issuedAt.getTime()).toBe(31_536_000_000);
    });
  });

  describe('the password grant', () => {
    const partner = () => confidentialClient({ grantTypes: ['password', 'refresh_token'] });
    const passwordGrant = (c: ClientCredentials, username: string, password: string, from = address()) =>
      oauth.token({ grant_type: 'password', username, password, ...withSecret(c) }, undefined, from);

    it('issues an access token and a refresh token to a client granted password', async () => {
      const c = await partner();
      const user = await newUser();
      const response = await passwordGrant(c, user.username, PASSWORD);
      expect(response).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 1800, refresh_token: expect.any(String) });
      expect(await tokens.verify(response.access_token, c.client.id)).toMatchObject({ valid: true, grant: { userId: user.id, grantType: 'password' } });
    });

    it('issues a refresh token even when the client’s grants do not list refresh_token (the spec’s response has one)', async () => {
      const c = await confidentialClient({ grantTypes: ['password'] });
      const user = await newUser();
      const response = await passwordGrant(c, user.username, PASSWORD);
      await expect(refresh(c, response.refresh_token!)).resolves.toMatchObject({ refresh_token: response.refresh_token });
    });

    it('refuses wrong credentials with invalid_grant', async () => {
      const c = await partner();
      const user = await newUser();
      const error = await refused(passwordGrant(c, user.username, 'wrong password'), 'invalid_grant');
      expect(error.description).toBe('The username or password is incorrect.');
      await refused(passwordGrant(c, 'nobody-at-all', PASSWORD), 'invalid_grant');
    });

    it('refuses a locked account with invalid_grant, even with the right password', async () => {
      const c = await partner();
      const user = await newUser();
      for (let i = 0; i < 5; i++) await refused(passwordGrant(c, user.username, 'wrong password'), 'invalid_grant');
      const error = await refused(passwordGrant(c, user.username, PASSWORD), 'invalid_grant');
      expect(error.description).toMatch(/locked after repeated failed sign-ins/);
    });

    it('answers 429 with a retry-after when the address has failed too often', async () => {
      const c = await partner();
      const from = address();
      for (let i = 0; i < 20; i++) await refused(passwordGrant(c, `nobody-${i}`, 'wrong password', from), 'invalid_grant');
      const user = await newUser();
      const error = await refused(passwordGrant(c, user.username, PASSWORD, from), 'invalid_grant', 429);
      expect(error.retryAfterSeconds).toBeGreaterThan(0);
      expect(error.description).toMatch(/Too many failed sign-ins from this address/);
    });
  });

  describe('the client credentials grant', () => {
    it('issues a token with no user and no refresh token', async () => {
      const c = await confidentialClient();
      const response = await oauth.token({ grant_type: 'client_credentials', ...withSecret(c) }, undefined, address());
      expect(response).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 1800 });
      expect(await tokens.verify(response.access_token, c.client.id)).toMatchObject({ valid: true, grant: { userId: null, grantType: 'client_credentials' } });
    });

    it('is the only grant of a sandbox client', async () => {
      const sandbox = await t.services.clients.create({ name: 'Sandbox', sandbox: true });
      await expect(oauth.token({ grant_type: 'client_credentials', ...withSecret(sandbox) }, undefined, address())).resolves.toMatchObject({ token_type: 'Bearer' });
      await refused(oauth.token({ grant_type: 'refresh_token', refresh_token: 'x', ...withSecret(sandbox) }, undefined, address()), 'unauthorized_client');
    });
  });

  describe('the refresh token grant', () => {
    it('lets a confidential client reuse its refresh token, repeating it, with access tokens of at most 30 minutes', async () => {
      const c = await confidentialClient();
      const first = await codeTokens(c);
      const again = await refresh(c, first.refresh_token);
      const once_more = await refresh(c, first.refresh_token);
      expect(again).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 1800, refresh_token: first.refresh_token });
      expect(once_more.refresh_token).toBe(first.refresh_token);
      expect(await isValid(again.access_token, c.client.id)).toBe(true);
      expect(await isValid(once_more.access_token, c.client.id)).toBe(true);
    });

    it('rotates a public client’s refresh token: each use returns a new one of the same family and expiry', async () => {
      const c = await publicClient();
      const first = await codeTokens(c);
      advance(3600);
      const second = await refresh(c, first.refresh_token);
      expect(second.refresh_token).toEqual(expect.any(String));
      expect(second.refresh_token).not.toBe(first.refresh_token);
      const [before, after] = await Promise.all([tokens.findRefreshToken(first.refresh_token), tokens.findRefreshToken(second.refresh_token!)]);
      expect(before?.replaced_at).toEqual(expect.any(String));
      expect(after).toMatchObject({ family: before!.family, expires_at: before!.expires_at, replaced_at: null });
      const third = await refresh(c, second.refresh_token!);
      expect(third.refresh_token).not.toBe(second.refresh_token);
    });

    it('revokes the whole family when a public client’s replaced refresh token comes back', async () => {
      const c = await publicClient();
      const first = await codeTokens(c);
      const second = await refresh(c, first.refresh_token);
      const error = await refused(refresh(c, first.refresh_token), 'invalid_grant');
      expect(error.description).toMatch(/already been used/);
      expect(await isValid(first.access_token, c.client.id)).toBe(false);
      expect(await isValid(second.access_token, c.client.id)).toBe(false);
      await refused(refresh(c, second.refresh_token!), 'invalid_grant');
    });

    it('lets exactly one of two concurrent refreshes of a public client’s token win', async () => {
      const c = await publicClient();
      const first = await codeTokens(c);
      const outcomes = await Promise.allSettled([refresh(c, first.refresh_token), refresh(c, first.refresh_token)]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const won = outcomes.find((o): o is PromiseFulfilledResult<TokenResponse> => o.status === 'fulfilled')!.value;
      await refused(refresh(c, won.refresh_token!), 'invalid_grant');
    });

    it('refuses a refresh token issued to another client', async () => {
      const c = await confidentialClient();
      const other = await confidentialClient();
      const first = await codeTokens(c);
      const error = await refused(refresh(other, first.refresh_token), 'invalid_grant');
      expect(error.description).toMatch(/another client/);
    });

    it('refuses an expired refresh token, and never gives an access token that outlives its refresh token', async () => {
      const c = await confidentialClient();
      const first = await codeTokens(c);
      advance(31_536_000 - 600);
      expect((await refresh(c, first.refresh_token)).expires_in).toBe(600);
      advance(600);
      const error = await refused(refresh(c, first.refresh_token), 'invalid_grant');
      expect(error.description).toMatch(/expired/);
    });

    it('refuses a refresh token after the user changed the password, which also revokes the access tokens', async () => {
      const c = await confidentialClient();
      const user = await newUser();
      const response = await exchange(c, await authorize(c, user.id));
      await users.changePassword(user.username, 'a brand new secret');
      expect(await isValid(response.access_token, c.client.id)).toBe(false);
      const error = await refused(refresh(c, response.refresh_token!), 'invalid_grant');
      expect(error.description).toMatch(/revoked/);
    });

    it('never accepts a refresh token as a bearer token, nor an access token as a refresh token', async () => {
      const c = await confidentialClient();
      const response = await codeTokens(c);
      expect(await tokens.verify(response.refresh_token, c.client.id)).toEqual({ valid: false, reason: 'The access token is invalid' });
      await refused(refresh(c, response.access_token), 'invalid_grant');
    });
  });

  describe('the authorization endpoint', () => {
    it('shows an error page, never a redirect, for a missing, unknown or disabled client_id', async () => {
      const c = await confidentialClient();
      await t.services.clients.disable(c.apiKey);
      for (const client_id of [undefined, 'nobody', c.apiKey]) {
        const query: Record<string, string> = { redirect_uri: REDIRECT, response_type: 'code' };
        if (client_id) query.client_id = client_id;
        expect(await oauth.checkAuthorization(query)).toMatchObject({ kind: 'error-page', message: expect.stringContaining('client_id') });
      }
    });

    it('shows an error page, never a redirect, for a missing or unregistered redirect_uri', async () => {
      const c = await confidentialClient();
      for (const redirect_uri of [undefined, 'https://evil.example.com/callback', 'http://app.example.com/callback', `${REDIRECT}#x`]) {
        const query: Record<string, string> = { client_id: c.apiKey, response_type: 'code' };
        if (redirect_uri) query.redirect_uri = redirect_uri;
        expect(await oauth.checkAuthorization(query)).toMatchObject({ kind: 'error-page', message: expect.stringContaining('redirect_uri') });
      }
    });

    it('accepts a local redirect URI that is not registered, and extra query parameters on a registered one', async () => {
      const c = await confidentialClient();
      for (const redirect_uri of ['http://localhost:8123/done', 'http://127.0.0.1/cb', `${REDIRECT}?session=9`]) {
        expect((await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri, response_type: 'code' })).kind).toBe('ok');
      }
    });

    it('answers a missing response_type with invalid_request and an unknown one with unsupported_response_type, at the redirect URI, keeping the state', async () => {
      const c = await confidentialClient();
      const cases: Array<[Record<string, string>, OAuthErrorCode]> = [
        [{}, 'invalid_request'],
        [{ response_type: 'id_token' }, 'unsupported_response_type'],
      ];
      for (const [query, error] of cases) {
        const check = await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: `${REDIRECT}?keep=1`, state: 'st&ate', ...query });
        expect(check.kind).toBe('redirect');
        if (check.kind !== 'redirect') return;
        const location = new URL(check.location);
        expect(location.origin + location.pathname).toBe(REDIRECT);
        expect(location.searchParams.get('keep')).toBe('1');
        expect(location.searchParams.get('error')).toBe(error);
        expect(location.searchParams.get('error_description')).toEqual(expect.any(String));
        expect(location.searchParams.get('state')).toBe('st&ate');
      }
    });

    it('takes the spec’s response_type authorization_code as code', async () => {
      const c = await confidentialClient();
      const check = await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: REDIRECT, response_type: 'authorization_code' });
      expect(ok(check)).toEqual({ clientId: c.apiKey, clientName: 'Web app', firstParty: false, responseType: 'code', redirectUri: REDIRECT, state: undefined, codeChallenge: undefined });
    });

    it('knows the server’s own client (held to exact redirects) as first-party, and a third-party client as not', async () => {
      const own = await t.services.clients.create({ name: 'Own site', confidential: false, redirectUris: [REDIRECT], exactRedirects: true, grantTypes: ['authorization_code'] });
      const third = await t.services.clients.create({ name: 'Third party', confidential: false, redirectUris: [REDIRECT], grantTypes: ['authorization_code'] });
      const query = { redirect_uri: REDIRECT, response_type: 'code', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };
      expect(ok(await oauth.checkAuthorization({ ...query, client_id: own.apiKey })).firstParty).toBe(true);
      expect(ok(await oauth.checkAuthorization({ ...query, client_id: third.apiKey })).firstParty).toBe(false);
    });

    it('answers unauthorized_client for a response_type whose grant the client may not use', async () => {
      const codeOnly = await t.services.clients.create({ name: 'Code only', grantTypes: ['authorization_code'], redirectUris: [REDIRECT] });
      const token = await oauth.checkAuthorization({ client_id: codeOnly.apiKey, redirect_uri: REDIRECT, response_type: 'token', state: 's' });
      expect(token.kind).toBe('redirect');
      if (token.kind !== 'redirect') return;
      const fragment = new URLSearchParams(new URL(token.location).hash.slice(1));
      expect(fragment.get('error')).toBe('unauthorized_client');
      expect(fragment.get('state')).toBe('s');
      expect(new URL(token.location).search).toBe('');
    });

    it('shows an error page to a client that may use neither redirecting grant (a sandbox one): nothing is redirected for it', async () => {
      const sandbox = await t.services.clients.create({ name: 'Sandbox', sandbox: true, redirectUris: [REDIRECT] });
      for (const responseType of ['code', 'token']) {
        const check = await oauth.checkAuthorization({ client_id: sandbox.apiKey, redirect_uri: REDIRECT, response_type: responseType, state: 's' });
        expect(check.kind).toBe('error-page');
      }
    });

    it('accepts only the S256 code_challenge_method', async () => {
      const c = await confidentialClient();
      const base = { client_id: c.apiKey, redirect_uri: REDIRECT, response_type: 'code' };
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ code_challenge: PKCE.verifier, code_challenge_method: 'plain' }, /Only the S256/],
        [{ code_challenge: PKCE.challenge }, /must be S256/],
        [{ code_challenge_method: 'S256' }, /without a code_challenge/],
        [{ code_challenge: 'short', code_challenge_method: 'S256' }, /43 base64url characters/],
      ];
      for (const [query, description] of cases) {
        const check = await oauth.checkAuthorization({ ...base, ...query });
        expect(check.kind, JSON.stringify(query)).toBe('redirect');
        if (check.kind !== 'redirect') return;
        const location = new URL(check.location);
        expect(location.searchParams.get('error')).toBe('invalid_request');
        expect(location.searchParams.get('error_description')).toMatch(description);
      }
      expect(ok(await oauth.checkAuthorization({ ...base, code_challenge: PKCE.challenge, code_challenge_method: 'S256' })).codeChallenge).toBe(PKCE.challenge);
    });

    it('requires PKCE (S256) of a public client asking for a code, not for a token', async () => {
      const c = await publicClient();
      const check = await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: REDIRECT, response_type: 'code' });
      expect(check.kind === 'redirect' && new URL(check.location).searchParams.get('error_description')).toBe(
        'PKCE (S256) is required for public clients: send code_challenge and code_challenge_method=S256',
      );
      expect((await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: REDIRECT, response_type: 'token' })).kind).toBe('ok');
    });

    it('sends the code and the unchanged state in the query, keeping the redirect URI’s own parameters', async () => {
      const c = await confidentialClient();
      const user = await newUser();
      const redirectUri = `${REDIRECT}?tenant=a%20b`;
      const request = ok(await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: redirectUri, response_type: 'code', state: 'x y/z=+' }));
      const location = await oauth.completeAuthorization(request, user.id, 'allow');
      expect(location).toMatch(new RegExp(`^${REDIRECT.replaceAll('.', '\\.').replaceAll('?', '\\?')}\\?tenant=a%20b&code=[A-Za-z0-9_-]{43}&state=x%20y%2Fz%3D%2B$`));
      expect(new URL(location).searchParams.get('state')).toBe('x y/z=+');
    });

    it('sends access_denied when the user declines, in the query for code and in the fragment for token', async () => {
      const c = await confidentialClient();
      const user = await newUser();
      const code = ok(await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: REDIRECT, response_type: 'code', state: 's' }));
      const denied = new URL(await oauth.completeAuthorization(code, user.id, 'deny'));
      expect(denied.searchParams.get('error')).toBe('access_denied');
      expect(denied.searchParams.get('state')).toBe('s');
      expect(denied.searchParams.has('code')).toBe(false);
      const token = ok(await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: REDIRECT, response_type: 'token' }));
      const deniedToken = new URL(await oauth.completeAuthorization(token, user.id, 'deny'));
      expect(new URLSearchParams(deniedToken.hash.slice(1)).get('error')).toBe('access_denied');
    });

    it('checks the request again when the user answers: a client disabled meanwhile gets nothing', async () => {
      const c = await confidentialClient();
      const user = await newUser();
      const request = ok(await oauth.checkAuthorization({ client_id: c.apiKey, redirect_uri: REDIRECT, response_type: 'code' }));
      await t.services.clients.disable(c.apiKey);
      await refused(oauth.completeAuthorization(request, user.id, 'allow'), 'invalid_request');
      const tampered = { ...request, redirectUri: 'https://evil.example.com/callback' };
      await t.services.clients.enable(c.apiKey);
      await refused(oauth.completeAuthorization(tampered, user.id, 'allow'), 'invalid_request');
    });

    it('signs users in through the sign-in guard', async () => {
      const user = await newUser();
      expect(await oauth.signIn(user.username, PASSWORD, address())).toEqual({ ok: true, userId: user.id });
      expect(await oauth.signIn(user.username, 'wrong password', address())).toMatchObject({ ok: false, reason: 'invalid' });
    });
  });
});
