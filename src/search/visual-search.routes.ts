import { createHash } from 'node:crypto';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AssetRecord, AssetType } from '../catalog/catalog.records.js';
import { ImageDetail, VideoDetail } from '../catalog/catalog.schemas.js';
import type { CatalogService } from '../catalog/catalog.service.js';
import { readContext } from '../catalog/read-context.js';
import { invalidParameter } from '../platform/http/errors.js';
import { anyAssetNotFound, assetNotFound } from '../catalog/catalog.errors.js';
import { FieldSelector } from '../platform/http/fields.js';
import type { TypeBoxRequestTypeProvider } from '../platform/http/parameters.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import type { AssetSearch } from './asset-search.js';
import { SEARCH_FIELD_CATALOGS } from './params/field-sets.js';
import { normalizeSearchParameters, type ImageSource } from './params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS, searchQuerySchema, searchRouteSchema, searchRulesDescription } from './params/search-parameters.js';
import { CreativeFacets, facetsResponse } from './search-facets.js';
import { licensingTypesOf, type LicensingLimits } from './licensing-limits.js';
import { signatureToBase64 } from '../media/visual-signature.js';
import type { UploadOwner } from './uploads/uploads.service.js';

export interface VisualSearchRouteOptions {
  search: AssetSearch;
  catalog: CatalogService;
  /** The signature of an uploaded file named by image_url; a 400 naming image_url when it names none of the asker's. */
  resolveImageUrl: (owner: UploadOwner, imageUrl: string) => Promise<Float32Array>;
  /** The token rule: with a customer's token, only what the customer may license. */
  products: LicensingLimits;
}

const PLURAL: Readonly<Record<AssetType, 'images' | 'videos'>> = { image: 'images', video: 'videos' };
const ITEM_SCHEMA: Readonly<Record<AssetType, TSchema>> = { image: ImageDetail, video: VideoDetail };

const byImageResults = (assetType: AssetType) =>
  Type.Object({
    image_fingerprint: Type.String({ description: 'A short hash of the source picture’s visual signature: the same picture, the same fingerprint.' }),
    result_count: Type.Integer(),
    [PLURAL[assetType]]: Type.Array(ITEM_SCHEMA[assetType]),
    facets: Type.Optional(CreativeFacets),
    auto_corrections: Type.Optional(Type.Object({ phrase: Type.String() })),
  });

const relatedResults = (assetType: AssetType) =>
  Type.Object({ result_count: Type.Integer(), [PLURAL[assetType]]: Type.Array(ITEM_SCHEMA[assetType]) });

const byImageErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const relatedErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/** A short, stable name for a picture's signature: 16 hex digits of its SHA-256. */
function imageFingerprint(signature: Float32Array): string {
  return createHash('sha256').update(signatureToBase64(signature)).digest('hex').slice(0, 16);
}

/**
 * Search by image (GET /search/{images|videos}/creative/by-image), similar assets
 * (GET /{images|videos}/{id}/similar) and assets of the same series
 * (GET /{images|videos}/{id}/same-series).
 */
export async function visualSearchRoutes(fastify: FastifyInstance, options: VisualSearchRouteOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxRequestTypeProvider>();
  const { search, catalog, resolveImageUrl, products } = options;

  async function findAsset(assetType: AssetType, id: string): Promise<AssetRecord | undefined> {
    return (await catalog.findAssets(assetType, [id])).found[0];
  }

  /** The signature to search by: a catalogue asset's (of either type) or an upload's. */
  async function sourceSignature(request: FastifyRequest, source: ImageSource): Promise<Float32Array> {
    // An upload is the user's when a token comes with the request, else the API key's alone.
    if ('image_url' in source) return resolveImageUrl({ clientId: request.apiClient.id, userId: (await request.optionalBearer())?.userId ?? null }, source.image_url);
    const id = source.asset_id;
    const asset = (await findAsset('image', id)) ?? (await findAsset('video', id));
    if (asset === undefined) throw anyAssetNotFound(`Asset not found: ${id}`);
    const signature = search.visualSignatureOf(asset.id);
    if (signature === undefined) {
      throw invalidParameter('asset_id', `asset ${id} has no visual signature (it has no original picture to compare); choose another asset`);
    }
    return signature;
  }

  for (const endpoint of ['images_creative_by_image', 'videos_creative_by_image'] as const) {
    const definition = SEARCH_ENDPOINT_DEFINITIONS[endpoint];
    const selector = new FieldSelector(SEARCH_FIELD_CATALOGS[endpoint]!);
    const assetType: AssetType = endpoint === 'images_creative_by_image' ? 'image' : 'video';
    app.get(
      definition.path,
      {
        schema: searchRouteSchema(endpoint, { 200: byImageResults(assetType), ...byImageErrors }),
      },
      async (request) => {
        const normalized = normalizeSearchParameters(endpoint, request.query);
        const selection = selector.select(normalized.fields);
        const read = await readContext(request, selection);
        const signature = await sourceSignature(request, normalized.source);
        const found = await search.byImage(normalized, signature, { licensingTypes: await licensingTypesOf(request, products), selection, read });
        const body: Record<string, unknown> = {
          image_fingerprint: imageFingerprint(signature),
          result_count: found.total,
          [PLURAL[assetType]]: found.assets,
        };
        if (found.facets) body.facets = facetsResponse(found.facets);
        if (found.corrections) body.auto_corrections = { phrase: found.corrections };
        return body;
      },
    );
  }

  const relatedEndpoints = [
    { endpoint: 'image_similar', assetType: 'image', kind: 'similar' },
    { endpoint: 'video_similar', assetType: 'video', kind: 'similar' },
    { endpoint: 'image_same_series', assetType: 'image', kind: 'same_series' },
    { endpoint: 'video_same_series', assetType: 'video', kind: 'same_series' },
  ] as const;
  for (const { endpoint, assetType, kind } of relatedEndpoints) {
    const definition = SEARCH_ENDPOINT_DEFINITIONS[endpoint];
    const selector = new FieldSelector(SEARCH_FIELD_CATALOGS[endpoint]!);
    const plural = PLURAL[assetType];
    app.get(
      definition.path,
      {
        schema: {
          tags: [plural],
          summary: definition.summary,
          description: ['Needs a bearer token.', searchRulesDescription(endpoint).description].filter(Boolean).join(' '),
          security: [{ ApiKey: [], Bearer: [] }],
          params: Type.Object({ id: Type.String({ minLength: 1 }) }),
          querystring: searchQuerySchema(endpoint),
          response: { 200: relatedResults(assetType), ...relatedErrors },
        },
        // The contract asks for key and token: a request without a token is refused before
        // its parameters are even looked at.
        preValidation: async (request) => {
          await request.requireBearer();
        },
      },
      async (request) => {
        const { id } = request.params;
        const normalized = normalizeSearchParameters(endpoint, request.query);
        const selection = selector.select(normalized.fields);
        const read = await readContext(request, selection);
        const source = await findAsset(assetType, id);
        if (source === undefined) throw assetNotFound(assetType, id);
        const caller = { licensingTypes: await licensingTypesOf(request, products), selection, read };
        const found = kind === 'same_series' ? await search.sameSeries(source, normalized, caller) : await search.similar(source, normalized, caller);
        return { result_count: found.total, [plural]: found.assets };
      },
    );
  }
}
