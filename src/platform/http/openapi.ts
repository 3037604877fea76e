import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from './schema-types.js';

/**
 * The OpenAPI 3.1 document, generated from the route schemas: registered before any route so
 * that every route is collected. The document is served by `registerOpenApiDocument`.
 */
export async function registerOpenApi(app: FastifyInstance, options: { publicUrl: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Stockroom — Stock Media Licensing API v3',
        version: '3',
        description:
          'Every /v3 request needs the `Api-Key` header. Fields that need a customer (`download_sizes`, `downloads`, ' +
          '`largest_downloads`) also need `Authorization: Bearer <token>`.',
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key' },
          Bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ ApiKey: [] }],
    },
  });
  app.addSchema(ErrorBody);
}

/** `/v3/openapi.json` (open to every origin, no key: browser tools read it) and the interactive docs at `/docs`. */
export async function registerOpenApiDocument(app: FastifyInstance, open: FastifyInstance): Promise<void> {
  open.get('/v3/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
