import { Type } from '@sinclair/typebox';
import { Nullable } from '../platform/http/schema-types.js';
import { EVENT_COUNT } from './asset-sends.service.js';

const OFFSET_DESCRIPTION =
  'A date-time with a zone (RFC 3339): events after it are returned. Give the `last_offset` of the previous answer; without it the feed starts at the oldest event.';
const COUNT_DESCRIPTION = `How many events, from 1 to ${EVENT_COUNT.max}; default ${EVENT_COUNT.default}. Anything else: 400 EventCountOutOfRange.`;

/** Validation is loose so that the service can answer with the contract's named codes. */
export const SendEventsQuery = Type.Object(
  {
    last_offset: Type.Optional(Type.String({ description: OFFSET_DESCRIPTION })),
    event_count: Type.Optional(Type.String({ description: COUNT_DESCRIPTION })),
  },
  { additionalProperties: false },
);

export const DocumentedSendEventsQuery = Type.Object(
  {
    last_offset: Type.Optional(Type.String({ format: 'date-time', description: OFFSET_DESCRIPTION })),
    event_count: Type.Optional(Type.Integer({ minimum: 1, maximum: EVENT_COUNT.max, default: EVENT_COUNT.default, description: COUNT_DESCRIPTION })),
  },
  { additionalProperties: false },
);

export const SendEvents = Type.Object(
  {
    last_offset: Nullable(Type.String({ description: 'The time of the last event given (or the offset asked, when none): ask with it for the next ones.' })),
    asset_send_events: Type.Array(
      Type.Object({
        timestamp: Type.String({ description: 'When the asset was sent, to the microsecond; unique in the feed.' }),
        asset_id: Type.String(),
        email_address: Type.String({ description: 'Whom it was sent to.' }),
      }),
    ),
  },
  { $id: 'GetSendEventsResponse', description: 'Assets sent to people, oldest first.' },
);
