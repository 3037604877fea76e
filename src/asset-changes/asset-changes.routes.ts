import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../platform/http/errors.js';
import { MAX_BATCH_SIZE, MAX_REGISTRATION_IDS, type AssetChangesService } from './asset-changes.service.js';
import {
  AssetChanges,
  ChangeSetParams,
  ChangeSetQuery,
  Channels,
  DocumentedChangeSetParams,
  DocumentedChangeSetQuery,
  errors,
  MAX_CHANNEL_ID,
  LooseRegistrationBody,
  Registration,
  RegistrationBody,
} from './asset-changes.schemas.js';

export interface AssetChangesRoutesOptions {
  assetChanges: AssetChangesService;
}

const security = [{ ApiKey: [], Bearer: [] }];
const WHOLE_NUMBER = /^[0-9]{1,16}$/;

/** A whole number from 1 to `maximum` as the query or path wrote it; undefined otherwise. */
function wholeNumber(text: string | undefined, maximum: number): number | undefined {
  const trimmed = text?.trim() ?? '';
  if (!WHOLE_NUMBER.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return value >= 1 && value <= maximum ? value : undefined;
}

/** The body's asset_ids: a list of 1 to 1,000 ids, each text of 1 to 200 characters. */
function assetIds(value: unknown): string[] {
  const invalid = (why: string) => new ApiError(400, 'InvalidRequest', `Invalid value for 'asset_ids': ${why}`);
  if (value === undefined) throw new ApiError(400, 'InvalidRequest', "Missing required property 'asset_ids'");
  if (!Array.isArray(value)) throw invalid('it must be a list of asset ids');
  if (value.length === 0 || value.length > MAX_REGISTRATION_IDS) throw invalid(`it must name 1 to ${MAX_REGISTRATION_IDS} assets, not ${value.length}`);
  const index = value.findIndex((id) => typeof id !== 'string' || id.length === 0 || id.length > 200);
  if (index >= 0) throw invalid(`entry ${index} is not an asset id (text of 1 to 200 characters)`);
  return value as string[];
}

const AUTH =
  'Needs the API key of the partner client the channel was set up for and a bearer token issued to that client ' +
  '(any grant, client credentials included).';

/** The asset-change feed (channels, change sets) and asset registrations. */
export async function assetChangesRoutes(app: FastifyInstance, options: AssetChangesRoutesOptions): Promise<void> {
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
        documented: {
          querystring: DocumentedChangeSetQuery,
          response: { 200: { ...AssetChanges, description: 'The open change set, handed out again; or, with nothing to hand out, an empty body' } },
        },
        response: { 200: AssetChanges, 201: AssetChanges, ...errors },
      },
    },
    async (request, reply) => {
      const query = request.query as Static<typeof ChangeSetQuery>;
      const grant = await request.requireBearer();
      const channelId = wholeNumber(query.channel_id, MAX_CHANNEL_ID);
      if (channelId === undefined) {
        throw new ApiError(
          400,
          'InvalidChannelIdException',
          query.channel_id === undefined ? "Missing required parameter 'channel_id'" : `Invalid value for parameter 'channel_id': '${query.channel_id}' is not a channel id`,
        );
      }
      const set = await assetChanges.handOut(grant.clientId, channelId, query.batch_size ?? MAX_BATCH_SIZE);
      if (set === undefined) return reply.code(200).send();
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
        documented: { params: DocumentedChangeSetParams },
        response: { 200: { description: 'Confirmed', type: 'null' }, ...errors },
      },
    },
    async (request, reply) => {
      const { change_set_id: text } = request.params as Static<typeof ChangeSetParams>;
      const grant = await request.requireBearer();
      const changeSetId = wholeNumber(text, Number.MAX_SAFE_INTEGER);
      if (changeSetId === undefined) throw new ApiError(400, 'InvalidChangeSetId', `Invalid value for parameter 'change_set_id': '${text}' is not a change set id`);
      await assetChanges.confirm(grant.clientId, changeSetId);
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
        body: LooseRegistrationBody,
        documented: { body: RegistrationBody },
        response: { 200: Registration, ...errors },
      },
    },
    async (request) => {
      const body = request.body as Static<typeof LooseRegistrationBody>;
      const grant = await request.requireBearer();
      return assetChanges.register(grant.clientId, assetIds(body.asset_ids));
    },
  );
}
