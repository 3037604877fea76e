import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EventDetail, ImageDetail, VideoDetail } from '../catalog/catalog.schemas.js';
import { readContext } from '../catalog/read-context.js';
import { FieldSelector } from '../platform/http/fields.js';
import { preferredLanguage } from '../platform/http/language.js';
import type { TypeBoxRequestTypeProvider } from '../platform/http/parameters.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import type { AssetSearch } from './asset-search.js';
import { SEARCH_FIELD_CATALOGS } from './params/field-sets.js';
import { normalizeSearchParameters } from './params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS, searchRouteSchema } from './params/search-parameters.js';
import { SearchFacets, facetsResponse } from './search-facets.js';
import { licensingTypesOf, type LicensingLimits } from './licensing-limits.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

const searchResults = (property: string, item: TSchema) =>
  Type.Object({
    result_count: Type.Integer(),
    [property]: Type.Array(item),
    facets: Type.Optional(SearchFacets),
    auto_corrections: Type.Optional(Type.Object({ phrase: Type.String() })),
    related_searches: Type.Optional(Type.Array(Type.Object({ phrase: Type.String(), url: Type.String() }))),
  });

const KEYWORD_ENDPOINTS = ['images', 'images_creative', 'images_editorial', 'videos', 'videos_creative', 'videos_editorial'] as const;

export interface SearchRoutesOptions {
  search: AssetSearch;
  products: LicensingLimits;
}

export async function searchRoutes(fastify: FastifyInstance, options: SearchRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxRequestTypeProvider>();
  const { search, products } = options;

  for (const endpoint of KEYWORD_ENDPOINTS) {
    const definition = SEARCH_ENDPOINT_DEFINITIONS[endpoint];
    const selector = new FieldSelector(SEARCH_FIELD_CATALOGS[endpoint]!);
    const assetType = endpoint.startsWith('images') ? 'image' : 'video';
    const property = assetType === 'image' ? 'images' : 'videos';
    app.get(
      definition.path,
      {
        schema: searchRouteSchema(endpoint, { 200: searchResults(property, assetType === 'image' ? ImageDetail : VideoDetail), ...errors }),
      },
      async (request) => {
        const normalized = normalizeSearchParameters(endpoint, request.query);
        const selection = selector.select(normalized.fields);
        const licensingTypes = await licensingTypesOf(request, products);
        const read = await readContext(request, selection);
        const found = await search.keyword(normalized, { licensingTypes, selection, read });
        const body: Record<string, unknown> = { result_count: found.total, [property]: found.assets };
        if (found.facets) body.facets = facetsResponse(found.facets);
        if (found.corrections) body.auto_corrections = { phrase: found.corrections };
        if (found.relatedSearches) body.related_searches = found.relatedSearches;
        return body;
      },
    );
  }

  const eventsSelector = new FieldSelector(SEARCH_FIELD_CATALOGS.events!);
  app.get(
    SEARCH_ENDPOINT_DEFINITIONS.events.path,
    {
      schema: searchRouteSchema('events', { 200: Type.Object({ result_count: Type.Integer(), events: Type.Array(EventDetail) }), ...errors }),
    },
    async (request) => {
      const normalized = normalizeSearchParameters('events', request.query);
      const selection = eventsSelector.select(normalized.fields);
      // Events are not licensed (their assets are): no licensing view, and the token plays no part.
      const read = { language: preferredLanguage(request.headers['accept-language']), authorized: false };
      const result = await search.events(normalized, { licensingTypes: [], selection, read });
      return { result_count: result.total, events: result.events };
    },
  );
}
