/**
 * The rules of the OAuth 2.0 endpoints (RFC 6749, RFC 7636, RFC 9700), with no HTTP in
 * them: oauth.routes.ts and sign-in-page.ts call these.
 *
 * The token endpoint is a pipeline of small checks, in this order:
 *  1. which client the request presents (form or HTTP Basic, never both);
 *  2. client authentication: an enabled client; a confidential one with its secret, a
 *     public one with no secret at all (the spec: sending one makes the request fail);
 *  3. grant_type: present, served here, allowed to this client;
 *  4. the grant's required parameters;
 *  5. the grant itself (grants/, one module each), found in TOKEN_ENDPOINT_GRANTS.
 * Parameters a grant does not use are ignored.
 */
import type { ApiClient, ClientsService } from './clients.service.js';
import { RESPONSE_TYPES } from './grant-policy.js';
import { AuthorizationCodeGrant, S256_CODE_CHALLENGE } from './grants/authorization-code.js';
import { ClientCredentialsGrant } from './grants/client-credentials.js';
import type { TokenGrant, TokenLifetimes } from './grants/grant.js';
import { ImplicitGrant } from './grants/implicit.js';
import { PasswordGrant } from './grants/password.js';
import { RefreshTokenGrant } from './grants/refresh-token.js';
import { InvalidClient, InvalidRequest, UnauthorizedClient, UnsupportedGrantType } from './oauth.errors.js';
import type { OAuthStore } from './oauth.store.js';
import type {
  AuthorizationCheck,
  AuthorizationRequest,
  GrantType,
  OAuthEndpoints,
  OAuthErrorCode,
  PresentedClient,
  SignInResult,
  TokenResponse,
} from './oauth.types.js';
import { checkRequestedRedirectUri, withParameters } from './redirect-uris.js';
import type { SignInGuard } from './sign-in-guard.js';
import type { TokensService } from './tokens.service.js';

export interface OAuthServiceOptions {
  clients: ClientsService;
  tokens: TokensService;
  store: OAuthStore;
  guard: SignInGuard;
  lifetimes: TokenLifetimes;
  now?: () => Date;
}

/** Grants served at the token endpoint, by grant_type. (implicit is not: its token comes from the authorization endpoint.) */
export type TokenEndpointGrants = Partial<Record<GrantType, TokenGrant>>;

const NOT_AT_TOKEN_ENDPOINT: ReadonlyMap<string, string> = new Map([
  ['implicit', 'The implicit grant issues its token at the authorization endpoint (response_type=token), not at the token endpoint'],
]);

/** The grants whose tokens or codes travel through the browser to a redirect URI. */
const REDIRECTING_GRANTS: readonly GrantType[] = ['authorization_code', 'implicit'];

/** `state` goes back in a Location header: a generous bound, far below header limits. */
const MAX_STATE_LENGTH = 2048;

export class OAuthService implements OAuthEndpoints {
  private readonly clients: ClientsService;
  private readonly authorizationCode: AuthorizationCodeGrant;
  private readonly implicit: ImplicitGrant;
  private readonly guard: SignInGuard;
  readonly grants: TokenEndpointGrants;

  constructor(options: OAuthServiceOptions) {
    const now = options.now ?? (() => new Date());
    const { tokens, store, lifetimes, guard } = options;
    this.clients = options.clients;
    this.authorizationCode = new AuthorizationCodeGrant({ store, tokens, lifetimes, now });
    this.implicit = new ImplicitGrant({ tokens, lifetimes });
    this.guard = guard;
    this.grants = {
      authorization_code: this.authorizationCode,
      password: new PasswordGrant({ guard, tokens, lifetimes, now }),
      client_credentials: new ClientCredentialsGrant({ tokens, lifetimes }),
      refresh_token: new RefreshTokenGrant({ store, tokens, lifetimes, now }),
    };
  }

  async token(form: Record<string, string>, basic: PresentedClient | undefined, remoteAddress: string): Promise<TokenResponse> {
    const client = await this.authenticateClient(presentedClient(form, basic));
    const grant = this.grantFor(form.grant_type, client);
    for (const name of grant.requiredParameters) {
      if (!form[name]) throw new InvalidRequest(`The ${name} parameter is missing`);
    }
    return grant.exchange({ client, form, remoteAddress });
  }

  async checkAuthorization(query: Record<string, string>): Promise<AuthorizationCheck> {
    const checked = await this.checkAuthorizationQuery(query);
    return checked.kind === 'ok' ? { kind: 'ok', request: checked.request } : checked;
  }

  signIn(username: string, password: string, remoteAddress: string): Promise<SignInResult> {
    return this.guard.signIn(username, password, remoteAddress);
  }

  async completeAuthorization(request: AuthorizationRequest, userId: number, decision: 'allow' | 'deny'): Promise<string> {
    // The request may have waited on the sign-in page (and travelled through the browser):
    // it is checked again, against the client as it is now.
    const checked = await this.checkAuthorizationQuery(authorizationQuery(request));
    if (checked.kind === 'error-page') throw new InvalidRequest(checked.message);
    if (checked.kind === 'redirect') return checked.location;
    const { client } = checked;
    const { redirectUri, state, responseType, codeChallenge } = checked.request;
    const where = responseType === 'code' ? 'query' : 'fragment';
    if (decision === 'deny') {
      return withParameters(redirectUri, { error: 'access_denied', error_description: 'The user did not authorize the application', state }, where);
    }
    if (responseType === 'code') {
      const code = await this.authorizationCode.issueCode({ client, userId, redirectUri, codeChallenge });
      return withParameters(redirectUri, { code, state }, 'query');
    }
    const { accessToken, expiresIn } = await this.implicit.issue(client, userId);
    return withParameters(redirectUri, { access_token: accessToken, token_type: 'Bearer', expires_in: String(expiresIn), state }, 'fragment');
  }

  /** Step 2 of the pipeline: the enabled client, authenticated as its kind requires. */
  private async authenticateClient(presented: PresentedClient | undefined): Promise<ApiClient> {
    if (!presented) throw new InvalidClient('The request names no client: send client_id in the form or use HTTP Basic');
    const client = await this.clients.find(presented.clientId);
    if (!client) throw new InvalidClient('The client_id does not name an enabled application');
    const secret = presented.clientSecret === '' ? undefined : presented.clientSecret;
    if (!client.confidential) {
      if (secret !== undefined) throw new InvalidClient('A public client must not send a client_secret');
      return client;
    }
    if (secret === undefined) throw new InvalidClient('The client_secret is missing');
    if (!(await this.clients.verifySecret(presented.clientId, secret))) throw new InvalidClient('The client_secret is incorrect');
    return client;
  }

  /** Step 3 of the pipeline. */
  private grantFor(grantType: string | undefined, client: ApiClient): TokenGrant {
    if (!grantType) throw new InvalidRequest('The grant_type parameter is missing');
    const elsewhere = NOT_AT_TOKEN_ENDPOINT.get(grantType);
    if (elsewhere) throw new UnsupportedGrantType(elsewhere);
    const grant = Object.hasOwn(this.grants, grantType) ? this.grants[grantType as GrantType] : undefined;
    // The value is not echoed: error_description allows only some ASCII (RFC 6749 §5.2).
    if (!grant) throw new UnsupportedGrantType('The grant_type is not one this server supports (authorization_code, password, client_credentials, refresh_token)');
    if (!client.grantTypes.includes(grant.type)) throw new UnauthorizedClient(`This application may not use the ${grant.type} grant`);
    return grant;
  }

  /**
   * The authorization endpoint's rules, in RFC 6749 §4.1.2.1's order: until the client and
   * the redirect URI are known to be good, an error is shown on a page and never
   * redirected; after that, errors go back to the client at the redirect URI.
   */
  private async checkAuthorizationQuery(query: Record<string, string>): Promise<CheckedAuthorization> {
    const clientId = query.client_id;
    if (!clientId) return errorPage('The request has no client_id.');
    const client = await this.clients.find(clientId);
    if (!client) return errorPage('The client_id does not name an enabled application.');
    const redirectUri = query.redirect_uri;
    if (!redirectUri) return errorPage('The request has no redirect_uri.');
    const redirect = checkRequestedRedirectUri(redirectUri, client.redirectUris, { exact: client.exactRedirects });
    if (!redirect.ok) return errorPage(`The redirect_uri ${redirect.reason}.`);
    // A client that may use neither redirecting grant (a sandbox one) has no business here:
    // nothing is redirected for it, not even an error.
    if (!REDIRECTING_GRANTS.some((grant) => client.grantTypes.includes(grant))) {
      return errorPage('This application may not sign users in (it has neither the authorization_code nor the implicit grant).');
    }
    const state = query.state;
    if (state !== undefined && state.length > MAX_STATE_LENGTH) return errorPage(`The state parameter is longer than ${MAX_STATE_LENGTH} characters.`);
    // A local redirect URI that nobody registered is not trusted with an error before the user
    // has signed in and seen where it leads (else any client_id would make this server an open
    // redirector onto the user's machine, RFC 9700 §4.11.2): such errors are shown here.
    const refuseTo = (where: 'query' | 'fragment', code: OAuthErrorCode, description: string) =>
      redirect.registered ? redirectError(redirectUri, where, code, description, state) : errorPage(`${description} (${code}).`);

    const responseType = query.response_type && Object.hasOwn(RESPONSE_TYPES, query.response_type) ? RESPONSE_TYPES[query.response_type] : undefined;
    // RFC 6749 §4.1.2.1: a missing parameter is invalid_request; one this server does not
    // serve is unsupported_response_type. Either way the error goes in the query: without a
    // known response_type there is no telling that the client reads fragments.
    if (!query.response_type) return refuseTo('query', 'invalid_request', 'The response_type parameter is missing');
    if (!responseType) return refuseTo('query', 'unsupported_response_type', 'The response_type must be code (or authorization_code) or token');
    const where = responseType.responseType === 'code' ? 'query' : 'fragment';
    const refuse = (code: OAuthErrorCode, description: string) => refuseTo(where, code, description);
    if (!client.grantTypes.includes(responseType.grant)) {
      return refuse('unauthorized_client', `This application may not use the ${responseType.grant} grant`);
    }

    let codeChallenge: string | undefined;
    if (responseType.responseType === 'code') {
      const problem = pkceProblem(query.code_challenge, query.code_challenge_method, client);
      if (problem) return refuse('invalid_request', problem);
      codeChallenge = query.code_challenge;
    }
    return {
      kind: 'ok',
      client,
      request: { clientId, clientName: client.name, firstParty: client.exactRedirects, responseType: responseType.responseType, redirectUri, state, codeChallenge },
    };
  }
}

/**
 * PKCE at the authorization endpoint (RFC 7636 §4.3, RFC 9700 §2.1.1): S256 only. A
 * challenge without a method means `plain` (RFC 7636's default), which is refused too.
 * Public clients must use it; confidential ones may.
 */
function pkceProblem(challenge: string | undefined, method: string | undefined, client: ApiClient): string | undefined {
  if (method !== undefined && method !== 'S256') return 'Only the S256 code_challenge_method is supported (plain is not)';
  if (challenge === undefined) {
    if (method !== undefined) return 'A code_challenge_method was sent without a code_challenge';
    if (!client.confidential) return 'PKCE (S256) is required for public clients: send code_challenge and code_challenge_method=S256';
    return undefined;
  }
  if (method === undefined) return 'The code_challenge_method must be S256 (without it, RFC 7636 means plain, which is not supported)';
  if (!S256_CODE_CHALLENGE.test(challenge)) return 'The code_challenge must be 43 base64url characters (an S256 digest)';
  return undefined;
}

/** Step 1 of the pipeline: RFC 6749 §2.3 allows one way of authenticating per request. */
function presentedClient(form: Record<string, string>, basic: PresentedClient | undefined): PresentedClient | undefined {
  const formId = form.client_id;
  if (basic) {
    if (form.client_secret !== undefined) {
      throw new InvalidRequest('Send the client credentials either with HTTP Basic or in the form, not both');
    }
    if (formId !== undefined && formId !== basic.clientId) {
      throw new InvalidRequest('The client_id in the form differs from the one in the Authorization header');
    }
    return basic;
  }
  if (!formId) return undefined;
  return { clientId: formId, clientSecret: form.client_secret, via: 'body' };
}

/** An authorization check, with the client when it passed. */
type CheckedAuthorization = Exclude<AuthorizationCheck, { kind: 'ok' }> | { kind: 'ok'; request: AuthorizationRequest; client: ApiClient };

function errorPage(message: string): CheckedAuthorization {
  return { kind: 'error-page', message };
}

function redirectError(
  redirectUri: string,
  where: 'query' | 'fragment',
  error: OAuthErrorCode,
  description: string,
  state: string | undefined,
): CheckedAuthorization {
  return { kind: 'redirect', location: withParameters(redirectUri, { error, error_description: description, state }, where) };
}

/** The query an authorization request was checked from. */
function authorizationQuery(request: AuthorizationRequest): Record<string, string> {
  const query: Record<string, string> = {
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    response_type: request.responseType,
  };
  if (request.state !== undefined) query.state = request.state;
  if (request.codeChallenge !== undefined) {
    query.code_challenge = request.codeChallenge;
    query.code_challenge_method = 'S256';
  }
  return query;
}
