/**
 * The shapes the OAuth module's HTTP layer (oauth.routes.ts, sign-in-page.ts) and its rules
 * (oauth.service.ts and grants/) agree on. Nothing here touches Fastify or the store.
 */

/** RFC 6749 §4.1.2.1, §4.2.2.1 and §5.2 error codes. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable';

/**
 * A refusal in RFC 6749's terms. The token endpoint answers it as
 * `{ "error": code, "error_description": description }` with `status`
 * (401 for invalid_client, 400 otherwise, 429 for throttled sign-ins).
 */
export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status: number = code === 'invalid_client' ? 401 : 400,
    /** Seconds a throttled caller should wait (Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
  }
}

/** The grants a client may be allowed; `refresh_token` is the refresh grant. */
export type GrantType = 'authorization_code' | 'implicit' | 'password' | 'client_credentials' | 'refresh_token';
export const GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'implicit', 'password', 'client_credentials', 'refresh_token'];

/** RFC 6749 §5.1, with expires_in as a number; the legacy endpoints turn it into a string. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
}

/** Client credentials as the token request carried them. */
export interface PresentedClient {
  clientId: string;
  /** undefined when no secret was sent (a public client, or a confidential one that forgot). */
  clientSecret: string | undefined;
  /** How they came: the form body or HTTP Basic (RFC 6749 §2.3.1). */
  via: 'body' | 'basic';
}

/** A checked request to the authorization endpoint. */
export interface AuthorizationRequest {
  /** The API key. */
  clientId: string;
  /** Display name of the client, for the consent text. */
  clientName: string;
  /**
   * This server's own client (the catalogue browser's, the docs page's): the person signs in to
   * the site itself, on its own sign-in page without the third-party consent wording. Known by
   * its exact redirects, which only the server's own registrations ask for.
   */
  firstParty: boolean;
  /** `code` (the spec's `authorization_code` is accepted as a synonym) or `token` (implicit). */
  responseType: 'code' | 'token';
  /** Exactly as the client sent it (it may carry extra, unregistered query parameters). */
  redirectUri: string;
  state: string | undefined;
  /** PKCE (RFC 7636): S256 only; required for public clients with response_type code. */
  codeChallenge: string | undefined;
}

/**
 * The outcome of checking an authorization request's query:
 * - `ok`: show the sign-in and consent page for `request`;
 * - `redirect`: the client and redirect URI are good but the request is not: send the
 *   browser to `location` (the error in the query for code, in the fragment for token);
 * - `error-page`: the client_id or redirect_uri is bad: show `message` on an error page and
 *   never redirect (RFC 6749 §4.1.2.1).
 */
export type AuthorizationCheck =
  | { kind: 'ok'; request: AuthorizationRequest }
  | { kind: 'redirect'; location: string }
  | { kind: 'error-page'; message: string };

/** The result of a sign-in attempt on the page. */
export type SignInResult =
  | { ok: true; userId: number }
  | { ok: false; reason: 'invalid' | 'locked' | 'throttled'; message: string; retryAfterSeconds?: number };

/** What the HTTP layer needs from the rules. Implemented by OAuthService. */
export interface OAuthEndpoints {
  /**
   * The token endpoint. `form` holds the body's fields (each at most once; the HTTP layer
   * refuses repeated ones with invalid_request); `basic` the Authorization: Basic credentials,
   * already URL-decoded. Throws OAuthError.
   */
  token(form: Record<string, string>, basic: PresentedClient | undefined, remoteAddress: string): Promise<TokenResponse>;
  /** Checks the authorization endpoint's query (each parameter at most once). */
  checkAuthorization(query: Record<string, string>): Promise<AuthorizationCheck>;
  /** Checks a username and password typed into the page (throttled, with lockout). */
  signIn(username: string, password: string, remoteAddress: string): Promise<SignInResult>;
  /**
   * Ends an authorization: for `allow`, issues a code (response_type code) or an access token
   * (token) for the user and returns the redirect location carrying it and the state; for
   * `deny`, the location carrying error=access_denied.
   */
  completeAuthorization(request: AuthorizationRequest, userId: number, decision: 'allow' | 'deny'): Promise<string>;
}
