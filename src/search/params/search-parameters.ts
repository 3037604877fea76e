import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { FieldCatalog } from '../../platform/http/fields.js';
import { Choice, CommaList, Flag, IsoDate, PageNumber, PageSize, ProductType, READING, Text } from '../../platform/http/parameters.js';
import { SEARCH_FIELD_CATALOGS, selectableNames } from './field-sets.js';
import {
  AFFILIATE_STYLES,
  AGES_OF_PEOPLE,
  ASPECT_RATIOS,
  BY_IMAGE_PRODUCT_TYPES,
  COMPOSITIONS,
  CREATIVE_FACET_FIELDS,
  DOWNLOAD_PRODUCT_TYPES,
  EDITORIAL_FACET_FIELDS,
  EDITORIAL_GRAPHICAL_STYLES,
  EDITORIAL_SEGMENTS,
  EDITORIAL_SORT_ORDERS,
  EDITORIAL_VIDEO_TYPES,
  ETHNICITIES,
  ETHNICITY_ALIASES,
  EVENT_SORT_ORDERS,
  FILE_TYPES,
  FILTER_TYPES,
  FRAME_RATES,
  GRAPHICAL_STYLES,
  INT32_MAX,
  IMAGE_ORIENTATIONS,
  IMAGE_TECHNIQUES,
  MINIMUM_SIZES,
  MOODS,
  NUMBERS_OF_PEOPLE,
  PAGE_SIZES,
  RELEASE_STATUSES,
  SEARCH_ENDPOINTS,
  SEARCH_PATHS,
  SORT_ORDERS,
  VIDEO_FORMATS,
  VIDEO_LICENSE_MODELS,
  VIDEO_ORIENTATIONS,
  VIEWPOINTS,
  type SearchEndpoint,
} from './search-values.js';

/*
 * The query parameters of every search endpoint, as data: one definition per parameter,
 * one list per endpoint. The TypeBox querystring schemas are built from these lists, and
 * `normalizeSearchParameters` reads the same lists, so the two cannot disagree.
 *
 * The schemas check shape only (a string, a whole number, a comma-separated list) and reject
 * unknown parameters. Allowed values are listed in each description and checked by the
 * normalizer, so that a 400 names the parameter and the value: "Invalid value for parameter
 * 'moods': 'sunny' is not one of black_and_white, bold, …".
 */

interface ParameterBase {
  /** The canonical name, as the contract spells it. */
  readonly name: string;
  readonly description: string;
  /** Other spellings taken for the same parameter (the spec's, where it differs). */
  readonly aliases?: readonly string[];
  /** Without it the request is refused. */
  readonly required?: boolean;
}

/** One query parameter of a search endpoint; `type` says how its value is read. */
export type SearchParameter = ParameterBase &
  (
    | { readonly type: 'text'; readonly default?: string }
    | { readonly type: 'url' }
    | { readonly type: 'text_list' }
    | { readonly type: 'enum'; readonly values: readonly string[]; readonly default?: string }
    | {
        readonly type: 'enum_list';
        readonly values: readonly string[];
        /** other spellings of single values → the canonical value */
        readonly valueAliases?: Readonly<Record<string, string>>;
      }
    | { readonly type: 'id_list' }
    | { readonly type: 'boolean'; readonly default: boolean }
    | { readonly type: 'integer'; readonly minimum: number; readonly maximum: number; readonly default?: number }
    | { readonly type: 'page'; readonly maximum?: number }
    | { readonly type: 'page_size'; readonly default: number }
    | { readonly type: 'date'; readonly bound: 'from' | 'to' }
    | { readonly type: 'color' }
    | { readonly type: 'product' | 'product_list'; readonly values: readonly string[] }
    | { readonly type: 'fields'; readonly catalog: FieldCatalog }
  );

export type SearchParameterType = SearchParameter['type'];

/** One endpoint: where it lives and what it takes. */
export interface SearchEndpointDefinition {
  readonly endpoint: SearchEndpoint;
  /** below /v3, with `:id` for the path parameter */
  readonly path: string;
  readonly summary: string;
  readonly parameters: readonly SearchParameter[];
}

const oneOf = (values: readonly (string | number)[]) => `One of: ${values.join(', ')}.`;

// ---- Parameter definitions -----------------------------------------------------------------

const phrase = (description = 'Search text.'): SearchParameter => ({ name: 'phrase', type: 'text', default: '', description });

const PAGE: SearchParameter = { name: 'page', type: 'page', description: 'Page number, from 1; default 1.' };
const EVENT_PAGE: SearchParameter = { name: 'page', type: 'page', maximum: 50, description: 'Page number, from 1 to 50; default 1.' };

const pageSize = (defaultSize: number): SearchParameter => ({
  name: 'page_size',
  type: 'page_size',
  default: defaultSize,
  aliases: ['pageSize'],
  description: `Results per page; default ${defaultSize}. ${oneOf(PAGE_SIZES)} Also accepted as pageSize.`,
});
const PAGE_SIZE = pageSize(30);

const fields = (endpoint: SearchEndpoint): SearchParameter => {
  const catalog = SEARCH_FIELD_CATALOGS[endpoint];
  if (!catalog) throw new Error(`${endpoint} has no field catalog`);
  const token = catalog.tokenFields.length > 0 ? ` ${catalog.tokenFields.join(', ')} need a bearer token.` : '';
  return {
    name: 'fields',
    type: 'fields',
    catalog,
    description:
      `Field sets, field names and display sizes, comma-separated; default ${catalog.defaults.join(', ')}. ` +
      `Allowed: ${selectableNames(catalog).join(', ')}.${token}`,
  };
};

const sortOrder = (values: readonly string[], defaultOrder: string): SearchParameter => ({
  name: 'sort_order',
  type: 'enum',
  values,
  default: defaultOrder,
  description: `Order of the results; default ${defaultOrder}; random gives relevant results in random order. ${oneOf(values)}`,
});

const enumList = (
  name: string,
  values: readonly string[],
  description: string,
  extra: { aliases?: readonly string[]; valueAliases?: Readonly<Record<string, string>> } = {},
): SearchParameter => ({ name, type: 'enum_list', values, description: `${description} Comma-separated. ${oneOf(values)}`, ...extra });

const flag = (name: string, defaultValue: boolean, description: string): SearchParameter => ({
  name,
  type: 'boolean',
  default: defaultValue,
  description: `${description} true or false; default ${String(defaultValue)}.`,
});

const AGE_OF_PEOPLE = enumList('age_of_people', AGES_OF_PEOPLE, 'Ages of the people shown.');
const ARTISTS: SearchParameter = { name: 'artists', type: 'text_list', description: 'Artist names (facet values), comma-separated.' };
const COLLECTION_CODES: SearchParameter = {
  name: 'collection_codes',
  type: 'text_list',
  description: 'Collection codes, comma-separated; included or excluded per collections_filter_type.',
};
const COLLECTIONS_FILTER_TYPE: SearchParameter = {
  name: 'collections_filter_type',
  type: 'enum',
  values: FILTER_TYPES,
  default: 'include',
  description: `Whether collection_codes limits the results to those collections or leaves them out; default include. ${oneOf(FILTER_TYPES)}`,
};
const COLOR: SearchParameter = { name: 'color', type: 'color', description: 'Hex RGB colour, #RRGGBB or RRGGBB (e.g. #002244).' };
const BLENDED_COLOR: SearchParameter = {
  ...COLOR,
  description: `${COLOR.description} Setting it leaves editorial images out of the results.`,
};
const COMPOSITIONS_PARAM = enumList('compositions', COMPOSITIONS, 'Compositions.');
const DATE_FROM: SearchParameter = {
  name: 'date_from',
  type: 'date',
  bound: 'from',
  description: 'Created on or after this ISO 8601 date (YYYY-MM-DD) or date-time; UTC unless a zone is given.',
};
const DATE_TO: SearchParameter = {
  name: 'date_to',
  type: 'date',
  bound: 'to',
  description: 'Created on or before this ISO 8601 date (YYYY-MM-DD, the whole day) or date-time; UTC unless a zone is given.',
};
const DOWNLOAD_PRODUCT: SearchParameter = {
  name: 'download_product',
  type: 'product',
  values: DOWNLOAD_PRODUCT_TYPES,
  description: `Only assets that download against this product type, optionally one product: type:productId (e.g. premiumaccess:1234). ${oneOf(DOWNLOAD_PRODUCT_TYPES)}`,
};
const EDITORIAL_SEGMENTS_PARAM = enumList('editorial_segments', EDITORIAL_SEGMENTS, 'Editorial segments.');
const EMBED_CONTENT_ONLY = flag('embed_content_only', false, 'Only embeddable assets.');
const ENHANCED_SEARCH = flag(
  'enhanced_search',
  true,
  'Enhanced search widens the matching of conversational phrases; false gives a precise result set.',
);
const ETHNICITY = enumList('ethnicity', ETHNICITIES, 'Ethnicities of the people shown; "east asian" is taken as east_asian.', {
  valueAliases: ETHNICITY_ALIASES,
});
const EVENT_IDS: SearchParameter = { name: 'event_ids', type: 'id_list', description: 'Event ids, comma-separated.' };
const EXCLUDE_EDITORIAL_USE_ONLY = flag(
  'exclude_editorial_use_only',
  false,
  'Leave out assets for editorial use only: editorial assets, and creative ones whose usage restrictions say editorial use only.',
);
const EXCLUDE_KEYWORD_IDS: SearchParameter = {
  name: 'exclude_keyword_ids',
  type: 'id_list',
  description: 'Keyword ids, comma-separated: only assets NOT tagged with them.',
};
const EXCLUDE_NUDITY = flag('exclude_nudity', false, 'Leave out assets showing nudity.');
const FILE_TYPES_PARAM = enumList('file_types', FILE_TYPES, 'File types: eps keeps the images that have an EPS (vector) file.');
const FORMAT_AVAILABLE: SearchParameter = {
  name: 'format_available',
  type: 'enum',
  values: VIDEO_FORMATS,
  description: `A video file format the clip must be available in (hd_web: the lightweight HD file). ${oneOf(VIDEO_FORMATS)}`,
};
const FRAME_RATES_PARAM = enumList('frame_rates', FRAME_RATES, 'Frames per second.');
const graphicalStyles = (values: readonly string[]): SearchParameter =>
  enumList('graphical_styles', values, 'Graphical styles; included or excluded per graphical_styles_filter_type.');
const GRAPHICAL_STYLES_FILTER_TYPE: SearchParameter = {
  name: 'graphical_styles_filter_type',
  type: 'enum',
  values: FILTER_TYPES,
  default: 'include',
  description:
    'Whether graphical_styles limits the results to those styles (include) or leaves them out (exclude). ' +
    `include, the default, is the same as not giving this parameter. ${oneOf(FILTER_TYPES)}`,
};
const IMAGE_TECHNIQUES_PARAM = enumList(
  'image_techniques',
  IMAGE_TECHNIQUES,
  'Image techniques: shot speed (realtime, time_lapse, slow_motion), colour (color, black_and_white) and others the catalogue records.',
);
const INCLUDE_RELATED_SEARCHES = flag('include_related_searches', false, 'Return related searches.');
const KEYWORD_IDS: SearchParameter = {
  name: 'keyword_ids',
  type: 'id_list',
  description: 'Keyword ids (facet values), comma-separated: only assets tagged with them; combines with phrase.',
};
const LICENSE_MODELS = enumList('license_models', VIDEO_LICENSE_MODELS, 'License models.');
const clipLength = (name: 'min_clip_length' | 'max_clip_length', description: string): SearchParameter => ({
  name,
  type: 'integer',
  minimum: 0,
  maximum: INT32_MAX,
  default: 0,
  description: `${description}, in whole seconds; default 0 (no limit).`,
});
const MIN_CLIP_LENGTH = clipLength('min_clip_length', 'Shortest clip length');
const MAX_CLIP_LENGTH = clipLength('max_clip_length', 'Longest clip length');
const MINIMUM_QUALITY_RANK: SearchParameter = {
  name: 'minimum_quality_rank',
  type: 'integer',
  minimum: 1,
  maximum: 3,
  description: 'Lowest quality rank: 1, 2 or 3 (1 = best).',
};
const MINIMUM_SIZE: SearchParameter = {
  name: 'minimum_size',
  type: 'enum',
  values: MINIMUM_SIZES,
  description: `Smallest size the asset must be available in; default x_small. ${oneOf(MINIMUM_SIZES)}`,
};
const MOODS_PARAM = enumList('moods', MOODS, 'Predominant moods.');
const NUMBER_OF_PEOPLE = enumList('number_of_people', NUMBERS_OF_PEOPLE, 'Number of people shown.');
const IMAGE_ORIENTATIONS_PARAM = enumList('orientations', IMAGE_ORIENTATIONS, 'Orientations.');
const VIDEO_ORIENTATIONS_PARAM = enumList('orientations', VIDEO_ORIENTATIONS, 'Orientations; also accepted as orientation.', {
  aliases: ['orientation'],
});
const ASPECT_RATIOS_PARAM = enumList('aspect_ratios', ASPECT_RATIOS, 'Aspect ratios; also accepted as aspect_ratio.', {
  aliases: ['aspect_ratio'],
});
const RELEASE_STATUS: SearchParameter = {
  name: 'release_status',
  type: 'enum',
  values: RELEASE_STATUSES,
  description: `Model release: fully_released keeps only assets whose releases are all held; release_not_important filters nothing. ${oneOf(RELEASE_STATUSES)}`,
};
const SAFE_SEARCH = flag('safe_search', false, 'true leaves out sensitive content.');
const SPECIFIC_PEOPLE: SearchParameter = { name: 'specific_people', type: 'text_list', description: 'Names of people shown, comma-separated.' };
const VIEWPOINTS_PARAM = enumList('viewpoints', VIEWPOINTS, 'Viewpoints.');
const EDITORIAL_VIDEO_TYPES_PARAM = enumList(
  'editorial_video_types',
  EDITORIAL_VIDEO_TYPES,
  'Editorial video types: raw footage or produced (edited) pieces; only editorial videos have one.',
);

const facets = (values: readonly string[]): SearchParameter[] => [
  flag('include_facets', false, 'Return facets; must be true for any facet to be returned.'),
  enumList('facet_fields', values, 'Facets to return (with include_facets=true); default all of them.'),
  {
    name: 'facet_max_count',
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    default: 300,
    description: 'Most facets returned per facet type, 1 to 1000; default 300.',
  },
];

const BY_IMAGE_SOURCE: SearchParameter[] = [
  {
    name: 'asset_id',
    type: 'text',
    description: 'Id of a catalogue image or video to find similar ones to. Give exactly one of asset_id and image_url.',
  },
  {
    name: 'image_url',
    type: 'url',
    description:
      'Full URL of a file uploaded with PUT /v3/search/by-image/uploads/{file-name}. Give exactly one of asset_id and image_url.',
  },
];

const PRODUCT_TYPES: SearchParameter = {
  name: 'product_types',
  type: 'product_list',
  values: BY_IMAGE_PRODUCT_TYPES,
  description: `Product types, comma-separated, each optionally with one product: type:productId. ${oneOf(BY_IMAGE_PRODUCT_TYPES)}`,
};
/**
 * The older name of download_product, which the partner's official clients still send on the
 * keyword searches: a list, and an asset passes when it downloads against one of the types.
 */
const KEYWORD_SEARCH_PRODUCT_TYPES: SearchParameter = {
  name: 'product_types',
  type: 'product_list',
  values: DOWNLOAD_PRODUCT_TYPES,
  description:
    'The older form of download_product: only assets that download against one of these product types, comma-separated, ' +
    `each optionally with one product: type:productId (e.g. premiumaccess:1234). With download_product too, both apply. ${oneOf(DOWNLOAD_PRODUCT_TYPES)}`,
};
const PRESTIGE_CONTENT_ONLY = flag('prestige_content_only', false, 'Only prestige assets (the curated top-tier collection).');
const ENTITY_URIS: SearchParameter = {
  name: 'entity_uris',
  type: 'text_list',
  description: "Entity URIs, comma-separated: only assets with a keyword carrying one of them (a keyword's entity_uris).",
};

// ---- Endpoints -----------------------------------------------------------------------------

/** What the three image searches share. */
const IMAGE_SEARCH_COMMON: SearchParameter[] = [
  phrase(),
  PAGE,
  PAGE_SIZE,
  AGE_OF_PEOPLE,
  ARTISTS,
  COLLECTION_CODES,
  COLLECTIONS_FILTER_TYPE,
  COMPOSITIONS_PARAM,
  DOWNLOAD_PRODUCT,
  EMBED_CONTENT_ONLY,
  ETHNICITY,
  FILE_TYPES_PARAM,
  GRAPHICAL_STYLES_FILTER_TYPE,
  INCLUDE_RELATED_SEARCHES,
  KEYWORD_IDS,
  MINIMUM_SIZE,
  NUMBER_OF_PEOPLE,
  IMAGE_ORIENTATIONS_PARAM,
  PRESTIGE_CONTENT_ONLY,
  KEYWORD_SEARCH_PRODUCT_TYPES,
];

/** What the creative and editorial video searches share (the blended one takes it too). */
const VIDEO_SEARCH_COMMON: SearchParameter[] = [
  phrase(),
  PAGE,
  PAGE_SIZE,
  AGE_OF_PEOPLE,
  ARTISTS,
  ASPECT_RATIOS_PARAM,
  COLLECTION_CODES,
  COLLECTIONS_FILTER_TYPE,
  COMPOSITIONS_PARAM,
  DOWNLOAD_PRODUCT,
  FORMAT_AVAILABLE,
  FRAME_RATES_PARAM,
  IMAGE_TECHNIQUES_PARAM,
  INCLUDE_RELATED_SEARCHES,
  KEYWORD_IDS,
  MIN_CLIP_LENGTH,
  MAX_CLIP_LENGTH,
  VIDEO_ORIENTATIONS_PARAM,
  KEYWORD_SEARCH_PRODUCT_TYPES,
  RELEASE_STATUS,
  VIEWPOINTS_PARAM,
];

/** GET /images/{id}/similar and the like: a page of fields. */
const related = (endpoint: SearchEndpoint): SearchParameter[] => [fields(endpoint), PAGE, PAGE_SIZE];

const artists = (endpoint: SearchEndpoint): SearchParameter[] => [
  { name: 'artist_name', type: 'text', required: true, description: 'Name of the photographer or videographer.' },
  fields(endpoint),
  PAGE,
  pageSize(10),
];

const PARAMETERS: Readonly<Record<SearchEndpoint, readonly SearchParameter[]>> = {
  images: [
    ...IMAGE_SEARCH_COMMON,
    fields('images'),
    sortOrder(SORT_ORDERS, 'best_match'),
    BLENDED_COLOR,
    EVENT_IDS,
    EXCLUDE_NUDITY,
    graphicalStyles(GRAPHICAL_STYLES),
    SPECIFIC_PEOPLE,
  ],
  images_creative: [
    ...IMAGE_SEARCH_COMMON,
    fields('images_creative'),
    sortOrder(SORT_ORDERS, 'best_match'),
    ENHANCED_SEARCH,
    COLOR,
    EXCLUDE_EDITORIAL_USE_ONLY,
    EXCLUDE_KEYWORD_IDS,
    EXCLUDE_NUDITY,
    ...facets(CREATIVE_FACET_FIELDS),
    graphicalStyles(GRAPHICAL_STYLES),
    MOODS_PARAM,
    SAFE_SEARCH,
  ],
  images_editorial: [
    ...IMAGE_SEARCH_COMMON,
    fields('images_editorial'),
    sortOrder(EDITORIAL_SORT_ORDERS, 'best_match'),
    COLOR,
    DATE_FROM,
    DATE_TO,
    EDITORIAL_SEGMENTS_PARAM,
    ENTITY_URIS,
    EVENT_IDS,
    EXCLUDE_KEYWORD_IDS,
    EXCLUDE_NUDITY,
    graphicalStyles(EDITORIAL_GRAPHICAL_STYLES),
    SPECIFIC_PEOPLE,
    MINIMUM_QUALITY_RANK,
    ...facets(EDITORIAL_FACET_FIELDS),
  ],
  images_creative_by_image: [
    ...BY_IMAGE_SOURCE,
    phrase('Free text.'),
    PAGE,
    PAGE_SIZE,
    fields('images_creative_by_image'),
    EXCLUDE_EDITORIAL_USE_ONLY,
    ...facets(CREATIVE_FACET_FIELDS),
    PRODUCT_TYPES,
    // The spec gives download_product to all image and video searches, and artists and
    // keyword_ids to the searches with facets.
    DOWNLOAD_PRODUCT,
    ARTISTS,
    KEYWORD_IDS,
  ],
  videos: [
    ...VIDEO_SEARCH_COMMON,
    fields('videos'),
    sortOrder(SORT_ORDERS, 'best_match'),
    EDITORIAL_VIDEO_TYPES_PARAM,
    ETHNICITY,
    EVENT_IDS,
    EXCLUDE_NUDITY,
    LICENSE_MODELS,
    NUMBER_OF_PEOPLE,
    SPECIFIC_PEOPLE,
  ],
  videos_creative: [
    ...VIDEO_SEARCH_COMMON,
    fields('videos_creative'),
    sortOrder(SORT_ORDERS, 'best_match'),
    ENHANCED_SEARCH,
    ETHNICITY,
    EXCLUDE_EDITORIAL_USE_ONLY,
    EXCLUDE_KEYWORD_IDS,
    EXCLUDE_NUDITY,
    ...facets(CREATIVE_FACET_FIELDS),
    LICENSE_MODELS,
    NUMBER_OF_PEOPLE,
    SAFE_SEARCH,
  ],
  videos_editorial: [
    ...VIDEO_SEARCH_COMMON,
    fields('videos_editorial'),
    sortOrder(EDITORIAL_SORT_ORDERS, 'best_match'),
    DATE_FROM,
    DATE_TO,
    EDITORIAL_VIDEO_TYPES_PARAM,
    ENTITY_URIS,
    EVENT_IDS,
    EXCLUDE_NUDITY,
    SPECIFIC_PEOPLE,
    ...facets(EDITORIAL_FACET_FIELDS),
  ],
  videos_creative_by_image: [
    ...BY_IMAGE_SOURCE,
    phrase('Free text.'),
    PAGE,
    PAGE_SIZE,
    fields('videos_creative_by_image'),
    EXCLUDE_EDITORIAL_USE_ONLY,
    ...facets(CREATIVE_FACET_FIELDS),
    PRODUCT_TYPES,
    // The spec: download_product on all image and video searches, clip lengths on all video
    // searches, format_available on video search, artists and keyword_ids where there are facets.
    DOWNLOAD_PRODUCT,
    MIN_CLIP_LENGTH,
    MAX_CLIP_LENGTH,
    FORMAT_AVAILABLE,
    ARTISTS,
    KEYWORD_IDS,
  ],
  events: [
    phrase('Events related to the phrase. Give phrase, editorial_segment or both.'),
    {
      name: 'editorial_segment',
      type: 'enum',
      values: EDITORIAL_SEGMENTS,
      description: `Editorial segment of the events. Give phrase, editorial_segment or both. ${oneOf(EDITORIAL_SEGMENTS)}`,
    },
    {
      ...DATE_FROM,
      description: 'Events starting on or after this ISO 8601 date (YYYY-MM-DD) or date-time; UTC unless a zone is given.',
    },
    {
      ...DATE_TO,
      description: 'Events starting on or before this ISO 8601 date (YYYY-MM-DD, the whole day) or date-time; UTC unless a zone is given.',
    },
    fields('events'),
    EVENT_PAGE,
    PAGE_SIZE,
    sortOrder(EVENT_SORT_ORDERS, 'newest'),
  ],
  affiliates_images: [
    phrase(),
    { name: 'style', type: 'enum', values: AFFILIATE_STYLES, description: `Graphical style. ${oneOf(AFFILIATE_STYLES)}` },
  ],
  affiliates_videos: [phrase()],
  artists_images: artists('artists_images'),
  artists_videos: artists('artists_videos'),
  image_similar: related('image_similar'),
  image_same_series: related('image_same_series'),
  video_similar: related('video_similar'),
  video_same_series: related('video_same_series'),
};

const SUMMARIES: Readonly<Record<SearchEndpoint, string>> = {
  images: 'Search creative and editorial images (blended; deprecated, slower than the specific searches)',
  images_creative: 'Search creative images',
  images_editorial: 'Search editorial images',
  images_creative_by_image: 'Search creative images similar to an uploaded image or a catalogue asset',
  videos: 'Search creative and editorial videos (blended)',
  videos_creative: 'Search creative videos',
  videos_editorial: 'Search editorial videos',
  videos_creative_by_image: 'Search creative videos similar to an uploaded image or a catalogue asset',
  events: 'Search editorial events by phrase or editorial segment',
  affiliates_images: 'Affiliate image search',
  affiliates_videos: 'Affiliate video search',
  artists_images: 'Images by one photographer',
  artists_videos: 'Videos by one videographer',
  image_similar: 'Images similar to an image',
  image_same_series: 'Creative images of the same series (usually the same shoot)',
  video_similar: 'Videos similar to a video',
  video_same_series: 'Creative videos of the same series',
};

/** Every endpoint's definition: path, summary and parameters. */
export const SEARCH_ENDPOINT_DEFINITIONS: Readonly<Record<SearchEndpoint, SearchEndpointDefinition>> = Object.freeze(
  Object.fromEntries(
    SEARCH_ENDPOINTS.map((endpoint) => [
      endpoint,
      Object.freeze({ endpoint, path: SEARCH_PATHS[endpoint], summary: SUMMARIES[endpoint], parameters: PARAMETERS[endpoint] }),
    ]),
  ) as Record<SearchEndpoint, SearchEndpointDefinition>,
);

// ---- Schemas -------------------------------------------------------------------------------

/** A host name that ends in a letter: the URL parser reads a host ending in digits as an IPv4 address. */
const HTTP_URL_PATTERN = '^https?://(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(?::[0-9]{1,4})?(?:/[A-Za-z0-9._~%!$&\'()*+,;=:@/-]*)?$';

/**
 * The schema of one parameter's value, from the platform's parameter kinds: the one rule it is
 * validated with and the document states. Values are written in their canonical spelling; the
 * kinds' reading also takes other letter cases, spaces around a value and blank values (absent).
 */
function valueSchema(parameter: SearchParameter, description: string, withDefault: boolean): TSchema {
  const defaultOf = <T>(value: T | undefined) => (withDefault && value !== undefined ? { default: value } : {});
  switch (parameter.type) {
    case 'text':
      // A blank value counts as none: a required one must have something to read.
      return Text(description, { ...(parameter.required ? { pattern: '\\S' } : {}), ...defaultOf(parameter.default) });
    case 'url':
      return Type.String({ description, format: 'uri', pattern: HTTP_URL_PATTERN, [READING]: { expected: 'an absolute http or https URL' } });
    case 'enum':
      return Choice(parameter.values, description, defaultOf(parameter.default));
    case 'text_list':
      return CommaList(Type.String(), description);
    case 'enum_list':
      return CommaList(Choice(parameter.values, undefined, parameter.valueAliases ? { aliases: parameter.valueAliases } : {}), description);
    case 'id_list':
      return CommaList(Type.Integer({ minimum: 1, maximum: INT32_MAX }), description);
    case 'boolean':
      return Flag(description, defaultOf(parameter.default));
    case 'integer':
      return Type.Integer({ description, minimum: parameter.minimum, maximum: parameter.maximum, ...defaultOf(parameter.default) });
    case 'page':
      return PageNumber(description, { ...(parameter.maximum !== undefined ? { maximum: parameter.maximum } : {}), ...defaultOf(1) });
    case 'page_size':
      return PageSize(description, { sizes: PAGE_SIZES, ...defaultOf(parameter.default) });
    case 'date':
      return IsoDate(description, { time: true });
    case 'color':
      return Text(description, { pattern: '^#?[0-9A-Fa-f]{6}$', expected: 'a hex RGB colour (#RRGGBB or RRGGBB)' });
    case 'product':
      return ProductType(parameter.values, description, { withProduct: true });
    case 'product_list':
      return CommaList(ProductType(parameter.values, undefined, { withProduct: true }), description);
    case 'fields':
      return CommaList(Choice(selectableNames(parameter.catalog), undefined), description);
  }
}

/**
 * The querystring schema of one endpoint (`additionalProperties: false`). Each parameter is
 * declared under its name and each alias (deprecated); schema defaults are set only on
 * parameters without aliases, so a default is never added beside another spelling the caller used.
 */
function buildQuerySchema(definition: SearchEndpointDefinition): TObject {
  const properties: Record<string, TSchema> = {};
  for (const parameter of definition.parameters) {
    const hasAliases = (parameter.aliases?.length ?? 0) > 0;
    const schema = valueSchema(parameter, parameter.description, !hasAliases);
    properties[parameter.name] = parameter.required ? schema : Type.Optional(schema);
    for (const alias of parameter.aliases ?? []) {
      properties[alias] = Type.Optional(Type.Unsafe({ ...valueSchema(parameter, `Same as ${parameter.name}.`, false), deprecated: true }));
    }
  }
  return Type.Object(properties, { additionalProperties: false });
}

/** What the description of one search endpoint says of its rules over several parameters, which no schema of one parameter can state. */
export function searchRulesDescription(endpoint: SearchEndpoint): { description?: string } {
  const names = new Set(SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters.map((parameter) => parameter.name));
  const rules = [
    ...(CROSS_PARAMETER_RULES[endpoint] ? [CROSS_PARAMETER_RULES[endpoint]] : []),
    ...(names.has('date_from') && names.has('date_to') ? ['date_to before date_from: 400 InvalidParameterValue.'] : []),
    ...(names.has('min_clip_length') ? ['max_clip_length (other than 0) below min_clip_length: 400 InvalidParameterValue.'] : []),
    ...(SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters.some((parameter) => parameter.aliases)
      ? ['A parameter given under both its spellings must have the same value under both: 400 otherwise.']
      : []),
  ];
  return rules.length > 0 ? { description: rules.join(' ') } : {};
}

/** Rules over two parameters at once, which JSON Schema cannot state of query parameters: said in words. */
const CROSS_PARAMETER_RULES: Partial<Record<SearchEndpoint, string>> = {
  events: 'Give phrase (with at least one letter or digit), editorial_segment or both: with neither, 400 SearchPhraseOrEditorialSegmentRequired.',
  images_creative_by_image: 'Give exactly one of asset_id and image_url: with neither or both, 400 InvalidParameterValue.',
  videos_creative_by_image: 'Give exactly one of asset_id and image_url: with neither or both, 400 InvalidParameterValue.',
};

/** Every endpoint's querystring schema, for the route's `schema.querystring`. */
export const SEARCH_QUERY_SCHEMAS: Readonly<Record<SearchEndpoint, TObject>> = Object.freeze(
  Object.fromEntries(SEARCH_ENDPOINTS.map((endpoint) => [endpoint, buildQuerySchema(SEARCH_ENDPOINT_DEFINITIONS[endpoint])])) as Record<
    SearchEndpoint,
    TObject
  >,
);

export function searchQuerySchema(endpoint: SearchEndpoint): TObject {
  return SEARCH_QUERY_SCHEMAS[endpoint];
}

/** The route schema of one search endpoint: its summary, its querystring and its rules in words, with its answers. */
export function searchRouteSchema<Response>(endpoint: SearchEndpoint, response: Response): { tags: string[]; summary: string; querystring: TObject; description?: string; response: Response } {
  return { tags: ['search'], summary: SEARCH_ENDPOINT_DEFINITIONS[endpoint].summary, querystring: searchQuerySchema(endpoint), ...searchRulesDescription(endpoint), response };
}

/** The parameters of one endpoint. */
export function searchParameters(endpoint: SearchEndpoint): readonly SearchParameter[] {
  return SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters;
}
