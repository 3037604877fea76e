import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from '../platform/http/schema-types.js';
import type { AssetLicensingService } from './asset-licensing.service.js';
import { AcquireAssetLicensesRequest, AssetLicensingParams, AssetLicensingResponse, errors, orderNotesOf } from './licensing.schemas.js';

/** POST /asset-licensing/{assetId}: extended licenses bought with partner credits. */
export async function assetLicensingRoutes(fastify: FastifyInstance, options: { assetLicensing: AssetLicensingService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { assetLicensing } = options;
  // The token is checked before the body, so a caller without one learns that first.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'OPTIONS') await request.requireBearer();
  });
  app.post(
    '/asset-licensing/:assetId',
    {
      schema: {
        tags: ['licensing'],
        summary: 'Acquire extended licenses for a downloaded asset with credits',
        description:
          'For partner-credit users, on assets they have downloaded (404 StandardLicenseNotFound otherwise). Licenses already held ' +
          'are listed again and cost nothing; 402 NotEnoughCreditsForPurchase when the credits do not cover the rest. The licenses ' +
          'bought are one purchase: they belong to an order (purchase_order_number and the other order notes, as for downloads; ' +
          '409 OrderNotesConflict for notes that differ from its order\'s).',
        security: [{ ApiKey: [], Bearer: [] }],
        params: AssetLicensingParams,
        body: AcquireAssetLicensesRequest,
        response: { 200: AssetLicensingResponse, 402: ErrorBody, 409: ErrorBody, ...errors },
      },
    },
    async (request) => {
      const { assetId } = request.params;
      const { body } = request;
      return assetLicensing.acquire({
        grant: await request.requireBearer(),
        assetId,
        extendedLicenses: body.extended_licenses,
        useTeamCredits: body.use_team_credits ?? false,
        order: orderNotesOf(body),
      });
    },
  );
}
