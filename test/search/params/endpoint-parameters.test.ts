import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { addParameterVocabulary } from '../../../src/platform/http/validators.js';
import { Value } from '@sinclair/typebox/value';
import { normalizeSearchParameters } from '../../../src/search/params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS, SEARCH_QUERY_SCHEMAS, searchQuerySchema } from '../../../src/search/params/search-parameters.js';
import { SEARCH_ENDPOINTS, SEARCH_PATHS, type SearchEndpoint } from '../../../src/search/params/search-values.js';
import { apiError, BASE, filters, search } from './helpers.js';

const IMAGE_COMMON = [
  'phrase', 'page', 'page_size', 'age_of_people', 'artists', 'collection_codes', 'collections_filter_type', 'compositions',
  'download_product', 'embed_content_only', 'ethnicity', 'file_types', 'graphical_styles_filter_type',
  'include_related_searches', 'keyword_ids', 'minimum_size', 'number_of_people', 'orientations', 'fields', 'sort_order',
  'graphical_styles',
  // What the partner's official clients send besides: the older name of download_product, and prestige.
  'product_types', 'prestige_content_only',
];
const VIDEO_COMMON = [
  'phrase', 'page', 'page_size', 'age_of_people', 'artists', 'aspect_ratios', 'collection_codes', 'collections_filter_type',
  'compositions', 'download_product', 'format_available', 'frame_rates', 'image_techniques', 'include_related_searches',
  'keyword_ids', 'min_clip_length', 'max_clip_length', 'orientations', 'release_status', 'viewpoints', 'fields', 'sort_order',
  'product_types',
];
const FACETS = ['include_facets', 'facet_fields', 'facet_max_count'];

/** Every parameter of every endpoint: the contract's table plus what the spec adds. */
const EXPECTED: Record<SearchEndpoint, string[]> = {
  images: [...IMAGE_COMMON, 'color', 'event_ids', 'exclude_nudity', 'specific_people'],
  images_creative: [
    ...IMAGE_COMMON, 'enhanced_search', 'color', 'exclude_editorial_use_only', 'exclude_keyword_ids', 'exclude_nudity',
    ...FACETS, 'moods', 'safe_search',
  ],
  images_editorial: [
    ...IMAGE_COMMON, 'date_from', 'date_to', 'editorial_segments', 'event_ids', 'exclude_keyword_ids', 'specific_people',
    'minimum_quality_rank', ...FACETS, 'color', 'entity_uris', 'exclude_nudity',
  ],
  images_creative_by_image: [
    'asset_id', 'image_url', 'phrase', 'page', 'page_size', 'fields', 'exclude_editorial_use_only', ...FACETS, 'product_types',
    'download_product', 'artists', 'keyword_ids',
  ],
  videos: [
    ...VIDEO_COMMON, 'ethnicity', 'event_ids', 'exclude_nudity', 'number_of_people', 'specific_people', 'editorial_video_types',
    'license_models',
  ],
  videos_creative: [
    ...VIDEO_COMMON, 'enhanced_search', 'ethnicity', 'exclude_editorial_use_only', 'exclude_keyword_ids', 'exclude_nudity',
    ...FACETS, 'license_models', 'number_of_people', 'safe_search',
  ],
  videos_editorial: [
    ...VIDEO_COMMON, 'date_from', 'date_to', 'editorial_video_types', 'event_ids', 'specific_people', ...FACETS, 'entity_uris',
    'exclude_nudity',
  ],
  videos_creative_by_image: [
    'asset_id', 'image_url', 'phrase', 'page', 'page_size', 'fields', 'exclude_editorial_use_only', ...FACETS, 'product_types',
    'download_product', 'min_clip_length', 'max_clip_length', 'format_available', 'artists', 'keyword_ids',
  ],
  events: ['phrase', 'editorial_segment', 'date_from', 'date_to', 'fields', 'page', 'page_size', 'sort_order'],
  affiliates_images: ['phrase', 'style'],
  affiliates_videos: ['phrase'],
  artists_images: ['artist_name', 'fields', 'page', 'page_size'],
  artists_videos: ['artist_name', 'fields', 'page', 'page_size'],
  image_similar: ['fields', 'page', 'page_size'],
  image_same_series: ['fields', 'page', 'page_size'],
  video_similar: ['fields', 'page', 'page_size'],
  video_same_series: ['fields', 'page', 'page_size'],
};

const ALIASES: Partial<Record<string, string>> = { pageSize: 'page_size', aspect_ratio: 'aspect_ratios', orientation: 'orientations' };

describe('each endpoint takes every parameter the spec and the contract give it', () => {
  it.each(SEARCH_ENDPOINTS)('%s', (endpoint) => {
    const names = SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters.map((parameter) => parameter.name);
    expect(new Set(names).size, 'no parameter twice').toBe(names.length);
    expect([...names].sort()).toEqual([...EXPECTED[endpoint]].sort());
    // The schema declares each name and each alias, nothing else.
    const declared = Object.keys(searchQuerySchema(endpoint).properties);
    const canonical = declared.map((name) => ALIASES[name] ?? name);
    expect([...new Set(canonical)].sort()).toEqual([...EXPECTED[endpoint]].sort());
  });

  it('knows the path of every endpoint', () => {
    expect(SEARCH_PATHS.images_creative_by_image).toBe('/search/images/creative/by-image');
    expect(SEARCH_PATHS.video_same_series).toBe('/videos/:id/same-series');
    for (const endpoint of SEARCH_ENDPOINTS) expect(SEARCH_ENDPOINT_DEFINITIONS[endpoint].path).toBe(SEARCH_PATHS[endpoint]);
  });

  it('describes every parameter, and lists the allowed values of enums in the description', () => {
    for (const endpoint of SEARCH_ENDPOINTS) {
      const schema = searchQuerySchema(endpoint);
      for (const [name, property] of Object.entries(schema.properties)) {
        expect((property as { description?: string }).description, `${endpoint} ${name}`).toBeTruthy();
      }
      for (const parameter of SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters) {
        if (!('values' in parameter)) continue;
        const description = (schema.properties[parameter.name] as { description: string }).description;
        for (const value of parameter.values) expect(description, `${endpoint} ${parameter.name}`).toContain(value);
      }
    }
  });

  it('declares the contract defaults in the schema (page_size, which has two spellings, only in words)', () => {
    const creative = SEARCH_QUERY_SCHEMAS.images_creative.properties as Record<string, { default?: unknown; description: string }>;
    expect(creative.page?.default).toBe(1);
    expect(creative.phrase?.default).toBe('');
    expect(creative.enhanced_search?.default).toBe(true);
    expect(creative.facet_max_count?.default).toBe(300);
    expect(creative.sort_order?.default).toBe('best_match');
    expect(creative.exclude_nudity?.default).toBe(false);
    expect(creative.page_size?.default).toBeUndefined();
    expect(creative.page_size?.description).toContain('default 30');
    const events = SEARCH_QUERY_SCHEMAS.events.properties as Record<string, { default?: unknown }>;
    expect(events.sort_order?.default).toBe('newest');
  });
});

/** The route validator's Ajv: its options, formats and the parameter kinds' vocabulary. */
const ajv = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: true });
addFormats.default(ajv);
addParameterVocabulary(ajv);
const TypeCompiler = {
  Compile(schema: object) {
    const validate = ajv.compile(schema);
    return {
      Check: (value: unknown) => validate(structuredClone(value)),
      Errors: (value: unknown) => (validate(structuredClone(value)) ? [] : (validate.errors ?? []).map((error) => ({ ...error, path: error.instancePath || `/${String(error.params.additionalProperty ?? '')}` }))),
    };
  },
};

describe('an unknown parameter is rejected by the schema and by the normalizer', () => {
  it.each(SEARCH_ENDPOINTS)('%s', (endpoint) => {
    const schema = searchQuerySchema(endpoint);
    expect(schema.additionalProperties).toBe(false);
    const check = TypeCompiler.Compile(schema);
    // The typed form the route validation produces from a minimal request.
    const valid = Value.Default(schema, structuredClone(BASE[endpoint])) as Record<string, unknown>;
    expect(check.Check(valid), JSON.stringify([...check.Errors(valid)])).toBe(true);
    const withUnknown = { ...valid, colour: 'red' };
    expect(check.Check(withUnknown)).toBe(false);
    const errors = [...check.Errors(withUnknown)];
    expect(errors.some((error) => error.path === '/colour')).toBe(true);

    const error = apiError(() => normalizeSearchParameters(endpoint, { ...BASE[endpoint], colour: 'red' }));
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe('MalformedRequest');
    expect(error.message).toBe("Unknown parameter 'colour'");
  });

  it('refuses a parameter of another endpoint: moods belongs to creative image search only', () => {
    expect(filters('images_creative', { moods: 'bold' }).moods).toEqual(['bold']);
    for (const endpoint of ['images', 'images_editorial', 'videos_creative'] as const) {
      expect(apiError(() => search(endpoint, { moods: 'bold' })).code).toBe('MalformedRequest');
      expect(TypeCompiler.Compile(searchQuerySchema(endpoint)).Check({ moods: ['bold'] })).toBe(false);
    }
  });

  it('ignores parameters whose value is undefined', () => {
    expect(search('images', { phrase: undefined }).phrase).toBe('');
  });
});

describe('schema defaults do not change the normalized result', () => {
  it.each(SEARCH_ENDPOINTS)('%s', (endpoint) => {
    const schema = searchQuerySchema(endpoint);
    const withDefaults = Value.Default(schema, structuredClone(BASE[endpoint])) as Record<string, unknown>;
    expect(normalizeSearchParameters(endpoint, withDefaults)).toEqual(normalizeSearchParameters(endpoint, BASE[endpoint]));
  });
});
