import { ApiError } from '../../../src/platform/http/errors.js';
import {
  normalizeSearchParameters,
  type NormalizedSearchFor,
  type RawSearchQuery,
  type SearchFilters,
} from '../../../src/search/params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS, type SearchParameter } from '../../../src/search/params/search-parameters.js';
import { SEARCH_ENDPOINTS, type SearchEndpoint } from '../../../src/search/params/search-values.js';

/** The least each endpoint needs to be a valid request. */
export const BASE: Readonly<Record<SearchEndpoint, RawSearchQuery>> = {
  images: {},
  images_creative: {},
  images_editorial: {},
  images_creative_by_image: { asset_id: '1000001' },
  videos: {},
  videos_creative: {},
  videos_editorial: {},
  videos_creative_by_image: { asset_id: '1000001' },
  events: { phrase: 'regatta' },
  affiliates_images: {},
  affiliates_videos: {},
  artists_images: { artist_name: 'Ada Lens' },
  artists_videos: { artist_name: 'Ada Lens' },
  image_similar: {},
  image_same_series: {},
  video_similar: {},
  video_same_series: {},
};

/** Normalizes a query on top of the endpoint's minimal valid request. */
export function search<E extends SearchEndpoint>(endpoint: E, query: RawSearchQuery = {}): NormalizedSearchFor<E> {
  return normalizeSearchParameters(endpoint, { ...BASE[endpoint], ...query });
}

/** The filters of a normalized request (none for the endpoints without filters). */
export function filters(endpoint: SearchEndpoint, query: RawSearchQuery = {}): SearchFilters {
  const result = search(endpoint, query);
  return 'filters' in result ? result.filters : {};
}

/** The ApiError a call throws (fails the test when it throws nothing or something else). */
export function apiError(call: () => unknown): ApiError {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

/** The endpoint's definition of a parameter, by name. */
export function parameterOf(endpoint: SearchEndpoint, name: string): SearchParameter | undefined {
  return SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters.find((parameter) => parameter.name === name);
}

/** The endpoints that take a parameter. */
export function endpointsWith(name: string): SearchEndpoint[] {
  return SEARCH_ENDPOINTS.filter((endpoint) => parameterOf(endpoint, name) !== undefined);
}
