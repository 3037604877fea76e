import { ApiError } from '../platform/http/errors.js';

/* The refusals of oEmbed and the short links (oEmbed §2.2 names 404 and 501). */

export function formatNotImplemented(offered: string, asked: string): ApiError {
  return new ApiError(501, 'FormatNotImplemented', `Only format=${offered} is offered, not '${asked}'`);
}

/** 404 for a short link's asset id that names no asset. */
export function embedAssetNotFound(id: string): ApiError {
  return new ApiError(404, 'AssetNotFound', `No asset has the id '${id}'`);
}

export function assetNotEmbeddable(id: string): ApiError {
  return new ApiError(404, 'AssetNotEmbeddable', `Asset '${id}' may not be embedded`);
}

/** 400 for a url parameter that is not an absolute http or https URL. */
export function incorrectlyFormedUri(detail: string): ApiError {
  return new ApiError(400, 'IncorrectlyFormedUri', `Invalid value for parameter 'url': ${detail}`);
}

/** 404 for a URL that is not one of this server's short links. */
export function unknownProviderUri(given: string, shortUrl: string): ApiError {
  return new ApiError(404, 'UnknownProviderUri', `'${given}' is not a short link of this server (${shortUrl}/<asset id>)`);
}
