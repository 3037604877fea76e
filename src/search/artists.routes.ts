import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CatalogService } from '../catalog/catalog.service.js';
import { ImageDetail, VideoDetail } from '../catalog/catalog.schemas.js';
import { readContext } from '../catalog/read-context.js';
import { FieldSelector } from '../platform/http/fields.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import { SEARCH_FIELD_CATALOGS } from './params/field-sets.js';
import { normalizeSearchParameters, type RawSearchQuery } from './params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS, searchQuerySchema, searchRulesDescription } from './params/search-parameters.js';
import { artistAssetsQuery, narrowed } from './search-query.js';
import { licensingFiltersOf, type LicensingLimits } from './licensing-limits.js';
import type { SearchService } from './search.service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

const ENDPOINTS = [
  { endpoint: 'artists_images', assetType: 'image', property: 'images', item: ImageDetail },
  { endpoint: 'artists_videos', assetType: 'video', property: 'videos', item: VideoDetail },
] as const;

/**
 * GET /artists/images and /artists/videos: an artist's assets, newest first.
 *
 * artist_name matches the catalogued name whatever its letter case and spacing ("maren  HOLT"
 * finds "Maren Holt"): the index keeps each asset's artist also as `artist_key` (artistKey).
 */
export async function artistsRoutes(
  app: FastifyInstance,
  options: { search: SearchService; catalog: CatalogService; products: LicensingLimits },
): Promise<void> {
  const { search, catalog, products } = options;

  for (const { endpoint, assetType, property, item } of ENDPOINTS) {
    const definition = SEARCH_ENDPOINT_DEFINITIONS[endpoint];
    const selector = new FieldSelector(SEARCH_FIELD_CATALOGS[endpoint]!);
    // asset_type is one of the contract's fields here; the other asset schemas have no such field.
    const itemSchema = Type.Object({ ...item.properties, asset_type: Type.Optional(Type.String()) });
    app.get(
      definition.path,
      {
        schema: {
          tags: ['search'],
          summary: definition.summary,
          querystring: searchQuerySchema(endpoint),
          ...searchRulesDescription(endpoint),
          response: { 200: Type.Object({ result_count: Type.Integer(), [property]: Type.Array(itemSchema) }), ...errors },
        },
      },
      async (request: FastifyRequest) => {
        const normalized = normalizeSearchParameters(endpoint, request.query as RawSearchQuery);
        const selection = selector.select(normalized.fields);
        const context = await readContext(request, selection);
        const query = artistAssetsQuery(assetType, normalized.artist_name, normalized);
        const result = search.searchAssets(narrowed(query, await licensingFiltersOf(request, products)));
        const { assets } = await catalog.getAssets(assetType, result.ids, selection, context);
        const items = selection.fields.has('asset_type') ? assets.map((asset) => ({ ...asset, asset_type: assetType })) : assets;
        return { result_count: result.total, [property]: items };
      },
    );
  }
}
