import { describe, expect, it } from 'vitest';
import { FieldSelector } from '../../../src/platform/http/fields.js';
import {
  ARTIST_IMAGE_SEARCH_FIELDS,
  ARTIST_VIDEO_SEARCH_FIELDS,
  CREATIVE_IMAGES_FIELD_VALUES,
  CREATIVE_IMAGE_SEARCH_FIELDS,
  CREATIVE_VIDEO_SEARCH_FIELDS,
  EDITORIAL_IMAGE_SEARCH_FIELDS,
  EDITORIAL_VIDEO_SEARCH_FIELDS,
  EVENT_SEARCH_FIELDS,
  IMAGE_SEARCH_FIELDS,
  SAME_SERIES_VIDEO_FIELDS,
  SEARCH_FIELD_CATALOGS,
  SIMILAR_VIDEO_FIELDS,
  selectableNames,
} from '../../../src/search/params/field-sets.js';
import { SEARCH_ENDPOINTS } from '../../../src/search/params/search-values.js';

const IMAGE_SIZES = ['thumb', 'preview', 'comp', 'mid_res_comp', 'high_res_comp', 'comp_webp', 'mid_res_comp_webp', 'high_res_comp_webp'];

describe('search field sets follow the contract §4, with the enums of §6', () => {
  it('image search summary_set: asset_family, caption, collection_*, thumb, license_model, max_dimensions, title', () => {
    for (const catalog of [IMAGE_SEARCH_FIELDS, CREATIVE_IMAGE_SEARCH_FIELDS, EDITORIAL_IMAGE_SEARCH_FIELDS]) {
      const selection = new FieldSelector(catalog).select(undefined);
      expect([...selection.fields].sort()).toEqual(
        ['asset_family', 'caption', 'collection_code', 'collection_id', 'collection_name', 'license_model', 'max_dimensions', 'title'],
      );
      expect(selection.displaySizes).toEqual(['thumb']);
    }
  });

  it('image search detail_set: the §4 list with comp, preview and thumb; creative images leave out segments and events', () => {
    const editorial = new FieldSelector(EDITORIAL_IMAGE_SEARCH_FIELDS).select('detail_set');
    expect([...editorial.fields].sort()).toEqual([
      'allowed_use', 'artist', 'asset_family', 'call_for_image', 'caption', 'collection_code', 'collection_id', 'collection_name',
      'copyright', 'date_created', 'editorial_segments', 'event_ids', 'graphical_style', 'license_model', 'max_dimensions',
      'orientation', 'product_types', 'quality_rank', 'referral_destinations', 'title',
    ]);
    expect(editorial.displaySizes).toEqual(['thumb', 'preview', 'comp']);
    const creative = new FieldSelector(CREATIVE_IMAGE_SEARCH_FIELDS).select('detail_set');
    expect(creative.fields.has('editorial_segments')).toBe(false);
    expect(creative.fields.has('event_ids')).toBe(false);
    expect(creative.fields.size).toBe(editorial.fields.size - 2);
  });

  it('display_set is comp, preview and thumb everywhere', () => {
    for (const catalog of Object.values(SEARCH_FIELD_CATALOGS)) {
      if (!catalog || catalog === EVENT_SEARCH_FIELDS) continue;
      const selection = new FieldSelector(catalog).select('display_set');
      expect(selection.displaySizes).toEqual(['thumb', 'preview', 'comp']);
      expect(selection.fields.size).toBe(0);
    }
  });

  it('takes each enum value of the contract, display sizes as display sizes and every image size media renders', () => {
    const selector = new FieldSelector(CREATIVE_IMAGE_SEARCH_FIELDS);
    for (const value of CREATIVE_IMAGES_FIELD_VALUES) expect(() => selector.select(value), value).not.toThrow();
    expect(CREATIVE_IMAGE_SEARCH_FIELDS.displaySizes).toEqual(IMAGE_SIZES);
    expect(CREATIVE_IMAGE_SEARCH_FIELDS.fields).not.toContain('comp_webp');
    expect(selector.select('comp_webp,high_res_comp').displaySizes).toEqual(['high_res_comp', 'comp_webp']);
    expect(() => selector.select('people')).toThrow("Invalid value for parameter 'fields': unknown field 'people'");
    expect(() => new FieldSelector(EDITORIAL_IMAGE_SEARCH_FIELDS).select('people')).not.toThrow();
    expect(IMAGE_SEARCH_FIELDS.fields).toContain('accessrestriction');
    expect(EDITORIAL_IMAGE_SEARCH_FIELDS.fields).not.toContain('partner_collection');
  });

  it('makes download_sizes (and largest_downloads) token fields', () => {
    for (const endpoint of SEARCH_ENDPOINTS) {
      const catalog = SEARCH_FIELD_CATALOGS[endpoint];
      if (!catalog || !catalog.fields.includes('download_sizes')) continue;
      expect(catalog.tokenFields, endpoint).toContain('download_sizes');
      expect(new FieldSelector(catalog).select('download_sizes').requiresToken).toBe(true);
    }
    expect(CREATIVE_IMAGE_SEARCH_FIELDS.tokenFields).toEqual(['download_sizes', 'largest_downloads']);
    // Through a set it is returned only with a token, never required.
    const similar = new FieldSelector(SIMILAR_VIDEO_FIELDS).select('detail_set');
    expect(similar.requiresToken).toBe(false);
    expect([...similar.tokenFieldsIfAuthorized]).toEqual(['download_sizes']);
  });

  it('video searches: the /v3/videos sets, less download_sizes (and event_ids on creative and same-series)', () => {
    for (const catalog of [CREATIVE_VIDEO_SEARCH_FIELDS, EDITORIAL_VIDEO_SEARCH_FIELDS, SIMILAR_VIDEO_FIELDS, SAME_SERIES_VIDEO_FIELDS]) {
      const summary = new FieldSelector(catalog).select(undefined);
      expect([...summary.fields].sort()).toEqual(['asset_family', 'caption', 'collection_code', 'collection_name', 'license_model', 'title']);
      expect(summary.displaySizes).toEqual(['thumb', 'preview', 'comp']);
      expect(catalog.displaySizes).toEqual(['thumb', 'preview', 'comp']);
    }
    const detail = (catalog: typeof SIMILAR_VIDEO_FIELDS) => catalog.sets.detail_set ?? [];
    expect(detail(CREATIVE_VIDEO_SEARCH_FIELDS)).not.toContain('download_sizes');
    expect(detail(CREATIVE_VIDEO_SEARCH_FIELDS)).not.toContain('event_ids');
    expect(detail(EDITORIAL_VIDEO_SEARCH_FIELDS)).not.toContain('download_sizes');
    expect(detail(EDITORIAL_VIDEO_SEARCH_FIELDS)).toContain('event_ids');
    expect(detail(SIMILAR_VIDEO_FIELDS)).toContain('download_sizes');
    expect(detail(SAME_SERIES_VIDEO_FIELDS)).not.toContain('event_ids');
    expect(CREATIVE_VIDEO_SEARCH_FIELDS.fields).toContain('clip_length');
    expect(CREATIVE_VIDEO_SEARCH_FIELDS.fields).toContain('download_product');
  });

  it('event search: the EventFieldValues, default id, name, start_date', () => {
    expect(EVENT_SEARCH_FIELDS.fields).toEqual([
      'id', 'child_event_count', 'editorial_segments', 'hero_image', 'image_count', 'keywords', 'location', 'name', 'start_date', 'type',
    ]);
    expect([...new FieldSelector(EVENT_SEARCH_FIELDS).select(undefined).fields]).toEqual(['id', 'name', 'start_date']);
    expect(EVENT_SEARCH_FIELDS.displaySizes).toEqual([]);
  });

  it('every set of every catalog expands without an unknown name, and every name is selectable', () => {
    for (const endpoint of SEARCH_ENDPOINTS) {
      const catalog = SEARCH_FIELD_CATALOGS[endpoint];
      if (!catalog) {
        expect(endpoint.startsWith('affiliates_'), endpoint).toBe(true);
        continue;
      }
      const selector = new FieldSelector(catalog);
      for (const name of selectableNames(catalog)) expect(() => selector.select(name), `${endpoint} ${name}`).not.toThrow();
    }
    expect(ARTIST_IMAGE_SEARCH_FIELDS.fields).toContain('asset_type');
    expect(ARTIST_VIDEO_SEARCH_FIELDS.sets.detail_set).not.toContain('era');
  });
});
