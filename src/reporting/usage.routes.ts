import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../platform/http/errors.js';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import type { UsageService } from './usage.service.js';
import { UsageBatchBody, UsageBatchParams, UsageBatchResponse, usageErrors } from './usage.schemas.js';

/** PUT /usage-batches/{id}: a partner reports how it used licensed assets. */
export async function usageRoutes(fastify: FastifyInstance, options: { usage: UsageService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { usage } = options;
  // The token and the client's permission are checked before the body, so a caller who may not report learns that first.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'OPTIONS') await usage.requireReporter(await request.requireBearer());
  });
  // The contract's code for malformed JSON here is InvalidRequest.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(String(body)));
    } catch {
      done(invalidRequest('The request body is not valid JSON'), undefined);
    }
  });

  app.put(
    '/usage-batches/:id',
    {
      schema: {
        tags: ['reporting'],
        summary: 'Report usage of licensed assets in a batch',
        description:
          'For API clients enabled for usage reporting (403 UnauthorizedToReportUsage otherwise), with a token of a signed-in user. ' +
          'The path id is the batch\'s transaction id: a second batch with it answers 409 TransactionIdDuplicated, also when both ' +
          'arrive at once. 1 to 1,000 usages, else 400 InvalidRequest (as for malformed JSON or a bad entry, which the message names). ' +
          'When any asset id is unknown, nothing is recorded, the answer (201) lists them in invalid_assets with ' +
          'total_asset_usages_processed 0, and the transaction id stays free for the corrected batch.',
        security: [{ ApiKey: [], Bearer: [] }],
        params: UsageBatchParams,
        body: UsageBatchBody,
        response: { 201: UsageBatchResponse, ...usageErrors },
      },
    },
    async (request, reply) => {
      const result = await usage.report({ grant: await request.requireBearer(), transactionId: request.params.id, body: request.body });
      return reply.code(201).send(result);
    },
  );
}
