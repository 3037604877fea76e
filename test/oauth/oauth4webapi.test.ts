import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { addImage } from '../helpers/catalog-fixtures.js';
import { FAMILIES, authorizeOverHttp, freePort, uniqueName } from '../helpers/oauth-fixtures.js';

/**
 * Stockroom's authorization server as an independent, strict client library sees it:
 * oauth4webapi (panva) over real HTTP on a loopback port. The library is the judge of
 * RFC 6749 / 6750 / 7636 conformance here — we only hand it the endpoints, as Stockroom
 * offers no discovery document.
 *
 * All three endpoint families run. The legacy one (/oauth2) says expires_in as a string;
 * oauth4webapi accepts that (it reads a non-number expires_in with parseFloat and checks the
 * result), so the only difference a client of that family sees is the type of that one
 * field, which the raw-response test below pins down.
 */

const PASSWORD = 'correct horse battery staple';
/** Every request to a plain-HTTP loopback server needs this (oauth4webapi refuses http:// otherwise). */
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

describe('oauth4webapi against Stockroom', () => {
  let t: TestApp;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: origin } });
    await t.app.listen({ port, host: '127.0.0.1' });
    await addImage(t.services, '1001');
  });
  afterAll(async () => {
    await t?.close();
  });

  async function newClient(options: { confidential?: boolean; grantTypes?: Array<'authorization_code' | 'implicit' | 'password' | 'client_credentials' | 'refresh_token'> } = {}) {
    const { apiKey, apiSecret } = await t.services.clients.create({
      name: uniqueName('o4w'),
      redirectUris: ['https://client.example/callback'],
      queriesPerSecond: 100_000,
      queriesPerDay: 10_000_000,
      ...(options.confidential !== undefined ? { confidential: options.confidential } : {}),
      ...(options.grantTypes !== undefined ? { grantTypes: options.grantTypes } : {}),
    });
    const client: oauth.Client = { client_id: apiKey };
    return { client, apiKey, apiSecret };
  }

  function secret(apiSecret: string | undefined): string {
    if (apiSecret === undefined) throw new Error('no secret');
    return apiSecret;
  }

  async function newUser() {
    const username = uniqueName('o4w-user');
    await t.services.users.create({ username, password: PASSWORD });
    return { username, password: PASSWORD };
  }

  /** A search through oauth4webapi's protected-resource request: it throws on a Bearer challenge. */
  async function search(apiKey: string, accessToken: string): Promise<Response> {
    return oauth.protectedResourceRequest(
      accessToken,
      'GET',
      new URL(`${origin}/v3/search/images?phrase=harbour`),
      new Headers({ 'api-key': apiKey }),
      null,
      INSECURE,
    );
  }

  /** The challenge oauth4webapi parsed out of a 401, or fails. */
  async function challengeOf(promise: Promise<unknown>): Promise<oauth.WWWAuthenticateChallenge[]> {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    return (error as oauth.WWWAuthenticateChallengeError).cause;
  }

  /** The OAuth error oauth4webapi read from an error response body, or fails. */
  async function bodyErrorOf(promise: Promise<unknown>): Promise<oauth.ResponseBodyError> {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error, String(error)).toBeInstanceOf(oauth.ResponseBodyError);
    return error as oauth.ResponseBodyError;
  }

  for (const { family, prefix, expiresIn } of FAMILIES) {
    describe(`${prefix} (${family})`, () => {
      let as: oauth.AuthorizationServer;

      beforeAll(() => {
        as = {
          issuer: `${origin}/auth`,
          token_endpoint: `${origin}${prefix}/token`,
          authorization_endpoint: `${origin}${prefix}/auth`,
        };
      });

      it(`answers expires_in as ${expiresIn === 'string' ? 'a string' : 'an integer'} on the wire`, async () => {
        const { apiKey, apiSecret } = await newClient();
        const response = await fetch(as.token_endpoint!, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'client_credentials', client_id: apiKey, client_secret: secret(apiSecret) }),
        });
        expect(response.status).toBe(200);
        expect(typeof ((await response.json()) as { expires_in: unknown }).expires_in).toBe(expiresIn);
      });

      it('client credentials with ClientSecretBasic', async () => {
        const { client, apiKey, apiSecret } = await newClient();
        const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(secret(apiSecret)), {}, INSECURE);
        const result = await oauth.processClientCredentialsResponse(as, client, response);
        expect(result.token_type).toBe('bearer');
        expect(result.expires_in).toBeGreaterThan(0);
        expect(result.refresh_token).toBeUndefined();
        expect(response.headers.get('cache-control')).toMatch(/no-store/);
        expect((await search(apiKey, result.access_token)).status).toBe(200);
      });

      it('client credentials with ClientSecretPost', async () => {
        const { client, apiKey, apiSecret } = await newClient();
        const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(secret(apiSecret)), {}, INSECURE);
        const result = await oauth.processClientCredentialsResponse(as, client, response);
        expect(result.refresh_token).toBeUndefined();
        expect((await search(apiKey, result.access_token)).status).toBe(200);
      });

      it('a wrong secret through Basic is a Basic challenge the library understands', async () => {
        const { client } = await newClient();
        const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic('not-the-secret'), {}, INSECURE);
        expect(response.status).toBe(401);
        const challenges = await challengeOf(oauth.processClientCredentialsResponse(as, client, response));
        expect(challenges.map((challenge) => challenge.scheme)).toContain('basic');
      });

      it('a wrong secret in the form is invalid_client', async () => {
        const { client } = await newClient();
        const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost('not-the-secret'), {}, INSECURE);
        expect(response.status).toBe(401);
        // A 401 may carry a challenge (then the library reports that) or just the JSON body.
        const error = await oauth.processClientCredentialsResponse(as, client, response).then(
          () => undefined,
          (reason: unknown) => reason,
        );
        if (error instanceof oauth.WWWAuthenticateChallengeError) {
          expect(error.status).toBe(401);
        } else {
          expect(error).toBeInstanceOf(oauth.ResponseBodyError);
          expect((error as oauth.ResponseBodyError).error).toBe('invalid_client');
        }
      });

      it('resource owner password grant (generic token endpoint request), then refresh', async () => {
        const { client, apiKey, apiSecret } = await newClient({ grantTypes: ['password', 'refresh_token'] });
        const user = await newUser();
        const auth = oauth.ClientSecretPost(secret(apiSecret));
        const response = await oauth.genericTokenEndpointRequest(as, client, auth, 'password', user, INSECURE);
        const result = await oauth.processGenericTokenEndpointResponse(as, client, response);
        expect(result.token_type).toBe('bearer');
        expect(typeof result.refresh_token).toBe('string');
        expect((await search(apiKey, result.access_token)).status).toBe(200);

        const refreshed = await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic(secret(apiSecret)), result.refresh_token!, INSECURE),
        );
        expect(refreshed.expires_in).toBeLessThanOrEqual(1800);
        // A confidential client keeps its refresh token.
        expect(refreshed.refresh_token).toBe(result.refresh_token);
        expect((await search(apiKey, refreshed.access_token)).status).toBe(200);
      });

      it('a wrong password is invalid_grant', async () => {
        const { client, apiSecret } = await newClient({ grantTypes: ['password'] });
        const user = await newUser();
        const response = await oauth.genericTokenEndpointRequest(
          as,
          client,
          oauth.ClientSecretPost(secret(apiSecret)),
          'password',
          { username: user.username, password: 'wrong password' },
          INSECURE,
        );
        const error = await bodyErrorOf(oauth.processGenericTokenEndpointResponse(as, client, response));
        expect(error.error).toBe('invalid_grant');
        expect(error.status).toBe(400);
      });

      it('authorization code with PKCE for a public client (None), then refresh with rotation', async () => {
        const { client, apiKey, apiSecret } = await newClient({ confidential: false });
        expect(apiSecret).toBeUndefined();
        const user = await newUser();
        // A native app's loopback redirect: needs neither registration nor HTTPS.
        const redirectUri = 'http://127.0.0.1:9/callback';
        const state = oauth.generateRandomState();
        const verifier = oauth.generateRandomCodeVerifier();
        const authorizationUrl = new URL(as.authorization_endpoint!);
        authorizationUrl.search = new URLSearchParams({
          client_id: client.client_id,
          response_type: 'code',
          redirect_uri: redirectUri,
          state,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        }).toString();

        const { status, location, body } = await authorizeOverHttp(authorizationUrl.href, user);
        expect(status, body.slice(0, 300)).toBe(302);
        if (location === null) throw new Error('no Location');
        const callback = new URL(location);
        expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);

        const parameters = oauth.validateAuthResponse(as, client, callback, state);
        const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), parameters, redirectUri, verifier, INSECURE);
        const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
        expect(tokens.token_type).toBe('bearer');
        expect(typeof tokens.refresh_token).toBe('string');
        expect((await search(apiKey, tokens.access_token)).status).toBe(200);

        const refreshed = await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, INSECURE),
        );
        expect(refreshed.expires_in).toBeLessThanOrEqual(1800);
        expect(typeof refreshed.refresh_token).toBe('string');
        expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
        expect((await search(apiKey, refreshed.access_token)).status).toBe(200);

        // The code again: invalid_grant, and the tokens it gave are revoked.
        const again = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), parameters, redirectUri, verifier, INSECURE);
        expect((await bodyErrorOf(oauth.processAuthorizationCodeResponse(as, client, again))).error).toBe('invalid_grant');
        const challenges = await challengeOf(search(apiKey, tokens.access_token));
        expect(challenges[0]?.scheme).toBe('bearer');
        expect(challenges[0]?.parameters.error).toBe('invalid_token');
        expect(challenges[0]?.parameters.realm).toBeTruthy();
      });

      it('authorization code for a confidential client with ClientSecretBasic and PKCE', async () => {
        const { client, apiKey, apiSecret } = await newClient();
        const user = await newUser();
        const redirectUri = 'https://client.example/callback';
        const state = oauth.generateRandomState();
        const verifier = oauth.generateRandomCodeVerifier();
        const authorizationUrl = new URL(as.authorization_endpoint!);
        authorizationUrl.search = new URLSearchParams({
          client_id: client.client_id,
          response_type: 'code',
          redirect_uri: redirectUri,
          state,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        }).toString();
        const { status, location } = await authorizeOverHttp(authorizationUrl.href, user);
        expect(status).toBe(302);
        const parameters = oauth.validateAuthResponse(as, client, new URL(location!), state);
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.ClientSecretBasic(secret(apiSecret)),
          parameters,
          redirectUri,
          verifier,
          INSECURE,
        );
        const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
        expect((await search(apiKey, tokens.access_token)).status).toBe(200);
      });

      it('a denied authorization is an AuthorizationResponseError with access_denied', async () => {
        const { client } = await newClient();
        const user = await newUser();
        const state = oauth.generateRandomState();
        const authorizationUrl = new URL(as.authorization_endpoint!);
        authorizationUrl.search = new URLSearchParams({
          client_id: client.client_id,
          response_type: 'code',
          redirect_uri: 'https://client.example/callback',
          state,
        }).toString();
        const { status, location } = await authorizeOverHttp(authorizationUrl.href, { ...user, decision: 'deny' });
        expect(status).toBe(302);
        let error: unknown;
        try {
          oauth.validateAuthResponse(as, client, new URL(location!), state);
        } catch (reason) {
          error = reason;
        }
        expect(error).toBeInstanceOf(oauth.AuthorizationResponseError);
        expect((error as oauth.AuthorizationResponseError).error).toBe('access_denied');
      });
    });
  }

  it('the API answers a missing token with a bare Bearer challenge, and a bad one with invalid_token', async () => {
    const response = await fetch(`${origin}/v3/images/1001?fields=downloads`, { headers: { 'api-key': t.apiKey } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+"$/);
    // protectedResourceRequest always sends a token: a bogus one's challenge, as the library parses it.
    const challenges = await challengeOf(
      oauth.protectedResourceRequest('not-a-token', 'GET', new URL(`${origin}/v3/search/images?phrase=x`), new Headers({ 'api-key': t.apiKey }), null, INSECURE),
    );
    expect(challenges[0]?.parameters.error).toBe('invalid_token');
  });
});
