import { describe, expect, it } from 'vitest';
import type { RawSearchQuery } from '../../../src/search/params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS, type SearchParameter } from '../../../src/search/params/search-parameters.js';
import { SEARCH_ENDPOINTS, type SearchEndpoint } from '../../../src/search/params/search-values.js';
import { apiError, filters, parameterOf, search } from './helpers.js';

type ValuedParameter = SearchParameter & { values: readonly string[] };

/** Every parameter with a list of allowed values, on every endpoint. */
const CASES: Array<[SearchEndpoint, string, ValuedParameter]> = SEARCH_ENDPOINTS.flatMap((endpoint) =>
  SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters
    .filter((parameter): parameter is ValuedParameter => 'values' in parameter)
    .map((parameter): [SearchEndpoint, string, ValuedParameter] => [endpoint, parameter.name, parameter]),
);

/** A filter type shows only next to the list it applies to. */
const COMPANIONS: Partial<Record<string, RawSearchQuery>> = {
  collections_filter_type: { collection_codes: 'NWS' },
  graphical_styles_filter_type: { graphical_styles: 'vector' },
};

describe('every enum parameter takes each of its values and refuses others, naming the parameter', () => {
  it('covers the enum parameters of every endpoint', () => {
    const names = new Set(CASES.map(([, name]) => name));
    for (const name of [
      'sort_order', 'moods', 'orientations', 'aspect_ratios', 'compositions', 'ethnicity', 'number_of_people',
      'graphical_styles', 'graphical_styles_filter_type', 'collections_filter_type', 'age_of_people', 'minimum_size',
      'file_types', 'editorial_segments', 'editorial_segment', 'format_available', 'frame_rates', 'image_techniques',
      'license_models', 'editorial_video_types', 'release_status', 'viewpoints', 'facet_fields', 'download_product',
      'product_types', 'style',
    ]) {
      expect(names.has(name), name).toBe(true);
    }
  });

  it.each(CASES)('%s %s: every value', (endpoint, _name, parameter) => {
    for (const value of parameter.values) {
      const result = search(endpoint, { ...COMPANIONS[parameter.name], [parameter.name]: value });
      expect(JSON.stringify(result), `${parameter.name}=${value}`).toContain(`"${value}"`);
    }
  });

  it.each(CASES)('%s %s: a value not in the list', (endpoint, _name, parameter) => {
    const error = apiError(() => search(endpoint, { [parameter.name]: 'sunny' }));
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe('InvalidParameterValue');
    expect(error.message).toBe(`Invalid value for parameter '${parameter.name}': 'sunny' is not one of ${parameter.values.join(', ')}`);
  });

  it('names the bad item of a list, after good ones', () => {
    const error = apiError(() => search('images_creative', { moods: 'bold,sunny,warm' }));
    expect(error.message).toBe(
      "Invalid value for parameter 'moods': 'sunny' is not one of black_and_white, bold, cool, dramatic, natural, vivid, warm",
    );
  });

  it('takes values in any letter case, in the canonical spelling', () => {
    expect(search('images_creative', { moods: 'Bold,WARM', sort_order: 'Most_Popular' })).toMatchObject({
      sort_order: 'most_popular',
      filters: { moods: ['bold', 'warm'] },
    });
  });

  it('takes lists comma-separated or repeated, without repeats', () => {
    expect(filters('images_creative', { moods: ['bold,cool', 'bold', ' warm '] }).moods).toEqual(['bold', 'cool', 'warm']);
    expect(filters('images_creative', { moods: ',' }).moods).toBeUndefined();
  });

  it('refuses several values for a single-valued parameter', () => {
    const error = apiError(() => search('images', { sort_order: ['newest', 'random'] }));
    expect(error.message).toBe("Invalid value for parameter 'sort_order': takes one value, not several");
  });

  it('gives each endpoint its own list: oldest on editorial search and events only, fine_art not on editorial', () => {
    for (const endpoint of ['images_editorial', 'videos_editorial', 'events'] as const) {
      expect(search(endpoint, { sort_order: 'oldest' })).toMatchObject({ sort_order: 'oldest' });
    }
    for (const endpoint of ['images', 'images_creative', 'videos', 'videos_creative'] as const) {
      expect(apiError(() => search(endpoint, { sort_order: 'oldest' })).code).toBe('InvalidParameterValue');
      expect(search(endpoint, { sort_order: 'random' })).toMatchObject({ sort_order: 'random' });
    }
    expect(apiError(() => search('events', { sort_order: 'best_match' })).message).toBe(
      "Invalid value for parameter 'sort_order': 'best_match' is not one of newest, oldest",
    );
    expect(parameterOf('images_editorial', 'graphical_styles')).toMatchObject({ values: ['photography', 'illustration', 'vector'] });
    expect(apiError(() => search('images_editorial', { graphical_styles: 'fine_art' })).code).toBe('InvalidParameterValue');
    expect(apiError(() => search('videos_creative', { orientations: 'square' })).code).toBe('InvalidParameterValue');
    expect(filters('images_creative', { orientations: 'square,panoramic_vertical' }).orientations).toEqual([
      'square',
      'panoramic_vertical',
    ]);
  });

  it('reads the other list filters: artists, specific_people, collection codes', () => {
    expect(filters('images', { artists: 'Ada Lens, Maren Holt', specific_people: ['Ava Marsh'] })).toEqual({
      artists: ['Ada Lens', 'Maren Holt'],
      specific_people: ['Ava Marsh'],
    });
  });
});
