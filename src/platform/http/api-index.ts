import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
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

export interface ApiIndexOptions {
  publicUrl: string;
  authUrl: string;
}

/**
 * `GET /v3`: the first thing a newcomer opens (the banner prints it), so it answers without a
 * key and says where everything is. (The probes, /health among them, are in health.ts.)
 */
export async function apiIndexRoutes(app: FastifyInstance, options: ApiIndexOptions): Promise<void> {
  const { publicUrl, authUrl } = options;
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
}
