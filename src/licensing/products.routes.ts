import type { FastifyInstance } from 'fastify';
import { invalidParameter } from '../platform/http/errors.js';
import { splitCsv } from '../platform/http/schema-types.js';
import { CustomerInfo, errors, DocumentedProductsQuery, ProductsQuery, ProductsResult } from './licensing.schemas.js';
import type { ProductsService } from './products.service.js';

/** GET /products (the products of the signed-in user) and GET /customers/current (their name). */
export async function productsRoutes(app: FastifyInstance, options: { products: ProductsService }): Promise<void> {
  const { products } = options;

  app.get(
    '/products',
    {
      schema: {
        tags: ['licensing'],
        summary: 'Products of the signed-in user',
        description: 'Needs a token of a signed-in user. `fields=download_requirements` adds what a download under each product must carry.',
        security: [{ ApiKey: [], Bearer: [] }],
        querystring: ProductsQuery,
        documented: { querystring: DocumentedProductsQuery },
        response: { 200: ProductsResult, ...errors },
      },
    },
    async (request) => {
      const fields = splitCsv((request.query as { fields?: string[] }).fields);
      for (const field of fields) if (field !== 'download_requirements') throw invalidParameter('fields', `unknown field '${field}'`);
      const grant = await request.requireBearer();
      return { products: await products.productsForToken(grant, { downloadRequirements: fields.length > 0 }) };
    },
  );

  app.get(
    '/customers/current',
    {
      schema: {
        tags: ['licensing'],
        summary: 'Name of the signed-in user',
        security: [{ ApiKey: [], Bearer: [] }],
        response: { 200: CustomerInfo, ...errors },
      },
    },
    async (request) => products.currentCustomer(await request.requireBearer()),
  );
}
