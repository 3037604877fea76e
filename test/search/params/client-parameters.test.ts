import { describe, expect, it } from 'vitest';
import { normalizeSearchParameters } from '../../../src/search/params/normalize.js';
import { apiError, filters, search } from './helpers.js';

/*
 * Every parameter the partner's official Node client sends on each search builder (read from
 * its source: the names each builder's execute() adds to the query), with a value of the form it
 * sends. Each must be accepted: a client calling unchanged must never meet 400 Unknown parameter.
 */
const CLIENT_QUERIES = {
  images: {
    age_of_people: 'child,adult', artists: 'Ada Lens', collection_codes: 'STK', collections_filter_type: 'include',
    color: '#002244', compositions: 'abstract', embed_content_only: 'true', ethnicity: 'black,japanese', event_ids: '1234,5678',
    exclude_nudity: 'true', fields: 'asset_family,id', file_types: 'eps', graphical_styles: 'photography', keyword_ids: '1,2',
    minimum_size: 'small', number_of_people: 'one', orientations: 'horizontal', page: '1', page_size: '30', phrase: 'cat',
    prestige_content_only: 'true', product_types: 'easyaccess,editorialsubscription', sort_order: 'newest',
    specific_people: 'reggie jackson',
  },
  images_creative: {
    age_of_people: 'child', artists: 'Ada Lens', collection_codes: 'STK', collections_filter_type: 'exclude', color: '002244',
    compositions: 'abstract', embed_content_only: 'true', ethnicity: 'black', exclude_editorial_use_only: 'true',
    exclude_nudity: 'true', fields: 'id', file_types: 'eps', graphical_styles: 'photography', keyword_ids: '1',
    minimum_size: 'small', number_of_people: 'one', orientations: 'horizontal', page: '1', page_size: '30', phrase: 'cat',
    prestige_content_only: 'true', product_types: 'easyaccess,editorialsubscription', safe_search: 'true', sort_order: 'newest',
  },
  images_editorial: {
    age_of_people: 'child', artists: 'Ada Lens', collection_codes: 'NWS', collections_filter_type: 'include', color: '#002244',
    compositions: 'abstract', date_from: '2015-04-01', date_to: '2015-04-30', editorial_segments: 'sport', embed_content_only: 'true',
    entity_uris: '123,456', ethnicity: 'black,japanese', event_ids: '1234,5678', exclude_nudity: 'true', fields: 'id',
    file_types: 'eps', graphical_styles: 'photography', keyword_ids: '1', minimum_quality_rank: '1', minimum_size: 'small',
    number_of_people: 'one', orientations: 'horizontal', page: '1', page_size: '30', phrase: 'cat',
    product_types: 'easyaccess,editorialsubscription', sort_order: 'newest', specific_people: 'reggie jackson',
  },
  videos: {
    age_of_people: 'child', collection_codes: 'STK', collections_filter_type: 'include', editorial_video_types: 'raw,produced',
    exclude_nudity: 'true', fields: 'id', format_available: 'hd', frame_rates: '24,29.97', keyword_ids: '1',
    license_models: 'rightsready,royaltyfree', page: '1', page_size: '30', phrase: 'cat', product_types: 'easyaccess',
    sort_order: 'newest', specific_people: 'reggie jackson',
  },
  videos_creative: {
    age_of_people: 'child', collection_codes: 'STK', collections_filter_type: 'include', exclude_editorial_use_only: 'true',
    exclude_nudity: 'true', fields: 'id', format_available: 'hd', frame_rates: '24', keyword_ids: '1',
    license_models: 'royaltyfree', min_clip_length: '5', orientations: 'horizontal', page: '1', page_size: '30', phrase: 'cat',
    product_types: 'easyaccess', safe_search: 'true', sort_order: 'newest',
  },
  videos_editorial: {
    age_of_people: 'child', collection_codes: 'NWS', collections_filter_type: 'include', date_from: '2015-04-01',
    date_to: '2015-04-30', editorial_video_types: 'raw', entity_uris: '123,456', exclude_nudity: 'true', fields: 'id',
    format_available: 'hd', frame_rates: '24', keyword_ids: '1', orientations: 'horizontal', page: '1', page_size: '30',
    phrase: 'cat', product_types: 'easyaccess', sort_order: 'newest', specific_people: 'reggie jackson',
  },
} as const;

describe("every parameter the partner's official client sends is accepted", () => {
  it.each(Object.entries(CLIENT_QUERIES))('%s', (endpoint, query) => {
    const normalized = normalizeSearchParameters(endpoint as keyof typeof CLIENT_QUERIES, query);
    // Each filter the client set is there, so it narrows the results.
    const applied = normalized.filters as Record<string, unknown>;
    for (const name of ['product_types', 'entity_uris', 'editorial_video_types', 'license_models', 'prestige_content_only', 'exclude_nudity', 'color']) {
      if (name in query) expect(applied[name], `${endpoint} ${name}`).toBeDefined();
    }
  });
});

describe('a parameter truly unknown or misspelt stays 400 MalformedRequest naming it', () => {
  it.each([
    ['images_creative', 'prestige_only'],
    ['images_editorial', 'entity_uri'],
    ['images_editorial', 'product_type'],
    ['videos', 'editorial_video_type'],
    ['videos', 'licence_models'],
    ['videos_editorial', 'exclude_nudity_content'],
    // Where the partner takes none of them either.
    ['videos_creative', 'entity_uris'],
    ['images_creative_by_image', 'prestige_content_only'],
    ['videos_creative', 'editorial_video_types'],
  ] as const)('%s %s', (endpoint, name) => {
    const error = apiError(() => search(endpoint, { [name]: 'true' }));
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe('MalformedRequest');
    expect(error.message).toBe(`Unknown parameter '${name}'`);
  });
});

describe('entity_uris', () => {
  it.each(['images_editorial', 'videos_editorial'] as const)('on %s: a list of entity URIs, as given, without repeats', (endpoint) => {
    expect(filters(endpoint, { entity_uris: 'https://example.org/entity/Q1, https://example.org/entity/Q2,https://example.org/entity/Q1' }).entity_uris).toEqual([
      'https://example.org/entity/Q1',
      'https://example.org/entity/Q2',
    ]);
    expect(filters(endpoint, { entity_uris: ['123', '456'] }).entity_uris).toEqual(['123', '456']);
    expect(filters(endpoint, { entity_uris: ' , ' })).not.toHaveProperty('entity_uris');
  });
});
