import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { FieldSelector } from '../platform/http/fields.js';
import { Choice, CommaList, type TypeBoxRequestTypeProvider } from '../platform/http/parameters.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import { EventDetail, EventsDetailResults } from './catalog.schemas.js';
import type { CatalogService } from './catalog.service.js';
import { EVENT_FIELDS } from './field-sets.js';
import { readContext } from './read-context.js';

const MAX_IDS = 100;
const MAX_EVENT_ID = 2_147_483_647;

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export async function eventsRoutes(fastify: FastifyInstance, options: { catalog: CatalogService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxRequestTypeProvider>();
  const { catalog } = options;
  const selector = new FieldSelector(EVENT_FIELDS);
  const fieldsDescription = 'Field names, comma-separated; default id, name, start_date.';
  const fieldsParameter = CommaList(Choice(selector.allowedNames(), 'A field.'), fieldsDescription);
  const EventId = Type.Integer({ minimum: 0, maximum: MAX_EVENT_ID, description: 'Event id (integer).' });

  app.get(
    '/events',
    {
      schema: {
        tags: ['events'],
        summary: 'Metadata of several events',
        querystring: Type.Object(
          {
            ids: CommaList(EventId, `Event ids (integers), comma-separated; at least one, at most ${MAX_IDS}. None: 400 EventIdMustBeSpecified.`, {
              minItems: 1,
              maxItems: MAX_IDS,
              code: 'EventIdMustBeSpecified',
              codeFor: ['required', 'minItems'],
            }),
            fields: Type.Optional(fieldsParameter),
          },
          { additionalProperties: false },
        ),
        response: { 200: EventsDetailResults, ...errors },
      },
    },
    async (request) => {
      const { ids, fields } = request.query;
      const selection = selector.select(fields);
      const { events, notFound } = await catalog.getEvents(ids, selection, await readContext(request, selection));
      return { events, events_not_found: notFound };
    },
  );

  app.get(
    '/events/:id',
    {
      schema: {
        tags: ['events'],
        summary: 'Metadata of one event',
        params: Type.Object({ id: EventId }),
        querystring: Type.Object({ fields: Type.Optional(fieldsParameter) }, { additionalProperties: false }),
        response: { 200: EventDetail, ...errors },
      },
    },
    async (request) => {
      const selection = selector.select(request.query.fields);
      return catalog.getEvent(request.params.id, selection, await readContext(request, selection));
    },
  );
}
