import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import type { AssetSendsService } from './asset-sends.service.js';
import { SendEvents, SendEventsQuery } from './asset-management.schemas.js';

export async function assetManagementRoutes(fastify: FastifyInstance, options: { sends: AssetSendsService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { sends } = options;
  app.get(
    '/asset-management/assets/send-events',
    {
      schema: {
        tags: ['asset management'],
        summary: 'Assets sent to people, after an offset',
        description:
          'The assets the users of this API client sent to people: each time a board is sent to an email address ' +
          '(POST /v3/boards/{board_id}/sends), one event an asset, oldest first. Stockroom sends no mail itself: a send ' +
          'records that the board was addressed to that person, and its answer holds the read-only link to pass on.',
        querystring: SendEventsQuery,
        response: { 200: SendEvents, 400: { ...ErrorBody, description: 'EventCountOutOfRange; InvalidParameterValue: last_offset is not a date-time with a zone' } },
      },
    },
    async (request) => sends.feed(request.apiClient.id, request.query),
  );
}
