import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import type { FastifyInstance } from 'fastify';
import { CustomerInfo, errors, ProductsQuery, ProductsResult } from './licensing.schemas.js';
import type { ProductsService } from './products.service.js';

/** GET /products (the products of the signed-in user) and GET /customers/current (their name). */
export async function productsRoutes(fastify: FastifyInstance, options: { products: ProductsService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
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
        response: { 200: ProductsResult, ...errors },
      },
    },
    async (request) => {
      const grant = await request.requireBearer();
      return { products: await products.productsForToken(grant, { downloadRequirements: (request.query.fields?.length ?? 0) > 0 }) };
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
