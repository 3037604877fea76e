import { ApiError } from '../platform/http/errors.js';

/* Search's own refusals (a bad search parameter is the platform's InvalidParameterValue). */

/** 429 when an upload for search by image would take its sender past a quota. */
export function uploadQuotaExceeded(whose: string, what: string): ApiError {
  return new ApiError(
    429,
    'UploadQuotaExceeded',
    `${whose} would keep more than ${what} of uploads on this server; uploads expire 24 h after they arrive, and an upload to a name already used replaces the file, so try again later or reuse a name`,
  );
}

/** Event search with neither a phrase nor an editorial segment: there is nothing to search by. */
export function searchPhraseOrEditorialSegmentRequired(): ApiError {
  return new ApiError(400, 'SearchPhraseOrEditorialSegmentRequired', 'At least one of phrase and editorial_segment must be given');
}
