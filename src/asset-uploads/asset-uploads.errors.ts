import { ApiError } from '../platform/http/errors.js';

/*
 * The back office's upload refusals. The tus endpoint answers them as tus does (a status and a
 * one-line body, `code: message`); the page's own requests as JSON.
 */

/** A refusal in the shape the tus server sends: its status and body. */
export interface TusRefusal {
  status_code: number;
  body: string;
}

function tusRefusal(status: number, code: string, message: string): TusRefusal {
  return { status_code: status, body: `${code}: ${message}\n` };
}

/** A file ingest would not take, refused at creation with ingest's own words. */
export function notAnAssetFile(fileName: string, reason: string): TusRefusal {
  return tusRefusal(415, 'NotAnAssetFile', `${fileName}: ${reason}`);
}

/** An upload created without the file's name, which says what the file is. */
export function fileNameMissing(): TusRefusal {
  return tusRefusal(400, 'FileNameMissing', 'Give the file’s name in the upload’s metadata (filename)');
}

/** An upload whose length is not said at creation (tus's deferred length): the limit could not be held. */
export function lengthRequired(): TusRefusal {
  return tusRefusal(400, 'UploadLengthRequired', 'Give the file’s size (Upload-Length) when the upload is created');
}

/** A file larger than STOCKROOM_ASSET_UPLOAD_MAX_MB. */
export function fileTooLarge(fileName: string, maxBytes: number): TusRefusal {
  return tusRefusal(413, 'FileTooLarge', `${fileName} is larger than the ${Math.floor(maxBytes / (1024 * 1024))} MB the server takes (STOCKROOM_ASSET_UPLOAD_MAX_MB)`);
}

/** A request to the upload endpoint without a signed-in editor or admin. */
export function uploadSignInRequired(): ApiError {
  return new ApiError(401, 'SignInRequired', 'Sign in to the back office to upload');
}

/** A signed-in person who is neither an editor nor an admin. */
export function uploadNotAllowed(): ApiError {
  return new ApiError(403, 'StaffOnly', 'Only editors and admins upload to the catalogue');
}

/** A state-changing request without the session's CSRF token in its X-CSRF-Token header. */
export function uploadCsrfCheckFailed(): ApiError {
  return new ApiError(403, 'CsrfCheckFailed', 'This upload did not come from the back office’s page, or the page has expired: reload it and try again');
}

/** An upload that is not there, or not this person's. */
export function uploadNotFound(): ApiError {
  return new ApiError(404, 'UploadNotFound', 'There is no such upload');
}

/** More results asked for at once than the page ever asks. */
export function tooManyUploadIds(max: number): ApiError {
  return new ApiError(400, 'InvalidParameterValue', `Ask for at most ${max} uploads at once`);
}

/** 503: the blob store is one uploads cannot be staged beside (neither a folder nor an S3 bucket). */
export function uploadsNeedFolderOrBucket(): ApiError {
  return new ApiError(503, 'UploadsUnavailable', 'Uploads are staged beside the blob store, which must be a folder (STOCKROOM_BLOBS unset or a path) or an S3 bucket (STOCKROOM_BLOBS=s3://bucket/prefix)');
}
