import { Type } from '@sinclair/typebox';
import { NumericId, READING } from '../platform/http/parameters.js';
import { ErrorBody, Nullable } from '../platform/http/schema-types.js';
import { MAX_BATCH_SIZE, MAX_REGISTRATION_IDS } from './asset-changes.service.js';

/*
 * The shapes of the asset-change feed and of asset registrations. Channels are in the
 * contract's PascalCase, change sets in its snake_case.
 */

const S = Type.String();
const DateTime = (description: string) => Type.String({ format: 'date-time', description });

export const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/** The largest channel id (the contract's int32). */
export const MAX_CHANNEL_ID = 2_147_483_647;

export const Channel = Type.Object({
  ChannelId: Type.Integer({ description: 'Pass as channel_id to PUT /v3/asset-changes/change-sets.' }),
  AssetFamily: Type.String({ enum: ['NotSet', 'Editorial', 'Creative', 'Both'], description: 'The family of the assets whose changes the channel carries.' }),
  AssetChangeType: Nullable(Type.String({ description: 'Not used; always null.' })),
  CreateDateUtc: DateTime('When an operator set the channel up.'),
  NotificationCount: Type.Integer({ description: 'Notices not yet confirmed, those of the open change set included.' }),
  AssetType: Type.String({ enum: ['NotSet', 'Image', 'Film', 'Music'], description: 'Image or Film.' }),
  OldestChangeNotificationDateUtc: DateTime('When the oldest notice not yet confirmed was made; the current time when there is none.'),
  Metadata: Nullable(Type.String({ description: 'The note an operator gave the channel.' })),
});

export const Channels = Type.Array(Channel);

export const ChangeSetQuery = Type.Object(
  {
    channel_id: NumericId('ChannelId from GET /v3/asset-changes/channels; missing or not a whole number: 400 InvalidChannelIdException.', {
      maximum: MAX_CHANNEL_ID,
      code: 'InvalidChannelIdException',
    }),
    batch_size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_BATCH_SIZE,
        description: `Notices in a new change set: at most ${MAX_BATCH_SIZE}, the default. An open set is handed out again as it is, whatever the size asked.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChangedAsset = Type.Object({
  asset_changed_utc_datetime: DateTime('When the catalogue changed.'),
  asset_lifecycle: Type.String({ enum: ['New', 'Update', 'Delete'], description: 'New: added; Update: changed; Delete: withdrawn.' }),
  asset_type: Nullable(Type.String({ description: 'Image or Film; may be null on a Delete notice.' })),
  id: S,
  uri: Nullable(Type.String({ description: 'New notices: the download link to POST (with a token of a customer who holds a product that licenses it); null otherwise.' })),
});

export const AssetChanges = Type.Object({
  change_set_id: Type.String({ description: 'Pass to DELETE /v3/asset-changes/change-sets/{change_set_id} to confirm the set.' }),
  changed_assets: Type.Array(ChangedAsset),
});

export const ChangeSetParams = Type.Object({
  change_set_id: NumericId('change_set_id from PUT /v3/asset-changes/change-sets; not a whole number: 400 InvalidChangeSetId.', {
    maximum: Number.MAX_SAFE_INTEGER,
    code: 'InvalidChangeSetId',
  }),
});

/** Every failure of the registration body answers the contract's InvalidRequest. */
const INVALID_REQUEST = { [READING]: { code: 'InvalidRequest' } };

export const RegistrationBody = Type.Object(
  {
    asset_ids: Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', ...INVALID_REQUEST }), {
      minItems: 1,
      maxItems: MAX_REGISTRATION_IDS,
      description: `Ids of images or videos the customer keeps copies of: 1 to ${MAX_REGISTRATION_IDS}.`,
      ...INVALID_REQUEST,
    }),
  },
  { additionalProperties: false, ...INVALID_REQUEST },
);

export const Registration = Type.Object({
  registered_asset_ids: Type.Array(S, { description: 'The ids now registered (those registered before included), each once.' }),
  invalid_assets: Type.Array(S, { description: 'Ids the catalogue does not hold: not registered.' }),
});
