import type { FastifyInstance } from 'fastify';
import { preferredLanguage } from '../platform/http/language.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import { CountriesList } from './catalog.schemas.js';
import { listCountries } from './countries.js';

export async function countriesRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/countries',
    {
      schema: {
        tags: ['countries'],
        summary: 'Country codes and names, localized by Accept-Language',
        response: { 200: CountriesList, 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (request) => ({ countries: listCountries(preferredLanguage(request.headers['accept-language'])) }),
  );
}
