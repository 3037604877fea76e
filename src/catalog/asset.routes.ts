import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { FieldSelector, type FieldCatalog } from '../platform/http/fields.js';
import { Choice, CommaList, type TypeBoxRequestTypeProvider } from '../platform/http/parameters.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import type { AssetType } from './catalog.records.js';
import type { CatalogService } from './catalog.service.js';
import { paginate, PaginationQuery } from './pagination.js';
import { readContext } from './read-context.js';

const MAX_IDS = 100;
/** An id has something besides blanks and commas (the list is split at commas, items trimmed). */
const ID_PATTERN = '^[^,]*[^\\s,][^,]*$';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/** What tells the image endpoints from the video ones: names, fields and shapes. */
export interface AssetEndpoints {
  assetType: AssetType;
  /** the path and the list's property: images | videos */
  plural: string;
  fields: FieldCatalog;
  item: TSchema;
  list: TSchema;
  /**
   * How GET /{plural}/{id} answers: `wrapped` is the list's wrapper holding the one asset (images,
   * as the contract says and the partner's clients read `images[0]`), `bare` the asset itself
   * (videos, whose clients read `response.title`).
   */
  single: 'wrapped' | 'bare';
  /** the 400 code for a request without ids */
  idsRequiredCode: string;
}

/** GET /{plural}?ids=… and GET /{plural}/{id}: the metadata endpoints of one asset type. */
export function assetRoutes(endpoints: AssetEndpoints) {
  const { assetType, plural } = endpoints;
  return async function routes(fastify: FastifyInstance, options: { catalog: CatalogService }): Promise<void> {
    const app = fastify.withTypeProvider<TypeBoxRequestTypeProvider>();
    const { catalog } = options;
    const selector = new FieldSelector(endpoints.fields);
    const fieldsDescription =
      `Field sets or field names, comma-separated; default ${endpoints.fields.defaults.join(', ')}. ` +
      `${endpoints.fields.tokenFields.join(', ')} need a bearer token.`;
    const fieldsParameter = CommaList(Choice(selector.allowedNames(), 'A field set, field or display size.'), fieldsDescription);
    const idsDescription = `${assetType} ids, comma-separated; at least one, at most ${MAX_IDS}. None: 400 ${endpoints.idsRequiredCode}.`;

    app.get(
      `/${plural}`,
      {
        schema: {
          tags: [plural],
          summary: `Metadata of several ${plural}`,
          querystring: Type.Object(
            {
              ids: CommaList(Type.String({ pattern: ID_PATTERN }), idsDescription, {
                minItems: 1,
                maxItems: MAX_IDS,
                code: endpoints.idsRequiredCode,
                codeFor: ['required', 'minItems'],
              }),
              fields: Type.Optional(fieldsParameter),
              ...PaginationQuery,
            },
            { additionalProperties: false },
          ),
          response: { 200: endpoints.list, ...errors },
        },
      },
      async (request) => {
        const query = request.query;
        const ids = query.ids;
        const selection = selector.select(query.fields);
        const context = await readContext(request, selection);
        const { assets, notFound } = await catalog.getAssets(assetType, paginate(ids, query), selection, context);
        return { [plural]: assets, [`${plural}_not_found`]: notFound };
      },
    );

    app.get(
      `/${plural}/:id`,
      {
        schema: {
          tags: [plural],
          summary: `Metadata of one ${assetType}`,
          params: Type.Object({ id: Type.String({ minLength: 1 }) }),
          querystring: Type.Object({ fields: Type.Optional(fieldsParameter) }, { additionalProperties: false }),
          response: { 200: endpoints.single === 'wrapped' ? endpoints.list : endpoints.item, ...errors },
        },
      },
      async (request) => {
        const { id } = request.params;
        const selection = selector.select(request.query.fields);
        // An unknown id stays a 404 naming it in both shapes, as the spec and the contract say.
        const asset = await catalog.getAsset(assetType, id, selection, await readContext(request, selection));
        return endpoints.single === 'wrapped' ? { [plural]: [asset], [`${plural}_not_found`]: [] } : asset;
      },
    );
  };
}
