import { Type, type Static } from '@sinclair/typebox';
import { READING } from '../platform/http/parameters.js';
import { ErrorBody } from '../platform/http/schema-types.js';

/*
 * The usage batch endpoint in the contract's names (report_usage_batch_request and _response).
 * The route validates with these schemas, which are also what the document says; every refusal
 * of them is the contract's 400 InvalidRequest (the `code` of each part's reading). What a schema
 * cannot say, the many written forms of a usage date and "not in the future", the service reads.
 */

/** Every failure of the batch's schemas answers the contract's InvalidRequest. */
const INVALID_REQUEST = { [READING]: { code: 'InvalidRequest' } };

export const UsageBatchParams = Type.Object(
  {
    id: Type.String({
      pattern: '^[!-~]{1,100}$',
      description: "The client's own unique id of the batch (its transaction id): 1 to 100 visible ASCII characters.",
      [READING]: { code: 'InvalidRequest', expected: '1 to 100 visible ASCII characters' },
    }),
  },
  { additionalProperties: false },
);

const AssetUsage = Type.Object(
  {
    asset_id: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'An image or video id of the catalogue.', ...INVALID_REQUEST }),
    quantity: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'How many times the asset was used that day.', ...INVALID_REQUEST }),
    usage_date: Type.String({
      minLength: 1,
      description:
        'The day of the use, not in the future: an ISO 8601 date (2024-03-09) or date-time (2024-03-09T10:00:00Z), or another form ' +
        'that names one day (9 March 2024, March 9, 2024, 2024/03/09, 13/03/2024). A numeric day and month that read either way ' +
        '(03/04/2024) and two-digit years are refused. A date-time counts as the day written in it.',
      ...INVALID_REQUEST,
    }),
  },
  { additionalProperties: false, ...INVALID_REQUEST },
);

export const UsageBatchBody = Type.Object(
  { asset_usages: Type.Array(AssetUsage, { minItems: 1, maxItems: 1000, description: '1 to 1,000 usages.', ...INVALID_REQUEST }) },
  { additionalProperties: false, description: 'report_usage_batch_request', ...INVALID_REQUEST },
);
export type UsageBatch = Static<typeof UsageBatchBody>;

export const UsageBatchResponse = Type.Object(
  {
    invalid_assets: Type.Array(Type.String(), { description: 'The submitted asset ids the catalogue does not know; when any, nothing was recorded.' }),
    total_asset_usages_processed: Type.Integer({ description: 'How many usages were stored: every one, or none.' }),
  },
  { description: 'report_usage_batch_response' },
);

export const usageErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody };
