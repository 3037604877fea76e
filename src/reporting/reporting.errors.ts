import { ApiError } from '../platform/http/errors.js';

/* The refusals of usage reporting. */

export function unauthorizedToReportUsage(): ApiError {
  return new ApiError(403, 'UnauthorizedToReportUsage', 'This API client is not enabled for usage reporting; ask the operator to enable it');
}

/** 409: a batch's transaction id was reported before; none of this batch is recorded. */
export function transactionIdDuplicated(transactionId: string): ApiError {
  return new ApiError(409, 'TransactionIdDuplicated', `A usage batch with the transaction id '${transactionId}' was already reported; each batch needs its own id`);
}

/** 400: a report by day or month over a window with more periods than a report holds. */
export function reportWindowTooLong(by: 'day' | 'month', most: number): ApiError {
  return new ApiError(400, 'ReportWindowTooLong', `A report by ${by} covers at most ${most} ${by}s: choose a shorter window, or a report by ${by === 'day' ? 'month' : 'asset, artist or client'}`);
}

/** 400: a report's window that ends before it starts. */
export function reportWindowReversed(from: string, to: string): ApiError {
  return new ApiError(400, 'ReportWindowReversed', `The window starts on ${from}, after it ends on ${to}`);
}
