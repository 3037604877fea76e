import { Type, type Static } from '@sinclair/typebox';
import { PageSize, READING } from '../platform/http/parameters.js';
import { Nullable } from '../platform/http/schema-types.js';
import { EVENT_COUNT } from './asset-sends.service.js';

const OFFSET_DESCRIPTION =
  'A date-time with a zone (RFC 3339): events after it are returned. Give the `last_offset` of the previous answer; without it the feed starts at the oldest event.';
const COUNT_DESCRIPTION = `How many events, from 1 to ${EVENT_COUNT.max}; default ${EVENT_COUNT.default}. Anything else: 400 EventCountOutOfRange.`;

/** A date-time with a zone, as the one date reader reads it: the feed's offsets are instants, never a local time. */
const OFFSET_EXPECTED = 'a date-time with a zone (such as 2026-03-09T10:00:00.000000Z)';

export const SendEventsQuery = Type.Object(
  {
    last_offset: Type.Optional(
      Type.String({ format: 'date-time', pattern: '[Tt][0-9:.]+(?:[Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)$', description: OFFSET_DESCRIPTION, [READING]: { expected: OFFSET_EXPECTED } }),
    ),
    event_count: Type.Optional(PageSize(COUNT_DESCRIPTION, { maximum: EVENT_COUNT.max, default: EVENT_COUNT.default, code: 'EventCountOutOfRange' })),
  },
  { additionalProperties: false },
);
export type SendEventsQuery = Static<typeof SendEventsQuery>;

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
