import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import type { Database } from '../db/database.js';
import { STOCKROOM_VERSION } from '../version.js';

const ApiIndex = Type.Object(
  {
    name: Type.String(),
    api: Type.String(),
    version: Type.String({ description: 'The version of this Stockroom.' }),
    authentication: Type.String(),
    links: Type.Object({
      docs: Type.String({ description: 'Interactive documentation.' }),
      openapi: Type.String({ description: 'The OpenAPI 3.1 document of every endpoint.' }),
      health: Type.String({ description: 'Whether this node can serve: its store and Redis.' }),
      token: Type.String({ description: 'The OAuth 2.0 token endpoint.' }),
      authorize: Type.String({ description: 'The OAuth 2.0 authorization endpoint (the sign-in page).' }),
    }),
  },
  { description: 'Where the API, its description and its documentation are.' },
);

const CheckResult = Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('not configured')]);
const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String(),
  checks: Type.Object({ store: CheckResult, redis: CheckResult }),
});

export interface ApiIndexOptions {
  publicUrl: string;
  authUrl: string;
  database: Database;
  redis: Redis | undefined;
}

/** How long a health check may wait for the store or Redis before it counts as failing. */
const CHECK_TIMEOUT_MS = 2000;

async function passes(check: () => Promise<unknown>): Promise<'ok' | 'failing'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch {
    return 'failing';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /v3`: the first thing a newcomer opens (the banner prints it), so it answers without a
 * key and says where everything is. `GET /health`: 200 while this node's store (and Redis, when
 * configured) answer, else 503, for load balancers and operators.
 */
export async function apiIndexRoutes(app: FastifyInstance, options: ApiIndexOptions): Promise<void> {
  const { publicUrl, authUrl, database, redis } = options;
  const index = {
    name: 'Stockroom',
    api: 'Stock Media Licensing API v3',
    version: STOCKROOM_VERSION,
    authentication:
      'Every /v3 request needs an Api-Key header. Fields and endpoints of a customer need Authorization: Bearer <access token> ' +
      'from the token endpoint.',
    links: {
      docs: `${publicUrl}/docs`,
      openapi: `${publicUrl}/v3/openapi.json`,
      health: `${publicUrl}/health`,
      token: `${authUrl}/oauth2/token`,
      authorize: `${authUrl}/oauth2/auth`,
    },
  };
  const indexSchema = { tags: ['service'], summary: 'Where the API, its description and its documentation are', security: [], response: { 200: ApiIndex } };
  app.get('/v3', { schema: indexSchema }, async () => index);
  app.get('/v3/', { schema: { ...indexSchema, hide: true } }, async () => index);

  app.get(
    '/health',
    { schema: { tags: ['service'], summary: 'Whether this node can serve', security: [], response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      const [store, redisCheck] = await Promise.all([
        passes(() => sql`select 1`.execute(database.db)),
        redis ? passes(() => redis.ping()) : Promise.resolve('not configured' as const),
      ]);
      const healthy = store === 'ok' && redisCheck !== 'failing';
      return reply
        .code(healthy ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: healthy ? 'ok' : 'unavailable', version: STOCKROOM_VERSION, checks: { store, redis: redisCheck } });
    },
  );
}
