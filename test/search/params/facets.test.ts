import { describe, expect, it } from 'vitest';
import type { SearchEndpoint } from '../../../src/search/params/search-values.js';
import { apiError, endpointsWith, filters, search } from './helpers.js';

const CREATIVE = ['images_creative', 'images_creative_by_image', 'videos_creative', 'videos_creative_by_image'] as const;
const EDITORIAL = ['images_editorial', 'videos_editorial'] as const;

function facetsOf(endpoint: SearchEndpoint, query: Record<string, unknown> = {}) {
  const result = search(endpoint, query);
  if (!('facets' in result)) throw new Error(`${endpoint} has no facets`);
  return result.facets;
}

describe('facets: include_facets, facet_fields of the endpoint, facet_max_count 1..1000 (default 300)', () => {
  it('are taken by the creative, editorial and by-image searches only', () => {
    for (const name of ['include_facets', 'facet_fields', 'facet_max_count']) {
      expect(endpointsWith(name).sort(), name).toEqual([...CREATIVE, ...EDITORIAL].sort());
    }
    for (const endpoint of ['images', 'videos', 'events', 'image_similar'] as const) {
      expect(apiError(() => search(endpoint, { include_facets: 'true' })).code).toBe('MalformedRequest');
    }
  });

  it.each(CREATIVE)('artists and locations on %s', (endpoint) => {
    expect(facetsOf(endpoint)).toEqual({ include: false, fields: ['artists', 'locations'], max_count: 300 });
    expect(facetsOf(endpoint, { include_facets: 'true', facet_fields: 'locations', facet_max_count: '25' })).toEqual({
      include: true,
      fields: ['locations'],
      max_count: 25,
    });
    expect(apiError(() => search(endpoint, { facet_fields: 'events' })).message).toBe(
      "Invalid value for parameter 'facet_fields': 'events' is not one of artists, locations",
    );
  });

  it.each(EDITORIAL)('artists, events, locations and specific_people on %s', (endpoint) => {
    expect(facetsOf(endpoint)).toEqual({ include: false, fields: ['artists', 'events', 'locations', 'specific_people'], max_count: 300 });
    expect(facetsOf(endpoint, { include_facets: 'TRUE', facet_fields: 'specific_people,events' })).toEqual({
      include: true,
      fields: ['specific_people', 'events'],
      max_count: 300,
    });
    expect(apiError(() => search(endpoint, { facet_fields: 'people' })).code).toBe('InvalidParameterValue');
  });

  it.each([...CREATIVE, ...EDITORIAL])('facet_max_count bounds on %s', (endpoint) => {
    expect(facetsOf(endpoint, { facet_max_count: '1' }).max_count).toBe(1);
    expect(facetsOf(endpoint, { facet_max_count: 1000 }).max_count).toBe(1000);
    for (const bad of ['0', '1001', '-3', 'many', '2.5']) {
      const error = apiError(() => search(endpoint, { facet_max_count: bad }));
      expect(error.code, bad).toBe('InvalidParameterValue');
      expect(error.message, bad).toMatch(/^Invalid value for parameter 'facet_max_count': /);
    }
  });

  it('keeps facet_fields without include_facets (facets are returned only with include_facets=true)', () => {
    expect(facetsOf('images_creative', { facet_fields: 'artists' })).toEqual({ include: false, fields: ['artists'], max_count: 300 });
  });

  it('takes keyword_ids, exclude_keyword_ids and event_ids as lists of int32 ids', () => {
    expect(filters('images_editorial', { keyword_ids: '12,7, 12', exclude_keyword_ids: ['3', '4'], event_ids: '500900' })).toEqual({
      keyword_ids: [12, 7],
      exclude_keyword_ids: [3, 4],
      event_ids: [500900],
    });
    expect(filters('images_creative', { keyword_ids: '2147483647' }).keyword_ids).toEqual([2147483647]);
    for (const bad of ['0', '-1', 'abc', '1.5', '2147483648', '0x10']) {
      expect(apiError(() => search('images_creative', { keyword_ids: `5,${bad}` })).message, bad).toBe(
        `Invalid value for parameter 'keyword_ids': '${bad}' is not a whole number from 1 to 2147483647`,
      );
    }
    expect(apiError(() => search('videos_editorial', { event_ids: 'x' })).message).toMatch(/^Invalid value for parameter 'event_ids'/);
  });
});
