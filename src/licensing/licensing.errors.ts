import { ApiError } from '../platform/http/errors.js';
import type { OrderNotesConflictError } from './orders.repository.js';

/* Licensing's refusals: products, downloads, extended licenses, AI generation products, orders. */

// ── products ────────────────────────────────────────────────────────────────

export function productNotFound(message: string): ApiError {
  return new ApiError(404, 'ProductNotFound', message);
}

export function userNotFound(userId: number): ApiError {
  return new ApiError(404, 'UserNotFound', `User not found: ${userId}`);
}

/** 400: a product named that is not one of the user's active products of the kind asked for. */
export function invalidProduct(message: string): ApiError {
  return new ApiError(400, 'InvalidProduct', message);
}

export function aiGenerationProductRequired(): ApiError {
  return new ApiError(403, 'AiGenerationProductRequired', 'Generating images needs an active AI generation product (aigen)');
}

/** 403: the AI generation product has no generations left in its period. */
export function productQuotaExceeded(message: string): ApiError {
  return new ApiError(403, 'ProductQuotaExceeded', message);
}

export function notesRequired(productId: number): ApiError {
  return new ApiError(400, 'NotesRequired', `Product ${productId} requires notes in the request body`);
}

export function downloadNotesRequired(productId: number): ApiError {
  return new ApiError(400, 'DownloadNotesRequired', `Product ${productId} requires download_notes in the request body`);
}

export function projectCodeRequired(productId: number): ApiError {
  return new ApiError(400, 'ProjectCodeRequired', `Product ${productId} requires a project_code in the request body`);
}

// ── downloads ───────────────────────────────────────────────────────────────

/** 403: none of the user's products may download this asset (of this type, under this product id). */
export function noAccessToProductType(message: string): ApiError {
  return new ApiError(403, 'NoAccessToProductType', message);
}

export function unauthorizedDownloadSize(assetType: string, assetId: string): ApiError {
  return new ApiError(403, 'UnauthorizedDownloadSize', `Your products do not license ${assetType} ${assetId} at that size (imagepack_resolution)`);
}

export function insufficientCredits(message: string): ApiError {
  return new ApiError(403, 'InsufficientCredits', message);
}

/** 403: a download limit reached, with no overage allowed; `until` says when it resets (or is empty). */
export function overageLimitReached(productId: number, until: string): ApiError {
  return new ApiError(403, 'OverageLimitReached', `Product ${productId} has no downloads left${until}, and no overage`);
}

export function teamCreditsNotAvailable(message: string): ApiError {
  return new ApiError(403, 'TeamCreditsNotAvailable', message);
}

export function companyDownloadsNotEnabled(parameter: string): ApiError {
  return new ApiError(403, 'CompanyDownloadsNotEnabled', `${parameter} lists a team's downloads, and this user belongs to no team`);
}

/** 409: the record lists no download size, so nothing can be licensed. */
export function noDownloadableSize(message: string): ApiError {
  return new ApiError(409, 'NoDownloadableSize', message);
}

/** 400, before any payment: the image has no EPS file. */
export function fileTypeNotAvailable(assetType: string, assetId: string): ApiError {
  return new ApiError(400, 'FileTypeNotAvailable', `Invalid value for parameter 'file_type': ${assetType} ${assetId} has no EPS file; jpg is available`);
}

/** 422: one Idempotency-Key, two different requests; the first one's answer is kept. */
export function idempotencyKeyReused(): ApiError {
  return new ApiError(422, 'IdempotencyKeyReused', 'This Idempotency-Key was used for a different download request; use a new key for a new request');
}

export function pageNumberLessThanOne(): ApiError {
  return new ApiError(400, 'PageNumberLessThanOne', 'page must be 1 or more');
}

// ── extended licenses ───────────────────────────────────────────────────────

export function partnerCreditsRequired(): ApiError {
  return new ApiError(403, 'PartnerCreditsRequired', 'Extended licenses are bought with partner credits, and this user holds none');
}

export function standardLicenseNotFound(assetId: string): ApiError {
  return new ApiError(404, 'StandardLicenseNotFound', `Asset ${assetId} has not been downloaded by this user: download it first, then extend its license`);
}

export function invalidRequestParameters(message: string): ApiError {
  return new ApiError(400, 'InvalidRequestParameters', message);
}

export function notEnoughCreditsForPurchase(total: number, why: string): ApiError {
  return new ApiError(402, 'NotEnoughCreditsForPurchase', `Not enough credits: these licenses cost ${total} credits, and ${why}`);
}

// ── orders ──────────────────────────────────────────────────────────────────

export function noAccessToOrderMetadata(): ApiError {
  return new ApiError(403, 'NoAccessToOrderMetadata', 'This API client is not enabled for order metadata; ask the operator to enable it');
}

export function orderNotFound(id: string): ApiError {
  return new ApiError(404, 'OrderNotFound', `Order not found: ${id}`);
}

/** 409: the purchase named a purchase order whose notes say otherwise; nothing was bought. */
export function orderNotesConflict(error: OrderNotesConflictError): ApiError {
  return new ApiError(
    409,
    'OrderNotesConflict',
    `Purchase order ${error.purchaseOrderNumber} already has ${error.field} '${error.recorded}': give the same value, none, or another purchase_order_number. Nothing was bought`,
  );
}
