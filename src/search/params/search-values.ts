import { ASSET_PRODUCT_TYPES } from '../../catalog/product-types.js';
/*
 * The names and value lists of the search endpoints, as data.
 *
 * Values are those of the contract's enums (§6), widened where the written spec names more
 * (the spec wins where the two differ). Every list is `as const`, so each one is also a type.
 */

/** Every search-like endpoint whose request side this module describes. */
export const SEARCH_ENDPOINTS = [
  'images',
  'images_creative',
  'images_editorial',
  'images_creative_by_image',
  'videos',
  'videos_creative',
  'videos_editorial',
  'videos_creative_by_image',
  'events',
  'affiliates_images',
  'affiliates_videos',
  'artists_images',
  'artists_videos',
  'image_similar',
  'image_same_series',
  'video_similar',
  'video_same_series',
] as const;
export type SearchEndpoint = (typeof SEARCH_ENDPOINTS)[number];

/** The path of each endpoint below /v3, written the way Fastify declares a path parameter. */
export const SEARCH_PATHS: Readonly<Record<SearchEndpoint, string>> = {
  images: '/search/images',
  images_creative: '/search/images/creative',
  images_editorial: '/search/images/editorial',
  images_creative_by_image: '/search/images/creative/by-image',
  videos: '/search/videos',
  videos_creative: '/search/videos/creative',
  videos_editorial: '/search/videos/editorial',
  videos_creative_by_image: '/search/videos/creative/by-image',
  events: '/search/events',
  affiliates_images: '/affiliates/search/images',
  affiliates_videos: '/affiliates/search/videos',
  artists_images: '/artists/images',
  artists_videos: '/artists/videos',
  image_similar: '/images/:id/similar',
  image_same_series: '/images/:id/same-series',
  video_similar: '/videos/:id/similar',
  video_same_series: '/videos/:id/same-series',
};

/** The only page sizes the spec allows on search (Limits). */
export const PAGE_SIZES = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 25, 30, 50, 60, 75, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];

/** Sort orders of the blended and creative image and video searches. */
export const SORT_ORDERS = ['best_match', 'most_popular', 'newest', 'random'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];
/** Sort orders of the editorial image and video searches: `oldest` as well. */
export const EDITORIAL_SORT_ORDERS = ['best_match', 'most_popular', 'newest', 'oldest', 'random'] as const;
export type EditorialSortOrder = (typeof EDITORIAL_SORT_ORDERS)[number];
/** Sort orders of event search; newest is the default. */
export const EVENT_SORT_ORDERS = ['newest', 'oldest'] as const;
export type EventSortOrder = (typeof EVENT_SORT_ORDERS)[number];

export const AGES_OF_PEOPLE = [
  'newborn',
  'baby',
  'child',
  'teenager',
  'young_adult',
  'adult',
  'adults_only',
  'mature_adult',
  'senior_adult',
  '0-1_months',
  '2-5_months',
  '6-11_months',
  '12-17_months',
  '18-23_months',
  '2-3_years',
  '4-5_years',
  '6-7_years',
  '8-9_years',
  '10-11_years',
  '12-13_years',
  '14-15_years',
  '16-17_years',
  '18-19_years',
  '20-24_years',
  '20-29_years',
  '25-29_years',
  '30-34_years',
  '30-39_years',
  '35-39_years',
  '40-44_years',
  '40-49_years',
  '45-49_years',
  '50-54_years',
  '50-59_years',
  '55-59_years',
  '60-64_years',
  '60-69_years',
  '65-69_years',
  '70-79_years',
  '80-89_years',
  '90_plus_years',
  '100_over',
] as const;
export type AgeOfPeople = (typeof AGES_OF_PEOPLE)[number];

/** The contract's list; it already holds the spec's additions medium_shot, wide_shot, part_of_a_series. */
export const COMPOSITIONS = [
  'abstract',
  'candid',
  'close_up',
  'copy_space',
  'cut_out',
  'full_frame',
  'full_length',
  'headshot',
  'looking_at_camera',
  'macro',
  'medium_shot',
  'part_of_a_series',
  'portrait',
  'sparse',
  'still_life',
  'three_quarter_length',
  'waist_up',
  'wide_shot',
] as const;
export type Composition = (typeof COMPOSITIONS)[number];

export const ETHNICITIES = [
  'black',
  'white',
  'east_asian',
  'hispanic_latinx',
  'japanese',
  'middle_eastern',
  'multiracial_person',
  'multiethnic_group',
  'native_american_first_nations',
  'pacific_islander',
  'south_asian',
  'southeast_asian',
] as const;
export type Ethnicity = (typeof ETHNICITIES)[number];
/** The spec writes `east asian`; the contract `east_asian`. Both are taken, as `east_asian`. */
export const ETHNICITY_ALIASES: Readonly<Record<string, Ethnicity>> = { 'east asian': 'east_asian' };

export const MOODS = ['black_and_white', 'bold', 'cool', 'dramatic', 'natural', 'vivid', 'warm'] as const;
export type Mood = (typeof MOODS)[number];

export const NUMBERS_OF_PEOPLE = ['none', 'one', 'two', 'group'] as const;
export type NumberOfPeople = (typeof NUMBERS_OF_PEOPLE)[number];

export const IMAGE_ORIENTATIONS = ['horizontal', 'vertical', 'square', 'panoramic_horizontal', 'panoramic_vertical'] as const;
export type ImageOrientation = (typeof IMAGE_ORIENTATIONS)[number];
export const VIDEO_ORIENTATIONS = ['horizontal', 'vertical'] as const;
export type VideoOrientation = (typeof VIDEO_ORIENTATIONS)[number];

export const ASPECT_RATIOS = ['16:9', '9:16', '3:4', '4:3', '4:5', '2:1', '17:9', '9:17'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

/** Graphical styles of the blended and creative image searches. */
export const GRAPHICAL_STYLES = ['fine_art', 'illustration', 'photography', 'vector'] as const;
export type GraphicalStyle = (typeof GRAPHICAL_STYLES)[number];
/** Graphical styles of the editorial image search (no fine_art there). */
export const EDITORIAL_GRAPHICAL_STYLES = ['photography', 'illustration', 'vector'] as const;

export const FILTER_TYPES = ['include', 'exclude'] as const;
export type FilterType = (typeof FILTER_TYPES)[number];

export const MINIMUM_SIZES = ['x_small', 'small', 'medium', 'large', 'x_large', 'xx_large', 'vector'] as const;
export type MinimumSize = (typeof MINIMUM_SIZES)[number];

export const FILE_TYPES = ['eps'] as const;
export type FileType = (typeof FILE_TYPES)[number];

export const EDITORIAL_SEGMENTS = ['archival', 'entertainment', 'news', 'publicity', 'royalty', 'sport'] as const;
export type EditorialSegment = (typeof EDITORIAL_SEGMENTS)[number];

export const VIDEO_FORMATS = ['sd', 'hd', '4k', 'hd_web'] as const;
export type VideoFormat = (typeof VIDEO_FORMATS)[number];

export const FRAME_RATES = ['23.98', '24', '25', '29.97', '30', '50', '59.94', '60'] as const;
export type FrameRate = (typeof FRAME_RATES)[number];

export const IMAGE_TECHNIQUES = [
  'realtime',
  'time_lapse',
  'slow_motion',
  'color',
  'black_and_white',
  'animation',
  'selective_focus',
] as const;
export type ImageTechnique = (typeof IMAGE_TECHNIQUES)[number];

export const VIDEO_LICENSE_MODELS = ['rightsready', 'royaltyfree'] as const;
export type VideoLicenseModel = (typeof VIDEO_LICENSE_MODELS)[number];

export const EDITORIAL_VIDEO_TYPES = ['raw', 'produced'] as const;
export type EditorialVideoType = (typeof EDITORIAL_VIDEO_TYPES)[number];

export const RELEASE_STATUSES = ['release_not_important', 'fully_released'] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];

export const VIEWPOINTS = [
  'lockdown',
  'panning',
  'tracking_shot',
  'aerial_view',
  'high_angle_view',
  'low_angle_view',
  'tilt',
  'point_of_view',
] as const;
export type Viewpoint = (typeof VIEWPOINTS)[number];

/** Facets of the creative searches (and search by image). */
export const CREATIVE_FACET_FIELDS = ['artists', 'locations'] as const;
/** Facets of the editorial searches. */
export const EDITORIAL_FACET_FIELDS = ['artists', 'events', 'locations', 'specific_people'] as const;
export type FacetField = (typeof EDITORIAL_FACET_FIELDS)[number];
export type CreativeFacetField = (typeof CREATIVE_FACET_FIELDS)[number];

/**
 * Product types `download_product` takes: the spec says "a product type value", and its list of
 * product types (image_detail.product_types) adds creditpack to the contract's five.
 */
export const DOWNLOAD_PRODUCT_TYPES = ASSET_PRODUCT_TYPES;
export type ProductType = (typeof DOWNLOAD_PRODUCT_TYPES)[number];
/** Product types the by-image searches take in `product_types` (the contract's list). */
export const BY_IMAGE_PRODUCT_TYPES = ['easyaccess', 'imagepack', 'premiumaccess', 'royaltyfreesubscription'] as const;

export const AFFILIATE_STYLES = ['photography', 'vector'] as const;
export type AffiliateStyle = (typeof AFFILIATE_STYLES)[number];

/** Whole numbers of the contract's int32 ids: 1..2147483647. */
export const INT32_MAX = 2147483647;
