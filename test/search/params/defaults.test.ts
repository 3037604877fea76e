import { describe, expect, it } from 'vitest';
import type { NormalizedSearchFor } from '../../../src/search/params/normalize.js';
import { SEARCH_ENDPOINTS, type SearchEndpoint } from '../../../src/search/params/search-values.js';
import { apiError, search } from './helpers.js';

const paging = { page: 1, page_size: 30, fields: undefined } as const;
const creativeFacets = { include: false, fields: ['artists', 'locations'], max_count: 300 } as const;
const editorialFacets = { include: false, fields: ['artists', 'events', 'locations', 'specific_people'], max_count: 300 } as const;

/** What each endpoint's minimal request (helpers.BASE) normalizes to; typed, so the types agree too. */
const DEFAULTS: { [E in SearchEndpoint]: NormalizedSearchFor<E> } = {
  images: { endpoint: 'images', phrase: '', ...paging, sort_order: 'best_match', include_related_searches: false, filters: {} },
  images_creative: {
    endpoint: 'images_creative',
    phrase: '',
    ...paging,
    sort_order: 'best_match',
    enhanced_search: true,
    include_related_searches: false,
    facets: creativeFacets,
    filters: {},
  },
  images_editorial: {
    endpoint: 'images_editorial',
    phrase: '',
    ...paging,
    sort_order: 'best_match',
    include_related_searches: false,
    facets: editorialFacets,
    filters: {},
  },
  images_creative_by_image: {
    endpoint: 'images_creative_by_image',
    phrase: '',
    ...paging,
    source: { asset_id: '1000001' },
    facets: creativeFacets,
    filters: {},
  },
  videos: { endpoint: 'videos', phrase: '', ...paging, sort_order: 'best_match', include_related_searches: false, filters: {} },
  videos_creative: {
    endpoint: 'videos_creative',
    phrase: '',
    ...paging,
    sort_order: 'best_match',
    enhanced_search: true,
    include_related_searches: false,
    facets: creativeFacets,
    filters: {},
  },
  videos_editorial: {
    endpoint: 'videos_editorial',
    phrase: '',
    ...paging,
    sort_order: 'best_match',
    include_related_searches: false,
    facets: editorialFacets,
    filters: {},
  },
  videos_creative_by_image: {
    endpoint: 'videos_creative_by_image',
    phrase: '',
    ...paging,
    source: { asset_id: '1000001' },
    facets: creativeFacets,
    filters: {},
  },
  events: { endpoint: 'events', phrase: 'regatta', ...paging, sort_order: 'newest', filters: {} },
  affiliates_images: { endpoint: 'affiliates_images', phrase: '', filters: {} },
  affiliates_videos: { endpoint: 'affiliates_videos', phrase: '' },
  artists_images: { endpoint: 'artists_images', artist_name: 'Ada Lens', page: 1, page_size: 10, fields: undefined },
  artists_videos: { endpoint: 'artists_videos', artist_name: 'Ada Lens', page: 1, page_size: 10, fields: undefined },
  image_similar: { endpoint: 'image_similar', ...paging },
  image_same_series: { endpoint: 'image_same_series', ...paging },
  video_similar: { endpoint: 'video_similar', ...paging },
  video_same_series: { endpoint: 'video_same_series', ...paging },
};

describe('each endpoint has the defaults of the spec and the contract', () => {
  it.each(SEARCH_ENDPOINTS)('%s', (endpoint) => {
    expect(search(endpoint)).toStrictEqual(DEFAULTS[endpoint]);
  });

  it('gives the fields parameter through untouched, for the FieldSelector', () => {
    expect(search('images_creative', { fields: 'summary_set,thumb' }).fields).toBe('summary_set,thumb');
    expect(search('events', { fields: ['id', 'name,hero_image'] }).fields).toEqual(['id', 'name,hero_image']);
  });

  it('trims the phrase, and an empty phrase is the default empty phrase', () => {
    expect(search('images', { phrase: '  harbour at dawn ' }).phrase).toBe('harbour at dawn');
    expect(search('images', { phrase: '   ' }).phrase).toBe('');
  });

  it('requires artist_name on the artists endpoints', () => {
    for (const endpoint of ['artists_images', 'artists_videos'] as const) {
      for (const query of [{ artist_name: ' ' }, { artist_name: undefined }]) {
        const error = apiError(() => search(endpoint, query));
        expect(error.code).toBe('InvalidParameterValue');
        expect(error.message).toBe("Missing required parameter 'artist_name'");
      }
    }
  });
});
