import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountInactive, accountOverLimit, authorizationTokenRequired, unauthorizedToken } from './errors.js';
import type { Throttle, ThrottleLimits } from '../throttle/throttle.js';
import { throttleRefusal } from '../throttle/throttle.js';

/** The calling application, as the API-key check found it. */
export interface AuthenticatedClient {
  id: number;
  /** Names the client's throttle counters; unique even across stores that share one Redis. */
  throttleKey: string;
  sandbox: boolean;
  queriesPerSecond: number | null;
  queriesPerDay: number | null;
}

/** Who a bearer token speaks for. */
export interface BearerGrant {
  clientId: number;
  userId: number | null;
  grantType: string;
  issuedAt: Date;
  expiresAt: Date;
}

export interface ApiAuthOptions {
  authenticateKey(apiKey: string | undefined): Promise<AuthenticatedClient | undefined>;
  verifyToken(token: string, clientId: number): Promise<{ valid: true; grant: BearerGrant } | { valid: false; reason: string }>;
  throttle: Throttle;
  defaultLimits: ThrottleLimits;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key check on every /v3 request. */
    apiClient: AuthenticatedClient;
    /** The bearer grant, or 401 with the Bearer challenge when the token is missing or bad. */
    requireBearer(): Promise<BearerGrant>;
    /** The bearer grant when a token came with the request (a bad one is still a 401), else undefined. */
    optionalBearer(): Promise<BearerGrant | undefined>;
  }
}

/**
 * The bearer token of the request: undefined when there is none (no Authorization header, or
 * another scheme such as Basic — RFC 6750 §3.1 counts both as no authentication), '' when the
 * Bearer header is malformed.
 */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header || !/^Bearer(\s|$)/i.test(header)) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

const BEARER_FORM = "send 'Authorization: Bearer <access token>'";

/** Why a request that needs a token has none: nothing sent, or an Authorization header of another kind. */
function missingTokenReason(header: string | undefined): string {
  if (!header?.trim()) return `An access token is required for this request: ${BEARER_FORM}`;
  const scheme = /^([A-Za-z][A-Za-z0-9._~+-]{0,19})\s+\S/.exec(header.trim())?.[1];
  // A value without a scheme is most often the token itself, sent without "Bearer ".
  if (scheme === undefined) return `The Authorization header has no scheme: ${BEARER_FORM}`;
  return `The Authorization header uses the ${scheme} scheme; this request needs a bearer token: ${BEARER_FORM}`;
}

/**
 * The checks every API request passes: a known, enabled API key (403 Account Inactive
 * otherwise), then its per-second and per-day allowance (403 with X-Error-Detail).
 * Register inside the encapsulated context of the API routes only.
 */
export function registerApiAuth(app: FastifyInstance, options: ApiAuthOptions): void {
  const { authenticateKey, verifyToken, throttle, defaultLimits } = options;

  app.decorateRequest('apiClient', null as unknown as AuthenticatedClient);

  const verifications = new WeakMap<FastifyRequest, ReturnType<typeof verifyToken>>();

  async function resolveBearer(request: FastifyRequest, required: boolean): Promise<BearerGrant | undefined> {
    const token = bearerToken(request);
    if (token === undefined) {
      if (!required) return undefined;
      throw authorizationTokenRequired(missingTokenReason(request.headers.authorization));
    }
    if (token === '') {
      throw unauthorizedToken('The Authorization header must be: Bearer <access token>', 'invalid_request');
    }
    // A route may ask twice (search's token rule, then the fields that need a token): one lookup.
    let checking = verifications.get(request);
    if (checking === undefined) {
      checking = verifyToken(token, request.apiClient.id);
      verifications.set(request, checking);
    }
    const check = await checking;
    if (!check.valid) throw unauthorizedToken(check.reason);
    return check.grant;
  }

  app.decorateRequest('requireBearer', async function (this: FastifyRequest) {
    return (await resolveBearer(this, true))!;
  });
  app.decorateRequest('optionalBearer', function (this: FastifyRequest) {
    return resolveBearer(this, false);
  });

  app.addHook('onRequest', async (request, reply) => {
    // Preflight requests carry no key; CORS answers them.
    if (request.method === 'OPTIONS') return;
    const header = request.headers['api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key?.trim()) throw accountInactive('No Api-Key header was sent');
    const client = await authenticateKey(key);
    if (!client) throw accountInactive('The Api-Key is unknown, or its client is disabled');
    request.apiClient = client;
    const decision = await throttle.consume(client.throttleKey, {
      perSecond: client.queriesPerSecond ?? defaultLimits.perSecond,
      perDay: client.queriesPerDay ?? defaultLimits.perDay,
    });
    reply.headers(decision.headers);
    if (!decision.allowed) {
      const refusal = throttleRefusal(decision);
      throw accountOverLimit(decision.exceeded, refusal.message, refusal.detail);
    }
  });
}
