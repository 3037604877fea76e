import type { FieldCatalog } from '../../platform/http/fields.js';
import { DISPLAY_SIZE_NAMES } from '../../media/display-sizes.js';
import type { SearchEndpoint } from './search-values.js';

/*
 * What `fields` may name on each search endpoint, as data for the one FieldSelector.
 *
 * Each endpoint's list is the contract's enum (§6, named as there), split into fields and
 * display sizes; set names are not fields. The sets are those of the contract's §4, written
 * out here; a set names only what its endpoint may select (checked when this module loads).
 * Image searches offer every display size media renders (the spec names high_res_comp and the
 * WebP comps as display-size arguments), video searches thumb, preview and comp.
 */

const SET_NAMES = new Set(['summary_set', 'detail_set', 'display_set']);

/** The fields that need a bearer token (spec, Authentication). */
const TOKEN_FIELDS = ['download_sizes', 'downloads', 'largest_downloads'];

/** Every display size of an image, in media's order. */
const IMAGE_DISPLAY_SIZES: readonly string[] = DISPLAY_SIZE_NAMES;
/** The display sizes of a video. */
const VIDEO_DISPLAY_SIZES: readonly string[] = ['thumb', 'preview', 'comp'];
/** Every display-size name: these are never fields. */
const ALL_DISPLAY_SIZES: ReadonlySet<string> = new Set(IMAGE_DISPLAY_SIZES);

// ---- The contract's field-value enums (§6) -------------------------------------------------

export const IMAGES_FIELD_VALUES = [
  'accessrestriction', 'allowed_use', 'alternative_ids', 'artist', 'asset_family', 'call_for_image', 'caption',
  'collection_code', 'collection_id', 'collection_name', 'color_type', 'comp', 'comp_webp', 'copyright',
  'date_camera_shot', 'date_created', 'date_submitted', 'detail_set', 'display_set', 'download_product',
  'download_sizes', 'editorial_segments', 'editorial_source', 'entity_details', 'event_ids', 'graphical_style', 'id',
  'partner_collection', 'keywords', 'largest_downloads', 'license_model', 'max_dimensions', 'orientation', 'people',
  'preview', 'product_types', 'quality_rank', 'referral_destinations', 'summary_set', 'thumb', 'title', 'uri_oembed',
] as const;

export const CREATIVE_IMAGES_FIELD_VALUES = [
  'allowed_use', 'alternative_ids', 'artist', 'asset_family', 'call_for_image', 'caption', 'collection_code',
  'collection_id', 'collection_name', 'color_type', 'comp', 'comp_webp', 'copyright', 'date_camera_shot',
  'date_created', 'date_submitted', 'detail_set', 'display_set', 'download_product', 'download_sizes',
  'graphical_style', 'id', 'partner_collection', 'keywords', 'largest_downloads', 'license_model', 'max_dimensions',
  'orientation', 'preview', 'product_types', 'quality_rank', 'referral_destinations', 'summary_set', 'thumb', 'title',
  'uri_oembed',
] as const;

export const EDITORIAL_IMAGES_FIELD_VALUES = [
  'allowed_use', 'alternative_ids', 'artist', 'asset_family', 'call_for_image', 'caption', 'collection_code',
  'collection_id', 'collection_name', 'color_type', 'comp', 'comp_webp', 'copyright', 'date_camera_shot',
  'date_created', 'date_submitted', 'detail_set', 'display_set', 'download_product', 'download_sizes',
  'editorial_segments', 'editorial_source', 'event_ids', 'graphical_style', 'id', 'keywords', 'largest_downloads',
  'license_model', 'max_dimensions', 'orientation', 'people', 'preview', 'product_types', 'quality_rank',
  'referral_destinations', 'summary_set', 'thumb', 'title', 'uri_oembed',
] as const;

export const ARTISTS_IMAGE_SEARCH_FIELD_VALUES = [
  'id', 'allowed_use', 'alternative_ids', 'artist', 'asset_family', 'asset_type', 'call_for_image', 'caption',
  'collection_id', 'collection_code', 'collection_name', 'comp', 'comp_webp', 'copyright', 'date_created',
  'date_submitted', 'detail_set', 'display_set', 'editorial_segments', 'event_ids', 'graphical_style',
  'high_res_comp_webp', 'keywords', 'license_model', 'max_dimensions', 'mid_res_comp_webp', 'orientation', 'preview',
  'product_types', 'quality_rank', 'referral_destinations', 'summary_set', 'thumb', 'title',
] as const;

export const CREATIVE_VIDEOS_FIELD_VALUES = [
  'allowed_use', 'artist', 'aspect_ratio', 'asset_family', 'call_for_image', 'caption', 'clip_length',
  'collection_code', 'collection_id', 'collection_name', 'color_type', 'comp', 'copyright', 'date_created',
  'date_submitted', 'detail_set', 'display_set', 'download_product', 'download_sizes', 'era', 'id',
  'partner_collection', 'keywords', 'largest_downloads', 'license_model', 'mastered_to', 'object_name', 'orientation',
  'originally_shot_on', 'preview', 'product_types', 'quality_rank', 'referral_destinations', 'shot_speed',
  'summary_set', 'thumb', 'title',
] as const;

export const EDITORIAL_VIDEOS_FIELD_VALUES = [
  'allowed_use', 'artist', 'aspect_ratio', 'asset_family', 'call_for_image', 'caption', 'clip_length',
  'collection_code', 'collection_id', 'collection_name', 'color_type', 'comp', 'copyright', 'date_created',
  'date_submitted', 'detail_set', 'display_set', 'download_product', 'download_sizes', 'editorial_segments', 'era',
  'event_ids', 'id', 'partner_collection', 'keywords', 'largest_downloads', 'license_model', 'mastered_to',
  'object_name', 'orientation', 'originally_shot_on', 'preview', 'product_types', 'quality_rank',
  'referral_destinations', 'shot_speed', 'source', 'summary_set', 'thumb', 'title', 'partner_licenses',
] as const;

/** Defined in the contract but unreferenced: it fits the spec's blended video search. */
export const BLENDED_VIDEOS_FIELD_VALUES = [...EDITORIAL_VIDEOS_FIELD_VALUES, 'entity_details'] as const;

export const ASSOCIATED_VIDEO_DETAIL_FIELD_VALUES = [
  'allowed_use', 'artist', 'aspect_ratio', 'asset_family', 'call_for_image', 'caption', 'clip_length',
  'collection_code', 'collection_id', 'collection_name', 'color_type', 'comp', 'copyright', 'date_created',
  'date_submitted', 'detail_set', 'display_set', 'download_product', 'download_sizes', 'editorial_segments',
  'entity_details', 'era', 'event_ids', 'id', 'partner_collection', 'keywords', 'largest_downloads', 'license_model',
  'mastered_to', 'orientation', 'originally_shot_on', 'preview', 'product_types', 'quality_rank',
  'referral_destinations', 'shot_speed', 'source', 'summary_set', 'thumb', 'title', 'partner_licenses',
] as const;

export const ARTISTS_VIDEO_SEARCH_FIELD_VALUES = [
  'id', 'allowed_use', 'alternative_ids', 'artist', 'asset_family', 'asset_type', 'call_for_image', 'caption',
  'clip_length', 'collection_id', 'collection_code', 'collection_name', 'comp', 'copyright', 'date_created',
  'date_submitted', 'detail_set', 'display_set', 'editorial_segments', 'event_ids', 'graphical_style', 'keywords',
  'license_model', 'max_dimensions', 'orientation', 'preview', 'product_types', 'quality_rank',
  'referral_destinations', 'summary_set', 'thumb', 'title',
] as const;

export const EVENT_FIELD_VALUES = [
  'id', 'child_event_count', 'editorial_segments', 'hero_image', 'image_count', 'keywords', 'location', 'name',
  'start_date', 'type',
] as const;

// ---- The sets of the contract's §4 ---------------------------------------------------------

const IMAGE_SEARCH_SUMMARY = [
  'asset_family', 'caption', 'collection_code', 'collection_id', 'collection_name', 'thumb', 'license_model',
  'max_dimensions', 'title',
];

const IMAGE_SEARCH_DETAIL = [
  'allowed_use', 'artist', 'asset_family', 'call_for_image', 'caption', 'collection_code', 'collection_id',
  'collection_name', 'copyright', 'date_created', 'comp', 'preview', 'thumb', 'editorial_segments', 'event_ids',
  'graphical_style', 'license_model', 'max_dimensions', 'orientation', 'product_types', 'quality_rank',
  'referral_destinations', 'title',
];

const DISPLAY_SET = ['comp', 'preview', 'thumb'];

/** The summary_set of GET /v3/videos, which the video searches share. */
const VIDEO_SUMMARY = ['asset_family', 'caption', 'collection_code', 'collection_name', 'comp', 'preview', 'thumb', 'license_model', 'title'];

/** The detail_set of GET /v3/videos; each video search takes it with some fields left out. */
const VIDEO_DETAIL = [
  'allowed_use', 'artist', 'asset_family', 'call_for_image', 'caption', 'clip_length', 'collection_code',
  'collection_id', 'collection_name', 'color_type', 'copyright', 'date_created', 'comp', 'preview', 'thumb',
  'download_sizes', 'era', 'event_ids', 'license_model', 'mastered_to', 'originally_shot_on', 'product_types',
  'quality_rank', 'shot_speed', 'source', 'title',
];

function without(list: readonly string[], ...names: string[]): string[] {
  return list.filter((name) => !names.includes(name));
}

/**
 * Builds one catalog from a contract enum: set names drop out, display sizes go to
 * `displaySizes` (the sizes the endpoint renders, in the size table's order), the rest are
 * fields. Throws when a set names something the endpoint cannot select (or the enum names a
 * size the endpoint does not render), so a typo in the tables above fails at load time, not
 * on a request.
 */
function catalog(
  values: readonly string[],
  options: {
    sizes: readonly string[];
    sets: Record<string, readonly string[]>;
    defaults?: readonly string[];
  },
): FieldCatalog {
  const displaySizes = [...options.sizes];
  for (const value of values) {
    if (ALL_DISPLAY_SIZES.has(value) && !displaySizes.includes(value)) throw new Error(`display size '${value}' is not offered`);
  }
  const fields = values.filter((value) => !SET_NAMES.has(value) && !ALL_DISPLAY_SIZES.has(value));
  const selectable = new Set([...fields, ...displaySizes]);
  for (const [set, members] of Object.entries(options.sets)) {
    for (const member of members) {
      if (!selectable.has(member)) throw new Error(`field set ${set} names '${member}', which the endpoint does not offer`);
    }
  }
  return Object.freeze({
    fields: Object.freeze(fields),
    displaySizes: Object.freeze(displaySizes),
    sets: Object.freeze(Object.fromEntries(Object.entries(options.sets).map(([name, members]) => [name, Object.freeze([...members])]))),
    defaults: Object.freeze([...(options.defaults ?? ['summary_set'])]),
    tokenFields: Object.freeze(TOKEN_FIELDS.filter((field) => fields.includes(field))),
  });
}

const IMAGE_SEARCH_SETS = { summary_set: IMAGE_SEARCH_SUMMARY, detail_set: IMAGE_SEARCH_DETAIL, display_set: DISPLAY_SET };

/** GET /search/images (blended), GET /images/{id}/similar and /same-series: ImagesFieldValues. */
export const IMAGE_SEARCH_FIELDS: FieldCatalog = catalog(IMAGES_FIELD_VALUES, { sizes: IMAGE_DISPLAY_SIZES, sets: IMAGE_SEARCH_SETS });

/**
 * GET /search/images/creative (and by-image, which the contract gives no sets of):
 * CreativeImagesFieldValues. Creative images have no editorial segments or events, so the
 * detail_set leaves those two out.
 */
export const CREATIVE_IMAGE_SEARCH_FIELDS: FieldCatalog = catalog(CREATIVE_IMAGES_FIELD_VALUES, {
  sizes: IMAGE_DISPLAY_SIZES,
  sets: { ...IMAGE_SEARCH_SETS, detail_set: without(IMAGE_SEARCH_DETAIL, 'editorial_segments', 'event_ids') },
});

/** GET /search/images/editorial: EditorialImagesFieldValues. */
export const EDITORIAL_IMAGE_SEARCH_FIELDS: FieldCatalog = catalog(EDITORIAL_IMAGES_FIELD_VALUES, {
  sizes: IMAGE_DISPLAY_SIZES,
  sets: IMAGE_SEARCH_SETS,
});

/** GET /artists/images: ArtistsImageSearchFieldValues with the image search sets. */
export const ARTIST_IMAGE_SEARCH_FIELDS: FieldCatalog = catalog(ARTISTS_IMAGE_SEARCH_FIELD_VALUES, {
  sizes: IMAGE_DISPLAY_SIZES,
  sets: IMAGE_SEARCH_SETS,
});

/** GET /search/videos/creative (and by-image): detail as /v3/videos without download_sizes and event_ids. */
export const CREATIVE_VIDEO_SEARCH_FIELDS: FieldCatalog = catalog(CREATIVE_VIDEOS_FIELD_VALUES, {
  sizes: VIDEO_DISPLAY_SIZES,
  // `source` belongs to editorial videos only: CreativeVideosFieldValues has no such value.
  sets: { summary_set: VIDEO_SUMMARY, detail_set: without(VIDEO_DETAIL, 'download_sizes', 'event_ids', 'source'), display_set: DISPLAY_SET },
});

/** GET /search/videos/editorial: detail as /v3/videos without download_sizes. */
export const EDITORIAL_VIDEO_SEARCH_FIELDS: FieldCatalog = catalog(EDITORIAL_VIDEOS_FIELD_VALUES, {
  sizes: VIDEO_DISPLAY_SIZES,
  sets: { summary_set: VIDEO_SUMMARY, detail_set: without(VIDEO_DETAIL, 'download_sizes'), display_set: DISPLAY_SET },
});

/** GET /search/videos (blended; spec only): BlendedVideosFieldValues with the editorial sets. */
export const BLENDED_VIDEO_SEARCH_FIELDS: FieldCatalog = catalog(BLENDED_VIDEOS_FIELD_VALUES, {
  sizes: VIDEO_DISPLAY_SIZES,
  sets: { summary_set: VIDEO_SUMMARY, detail_set: without(VIDEO_DETAIL, 'download_sizes'), display_set: DISPLAY_SET },
});

/** GET /videos/{id}/similar: the sets of /v3/videos, display_set without key_frames. */
export const SIMILAR_VIDEO_FIELDS: FieldCatalog = catalog(ASSOCIATED_VIDEO_DETAIL_FIELD_VALUES, {
  sizes: VIDEO_DISPLAY_SIZES,
  sets: { summary_set: VIDEO_SUMMARY, detail_set: VIDEO_DETAIL, display_set: DISPLAY_SET },
});

/** GET /videos/{id}/same-series: as similar, detail_set without event_ids. */
export const SAME_SERIES_VIDEO_FIELDS: FieldCatalog = catalog(ASSOCIATED_VIDEO_DETAIL_FIELD_VALUES, {
  sizes: VIDEO_DISPLAY_SIZES,
  sets: { summary_set: VIDEO_SUMMARY, detail_set: without(VIDEO_DETAIL, 'event_ids'), display_set: DISPLAY_SET },
});

/** GET /artists/videos: ArtistsVideoSearchFieldValues; the video sets, restricted to what it offers. */
export const ARTIST_VIDEO_SEARCH_FIELDS: FieldCatalog = catalog(ARTISTS_VIDEO_SEARCH_FIELD_VALUES, {
  sizes: VIDEO_DISPLAY_SIZES,
  sets: {
    summary_set: VIDEO_SUMMARY,
    detail_set: without(
      VIDEO_DETAIL,
      'color_type', 'download_sizes', 'era', 'mastered_to', 'originally_shot_on', 'shot_speed', 'source',
    ),
    display_set: DISPLAY_SET,
  },
});

/** GET /search/events: EventFieldValues; default id, name, start_date (spec). */
export const EVENT_SEARCH_FIELDS: FieldCatalog = catalog(EVENT_FIELD_VALUES, {
  sizes: [],
  sets: {},
  defaults: ['id', 'name', 'start_date'],
});

/** The catalog of each endpoint; the affiliate searches take no `fields`. */
export const SEARCH_FIELD_CATALOGS: Readonly<Record<SearchEndpoint, FieldCatalog | undefined>> = {
  images: IMAGE_SEARCH_FIELDS,
  images_creative: CREATIVE_IMAGE_SEARCH_FIELDS,
  images_editorial: EDITORIAL_IMAGE_SEARCH_FIELDS,
  images_creative_by_image: CREATIVE_IMAGE_SEARCH_FIELDS,
  videos: BLENDED_VIDEO_SEARCH_FIELDS,
  videos_creative: CREATIVE_VIDEO_SEARCH_FIELDS,
  videos_editorial: EDITORIAL_VIDEO_SEARCH_FIELDS,
  videos_creative_by_image: CREATIVE_VIDEO_SEARCH_FIELDS,
  events: EVENT_SEARCH_FIELDS,
  affiliates_images: undefined,
  affiliates_videos: undefined,
  artists_images: ARTIST_IMAGE_SEARCH_FIELDS,
  artists_videos: ARTIST_VIDEO_SEARCH_FIELDS,
  image_similar: IMAGE_SEARCH_FIELDS,
  image_same_series: IMAGE_SEARCH_FIELDS,
  video_similar: SIMILAR_VIDEO_FIELDS,
  video_same_series: SAME_SERIES_VIDEO_FIELDS,
};

/** The names `fields` takes on a catalog: sets, fields, display sizes (for documentation). */
export function selectableNames(fieldCatalog: FieldCatalog): string[] {
  return [...Object.keys(fieldCatalog.sets), ...fieldCatalog.fields, ...fieldCatalog.displaySizes];
}
