import { Type, type Static, type TProperties } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { OAuthErrorBody, Redirect } from '../platform/http/openapi.js';
import { FORM_CONTENT_TYPE } from './form-body.js';
import { RESPONSE_TYPES } from './grant-policy.js';

/*
 * The OAuth endpoints' parameters: what each route validates with and what the API description
 * shows. The form reader (form-body.ts) hands the validator an object of the form's or the
 * query's fields, each given once, blank ones dropped (RFC 6749 §3.1, §3.2: "treated as if they
 * were omitted"); the routes turn a refusal into RFC 6749's answers, never a validator's.
 * Parameters no schema names are ignored, as RFC 6749 §3.1 and §3.2 ask.
 */

const FORM = [FORM_CONTENT_TYPE] as const;

/** A form value: the endpoints read an empty one as absent. */
const Value = (description: string) => Type.String({ minLength: 1, description });

const clientCredentials = {
  client_id: Type.Optional(Value('The application’s client id (its API key), unless sent with HTTP Basic.')),
  client_secret: Type.Optional(Value('The application’s secret (confidential applications), unless sent with HTTP Basic.')),
};

const grant = <const G extends string, P extends TProperties>(grantType: G, parameters: P) =>
  Type.Object({ grant_type: Type.Literal(grantType), ...parameters, ...clientCredentials });

/**
 * RFC 6749 §4.1.3, §4.3.2, §4.4.2, §6: one form per grant. The implicit grant has none: its
 * token comes from the authorization endpoint.
 */
export const TokenRequest = Type.Union(
  [
    grant('password', { username: Value('The user’s username.'), password: Value('The user’s password.') }),
    grant('client_credentials', {}),
    grant(
      'authorization_code',
      {
        code: Value('The code from the authorization endpoint’s redirect.'),
        redirect_uri: Value('The redirect_uri of the authorization request.'),
        code_verifier: Type.Optional(Value('The PKCE verifier (RFC 7636), when the authorization request had a code_challenge.')),
      },
    ),
    grant('refresh_token', { refresh_token: Value('A refresh token issued with an earlier access token.') }),
  ],
  { description: 'The grant and its parameters; client credentials in the form or with HTTP Basic (RFC 6749 §2.3.1).' },
);
export type TokenRequest = Static<typeof TokenRequest>;

/** Which of the token request's forms (its place in the union) is the one for this grant_type; -1 for none. */
export function tokenFormIndex(grantType: string): number {
  return TokenRequest.anyOf.findIndex((form) => form.properties.grant_type.const === grantType);
}

/** The grant types the token endpoint serves, as its schema lists them. */
export const TOKEN_GRANT_TYPES: readonly string[] = TokenRequest.anyOf.map((form) => form.properties.grant_type.const);

const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.String({ description: 'Bearer' }),
    expires_in: Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Integer({ minimum: 0 })], {
      description: 'Seconds the token lives: a string ("1800") from /oauth2/token, an integer from the newer endpoints.',
    }),
    refresh_token: Type.Optional(Type.String()),
  },
  { description: 'RFC 6749 §5.1 (never cached: Cache-Control no-store).' },
);

const oauthError = (description: string) => ({ ...OAuthErrorBody, description });

/** POST …/oauth2/token. */
export const tokenEndpointSchema = (family: 'legacy' | 'newer') =>
  ({
    tags: ['oauth'],
    summary: family === 'legacy' ? 'OAuth 2.0 token endpoint (earlier family: expires_in is a string)' : 'OAuth 2.0 token endpoint',
    description:
      'RFC 6749 §3.2. Credentials and grant parameters travel in the form body only (never the URL: 400 invalid_request). ' +
      'Each parameter at most once; one without a value counts as omitted. Errors are RFC 6749 §5.2 JSON: a missing or ' +
      'repeated parameter is invalid_request, a grant_type not listed here unsupported_grant_type; invalid_client with ' +
      'HTTP Basic answers 401 with a Basic challenge.',
    security: [],
    consumes: FORM,
    body: TokenRequest,
    response: {
      200: TokenResponse,
      400: oauthError('invalid_request (missing or repeated parameter, wrong body type), invalid_grant, unauthorized_client, unsupported_grant_type, invalid_client'),
      401: oauthError('invalid_client, when the client authenticated with HTTP Basic (WWW-Authenticate: Basic)'),
      429: oauthError('invalid_grant: too many failed sign-ins for this user or address; Retry-After says when to try again'),
    },
  }) satisfies FastifySchema;

const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const redirect = (status: 302, description: string) =>
  Redirect(`${description} (HTTP ${status}): Location is the client’s redirect_uri with the code, the token or the error`);

export const AuthorizationQuery = Type.Object({
  client_id: Value('The application’s client id (its API key).'),
  response_type: Type.Unsafe<string>({ type: 'string', enum: Object.keys(RESPONSE_TYPES), description: 'code (authorization code grant) or token (implicit grant).' }),
  redirect_uri: Value('One of the application’s registered redirect URIs.'),
  state: Type.Optional(Type.String({ maxLength: 2048, description: 'Returned unchanged with the redirect.' })),
  // Read with response_type=code only, so no pattern here: a bad one is refused by a redirect with invalid_request.
  code_challenge: Type.Optional(
    Type.String({ description: 'PKCE (RFC 7636), with response_type=code: the S256 digest of the verifier, 43 base64url characters; required for public applications.' }),
  ),
  code_challenge_method: Type.Optional(Type.String({ description: 'With response_type=code and code_challenge: S256 (plain is not supported).' })),
});
export type AuthorizationQuery = Static<typeof AuthorizationQuery>;

/**
 * The authorization request's parameters among `fields` (the ones the sign-in form carries from
 * the GET to the POST, and the rules check), each a non-empty text.
 */
export function authorizationParameters(fields: Readonly<Record<string, unknown>>): Record<string, string> {
  const parameters: Record<string, string> = Object.create(null);
  for (const name of Object.keys(AuthorizationQuery.properties)) {
    const value = fields[name];
    if (typeof value === 'string' && value !== '') parameters[name] = value;
  }
  return parameters;
}

/** GET …/oauth2/auth. */
export const authorizationPageSchema = {
  tags: ['oauth'],
  summary: 'OAuth 2.0 authorization endpoint: the sign-in and consent page',
  description:
    'RFC 6749 §3.1. Each parameter at most once; one without a value counts as omitted. Until client_id and ' +
    'redirect_uri are known to be good, a problem is shown on a page (400) and never redirected; after that, errors go ' +
    'back to the redirect_uri (302).',
  security: [],
  querystring: AuthorizationQuery,
  response: {
    200: html('The sign-in and consent page'),
    302: redirect(302, 'An error for the application'),
    400: html('A page saying what is wrong with the request (unknown client, unregistered redirect_uri, …)'),
  },
} satisfies FastifySchema;

/** The sign-in form's field that must match its cookie (a double-submit CSRF token). */
export const CSRF_FIELD = 'csrf_token';

export const AuthorizationForm = Type.Object({
  [CSRF_FIELD]: Value('The hidden field of the page; must match its cookie.'),
  decision: Type.Unsafe<'allow' | 'deny'>({ type: 'string', enum: ['allow', 'deny'], description: 'The button pressed; without one the page is shown again.' }),
  username: Type.Optional(Type.String({ description: 'With allow: the user’s username.' })),
  password: Type.Optional(Type.String({ description: 'With allow: the user’s password.' })),
  ...AuthorizationQuery.properties,
});

/** POST …/oauth2/auth: the page's form. */
export const authorizationFormSchema = {
  tags: ['oauth'],
  summary: 'OAuth 2.0 authorization endpoint: the sign-in form’s submission',
  description:
    'Posted by the sign-in page, with its hidden fields and the CSRF cookie it set. Allow with a good username and ' +
    'password, or Deny, answers 302 (the spec’s status) to the redirect_uri with the code, the token or access_denied.',
  security: [],
  consumes: FORM,
  body: AuthorizationForm,
  response: {
    302: redirect(302, 'The answer for the application'),
    400: html('The page again, saying what is missing; or a page saying what is wrong with the request'),
    401: html('The page again: username or password wrong'),
    403: html('The sign-in form has expired (its CSRF cookie is missing or does not match)'),
    429: html('The page again: too many failed sign-ins; Retry-After says when to try again'),
  },
} satisfies FastifySchema;
