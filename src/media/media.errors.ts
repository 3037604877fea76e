import { ApiError } from '../platform/http/errors.js';

/* Media's refusals: signed URLs that do not verify, files being made or not makeable, ranges. */

/** 403 for a signed URL whose signature does not match; `url` names the kind (display, download, preview). */
export function invalidSignature(url: string): ApiError {
  return new ApiError(403, 'InvalidSignature', `Invalid or tampered ${url} URL`);
}

export function displayUrlExpired(): ApiError {
  return new ApiError(403, 'DisplayUrlExpired', 'Display URL expired');
}

export function downloadUrlExpired(): ApiError {
  return new ApiError(403, 'DownloadUrlExpired', 'Download URL expired');
}

/** 503 while a video file is being made on request, with when to ask again. */
export function videoBeingPrepared(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(503, 'VideoBeingPrepared', message, { 'retry-after': String(retryAfterSeconds) });
}

/** 500 saying why a video file could not be made (the transcoder's own words, no internals). */
export function videoTranscodeFailed(message: string): ApiError {
  return new ApiError(500, 'VideoTranscodeFailed', message);
}

/** 416 with the file's length in Content-Range (RFC 9110 §15.5.17). */
export function rangeNotSatisfiable(size: number): ApiError {
  return new ApiError(416, 'RangeNotSatisfiable', `The requested range is not within the file's ${size} bytes`, {
    'content-range': `bytes */${size}`,
    'accept-ranges': 'bytes',
  });
}
