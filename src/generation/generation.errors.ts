import { ApiError } from '../platform/http/errors.js';

/* The generative operations' refusals: requests, their results, their downloads, file registrations. */

/** 404 for a generation request id that names none (or not yet a result, or a blocked one): `message` says which. */
export function generationRequestNotFound(message: string): ApiError {
  return new ApiError(404, 'GenerationRequestIdNotFound', message);
}

/** 410: the retention of a generation's results has passed; a client takes this as final. */
export function generationRequestGone(requestId: string, keptUntil: string): ApiError {
  return new ApiError(410, 'GenerationRequestGone', `The results of generation ${requestId} were kept until ${keptUntil}`);
}

/** 403 for a generation request or file registration of another user. */
export function notAuthorized(message: string): ApiError {
  return new ApiError(403, 'NotAuthorized', message);
}

export function generationResultNotFound(message: string): ApiError {
  return new ApiError(404, 'GenerationResultNotFound', message);
}

/** 502: the engine ran and failed; the request was not charged. */
export function generationFailed(requestId: string, failure: string): ApiError {
  return new ApiError(502, 'GenerationFailed', `Generation ${requestId} failed: ${failure} (nothing was charged)`);
}

export function generationEngineUnavailable(message: string): ApiError {
  return new ApiError(503, 'GenerationEngineUnavailable', message);
}

export function tooManyConcurrentGenerations(maxPerUser: number): ApiError {
  return new ApiError(429, 'TooManyConcurrentGenerations', `At most ${maxPerUser} generation requests of one user may wait or run at once; poll the earlier ones first`);
}

export function companyGenerationsNotEnabled(): ApiError {
  return new ApiError(403, 'CompanyGenerationsNotEnabled', 'company_generations lists a team’s generations, and this user belongs to no team');
}

/** 403: an edit starts from a catalogue image the user has licensed. */
export function assetNotLicensed(assetId: string): ApiError {
  return new ApiError(403, 'AssetNotLicensed', `Image ${assetId} must be licensed (downloaded) before it can be edited`);
}

/**
 * A generated file (a result's picture, or a prepared download) whose bytes are gone from the
 * blob store. 404, not 410: the server cannot tell that the loss is final (a store restored
 * from a backup brings the bytes back, and a prepared download is made again), and 410 already
 * says GenerationRequestGone, that the retention has passed, which a client takes as final.
 */
export function generatedFileNotFound(message: string): ApiError {
  return new ApiError(404, 'GeneratedFileNotFound', message);
}

export function downloadNotFound(requestId: string, index: number): ApiError {
  return new ApiError(404, 'DownloadNotFound', `No download of result ${index} of generation ${requestId} was started: PUT …/download first`);
}

export function downloadInProgress(requestId: string, index: number): ApiError {
  return new ApiError(409, 'DownloadInProgress', `A download of result ${index} of generation ${requestId} is being prepared: poll GET …/download`);
}

export function downloadPreparationFailed(sizeName: string, generatedAssetId: string): ApiError {
  return new ApiError(502, 'DownloadPreparationFailed', `The ${sizeName} file of generated asset ${generatedAssetId} could not be made; PUT …/download again to retry`);
}

export function generatedAssetNotFound(generatedAssetId: string): ApiError {
  return new ApiError(404, 'GeneratedAssetNotFound', `No earlier download of generated asset ${generatedAssetId} by this user`);
}

/** 403: an edit of a catalogue image is downloaded under a product that may download the image, after a download of it. */
export function originalNotLicensed(assetId: string): ApiError {
  return new ApiError(
    403,
    'OriginalNotLicensed',
    `Downloading an edit of image ${assetId} needs a product with download access to it and a download of it first (POST /v3/downloads/images/${assetId})`,
  );
}

export function fileRegistrationNotFound(message: string): ApiError {
  return new ApiError(404, 'FileRegistrationIdNotFound', message);
}

/** 400: a file registration of one category named where another is taken. */
export function invalidReference(message: string): ApiError {
  return new ApiError(400, 'InvalidReference', message);
}

export function registrationQuotaExceeded(whose: string, over: string, retentionDays: number): ApiError {
  return new ApiError(
    429,
    'RegistrationQuotaExceeded',
    `${whose} would keep more than ${over} of file registrations on this server; registrations are kept ${retentionDays} days, so try again once older ones have gone`,
  );
}

export function previewUrlExpired(): ApiError {
  return new ApiError(403, 'PreviewUrlExpired', 'Preview URL expired');
}

export function previewNotFound(): ApiError {
  return new ApiError(404, 'PreviewNotFound', 'No such preview (or it is no longer kept)');
}
