import { createHash } from 'node:crypto';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CatalogService } from '../catalog/catalog.service.js';
import { EventDetail, ImageDetail, VideoDetail } from '../catalog/catalog.schemas.js';
import { readContext } from '../catalog/read-context.js';
import { FieldSelector } from '../platform/http/fields.js';
import { preferredLanguage } from '../platform/http/language.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import { SEARCH_FIELD_CATALOGS } from './params/field-sets.js';
import { normalizeSearchParameters, type RawSearchQuery } from './params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS, searchQuerySchema, searchRulesDescription } from './params/search-parameters.js';
import type { SearchEndpoint } from './params/search-values.js';
import { assetSearchQuery, type FactFilterRules, type KeywordAssetSearch } from './search-query.js';
import type { SearchService } from './search.service.js';
import { SearchFacets, shapeFacets } from './search-facets.js';
import type { SearchFilter } from './engine/types.js';
import { relatedSearches } from './related-searches.js';
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

/**
 * random is random, yet one permutation for every page of one query: the seed is the query
 * without what only shapes the page (page, page_size, fields), so paging at another size, or
 * asking for other fields, walks the same order.
 */
function seedOf(search: object): number {
  const { page: _page, page_size: _pageSize, fields: _fields, ...rest } = search as { page?: number; page_size?: number; fields?: unknown };
  return createHash('sha256').update(JSON.stringify(rest)).digest().readUInt32BE(0);
}

const KEYWORD_ENDPOINTS = ['images', 'images_creative', 'images_editorial', 'videos', 'videos_creative', 'videos_editorial'] as const;

export interface SearchRoutesOptions {
  search: SearchService;
  catalog: CatalogService;
  products: LicensingLimits;
  /** The public base URL (no trailing slash): related searches link to it. */
  publicUrl: string;
  /** The settings of the filters on computed facts (the nudity threshold). */
  factRules?: FactFilterRules;
}

export async function searchRoutes(app: FastifyInstance, options: SearchRoutesOptions): Promise<void> {
  const { search, catalog, products, publicUrl, factRules } = options;

  for (const endpoint of KEYWORD_ENDPOINTS) {
    const definition = SEARCH_ENDPOINT_DEFINITIONS[endpoint];
    const selector = new FieldSelector(SEARCH_FIELD_CATALOGS[endpoint]!);
    const assetType = endpoint.startsWith('images') ? 'image' : 'video';
    const property = assetType === 'image' ? 'images' : 'videos';
    app.get(
      definition.path,
      {
        schema: {
          tags: ['search'],
          summary: definition.summary,
          querystring: searchQuerySchema(endpoint),
          ...searchRulesDescription(endpoint),
          response: { 200: searchResults(property, assetType === 'image' ? ImageDetail : VideoDetail), ...errors },
        },
      },
      async (request: FastifyRequest) => {
        const normalized = normalizeSearchParameters(endpoint, request.query as RawSearchQuery) as KeywordAssetSearch;
        const selection = selector.select(normalized.fields);
        const licensingTypes = await licensingTypesOf(request, products);
        const context = await readContext(request, selection);
        const query = assetSearchQuery(normalized, seedOf(normalized), licensingTypes, factRules);
        const result = search.searchAssets(query);
        const { assets } = await catalog.getAssets(assetType, result.ids, selection, context);
        const body: Record<string, unknown> = { result_count: result.total, [property]: assets };
        if ('facets' in normalized && normalized.facets.include) {
          body.facets = await shapeFacets(result.facets, normalized.facets.fields, {
            language: context.language,
            findEvents: (ids) => catalog.findEventRecords(ids),
          });
        }
        if (result.corrections) body.auto_corrections = { phrase: result.corrections };
        if (normalized.include_related_searches) {
          body.related_searches = await relatedSearches(
            query,
            assetType,
            { searchAssets: (q) => search.searchAssets(q), findAssets: (type, ids) => catalog.findAssets(type, ids) },
            (phrase) => `${publicUrl}/v3${definition.path}?phrase=${encodeURIComponent(phrase)}`,
          );
        }
        return body;
      },
    );
  }

  const eventsSelector = new FieldSelector(SEARCH_FIELD_CATALOGS.events!);
  app.get(
    SEARCH_ENDPOINT_DEFINITIONS.events.path,
    {
      schema: {
        tags: ['search'],
        summary: SEARCH_ENDPOINT_DEFINITIONS.events.summary,
        querystring: searchQuerySchema('events'),
        ...searchRulesDescription('events'),
        response: { 200: Type.Object({ result_count: Type.Integer(), events: Type.Array(EventDetail) }), ...errors },
      },
    },
    async (request: FastifyRequest) => {
      const normalized = normalizeSearchParameters('events' as SearchEndpoint, request.query as RawSearchQuery) as Extract<
        ReturnType<typeof normalizeSearchParameters>,
        { endpoint: 'events' }
      >;
      const selection = eventsSelector.select(normalized.fields);
      const filters: SearchFilter[] = [];
      if (normalized.filters.editorial_segment) filters.push({ attribute: 'editorial_segment', anyOf: [normalized.filters.editorial_segment] });
      if (normalized.filters.date_range) filters.push({ attribute: 'date', min: normalized.filters.date_range.from, max: normalized.filters.date_range.to });
      const result = search.searchEvents({
        phrase: normalized.phrase,
        filters,
        // Event search orders by start date only (newest by default), as the contract says.
        sort: normalized.sort_order,
        offset: (normalized.page - 1) * normalized.page_size,
        limit: normalized.page_size,
      });
      const language = preferredLanguage(request.headers['accept-language']);
      const { events } = await catalog.getEvents(result.ids.map(Number), selection, { language, authorized: false });
      return { result_count: result.total, events };
    },
  );
}
