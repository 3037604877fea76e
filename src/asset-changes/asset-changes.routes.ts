import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import { MAX_BATCH_SIZE, type AssetChangesService } from './asset-changes.service.js';
import { AssetChanges, ChangeSetParams, ChangeSetQuery, Channels, errors, Registration, RegistrationBody } from './asset-changes.schemas.js';

export interface AssetChangesRoutesOptions {
  assetChanges: AssetChangesService;
}

const security = [{ ApiKey: [], Bearer: [] }];

const AUTH =
  'Needs the API key of the partner client the channel was set up for and a bearer token issued to that client ' +
  '(any grant, client credentials included).';

/** The asset-change feed (channels, change sets) and asset registrations. */
export async function assetChangesRoutes(fastify: FastifyInstance, options: AssetChangesRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { assetChanges } = options;

  // Every route here needs a token: its 401 comes before any complaint about the query or body.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'OPTIONS') await request.requireBearer();
  });

  app.get(
    '/asset-changes/channels',
    {
      schema: {
        tags: ['asset changes'],
        summary: 'The asset-change channels of the partner client, with live counts',
        description: `${AUTH} An operator sets channels up (stockroom admin channel create). 404 ChannelsNotFound when the client has none.`,
        security,
        response: { 200: Channels, 401: errors[401], 403: errors[403], 404: errors[404] },
      },
    },
    async (request) => {
      const grant = await request.requireBearer();
      return assetChanges.channelRecords(grant.clientId);
    },
  );

  app.put(
    '/asset-changes/change-sets',
    {
      schema: {
        tags: ['asset changes'],
        summary: 'Hand out the next change set of a channel',
        description:
          `${AUTH} Answers the channel's open change set again (200) until it is confirmed with DELETE; when none is open, ` +
          `makes the next one of at most batch_size notices (201), in the order of the catalogue's change log. A channel with ` +
          `nothing to hand out answers 200 with an empty body. Notices older than 60 days are dropped. 400 ` +
          `InvalidChannelIdException for a missing or malformed channel_id, 404 ChannelNotFound for an unknown one, 403 ` +
          `UnauthorizedToAccessResource for another client's.`,
        security,
        querystring: ChangeSetQuery,
        response: {
          200: { ...AssetChanges, description: 'The open change set, handed out again; or, with nothing to hand out, an empty body' },
          201: AssetChanges,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const grant = await request.requireBearer();
      const query = request.query;
      const set = await assetChanges.handOut(grant.clientId, query.channel_id, query.batch_size ?? MAX_BATCH_SIZE);
      // Nothing to hand out: an empty body, which the 200's schema (a change set) does not type.
      if (set === undefined) return (reply as FastifyReply).code(200).send();
      return reply.code(set.created ? 201 : 200).send({ change_set_id: set.change_set_id, changed_assets: set.changed_assets });
    },
  );

  app.delete(
    '/asset-changes/change-sets/:change_set_id',
    {
      schema: {
        tags: ['asset changes'],
        summary: 'Confirm a change set',
        description:
          `${AUTH} Its notices are never handed out again; the next PUT makes the next set. Confirming a set again answers ` +
          `200 and changes nothing. 400 InvalidChangeSetId for an id that is not a whole number, 404 ChangeSetNotFound for ` +
          `an unknown one (or one confirmed more than 60 days ago), 403 UnauthorizedToAccessResource for another client's.`,
        security,
        params: ChangeSetParams,
        response: { 200: { description: 'Confirmed', type: 'null' }, ...errors },
      },
    },
    async (request, reply) => {
      const grant = await request.requireBearer();
      await assetChanges.confirm(grant.clientId, request.params.change_set_id);
      return reply.code(200).send();
    },
  );

  app.post(
    '/asset-registrations',
    {
      schema: {
        tags: ['asset changes'],
        summary: 'Register assets the customer keeps copies of',
        description:
          `${AUTH} Registers, for the partner client, the images and videos it stores. From then on an Update of a ` +
          `registered asset reaches every channel of the client of the asset's type, whatever the channel's asset family ` +
          `(so a kept asset that moves to another family is still heard of), and its withdrawal reaches them as a Delete ` +
          `(as every withdrawal does). Registering an asset again changes nothing; ids the catalogue does not hold are ` +
          `answered in invalid_assets and not registered.`,
        security,
        body: RegistrationBody,
        response: { 200: Registration, ...errors },
      },
    },
    async (request) => {
      const grant = await request.requireBearer();
      return assetChanges.register(grant.clientId, request.body.asset_ids);
    },
  );
}
