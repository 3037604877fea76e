import { ApiError } from '../platform/http/errors.js';

/* The refusals of the asset-change feed. */

/** 403 for a channel or change set of another API client. */
export function unauthorizedToAccessResource(message: string): ApiError {
  return new ApiError(403, 'UnauthorizedToAccessResource', message);
}

export function channelsNotFound(): ApiError {
  return new ApiError(404, 'ChannelsNotFound', 'No asset-change channel has been set up for this API key');
}

export function channelNotFound(channelId: number | string): ApiError {
  return new ApiError(404, 'ChannelNotFound', `Channel ${channelId} does not exist`);
}

export function changeSetNotFound(changeSetId: number | string): ApiError {
  return new ApiError(404, 'ChangeSetNotFound', `Change set ${changeSetId} does not exist`);
}
