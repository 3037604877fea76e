import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { badRequest, invalidParameter } from '../platform/http/errors.js';
import { FieldSelector } from '../platform/http/fields.js';
import { CsvParameter, ErrorBody, splitCsv } from '../platform/http/schema-types.js';
import { VideoDetail, VideosDetailResults } from './catalog.schemas.js';
import type { CatalogService } from './catalog.service.js';
import { VIDEO_FIELDS } from './field-sets.js';
import { paginate, PaginationQuery } from './pagination.js';
import { readContext } from './read-context.js';

const MAX_IDS = 100;

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export async function videosRoutes(app: FastifyInstance, options: { catalog: CatalogService }): Promise<void> {
  const { catalog } = options;
  const selector = new FieldSelector(VIDEO_FIELDS);
  const fieldsParameter = CsvParameter(
    `Field sets or field names, comma-separated; default summary_set. Allowed: ${selector.allowedNames().join(', ')}. ` +
      'download_sizes, downloads and largest_downloads need a bearer token.',
  );

  app.get(
    '/videos',
    {
      schema: {
        tags: ['videos'],
        summary: 'Metadata of several videos',
        querystring: Type.Object(
          {
            ids: Type.Optional(CsvParameter(`Video ids, comma-separated; at most ${MAX_IDS}.`)),
            fields: Type.Optional(fieldsParameter),
            ...PaginationQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: VideosDetailResults, ...errors },
      },
    },
    async (request) => {
      const query = request.query as { ids?: string[]; fields?: string[]; page?: number; page_size?: number };
      const ids = splitCsv(query.ids);
      if (ids.length === 0) throw badRequest('VideoIdMustBeSpecified', 'At least one video id must be specified in ids');
      if (ids.length > MAX_IDS) throw invalidParameter('ids', `at most ${MAX_IDS} ids may be requested at once, got ${ids.length}`);
      const selection = selector.select(query.fields);
      const context = await readContext(request, selection);
      const { assets, notFound } = await catalog.getAssets('video', paginate(ids, query), selection, context);
      return { videos: assets, videos_not_found: notFound };
    },
  );

  app.get(
    '/videos/:id',
    {
      schema: {
        tags: ['videos'],
        summary: 'Metadata of one video',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        querystring: Type.Object({ fields: Type.Optional(fieldsParameter) }, { additionalProperties: false }),
        response: { 200: VideoDetail, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const { fields } = request.query as { fields?: string[] };
      const selection = selector.select(fields);
      return catalog.getAsset('video', id, selection, await readContext(request, selection));
    },
  );
}
