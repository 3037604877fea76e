import type { FastifyInstance } from 'fastify';
import { ErrorBody } from '../platform/http/schema-types.js';
import { CollectionsList } from './catalog.schemas.js';
import type { CatalogService } from './catalog.service.js';

export async function collectionsRoutes(app: FastifyInstance, options: { catalog: CatalogService }): Promise<void> {
  app.get(
    '/collections',
    {
      schema: {
        tags: ['collections'],
        summary: 'Collections of the catalogue',
        response: { 200: CollectionsList, 401: ErrorBody, 403: ErrorBody },
      },
    },
    async () => ({ collections: await options.catalog.listCollections() }),
  );
}
