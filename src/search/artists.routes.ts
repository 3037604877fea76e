import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ImageDetail, VideoDetail } from '../catalog/catalog.schemas.js';
import { readContext } from '../catalog/read-context.js';
import { FieldSelector } from '../platform/http/fields.js';
import type { TypeBoxRequestTypeProvider } from '../platform/http/parameters.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import type { AssetSearch } from './asset-search.js';
import { SEARCH_FIELD_CATALOGS } from './params/field-sets.js';
import { normalizeSearchParameters } from './params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS, searchRouteSchema } from './params/search-parameters.js';
import { licensingTypesOf, type LicensingLimits } from './licensing-limits.js';

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
export async function artistsRoutes(fastify: FastifyInstance, options: { search: AssetSearch; products: LicensingLimits }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxRequestTypeProvider>();
  const { search, products } = options;

  for (const { endpoint, assetType, property, item } of ENDPOINTS) {
    const definition = SEARCH_ENDPOINT_DEFINITIONS[endpoint];
    const selector = new FieldSelector(SEARCH_FIELD_CATALOGS[endpoint]!);
    // asset_type is one of the contract's fields here; the other asset schemas have no such field.
    const itemSchema = Type.Object({ ...item.properties, asset_type: Type.Optional(Type.String()) });
    app.get(
      definition.path,
      {
        schema: searchRouteSchema(endpoint, { 200: Type.Object({ result_count: Type.Integer(), [property]: Type.Array(itemSchema) }), ...errors }),
      },
      async (request) => {
        const normalized = normalizeSearchParameters(endpoint, request.query);
        const selection = selector.select(normalized.fields);
        const read = await readContext(request, selection);
        const found = await search.artist(normalized, { licensingTypes: await licensingTypesOf(request, products), selection, read });
        const items = selection.fields.has('asset_type') ? found.assets.map((asset) => ({ ...asset, asset_type: assetType })) : found.assets;
        return { result_count: found.total, [property]: items };
      },
    );
  }
}
