import { Type } from '@sinclair/typebox';
import { ErrorBody } from '../platform/http/schema-types.js';

/*
 * The usage batch endpoint in the contract's names (report_usage_batch_request and _response).
 * The body is checked by the service, so that a refusal names the entry at fault and the
 * client's permission is checked before its body; the document gives the whole rule.
 */

/** Checked by the service (400 InvalidRequest, after the client's permission); the document states the rule. */
export const UsageBatchParams = Type.Object({ id: Type.String() });

export const DocumentedUsageBatchParams = Type.Object({
  id: Type.String({ pattern: '^[!-~]{1,100}$', description: "The client's own unique id of the batch (its transaction id): 1 to 100 visible ASCII characters." }),
});

/** Validated by the service (UsageService.report): any JSON reaches it. */
export const UsageBatchBody = Type.Unknown();

const AssetUsage = Type.Object(
  {
    asset_id: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'An image or video id of the catalogue.' }),
    quantity: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'How many times the asset was used that day.' }),
    usage_date: Type.String({
      minLength: 1,
      description:
        'The day of the use, not in the future: an ISO 8601 date (2024-03-09) or date-time (2024-03-09T10:00:00Z), or another form ' +
        'that names one day (9 March 2024, March 9, 2024, 2024/03/09, 13/03/2024). A numeric day and month that read either way ' +
        '(03/04/2024) and two-digit years are refused. A date-time counts as the day written in it.',
    }),
  },
  { additionalProperties: false },
);

export const DocumentedUsageBatchBody = Type.Object(
  { asset_usages: Type.Array(AssetUsage, { minItems: 1, maxItems: 1000, description: '1 to 1,000 usages.' }) },
  { additionalProperties: false, description: 'report_usage_batch_request' },
);

export const UsageBatchResponse = Type.Object(
  {
    invalid_assets: Type.Array(Type.String(), { description: 'The submitted asset ids the catalogue does not know; when any, nothing was recorded.' }),
    total_asset_usages_processed: Type.Integer({ description: 'How many usages were stored: every one, or none.' }),
  },
  { description: 'report_usage_batch_response' },
);

export const usageErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody };
