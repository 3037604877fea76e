import { describe, expect, it } from 'vitest';
import { SEARCH_ENDPOINT_DEFINITIONS } from '../../../src/search/params/search-parameters.js';
import { SEARCH_ENDPOINTS, type SearchEndpoint } from '../../../src/search/params/search-values.js';
import { apiError, filters, search } from './helpers.js';

const BOOLEANS: Array<[SearchEndpoint, string, boolean]> = SEARCH_ENDPOINTS.flatMap((endpoint) =>
  SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters.flatMap((parameter): Array<[SearchEndpoint, string, boolean]> =>
    parameter.type === 'boolean' ? [[endpoint, parameter.name, parameter.default]] : [],
  ),
);

/** Where each flag lands in the normalized request. */
function flagValue(result: ReturnType<typeof search>, name: string): boolean | undefined {
  if (name === 'enhanced_search' && 'enhanced_search' in result) return result.enhanced_search;
  if (name === 'include_related_searches' && 'include_related_searches' in result) return result.include_related_searches;
  if (name === 'include_facets' && 'facets' in result) return result.facets.include;
  const filters = 'filters' in result ? (result.filters as Record<string, unknown>) : {};
  // Filter flags are there only when they narrow the results.
  return filters[name] === true ? true : name in filters ? (filters[name] as boolean) : false;
}

describe('booleans take true and false in any letter case, nothing else', () => {
  it('covers every flag', () => {
    expect(new Set(BOOLEANS.map(([, name]) => name))).toEqual(
      new Set([
        'embed_content_only', 'enhanced_search', 'exclude_editorial_use_only', 'exclude_nudity', 'include_facets',
        'include_related_searches', 'prestige_content_only', 'safe_search',
      ]),
    );
  });

  it.each(BOOLEANS)('%s %s', (endpoint, name, defaultValue) => {
    expect(flagValue(search(endpoint), name)).toBe(defaultValue);
    for (const text of ['true', 'TRUE', 'True', ' true ']) expect(flagValue(search(endpoint, { [name]: text }), name)).toBe(true);
    for (const text of ['false', 'FALSE', 'False']) expect(flagValue(search(endpoint, { [name]: text }), name)).toBe(false);
    expect(flagValue(search(endpoint, { [name]: true }), name)).toBe(true);
    expect(flagValue(search(endpoint, { [name]: false }), name)).toBe(false);
    for (const bad of ['1', '0', 'yes', 'no', 'on', '', 't']) {
      const error = apiError(() => search(endpoint, { [name]: bad }));
      expect(error.code, bad).toBe('InvalidParameterValue');
      expect(error.message, bad).toBe(`Invalid value for parameter '${name}': '${bad}' is not true or false`);
    }
  });

  it('leaves a false filter flag out of the filters', () => {
    expect(filters('videos_creative', { exclude_nudity: 'false', safe_search: 'true' })).toEqual({ safe_search: true });
  });
});
