import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { addParameterVocabulary } from '../../../src/platform/http/validators.js';
import { describe, expect, it } from 'vitest';
import { searchQuerySchema } from '../../../src/search/params/search-parameters.js';
import { apiError, endpointsWith, filters, search } from './helpers.js';

/** The route validator's Ajv: its options, formats and the parameter kinds' vocabulary. */
const ajv = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false });
addFormats.default(ajv);
addParameterVocabulary(ajv);
const validatorOf = (schema: object) => {
  const validate = ajv.compile(schema);
  return (value: unknown) => validate(structuredClone(value));
};

const VIDEO_SEARCHES = ['videos', 'videos_creative', 'videos_editorial'] as const;

describe('both spellings are accepted where the spec and the contract differ', () => {
  it('takes pageSize as page_size wherever there is paging', () => {
    for (const endpoint of endpointsWith('page_size')) {
      expect(search(endpoint, { pageSize: '60' })).toMatchObject({ page_size: 60 });
      expect(validatorOf(searchQuerySchema(endpoint))({ ...(endpoint.startsWith('artists') ? { artist_name: 'a' } : {}), pageSize: 60 })).toBe(true);
      expect(apiError(() => search(endpoint, { pageSize: '7' })).code).toBe('InvalidPageSize');
    }
  });

  it('takes page_size and pageSize together when they agree, and refuses them when they differ', () => {
    expect(search('images', { page_size: '10', pageSize: 10 })).toMatchObject({ page_size: 10 });
    const error = apiError(() => search('images', { page_size: '10', pageSize: '20' }));
    expect(error.code).toBe('InvalidPageSize');
    expect(error.message).toBe("Invalid value for parameter 'pageSize': '20' differs from page_size='10'; give one of them");
  });

  it.each(VIDEO_SEARCHES)('takes aspect_ratio and orientation (spec) as aspect_ratios and orientations (contract) on %s', (endpoint) => {
    expect(filters(endpoint, { aspect_ratio: '16:9', orientation: 'vertical' })).toMatchObject({
      aspect_ratios: ['16:9'],
      orientations: ['vertical'],
    });
    expect(filters(endpoint, { aspect_ratios: '16:9,9:16', orientations: 'vertical,horizontal' })).toMatchObject({
      aspect_ratios: ['16:9', '9:16'],
      orientations: ['vertical', 'horizontal'],
    });
    // Both spellings at once: one list.
    expect(filters(endpoint, { aspect_ratio: '16:9', aspect_ratios: '4:3,16:9' }).aspect_ratios).toEqual(['16:9', '4:3']);
    // The error names the spelling the caller used.
    expect(apiError(() => search(endpoint, { orientation: 'square' })).message).toBe(
      "Invalid value for parameter 'orientation': 'square' is not one of horizontal, vertical",
    );
  });

  it('takes the spec\'s "east asian" as the contract\'s east_asian, on every endpoint with ethnicity', () => {
    const endpoints = endpointsWith('ethnicity');
    expect(endpoints.sort()).toEqual(['images', 'images_creative', 'images_editorial', 'videos', 'videos_creative']);
    for (const endpoint of endpoints) {
      expect(filters(endpoint, { ethnicity: 'east asian,East_Asian,black' })).toMatchObject({ ethnicity: ['east_asian', 'black'] });
    }
  });

  it("takes the spec's extended compositions (medium_shot, wide_shot, part_of_a_series) on every endpoint with compositions", () => {
    for (const endpoint of endpointsWith('compositions')) {
      expect(filters(endpoint, { compositions: 'medium_shot,wide_shot,part_of_a_series,close_up' })).toMatchObject({
        compositions: ['medium_shot', 'wide_shot', 'part_of_a_series', 'close_up'],
      });
    }
  });
});
