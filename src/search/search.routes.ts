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
import { SEARCH_ENDPOINT_DEFINITIONS, searchQuerySchema } from './params/search-parameters.js';
import type { SearchEndpoint } from './params/search-values.js';
import { assetSearchQuery, type KeywordAssetSearch } from './search-query.js';
import type { SearchService } from './search.service.js';
import type { FacetCount } from './engine/types.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

const Facets = Type.Object({
  artists: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))),
  locations: Type.Optional(Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }))),
  events: Type.Optional(Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), date: Type.Union([Type.String(), Type.Null()]) }))),
  specific_people: Type.Optional(Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }))),
});

const searchResults = (property: string, item: TSchema) =>
  Type.Object({
    result_count: Type.Integer(),
    [property]: Type.Array(item),
    facets: Type.Optional(Facets),
    auto_corrections: Type.Optional(Type.Object({ phrase: Type.String() })),
  });

/** A facet value's number: stable for the same name on every node and run. */
function facetId(name: string): number {
  return createHash('sha256').update(name).digest().readUInt32BE(0) >>> 1;
}

/** random is random, yet the same for every page of one query. */
function seedOf(search: object): number {
  const { page: _page, ...rest } = search as { page?: number };
  return createHash('sha256').update(JSON.stringify(rest)).digest().readUInt32BE(0);
}

const KEYWORD_ENDPOINTS = ['images', 'images_creative', 'images_editorial', 'videos', 'videos_creative', 'videos_editorial'] as const;

export async function searchRoutes(app: FastifyInstance, options: { search: SearchService; catalog: CatalogService }): Promise<void> {
  const { search, catalog } = options;

  async function facetsOf(counts: Record<string, FacetCount[]>, requested: readonly string[]) {
    const facets: Record<string, unknown> = {};
    for (const name of requested) {
      if (name === 'artists') facets.artists = (counts.artist ?? []).map((f) => ({ name: f.value }));
      if (name === 'locations') facets.locations = (counts.location ?? []).map((f) => ({ id: facetId(f.value), name: f.value }));
      if (name === 'specific_people') facets.specific_people = (counts.person ?? []).map((f) => ({ id: facetId(f.value), name: f.value }));
      if (name === 'events') {
        const ids = (counts.event_id ?? []).map((f) => Number(f.value));
        const events = new Map((await catalog.findEventRecords(ids)).map((e) => [e.id, e]));
        facets.events = ids.flatMap((id) => {
          const event = events.get(id);
          return event ? [{ id, name: event.name, date: event.start_date }] : [];
        });
      }
    }
    return facets;
  }

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
          response: { 200: searchResults(property, assetType === 'image' ? ImageDetail : VideoDetail), ...errors },
        },
      },
      async (request: FastifyRequest) => {
        const normalized = normalizeSearchParameters(endpoint, request.query as RawSearchQuery) as KeywordAssetSearch;
        const selection = selector.select(normalized.fields);
        const context = await readContext(request, selection);
        const result = search.searchAssets(assetSearchQuery(normalized, seedOf(normalized)));
        const { assets } = await catalog.getAssets(assetType, result.ids, selection, context);
        const body: Record<string, unknown> = { result_count: result.total, [property]: assets };
        if ('facets' in normalized && normalized.facets.include) body.facets = await facetsOf(result.facets, normalized.facets.fields);
        if (result.corrections) body.auto_corrections = { phrase: result.corrections };
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
        response: { 200: Type.Object({ result_count: Type.Integer(), events: Type.Array(EventDetail) }), ...errors },
      },
    },
    async (request: FastifyRequest) => {
      const normalized = normalizeSearchParameters('events' as SearchEndpoint, request.query as RawSearchQuery) as Extract<
        ReturnType<typeof normalizeSearchParameters>,
        { endpoint: 'events' }
      >;
      const selection = eventsSelector.select(normalized.fields);
      const filters = [];
      if (normalized.filters.editorial_segment) filters.push({ attribute: 'editorial_segment', anyOf: [normalized.filters.editorial_segment] });
      if (normalized.filters.date_range) filters.push({ attribute: 'date', ...normalized.filters.date_range });
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
