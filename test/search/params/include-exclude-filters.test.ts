import { describe, expect, it } from 'vitest';
import { apiError, endpointsWith, filters, search } from './helpers.js';

const IMAGE_SEARCHES = ['images', 'images_creative', 'images_editorial'] as const;

describe('graphical_styles_filter_type: include (the default, "equals not using the filter type") keeps the styles, exclude drops them', () => {
  it('belongs to the three image searches', () => {
    expect(endpointsWith('graphical_styles').sort()).toEqual([...IMAGE_SEARCHES].sort());
    expect(endpointsWith('graphical_styles_filter_type').sort()).toEqual([...IMAGE_SEARCHES].sort());
  });

  it.each(IMAGE_SEARCHES)('%s', (endpoint) => {
    const withoutType = filters(endpoint, { graphical_styles: 'vector,illustration' }).graphical_styles;
    expect(withoutType).toEqual({ mode: 'include', values: ['vector', 'illustration'] });
    // include is the same as leaving the filter type out; it does not switch the styles filter off.
    expect(filters(endpoint, { graphical_styles: 'vector,illustration', graphical_styles_filter_type: 'include' }).graphical_styles).toEqual(
      withoutType,
    );
    expect(filters(endpoint, { graphical_styles: 'vector', graphical_styles_filter_type: 'Exclude' }).graphical_styles).toEqual({
      mode: 'exclude',
      values: ['vector'],
    });
    // A filter type without styles has nothing to include or exclude.
    expect(filters(endpoint, { graphical_styles_filter_type: 'exclude' })).not.toHaveProperty('graphical_styles');
    expect(apiError(() => search(endpoint, { graphical_styles_filter_type: 'only' })).code).toBe('InvalidParameterValue');
  });
});

describe('collections_filter_type: collection_codes included (default) or excluded', () => {
  it.each(endpointsWith('collection_codes'))('%s', (endpoint) => {
    expect(filters(endpoint, { collection_codes: 'NWS,STK' })).toMatchObject({ collections: { mode: 'include', values: ['NWS', 'STK'] } });
    expect(filters(endpoint, { collection_codes: 'NWS', collections_filter_type: 'exclude' })).toMatchObject({
      collections: { mode: 'exclude', values: ['NWS'] },
    });
    expect(filters(endpoint, { collections_filter_type: 'exclude' })).not.toHaveProperty('collections');
  });
});

describe('the other single-valued filters', () => {
  it('reads minimum_size, minimum_quality_rank, format_available, release_status and style', () => {
    expect(filters('images_editorial', { minimum_size: 'xx_large', minimum_quality_rank: '2' })).toEqual({
      minimum_size: 'xx_large',
      minimum_quality_rank: 2,
    });
    for (const bad of ['0', '4', 'best']) {
      expect(apiError(() => search('images_editorial', { minimum_quality_rank: bad })).message).toMatch(
        /^Invalid value for parameter 'minimum_quality_rank': '.*' is not a whole number( from 1 to 3)?$/,
      );
    }
    expect(filters('videos_editorial', { format_available: 'hd_web', release_status: 'fully_released' })).toEqual({
      format_available: 'hd_web',
      release_status: 'fully_released',
    });
    expect(search('affiliates_images', { phrase: 'dawn', style: 'vector' })).toEqual({
      endpoint: 'affiliates_images',
      phrase: 'dawn',
      filters: { style: 'vector' },
    });
  });
});
