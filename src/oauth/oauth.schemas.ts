import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { OAuthErrorBody, Redirect } from '../platform/http/openapi.js';
import { FORM_CONTENT_TYPE } from './form-body.js';
import { RESPONSE_TYPES } from './grant-policy.js';

/*
 * What the API description says of the OAuth endpoints. They read their forms and queries
 * themselves (RFC 6749's error shapes, never a schema validator's), so these schemas are for
 * the document only: each route carries them as `schema.documented`.
 */

const FORM = [FORM_CONTENT_TYPE] as const;

/** A form value: the endpoints read an empty one as absent. */
const Value = (description: string) => Type.String({ minLength: 1, description });

const clientCredentials = {
  client_id: Type.Optional(Value('The application’s client id (its API key), unless sent with HTTP Basic.')),
  client_secret: Type.Optional(Value('The application’s secret (confidential applications), unless sent with HTTP Basic.')),
};

const grant = (grantType: string, required: Record<string, TSchema>, optional: Record<string, TSchema> = {}) =>
  Type.Object({ grant_type: Type.Literal(grantType), ...required, ...clientCredentials, ...optional });

/** RFC 6749 §4.1.3, §4.3.2, §4.4.2, §6: one form per grant. */
const TokenRequest = Type.Union(
  [
    grant('password', { username: Value('The user’s username.'), password: Value('The user’s password.') }),
    grant('client_credentials', {}),
    grant(
      'authorization_code',
      {
        code: Value('The code from the authorization endpoint’s redirect.'),
        redirect_uri: Value('The redirect_uri of the authorization request.'),
      },
      {
        code_verifier: Type.Optional(Value('The PKCE verifier (RFC 7636), when the authorization request had a code_challenge.')),
      },
    ),
    grant('refresh_token', { refresh_token: Value('A refresh token issued with an earlier access token.') }),
  ],
  { description: 'The grant and its parameters; client credentials in the form or with HTTP Basic (RFC 6749 §2.3.1).' },
);

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
export const tokenEndpointSchema = (family: 'legacy' | 'newer'): FastifySchema => ({
  tags: ['oauth'],
  summary: family === 'legacy' ? 'OAuth 2.0 token endpoint (earlier family: expires_in is a string)' : 'OAuth 2.0 token endpoint',
  description:
    'RFC 6749 §3.2. Credentials and grant parameters travel in the form body only (never the URL: 400 invalid_request). ' +
    'Errors are RFC 6749 §5.2 JSON; invalid_client with HTTP Basic answers 401 with a Basic challenge.',
  security: [],
  documented: {
    consumes: FORM,
    body: TokenRequest,
    response: {
      200: TokenResponse,
      400: oauthError('invalid_request (missing or repeated parameter, wrong body type), invalid_grant, unauthorized_client, unsupported_grant_type, invalid_client'),
      401: oauthError('invalid_client, when the client authenticated with HTTP Basic (WWW-Authenticate: Basic)'),
      429: oauthError('invalid_grant: too many failed sign-ins for this user or address; Retry-After says when to try again'),
    },
  },
});

const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const redirect = (status: 302, description: string) =>
  Redirect(`${description} (HTTP ${status}): Location is the client’s redirect_uri with the code, the token or the error`);

const AuthorizationQuery = Type.Object({
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

/** GET …/oauth2/auth. */
export const authorizationPageSchema: FastifySchema = {
  tags: ['oauth'],
  summary: 'OAuth 2.0 authorization endpoint: the sign-in and consent page',
  description:
    'RFC 6749 §3.1. Until client_id and redirect_uri are known to be good, a problem is shown on a page (400) and never ' +
    'redirected; after that, errors go back to the redirect_uri (302).',
  security: [],
  documented: {
    querystring: AuthorizationQuery,
    response: {
      200: html('The sign-in and consent page'),
      302: redirect(302, 'An error for the application'),
      400: html('A page saying what is wrong with the request (unknown client, unregistered redirect_uri, …)'),
    },
  },
};

/** POST …/oauth2/auth: the page's form. */
export const authorizationFormSchema: FastifySchema = {
  tags: ['oauth'],
  summary: 'OAuth 2.0 authorization endpoint: the sign-in form’s submission',
  description:
    'Posted by the sign-in page, with its hidden fields and the CSRF cookie it set. Allow with a good username and ' +
    'password, or Deny, answers 302 (the spec’s status) to the redirect_uri with the code, the token or access_denied.',
  security: [],
  documented: {
    consumes: FORM,
    body: Type.Object({
      csrf_token: Value('The hidden field of the page; must match its cookie.'),
      decision: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['allow', 'deny'] })),
      username: Type.Optional(Type.String()),
      password: Type.Optional(Type.String()),
      ...AuthorizationQuery.properties,
    }),
    response: {
      302: redirect(302, 'The answer for the application'),
      400: html('The page again, saying what is missing; or a page saying what is wrong with the request'),
      401: html('The page again: username or password wrong'),
      403: html('The sign-in form has expired (its CSRF cookie is missing or does not match)'),
      429: html('The page again: too many failed sign-ins; Retry-After says when to try again'),
    },
  },
};
