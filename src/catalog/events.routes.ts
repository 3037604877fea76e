import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { badRequest, invalidParameter } from '../platform/http/errors.js';
import { FieldSelector } from '../platform/http/fields.js';
import { Choice, ListOf } from '../platform/http/openapi.js';
import { CsvParameter, ErrorBody, splitCsv } from '../platform/http/schema-types.js';
import { EventDetail, EventsDetailResults } from './catalog.schemas.js';
import type { CatalogService } from './catalog.service.js';
import { EVENT_FIELDS } from './field-sets.js';
import { readContext } from './read-context.js';

const MAX_IDS = 100;
const MAX_EVENT_ID = 2_147_483_647;

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

function eventId(parameter: string, raw: string): number {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > MAX_EVENT_ID) {
    throw invalidParameter(parameter, `event ids are integers, got '${raw}'`);
  }
  return Number(raw);
}

export async function eventsRoutes(app: FastifyInstance, options: { catalog: CatalogService }): Promise<void> {
  const { catalog } = options;
  const selector = new FieldSelector(EVENT_FIELDS);
  const fieldsDescription = 'Field names, comma-separated; default id, name, start_date.';
  const fieldsParameter = CsvParameter(fieldsDescription);
  const documentedFields = ListOf(Choice(selector.allowedNames(), 'A field.'), fieldsDescription);
  const EventId = Type.Integer({ minimum: 0, maximum: MAX_EVENT_ID, description: 'Event id (integer).' });

  app.get(
    '/events',
    {
      schema: {
        tags: ['events'],
        summary: 'Metadata of several events',
        querystring: Type.Object(
          {
            ids: Type.Optional(CsvParameter(`Event ids (integers), comma-separated; at most ${MAX_IDS}.`)),
            fields: Type.Optional(fieldsParameter),
          },
          { additionalProperties: false },
        ),
        documented: {
          querystring: Type.Object({
            ids: ListOf(EventId, `Event ids (integers), comma-separated; at least one, at most ${MAX_IDS}.`, { minItems: 1, maxItems: MAX_IDS }),
            fields: Type.Optional(documentedFields),
          }),
        },
        response: { 200: EventsDetailResults, ...errors },
      },
    },
    async (request) => {
      const query = request.query as { ids?: string[]; fields?: string[] };
      const raw = splitCsv(query.ids);
      if (raw.length === 0) throw badRequest('EventIdMustBeSpecified', 'At least one event id must be specified in ids');
      if (raw.length > MAX_IDS) throw invalidParameter('ids', `at most ${MAX_IDS} ids may be requested at once, got ${raw.length}`);
      const ids = raw.map((value) => eventId('ids', value));
      const selection = selector.select(query.fields);
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
        params: Type.Object({ id: Type.String({ description: 'Event id (integer).' }) }),
        querystring: Type.Object({ fields: Type.Optional(fieldsParameter) }, { additionalProperties: false }),
        documented: { params: Type.Object({ id: EventId }), querystring: Type.Object({ fields: Type.Optional(documentedFields) }) },
        response: { 200: EventDetail, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const { fields } = request.query as { fields?: string[] };
      const selection = selector.select(fields);
      return catalog.getEvent(eventId('id', id), selection, await readContext(request, selection));
    },
  );
}
