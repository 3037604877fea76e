import { ApiError } from '../platform/http/errors.js';

/* The refusals of usage reporting. */

export function unauthorizedToReportUsage(): ApiError {
  return new ApiError(403, 'UnauthorizedToReportUsage', 'This API client is not enabled for usage reporting; ask the operator to enable it');
}

/** 409: a batch's transaction id was reported before; none of this batch is recorded. */
export function transactionIdDuplicated(transactionId: string): ApiError {
  return new ApiError(409, 'TransactionIdDuplicated', `A usage batch with the transaction id '${transactionId}' was already reported; each batch needs its own id`);
}
