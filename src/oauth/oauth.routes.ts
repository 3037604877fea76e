import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isStoreUnavailable } from '../platform/http/error-handler.js';
import { isStorageFull, STORAGE_FULL_MESSAGE } from '../platform/http/storage-full.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { ApiError, REALM } from '../platform/http/errors.js';
import type { TypeBoxRequestTypeProvider } from '../platform/http/parameters.js';
import { FORM_BODY_LIMIT_BYTES, FORM_CONTENT_TYPE, decodeFormComponent, readForm } from './form-body.js';
import { InvalidRequest, UnsupportedGrantType } from './oauth.errors.js';
import {
  OAuthError,
  type AuthorizationCheck,
  type AuthorizationRequest,
  type OAuthEndpoints,
  type OAuthErrorCode,
  type PresentedClient,
  type TokenResponse,
} from './oauth.types.js';
import {
  CSRF_FIELD,
  TOKEN_GRANT_TYPES,
  TokenRequest,
  authorizationFormSchema,
  authorizationPageSchema,
  authorizationParameters,
  tokenEndpointSchema,
  tokenFormIndex,
} from './oauth.schemas.js';
import { htmlPageHeaders, renderErrorPage, renderSignInPage, type SignInField } from './sign-in-page.js';

export interface OAuthRoutesOptions {
  oauth: OAuthEndpoints;
  /** The API's base URL; its host tells the API host from a separate auth host. */
  publicUrl: string;
  /** Base of the newer endpoints (`${authUrl}/oauth2/token|auth`); usually `${publicUrl}/auth`. */
  authUrl: string;
  /** realm of the Basic challenge on invalid_client (RFC 6749 §5.2); default the API's realm. */
  realm?: string;
}

/** The earlier endpoints answer expires_in as a string ("1800"), the newer ones as an integer. */
export type EndpointFamily = 'legacy' | 'newer';

/** Where one pair of endpoints (`${prefix}/token`, `${prefix}/auth`) lives and how it answers. */
interface EndpointBase {
  prefix: string;
  familyOf(request: FastifyRequest): EndpointFamily;
}

/** The token request's own parameters (those of every grant's form): never accepted from the URL (RFC 6749 §2.3.1). */
const TOKEN_REQUEST_PARAMETERS: ReadonlySet<string> = new Set(TokenRequest.anyOf.flatMap((form) => Object.keys(form.properties)));

const CSRF_COOKIE = 'stockroom_oauth_csrf';

/** The sign-in page posts to itself (`…/oauth2/auth`); relative, so that it also holds behind a proxy that adds a prefix. */
const FORM_ACTION = 'auth';

/** RFC 6749 §5.1: responses with tokens or credentials are never cached, by HTTP/1.1 or 1.0 caches. */
const TOKEN_HEADERS = { 'cache-control': 'no-store', pragma: 'no-cache', 'x-content-type-options': 'nosniff' } as const;

/** Redirects from the authorization endpoint carry codes or tokens: no caching, no Referer. */
const AUTHORIZATION_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' } as const;

const SERVER_ERROR = { error: 'server_error', error_description: 'The server could not complete the request' } as const;

const METHODS_WITHOUT_HANDLER = ['PUT', 'PATCH', 'DELETE'] as const;

/** The 405 and OPTIONS answers stay out of the API description. */
const Hidden = { schema: { hide: true } } as const;

/**
 * The OAuth 2.0 token and authorization endpoints, at `/oauth2/…` (earlier family),
 * `/v4/oauth2/…` and `${authUrl path}/oauth2/…` (newer family). Register at the root, in a
 * context of its own: the form parser, the error shapes (RFC 6749 JSON for the token endpoint,
 * HTML pages for the authorization endpoint) and the absence of CORS stay in here.
 */
export async function oauthRoutes(app: FastifyInstance, options: OAuthRoutesOptions): Promise<void> {
  const bases = endpointBases(options.publicUrl, options.authUrl);

  // Only forms are read here; JSON or anything else is refused (400) by the error handlers. The
  // validator gets the form's fields; an empty body is no body, which the schemas refuse.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES }, (_request, body, done) => {
    const fields = body === '' ? undefined : readForm(String(body));
    if (fields instanceof OAuthError) done(fields, undefined);
    else done(null, fields);
  });

  await app.register(tokenEndpoint, { oauth: options.oauth, bases, realm: options.realm ?? REALM });
  await app.register(authorizationEndpoint, { oauth: options.oauth, bases });
}

/**
 * `/oauth2` answers as the earlier family, except on a separate auth host whose URL has no
 * path, where it is that host's newer endpoint. `/v4/oauth2` and `${authPath}/oauth2` are newer.
 */
function endpointBases(publicUrl: string, authUrl: string): EndpointBase[] {
  const auth = new URL(authUrl);
  const api = new URL(publicUrl);
  const apiPath = api.pathname.replace(/\/+$/, '');
  let authPath = auth.pathname.replace(/\/+$/, '');
  // Routes are served at the root, whatever path a proxy puts in front of the public URL (the
  // API is at /v3 here, at `${publicUrl}/v3` outside): an auth URL under the public URL is
  // served at its path below it.
  if (auth.host === api.host && apiPath !== '' && (authPath === apiPath || authPath.startsWith(`${apiPath}/`))) {
    authPath = authPath.slice(apiPath.length);
  }
  if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(authPath)) {
    throw new Error(`The auth URL's path must be plain segments (letters, digits, . _ ~ -), got '${auth.pathname}'`);
  }
  const authHost = auth.host;
  const separateAuthHost = authHost !== new URL(publicUrl).host;
  const legacy = (): EndpointFamily => 'legacy';
  const newer = (): EndpointFamily => 'newer';
  const bases: EndpointBase[] = [
    {
      prefix: '/oauth2',
      familyOf: separateAuthHost && authPath === '' ? (request) => (hostOf(request) === authHost ? 'newer' : 'legacy') : legacy,
    },
    { prefix: '/v4/oauth2', familyOf: newer },
  ];
  // An auth URL on the API host without a path would put the newer endpoints on top of the
  // earlier ones; the earlier ones keep /oauth2 (/v4/oauth2 is newer everywhere).
  if (authPath !== '' && authPath !== '/v4') bases.push({ prefix: `${authPath}/oauth2`, familyOf: newer });
  return bases;
}

/** The request's host as URL.host spells it (lower case, no default port), through a proxy's X-Forwarded-Host. */
function hostOf(request: FastifyRequest): string | undefined {
  try {
    return new URL(`${request.protocol}://${request.host}`).host;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Token endpoint (RFC 6749 §3.2, §5)

interface TokenEndpointOptions {
  oauth: OAuthEndpoints;
  bases: readonly EndpointBase[];
  realm: string;
}

async function tokenEndpoint(fastify: FastifyInstance, { oauth, bases, realm }: TokenEndpointOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxRequestTypeProvider>();
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(TOKEN_HEADERS);
  });
  app.setErrorHandler((error: FastifyError | OAuthError, request, reply) => sendTokenError(error, request, reply, realm));

  for (const base of bases) {
    const url = `${base.prefix}/token`;
    const schema = tokenEndpointSchema(base.prefix === '/oauth2' ? 'legacy' : 'newer');
    app.post(url, { schema, onRequest: refuseTokenParametersInUrl }, async (request, reply) => {
      const basic = readBasicCredentials(request.headers.authorization);
      const response = await oauth.token(textFieldsOf(request.body), basic, request.ip);
      return reply.code(200).send(tokenBody(response, base.familyOf(request)));
    });
    app.route({
      method: ['GET', ...METHODS_WITHOUT_HANDLER],
      url,
      ...Hidden,
      handler: async (_request, reply) =>
        reply.code(405).header('allow', 'POST').send(errorBody('invalid_request', 'The token endpoint accepts only POST')),
    });
    app.options(url, Hidden, async (_request, reply) => reply.code(204).header('allow', 'POST, OPTIONS').send());
  }
}

/** RFC 6749 §5.1, with the earlier family's expires_in as a string. Only these fields leave. */
function tokenBody(response: TokenResponse, family: EndpointFamily): Record<string, string | number> {
  const body: Record<string, string | number> = {
    access_token: response.access_token,
    token_type: response.token_type,
    expires_in: family === 'legacy' ? String(response.expires_in) : response.expires_in,
  };
  if (response.refresh_token !== undefined) body.refresh_token = response.refresh_token;
  return body;
}

/** RFC 6749 §2.3.1 and §3.2: credentials and grants travel in the body; a URL ends up in logs. */
async function refuseTokenParametersInUrl(request: FastifyRequest): Promise<void> {
  const inUrl = namesOf(request.query).find((name) => TOKEN_REQUEST_PARAMETERS.has(name));
  if (inUrl !== undefined) throw new InvalidRequest(`Send ${inUrl} in the form body, not in the URL`);
}

/**
 * A token request its schema refused, in RFC 6749 §5.2's terms: the form of the grant it names
 * says which parameter is missing; a grant_type no form names is unsupported_grant_type.
 */
function tokenRequestRefusal(body: unknown, issues: readonly FastifySchemaValidationError[]): OAuthError {
  if (typeof body !== 'object' || body === null) return new InvalidRequest(`The request needs a body of type ${FORM_CONTENT_TYPE}`);
  const grantType = textFieldsOf(body).grant_type;
  if (grantType === undefined) return new InvalidRequest('The grant_type parameter is missing');
  const form = tokenFormIndex(grantType);
  // The value is not echoed: error_description allows only some ASCII (RFC 6749 §5.2).
  if (form === -1) return new UnsupportedGrantType(`The grant_type is not one this server supports (${TOKEN_GRANT_TYPES.join(', ')})`);
  const issue = issues.find((candidate) => candidate.schemaPath.startsWith(`#/anyOf/${form}/`));
  const name = parameterOf(issue);
  return new InvalidRequest(issue?.keyword === 'required' ? `The ${name} parameter is missing` : `The ${name} parameter is not valid`);
}

/**
 * HTTP Basic client credentials (RFC 6749 §2.3.1): `base64(urlencode(id) ":" urlencode(secret))`,
 * each part decoded as form encoding (`+` is a space, Appendix B). undefined when the request
 * uses no Basic scheme; a Basic header that does not decode is invalid_client.
 */
function readBasicCredentials(header: string | undefined): PresentedClient | undefined {
  if (header === undefined || !usesBasic(header)) return undefined;
  const malformed = new OAuthError('invalid_client', 'The Authorization header does not hold valid Basic client credentials', 401);
  const token = header.slice('basic'.length).trim();
  if (!isBase64(token)) throw malformed;
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(token, 'base64'));
  } catch {
    throw malformed;
  }
  const colon = decoded.indexOf(':');
  if (colon === -1) throw malformed;
  let clientId: string;
  let clientSecret: string;
  try {
    clientId = decodeFormComponent(decoded.slice(0, colon));
    clientSecret = decodeFormComponent(decoded.slice(colon + 1));
  } catch {
    throw malformed;
  }
  // client_id and client_secret are VSCHAR (RFC 6749 Appendix A.1, A.2).
  if (clientId === '' || !VSCHAR.test(clientId) || !VSCHAR.test(clientSecret)) throw malformed;
  return { clientId, clientSecret: clientSecret === '' ? undefined : clientSecret, via: 'basic' };
}

const VSCHAR = /^[\x20-\x7e]*$/;

function usesBasic(header: string): boolean {
  return /^basic(?:\s|$)/i.test(header);
}

/** Canonical base64 with its padding (RFC 4648 §4); Buffer.from alone would accept anything. */
function isBase64(text: string): boolean {
  const match = /^([A-Za-z0-9+/]*)(={0,2})$/.exec(text);
  const digits = match?.[1];
  const padding = match?.[2] ?? '';
  if (!digits) return false;
  const remainder = digits.length % 4;
  return padding === '' ? remainder !== 1 : (digits.length + padding.length) % 4 === 0 && padding.length === 4 - remainder;
}

/** RFC 6749 §5.2: error_description is %x20-21 / %x23-5B / %x5D-7E; anything else becomes a safe stand-in. */
function errorBody(code: OAuthErrorCode, description: string): { error: OAuthErrorCode; error_description: string } {
  const safe = description.replace(/"/g, "'").replace(/\\/g, '/').replace(/[^\x20-\x7e]/g, '?');
  return { error: code, error_description: safe };
}

function sendTokenError(failure: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply, realm: string): FastifyReply {
  reply.headers(TOKEN_HEADERS);
  const error = 'validation' in failure && failure.validation ? tokenRequestRefusal(request.body, failure.validation) : failure;
  if (error instanceof OAuthError) {
    let status = error.status;
    // RFC 6749 §5.2: a client that authenticated with the Authorization header gets 401 and the challenge.
    if (error.code === 'invalid_client' && usesBasic(request.headers.authorization ?? '')) {
      status = 401;
      reply.header('www-authenticate', `Basic realm="${realm.replace(/["\\]/g, '')}"`);
    }
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', retryAfter(error.retryAfterSeconds));
    return reply.code(status).send(errorBody(error.code, error.description));
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return reply.code(400).send(errorBody('invalid_request', readProblem(error)));
  }
  if (isStorageFull(error) || isStoreUnavailable(error)) {
    // Nothing was issued (the token's transaction rolled back): the client may try again later.
    request.log.warn({ err: error }, 'token request could not be saved');
    return reply.code(503).header('retry-after', '1').send(errorBody('temporarily_unavailable', isStorageFull(error) ? 'The server has run out of disk space; nothing was issued. Try again later' : 'The service is briefly unavailable; try again shortly'));
  }
  request.log.error({ err: error }, 'token request failed');
  return reply.code(500).send(SERVER_ERROR);
}

// ---------------------------------------------------------------------------------------------
// Authorization endpoint (RFC 6749 §3.1, §4.1.1, §4.2.1) with the sign-in and consent page

interface AuthorizationEndpointOptions {
  oauth: OAuthEndpoints;
  bases: readonly EndpointBase[];
}

async function authorizationEndpoint(fastify: FastifyInstance, { oauth, bases }: AuthorizationEndpointOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxRequestTypeProvider>();
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(AUTHORIZATION_HEADERS);
  });
  app.setErrorHandler(async (error: FastifyError | OAuthError, request, reply) => {
    if (error instanceof OAuthError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', retryAfter(error.retryAfterSeconds));
      return sendErrorPage(reply, error.status, error.description);
    }
    if (error.validation) return answerRefusedRequest(request, reply, error.validation);
    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendErrorPage(reply, 400, `${readProblem(error)}. Start again from the application.`);
    }
    if (isStorageFull(error)) return sendErrorPage(reply, 507, STORAGE_FULL_MESSAGE);
    request.log.error({ err: error }, 'authorization request failed');
    return sendErrorPage(reply, 500, 'Something went wrong on our side. Try again in a moment.');
  });

  /**
   * A request or a sign-in form its schema refused. Until client_id and redirect_uri are known to
   * be good, nothing is redirected (RFC 6749 §4.1.2.1): the rules check the parameters as sent
   * and answer with a page, or with a redirect carrying the error. A form is first held to its
   * CSRF cookie, as a valid one is.
   */
  async function answerRefusedRequest(request: FastifyRequest, reply: FastifyReply, issues: readonly FastifySchemaValidationError[]): Promise<FastifyReply> {
    const posted = request.method === 'POST';
    const fields = textFieldsOf(posted ? request.body : request.query);
    const csrfToken = fields[CSRF_FIELD] ?? '';
    if (posted && !csrfMatches(request.headers.cookie, csrfToken)) return sendExpiredForm(reply);
    const parameters = authorizationParameters(fields);
    const check = await oauth.checkAuthorization(parameters);
    if (check.kind !== 'ok') return answerCheck(reply, check);
    const name = parameterOf(issues[0]);
    if (posted && name === 'decision') {
      return sendSignInPage(reply, 400, { request: check.request, parameters, csrfToken, username: fields.username, problem: { message: 'Choose Allow or Deny.', fields: [] } });
    }
    // The rules took what the schema refuses: a page says so, never a redirect the rules did not make.
    return sendErrorPage(reply, 400, `The ${name} parameter is not valid. Start again from the application.`);
  }

  for (const base of bases) {
    const url = `${base.prefix}/auth`;

    app.get(url, { schema: authorizationPageSchema, onRequest: readQueryAsForm }, async (request, reply) => {
      const parameters = authorizationParameters(request.query);
      const check = await oauth.checkAuthorization(parameters);
      if (check.kind !== 'ok') return answerCheck(reply, check);
      const csrfToken = randomBytes(32).toString('base64url');
      reply.header('set-cookie', csrfCookie(csrfToken, request.protocol === 'https'));
      return sendSignInPage(reply, 200, { request: check.request, parameters, csrfToken });
    });

    app.post(url, { schema: authorizationFormSchema }, async (request, reply) => {
      const form = request.body;
      if (!csrfMatches(request.headers.cookie, form.csrf_token)) return sendExpiredForm(reply);

      // The form's hidden fields are checked again exactly as a fresh request would be.
      const parameters = authorizationParameters(form);
      const check = await oauth.checkAuthorization(parameters);
      if (check.kind !== 'ok') return answerCheck(reply, check);
      if (form.decision === 'deny') return found(reply, await oauth.completeAuthorization(check.request, 0, 'deny'));

      // Allow needs both; the schema cannot say so (Deny needs neither).
      const page = { request: check.request, parameters, csrfToken: form.csrf_token };
      const username = form.username ?? '';
      const password = form.password ?? '';
      const missing: SignInField[] = [];
      if (username === '') missing.push('username');
      if (password === '') missing.push('password');
      if (missing.length > 0) {
        return sendSignInPage(reply, 400, { ...page, username, problem: { message: 'Enter your username and password.', fields: missing } });
      }

      const signIn = await oauth.signIn(username, password, request.ip);
      if (!signIn.ok) {
        const throttled = signIn.reason === 'throttled';
        if (throttled) reply.header('retry-after', retryAfter(signIn.retryAfterSeconds ?? 60));
        return sendSignInPage(reply, throttled ? 429 : 401, {
          ...page,
          username,
          problem: { message: signIn.message, fields: ['username', 'password'] },
        });
      }
      return found(reply, await oauth.completeAuthorization(check.request, signIn.userId, 'allow'));
    });

    app.route({
      method: [...METHODS_WITHOUT_HANDLER],
      url,
      ...Hidden,
      handler: async (_request, reply) => {
        reply.header('allow', 'GET, HEAD, POST');
        return sendErrorPage(reply, 405, 'The authorization endpoint accepts only GET and POST.');
      },
    });
    app.options(url, Hidden, async (_request, reply) => reply.code(204).header('allow', 'GET, HEAD, POST, OPTIONS').send());
  }
}

/** The query, read as strictly as a form (each parameter once, blank ones dropped), for the schema to judge. */
async function readQueryAsForm(request: FastifyRequest): Promise<void> {
  const fields = readForm(queryOf(request.url));
  if (fields instanceof OAuthError) throw fields;
  request.query = fields;
}

/** The rules' answer to a request they did not take: a page while the client or redirect is in doubt, else the error at the redirect_uri. */
function answerCheck(reply: FastifyReply, check: Exclude<AuthorizationCheck, { kind: 'ok' }>): FastifyReply {
  // 302, the spec's status for the authorization answer; never 307, which would re-post the credentials (RFC 9700 §4.12).
  return check.kind === 'error-page' ? sendErrorPage(reply, 400, check.message) : found(reply, check.location);
}

function sendExpiredForm(reply: FastifyReply): FastifyReply {
  return sendErrorPage(reply, 403, 'The sign-in form has expired; start again from the application.');
}

interface SignInPageState {
  request: AuthorizationRequest;
  parameters: Readonly<Record<string, string>>;
  csrfToken: string;
  username?: string | undefined;
  problem?: { message: string; fields: readonly SignInField[] };
}

function sendSignInPage(reply: FastifyReply, status: number, state: SignInPageState): FastifyReply {
  const html = renderSignInPage({
    clientName: state.request.clientName,
    firstParty: state.request.firstParty,
    redirectUri: state.request.redirectUri,
    action: FORM_ACTION,
    parameters: Object.entries(state.parameters),
    csrfToken: state.csrfToken,
    username: state.username,
    problem: state.problem,
  });
  return reply.code(status).headers(htmlPageHeaders(state.request.redirectUri)).send(html);
}

function sendErrorPage(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).headers(htmlPageHeaders()).send(renderErrorPage(message));
}

/**
 * The answer to the application, as the spec gives it: 302 to the redirect_uri. After the
 * form's POST every browser follows a 302 with a GET (RFC 9110 §15.4.3 records the practice),
 * so the username and password are not sent on; 307, which would re-post them, is never used.
 */
function found(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(302).header('location', location).send();
}

function queryOf(url: string): string {
  const mark = url.indexOf('?');
  return mark === -1 ? '' : url.slice(mark + 1);
}

/** Double-submit cookie, scoped to this endpoint's path; the browser never sends it cross-site. */
/**
 * No Path attribute: the browser's default path (the page's folder, `/oauth2` for
 * `/oauth2/auth`) also holds behind a proxy that adds a prefix, where a path written here
 * from the route would never match the browser's URL.
 */
function csrfCookie(token: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${token}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

function csrfMatches(cookieHeader: string | undefined, formToken: string): boolean {
  if (formToken === '' || cookieHeader === undefined) return false;
  const expected = digest(formToken);
  let matches = false;
  for (const part of cookieHeader.split(';')) {
    const pair = part.trim();
    if (!pair.startsWith(`${CSRF_COOKIE}=`)) continue;
    // Digests of equal length, compared in constant time; every cookie of the name is looked at.
    if (timingSafeEqual(digest(pair.slice(CSRF_COOKIE.length + 1)), expected)) matches = true;
  }
  return matches;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

// ---------------------------------------------------------------------------------------------
// Shared

/** The text fields of a read form or query (the validator's refusals come with the value as it was). */
function textFieldsOf(value: unknown): Record<string, string> {
  const fields: Record<string, string> = Object.create(null);
  if (typeof value !== 'object' || value === null) return fields;
  for (const [name, field] of Object.entries(value)) if (typeof field === 'string') fields[name] = field;
  return fields;
}

function namesOf(value: unknown): string[] {
  return typeof value === 'object' && value !== null ? Object.keys(value) : [];
}

/** The parameter a validator's refusal is about. */
function parameterOf(issue: FastifySchemaValidationError | undefined): string {
  const missing = issue?.params.missingProperty;
  if (typeof missing === 'string') return missing;
  return issue?.instancePath.split('/').find(Boolean) ?? 'request';
}

/** Fastify's own client errors (content type, body size, unreadable body), in our words. */
function readProblem(error: FastifyError): string {
  // The platform's own refusals of a request (a NUL in a field) say what was wrong in words.
  if (error instanceof ApiError) return error.message;
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return `The request body must be of type ${FORM_CONTENT_TYPE}`;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return `The request body is larger than ${FORM_BODY_LIMIT_BYTES / 1024} KB`;
  return 'The request could not be read';
}

function retryAfter(seconds: number): string {
  return String(Math.max(1, Math.ceil(seconds)));
}
