import { ApiError } from '../platform/http/errors.js';
import type { AssetType } from './catalog.records.js';

/*
 * The catalogue's refusals, and the one table of the codes an unknown asset answers. The spec
 * names a video's not-found code twice: the reads of a video record (GET /v3/videos/{id}, its
 * download history, a search from it) answer VideosNotFound, the code of the bulk endpoint, and
 * a download or a delivered file answers VideoNotFound.
 */

/** Which of the spec's answers for an unknown asset: a read of its record, or a download or file of it. */
export type AssetMiss = 'record' | 'file';

export const ASSET_NOT_FOUND_CODES: Readonly<Record<AssetMiss, Readonly<Record<AssetType, string>>>> = {
  record: { image: 'ImageNotFound', video: 'VideosNotFound' },
  file: { image: 'ImageNotFound', video: 'VideoNotFound' },
};

const NOUN: Readonly<Record<AssetType, string>> = { image: 'Image', video: 'Video' };

/** 404 for an image or video id the catalogue does not hold. */
export function assetNotFound(assetType: AssetType, id: string, miss: AssetMiss = 'record'): ApiError {
  return new ApiError(404, ASSET_NOT_FOUND_CODES[miss][assetType], `${NOUN[assetType]} not found: ${id}`);
}

/**
 * 404 for an asset the catalogue withdrew: the spec's not-found code, which every client knows,
 * with a message that says what happened. A licence bought before stands (the customer keeps
 * the file they have and may use it within its terms), but the file is no longer delivered:
 * a withdrawal is often a takedown (a release revoked, a rights claim), and the catalogue must
 * stop handing the file out. docs/back-office.md, "The catalogue's life cycle", says why.
 */
export function assetWithdrawn(assetType: AssetType, id: string, miss: AssetMiss = 'record'): ApiError {
  return new ApiError(
    404,
    ASSET_NOT_FOUND_CODES[miss][assetType],
    `${NOUN[assetType]} ${id} was withdrawn from the catalogue: it can no longer be shown, licensed or downloaded (a licence bought before it was withdrawn stands for the file already downloaded)`,
  );
}

/** 404 for an asset the catalogue holds without the file asked for (a display file, a preview clip, an original). */
export function assetFileNotFound(assetType: AssetType, message: string): ApiError {
  return new ApiError(404, ASSET_NOT_FOUND_CODES.file[assetType], message);
}

/** 404 AssetNotFound: an id of either type that names no asset. */
export function anyAssetNotFound(message: string, status: 403 | 404 = 404): ApiError {
  return new ApiError(status, 'AssetNotFound', message);
}

/** 409: the record exists, but no stored file stands behind it (it was added without one). */
export function assetFileNotAvailable(message: string): ApiError {
  return new ApiError(409, 'AssetFileNotAvailable', message);
}

export function eventNotFound(id: number): ApiError {
  return new ApiError(404, 'EventNotFound', `Event not found: ${id}`);
}
