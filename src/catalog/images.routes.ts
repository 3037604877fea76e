import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { badRequest, invalidParameter } from '../platform/http/errors.js';
import { FieldSelector } from '../platform/http/fields.js';
import { CsvParameter, ErrorBody, splitCsv } from '../platform/http/schema-types.js';
import { ImageDetail, ImagesDetailResults } from './catalog.schemas.js';
import type { CatalogService } from './catalog.service.js';
import { IMAGE_FIELDS } from './field-sets.js';
import { paginate, PaginationQuery } from './pagination.js';
import { readContext } from './read-context.js';

const MAX_IDS = 100;

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export async function imagesRoutes(app: FastifyInstance, options: { catalog: CatalogService }): Promise<void> {
  const { catalog } = options;
  const selector = new FieldSelector(IMAGE_FIELDS);
  const fieldsParameter = CsvParameter(
    `Field sets or field names, comma-separated; default summary_set. Allowed: ${selector.allowedNames().join(', ')}. ` +
      'download_sizes, downloads and largest_downloads need a bearer token.',
  );

  app.get(
    '/images',
    {
      schema: {
        tags: ['images'],
        summary: 'Metadata of several images',
        querystring: Type.Object(
          {
            ids: Type.Optional(CsvParameter(`Image ids, comma-separated; at most ${MAX_IDS}.`)),
            fields: Type.Optional(fieldsParameter),
            ...PaginationQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: ImagesDetailResults, ...errors },
      },
    },
    async (request) => {
      const query = request.query as { ids?: string[]; fields?: string[]; page?: number; page_size?: number; pageSize?: number };
      const ids = splitCsv(query.ids);
      if (ids.length === 0) throw badRequest('ImageIdMustBeSpecified', 'At least one image id must be specified in ids');
      if (ids.length > MAX_IDS) throw invalidParameter('ids', `at most ${MAX_IDS} ids may be requested at once, got ${ids.length}`);
      const selection = selector.select(query.fields);
      const context = await readContext(request, selection);
      const { assets, notFound } = await catalog.getAssets('image', paginate(ids, query), selection, context);
      return { images: assets, images_not_found: notFound };
    },
  );

  app.get(
    '/images/:id',
    {
      schema: {
        tags: ['images'],
        summary: 'Metadata of one image',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        querystring: Type.Object({ fields: Type.Optional(fieldsParameter) }, { additionalProperties: false }),
        response: { 200: ImageDetail, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const { fields } = request.query as { fields?: string[] };
      const selection = selector.select(fields);
      const context = await readContext(request, selection);
      return catalog.getAsset('image', id, selection, context);
    },
  );
}
