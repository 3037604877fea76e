import { readPage, readPageSize } from '../../catalog/pagination.js';
import { invalidPage, invalidPageSize, invalidParameter, invalidParameterValue, malformedRequest, type ApiError } from '../../platform/http/errors.js';
import { searchPhraseOrEditorialSegmentRequired } from '../search.errors.js';
import { isoBound } from '../../platform/http/iso-date.js';
import { splitCsv } from '../../platform/http/schema-types.js';
import { SEARCH_ENDPOINT_DEFINITIONS, type SearchEndpointDefinition, type SearchParameter } from './search-parameters.js';
import {
  INT32_MAX,
  PAGE_SIZES,
  SEARCH_ENDPOINTS,
  type AffiliateStyle,
  type AgeOfPeople,
  type AspectRatio,
  type Composition,
  type CreativeFacetField,
  type EditorialSegment,
  type EditorialSortOrder,
  type EditorialVideoType,
  type Ethnicity,
  type EventSortOrder,
  type FacetField,
  type FileType,
  type FilterType,
  type FrameRate,
  type GraphicalStyle,
  type ImageOrientation,
  type ImageTechnique,
  type MinimumSize,
  type Mood,
  type NumberOfPeople,
  type PageSize,
  type ProductType,
  type ReleaseStatus,
  type SearchEndpoint,
  type SortOrder,
  type VideoFormat,
  type VideoLicenseModel,
  type VideoOrientation,
  type Viewpoint,
} from './search-values.js';

/*
 * normalizeSearchParameters(endpoint, query) checks a search request's query and turns it
 * into one typed object, `NormalizedSearch`: defaults applied, both spellings merged, values
 * checked against the endpoint's lists, dates as epoch seconds, filters that narrow nothing
 * left out. It takes the raw query (strings, comma-separated or repeated) as well as one the
 * route schema has already coerced (numbers, booleans, arrays, schema defaults added): both
 * give the same result.
 */

// ---- The normalized request ------------------------------------------------------------------

/** `fields` exactly as sent, for the endpoint's FieldSelector (it applies the default). */
export type RawFields = string | readonly string[] | undefined;

/** A product type, optionally narrowed to one product of it: `premiumaccess:1234`. */
export interface ProductChoice {
  readonly product_type: ProductType;
  readonly product_id?: number;
}

/** A list used either to keep only the matching assets (include) or to leave them out (exclude). */
export interface IncludeOrExclude<T extends string> {
  readonly mode: FilterType;
  readonly values: readonly T[];
}

/** Inclusive bounds in epoch seconds; a date-only `date_to` reaches the end of that day (UTC). */
export interface DateRange {
  readonly from?: number;
  readonly to?: number;
}

/**
 * Every filter of every search. A field is present only when it narrows the results: an
 * absent field is no restriction (so flags that default to false appear only as `true`).
 * Lists keep the caller's order without repeats; enum values are in their canonical spelling.
 */
export interface SearchFilters {
  /** age_of_people */
  readonly age_of_people?: readonly AgeOfPeople[];
  /** artists: artist names (facet values) */
  readonly artists?: readonly string[];
  /** aspect_ratios (or the spec's aspect_ratio) */
  readonly aspect_ratios?: readonly AspectRatio[];
  /** collection_codes with collections_filter_type (include by default) */
  readonly collections?: IncludeOrExclude<string>;
  /** color as `#rrggbb`, lower case; on blended image search it leaves editorial images out */
  readonly color?: string;
  /** compositions */
  readonly compositions?: readonly Composition[];
  /** date_from / date_to: creation date (editorial searches) or start date (events) */
  readonly date_range?: DateRange;
  /** download_product: only assets that download against this product type (or product) */
  readonly download_product?: ProductChoice;
  /** editorial_segment of event search */
  readonly editorial_segment?: EditorialSegment;
  /** editorial_segments of editorial image search */
  readonly editorial_segments?: readonly EditorialSegment[];
  /** editorial_video_types */
  readonly editorial_video_types?: readonly EditorialVideoType[];
  /** embed_content_only=true: only embeddable assets */
  readonly embed_content_only?: true;
  /** entity_uris: assets with a keyword carrying one of these entities */
  readonly entity_uris?: readonly string[];
  /** ethnicity (the spec's `east asian` arrives as east_asian) */
  readonly ethnicity?: readonly Ethnicity[];
  /** event_ids */
  readonly event_ids?: readonly number[];
  /** exclude_editorial_use_only=true */
  readonly exclude_editorial_use_only?: true;
  /** exclude_keyword_ids: assets tagged with none of these */
  readonly exclude_keyword_ids?: readonly number[];
  /** exclude_nudity=true */
  readonly exclude_nudity?: true;
  /** file_types */
  readonly file_types?: readonly FileType[];
  /** format_available: a video file format the clip must be available in */
  readonly format_available?: VideoFormat;
  /** frame_rates */
  readonly frame_rates?: readonly FrameRate[];
  /**
   * graphical_styles with graphical_styles_filter_type. The spec: "include equals not using
   * the filter" — `include` is the same as not giving graphical_styles_filter_type, i.e. the
   * default mode (keep only these styles); it does not switch the styles filter off. `exclude`
   * leaves these styles out. Without graphical_styles there is nothing to include or exclude.
   */
  readonly graphical_styles?: IncludeOrExclude<GraphicalStyle>;
  /** image_techniques */
  readonly image_techniques?: readonly ImageTechnique[];
  /** keyword_ids: assets tagged with these (combines with phrase: both must match) */
  readonly keyword_ids?: readonly number[];
  /** license_models */
  readonly license_models?: readonly VideoLicenseModel[];
  /** max_clip_length in seconds; 0 (the default) is no limit and leaves this out */
  readonly max_clip_length?: number;
  /** min_clip_length in seconds; 0 (the default) leaves this out */
  readonly min_clip_length?: number;
  /** minimum_quality_rank: 1, 2 or 3 (1 = best) */
  readonly minimum_quality_rank?: number;
  /** minimum_size, as given (x_small, the documented default, is the smallest) */
  readonly minimum_size?: MinimumSize;
  /** moods */
  readonly moods?: readonly Mood[];
  /** number_of_people */
  readonly number_of_people?: readonly NumberOfPeople[];
  /** orientations (or the spec's orientation on video search) */
  readonly orientations?: readonly ImageOrientation[];
  /**
   * product_types, each optionally narrowed to one product: on the by-image searches their own
   * filter, on the keyword searches the older name of download_product (one of them must match)
   */
  readonly product_types?: readonly ProductChoice[];
  /** prestige_content_only=true: only prestige assets */
  readonly prestige_content_only?: true;
  /** release_status */
  readonly release_status?: ReleaseStatus;
  /** safe_search=true: sensitive content left out */
  readonly safe_search?: true;
  /** specific_people: names of people shown */
  readonly specific_people?: readonly string[];
  /** style of affiliate image search */
  readonly style?: AffiliateStyle;
  /** viewpoints */
  readonly viewpoints?: readonly Viewpoint[];
}

type ImageSearchFilterKey =
  | 'age_of_people'
  | 'artists'
  | 'collections'
  | 'compositions'
  | 'download_product'
  | 'embed_content_only'
  | 'ethnicity'
  | 'file_types'
  | 'graphical_styles'
  | 'keyword_ids'
  | 'minimum_size'
  | 'number_of_people'
  | 'orientations'
  | 'prestige_content_only'
  | 'product_types';

type VideoSearchFilterKey =
  | 'age_of_people'
  | 'artists'
  | 'aspect_ratios'
  | 'collections'
  | 'compositions'
  | 'download_product'
  | 'format_available'
  | 'frame_rates'
  | 'image_techniques'
  | 'keyword_ids'
  | 'max_clip_length'
  | 'min_clip_length'
  | 'product_types'
  | 'release_status'
  | 'viewpoints';

/** Video filters: orientations are horizontal or vertical only. */
type WithVideoOrientations<T> = T & { readonly orientations?: readonly VideoOrientation[] };

export type BlendedImageFilters = Pick<SearchFilters, ImageSearchFilterKey | 'color' | 'event_ids' | 'exclude_nudity' | 'specific_people'>;
export type CreativeImageFilters = Pick<
  SearchFilters,
  ImageSearchFilterKey | 'color' | 'exclude_editorial_use_only' | 'exclude_keyword_ids' | 'exclude_nudity' | 'moods' | 'safe_search'
>;
export type EditorialImageFilters = Pick<
  SearchFilters,
  | ImageSearchFilterKey
  | 'color'
  | 'date_range'
  | 'editorial_segments'
  | 'entity_uris'
  | 'event_ids'
  | 'exclude_keyword_ids'
  | 'exclude_nudity'
  | 'minimum_quality_rank'
  | 'specific_people'
>;
export type ImageByImageFilters = Pick<
  SearchFilters,
  'artists' | 'download_product' | 'exclude_editorial_use_only' | 'keyword_ids' | 'product_types'
>;
export type BlendedVideoFilters = WithVideoOrientations<
  Pick<
    SearchFilters,
    | VideoSearchFilterKey
    | 'editorial_video_types'
    | 'ethnicity'
    | 'event_ids'
    | 'exclude_nudity'
    | 'license_models'
    | 'number_of_people'
    | 'specific_people'
  >
>;
export type CreativeVideoFilters = WithVideoOrientations<
  Pick<
    SearchFilters,
    | VideoSearchFilterKey
    | 'ethnicity'
    | 'exclude_editorial_use_only'
    | 'exclude_keyword_ids'
    | 'exclude_nudity'
    | 'license_models'
    | 'number_of_people'
    | 'safe_search'
  >
>;
export type EditorialVideoFilters = WithVideoOrientations<
  Pick<
    SearchFilters,
    VideoSearchFilterKey | 'date_range' | 'editorial_video_types' | 'entity_uris' | 'event_ids' | 'exclude_nudity' | 'specific_people'
  >
>;
export type VideoByImageFilters = Pick<
  SearchFilters,
  | 'artists'
  | 'download_product'
  | 'exclude_editorial_use_only'
  | 'format_available'
  | 'keyword_ids'
  | 'max_clip_length'
  | 'min_clip_length'
  | 'product_types'
>;
export type EventFilters = Pick<SearchFilters, 'date_range' | 'editorial_segment'>;
export type AffiliateImageFilters = Pick<SearchFilters, 'style'>;

/** page (from 1) and page_size (one of the spec's sizes). */
export interface Paging {
  readonly page: number;
  readonly page_size: PageSize;
}

/** include_facets, facet_fields (all of the endpoint's facets when absent), facet_max_count. */
export interface FacetRequest<F extends FacetField> {
  readonly include: boolean;
  readonly fields: readonly F[];
  readonly max_count: number;
}

/** The source of a search by image: a catalogue asset or an uploaded file's URL. */
export type ImageSource = { readonly asset_id: string } | { readonly image_url: string };

interface KeywordSearch extends Paging {
  /** trimmed; '' when absent */
  readonly phrase: string;
  readonly fields: RawFields;
}

/** GET /search/images (blended). */
export interface BlendedImageSearch extends KeywordSearch {
  readonly endpoint: 'images';
  readonly sort_order: SortOrder;
  readonly include_related_searches: boolean;
  readonly filters: BlendedImageFilters;
}

/** GET /search/images/creative. */
export interface CreativeImageSearch extends KeywordSearch {
  readonly endpoint: 'images_creative';
  readonly sort_order: SortOrder;
  /** default true; false asks for a precise result set */
  readonly enhanced_search: boolean;
  readonly include_related_searches: boolean;
  readonly facets: FacetRequest<CreativeFacetField>;
  readonly filters: CreativeImageFilters;
}

/** GET /search/images/editorial. */
export interface EditorialImageSearch extends KeywordSearch {
  readonly endpoint: 'images_editorial';
  readonly sort_order: EditorialSortOrder;
  readonly include_related_searches: boolean;
  readonly facets: FacetRequest<FacetField>;
  readonly filters: EditorialImageFilters;
}

/** GET /search/images/creative/by-image. */
export interface ImageByImageSearch extends KeywordSearch {
  readonly endpoint: 'images_creative_by_image';
  readonly source: ImageSource;
  readonly facets: FacetRequest<CreativeFacetField>;
  readonly filters: ImageByImageFilters;
}

/** GET /search/videos (blended). */
export interface BlendedVideoSearch extends KeywordSearch {
  readonly endpoint: 'videos';
  readonly sort_order: SortOrder;
  readonly include_related_searches: boolean;
  readonly filters: BlendedVideoFilters;
}

/** GET /search/videos/creative. */
export interface CreativeVideoSearch extends KeywordSearch {
  readonly endpoint: 'videos_creative';
  readonly sort_order: SortOrder;
  readonly enhanced_search: boolean;
  readonly include_related_searches: boolean;
  readonly facets: FacetRequest<CreativeFacetField>;
  readonly filters: CreativeVideoFilters;
}

/** GET /search/videos/editorial. */
export interface EditorialVideoSearch extends KeywordSearch {
  readonly endpoint: 'videos_editorial';
  readonly sort_order: EditorialSortOrder;
  readonly include_related_searches: boolean;
  readonly facets: FacetRequest<FacetField>;
  readonly filters: EditorialVideoFilters;
}

/** GET /search/videos/creative/by-image. */
export interface VideoByImageSearch extends KeywordSearch {
  readonly endpoint: 'videos_creative_by_image';
  readonly source: ImageSource;
  readonly facets: FacetRequest<CreativeFacetField>;
  readonly filters: VideoByImageFilters;
}

/** GET /search/events: phrase or editorial_segment (or both) is always there. */
export interface EventSearch extends KeywordSearch {
  readonly endpoint: 'events';
  readonly sort_order: EventSortOrder;
  readonly filters: EventFilters;
}

/** GET /affiliates/search/images: no paging and no `fields` (the contract gives none). */
export interface AffiliateImageSearch {
  readonly endpoint: 'affiliates_images';
  readonly phrase: string;
  readonly filters: AffiliateImageFilters;
}

/** GET /affiliates/search/videos: a phrase only. */
export interface AffiliateVideoSearch {
  readonly endpoint: 'affiliates_videos';
  readonly phrase: string;
}

/** GET /artists/images and /artists/videos (page_size defaults to 10 there). */
export interface ArtistSearch<E extends 'artists_images' | 'artists_videos'> extends Paging {
  readonly endpoint: E;
  readonly artist_name: string;
  readonly fields: RawFields;
}

/** GET /images/{id}/similar, /same-series and the video ones; the id is a path parameter. */
export interface RelatedAssetSearch<E extends 'image_similar' | 'image_same_series' | 'video_similar' | 'video_same_series'>
  extends Paging {
  readonly endpoint: E;
  readonly fields: RawFields;
}

/** One normalized search request; `endpoint` tells the variants apart. */
export type NormalizedSearch =
  | BlendedImageSearch
  | CreativeImageSearch
  | EditorialImageSearch
  | ImageByImageSearch
  | BlendedVideoSearch
  | CreativeVideoSearch
  | EditorialVideoSearch
  | VideoByImageSearch
  | EventSearch
  | AffiliateImageSearch
  | AffiliateVideoSearch
  | ArtistSearch<'artists_images'>
  | ArtistSearch<'artists_videos'>
  | RelatedAssetSearch<'image_similar'>
  | RelatedAssetSearch<'image_same_series'>
  | RelatedAssetSearch<'video_similar'>
  | RelatedAssetSearch<'video_same_series'>;

/** The variant of one endpoint. */
export type NormalizedSearchFor<E extends SearchEndpoint> = Extract<NormalizedSearch, { readonly endpoint: E }>;

/** The query as Fastify hands it over (or as a test writes it). */
export type RawSearchQuery = Readonly<Record<string, unknown>>;

// ---- Reading values ------------------------------------------------------------------------

type ParsedValue = string | number | boolean | readonly string[] | readonly number[] | ProductChoice | readonly ProductChoice[];

/** A value for an error message: quoted, and cut short when long. */
function shown(value: unknown): string {
  const text = String(value);
  return `'${text.length > 100 ? `${text.slice(0, 100)}…` : text}'`;
}

/** 400 naming the parameter as the caller spelled it; page and page_size have codes of their own. */
function parameterError(parameter: SearchParameter, spelling: string, detail: string): ApiError {
  if (parameter.type === 'page') return invalidPage(spelling, detail);
  if (parameter.type === 'page_size') return invalidPageSize(spelling, detail);
  return invalidParameter(spelling, detail);
}

type Scalar = string | number | boolean;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** The one value of a single-valued parameter; given several times, it is refused. */
function single(parameter: SearchParameter, spelling: string, raw: unknown): Scalar | undefined {
  let value = raw;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    if (value.length > 1) throw parameterError(parameter, spelling, 'takes one value, not several');
    value = value[0];
  }
  if (value === undefined || value === null) return undefined;
  if (!isScalar(value)) throw parameterError(parameter, spelling, 'is not a single value');
  return value;
}

/** The items of a comma-separated (or repeated) parameter: trimmed, without empty ones. */
function items(parameter: SearchParameter, spelling: string, raw: unknown): string[] {
  const list: unknown[] = Array.isArray(raw) ? raw : [raw];
  const strings = list.map((value) => {
    if (!isScalar(value)) throw parameterError(parameter, spelling, 'is not a comma-separated list');
    return String(value);
  });
  return splitCsv(strings);
}

function unique<T>(values: readonly T[], key: (value: T) => string = String): T[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const k = key(value);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const lookups = new WeakMap<SearchParameter, ReadonlyMap<string, string>>();

/** Matches a value against the parameter's list in any letter case (and its other spellings). */
function canonical(parameter: SearchParameter & { values: readonly string[] }, spelling: string, value: string): string {
  let lookup = lookups.get(parameter);
  if (!lookup) {
    const map = new Map(parameter.values.map((allowed) => [allowed.toLowerCase(), allowed]));
    if (parameter.type === 'enum_list') {
      for (const [alias, target] of Object.entries(parameter.valueAliases ?? {})) map.set(alias.toLowerCase(), target);
    }
    lookup = map;
    lookups.set(parameter, lookup);
  }
  const found = lookup.get(value.toLowerCase());
  if (found === undefined) throw parameterError(parameter, spelling, `${shown(value)} is not one of ${parameter.values.join(', ')}`);
  return found;
}

const WHOLE_NUMBER = /^[+-]?\d+$/;

/** A whole number from a number or its decimal text. */
function wholeNumber(parameter: SearchParameter, spelling: string, value: Scalar): number {
  const number = typeof value === 'number' ? value : typeof value === 'string' && WHOLE_NUMBER.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number)) throw parameterError(parameter, spelling, `${shown(value)} is not a whole number`);
  return number;
}

function id(parameter: SearchParameter, spelling: string, value: string): number {
  const number = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(number >= 1 && number <= INT32_MAX)) {
    throw parameterError(parameter, spelling, `${shown(value)} is not a whole number from 1 to ${INT32_MAX}`);
  }
  return number;
}

function product(parameter: SearchParameter & { values: readonly string[] }, spelling: string, value: string): ProductChoice {
  const colon = value.indexOf(':');
  const type = canonical(parameter, spelling, colon < 0 ? value : value.slice(0, colon)) as ProductType;
  if (colon < 0) return { product_type: type };
  const productId = value.slice(colon + 1);
  if (!/^\d+$/.test(productId) || !(Number(productId) >= 1 && Number(productId) <= INT32_MAX)) {
    throw parameterError(parameter, spelling, `${shown(value)}: the product id after ':' must be a whole number from 1 to ${INT32_MAX}`);
  }
  return { product_type: type, product_id: Number(productId) };
}

/**
 * An ISO 8601 date (YYYY-MM-DD) or date-time as epoch seconds, read by the platform's one date
 * reader; UTC unless a zone is given. A date alone stands for its first second as a lower bound
 * and for its last second as an upper bound. Impossible dates (2023-02-29, 24:00) are refused.
 */
export function parseIsoDate(text: string, bound: 'from' | 'to'): number | undefined {
  const millis = isoBound(text, bound);
  return millis === undefined ? undefined : Math.floor(millis / 1000);
}

/** One parameter's value, checked; undefined when it carries nothing (empty). */
function parseValue(parameter: SearchParameter, spelling: string, raw: unknown): ParsedValue | undefined {
  switch (parameter.type) {
    case 'fields': {
      // Kept as sent: the endpoint's FieldSelector parses it (and caches by its text).
      if (typeof raw === 'string') return raw;
      if (Array.isArray(raw) && raw.every((value) => typeof value === 'string')) return raw as string[];
      throw parameterError(parameter, spelling, 'is not a comma-separated list');
    }
    case 'text': {
      const value = single(parameter, spelling, raw);
      const text = value === undefined ? '' : String(value).trim();
      return text === '' ? undefined : text;
    }
    case 'url': {
      const value = single(parameter, spelling, raw);
      const text = value === undefined ? '' : String(value).trim();
      if (text === '') return undefined;
      let url: URL | undefined;
      try {
        url = new URL(text);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        throw parameterError(parameter, spelling, `${shown(text)} is not an absolute http or https URL`);
      }
      return text;
    }
    case 'text_list': {
      const list = unique(items(parameter, spelling, raw));
      return list.length > 0 ? list : undefined;
    }
    case 'enum': {
      const value = single(parameter, spelling, raw);
      if (value === undefined || String(value).trim() === '') return undefined;
      return canonical(parameter, spelling, String(value).trim());
    }
    case 'enum_list': {
      const list = unique(items(parameter, spelling, raw).map((item) => canonical(parameter, spelling, item)));
      return list.length > 0 ? list : undefined;
    }
    case 'id_list': {
      const list = unique(items(parameter, spelling, raw).map((item) => id(parameter, spelling, item)));
      return list.length > 0 ? list : undefined;
    }
    case 'boolean': {
      const value = single(parameter, spelling, raw);
      if (typeof value === 'boolean') return value;
      const text = value === undefined ? '' : String(value).trim().toLowerCase();
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw parameterError(parameter, spelling, `${shown(value ?? '')} is not true or false`);
    }
    case 'integer': {
      const value = single(parameter, spelling, raw);
      if (value === undefined) return undefined;
      const number = wholeNumber(parameter, spelling, value);
      if (number < parameter.minimum || number > parameter.maximum) {
        throw parameterError(parameter, spelling, `${shown(value)} is not a whole number from ${parameter.minimum} to ${parameter.maximum}`);
      }
      return number;
    }
    case 'page': {
      const value = single(parameter, spelling, raw);
      if (value === undefined) return undefined;
      return readPage(spelling, typeof value === 'boolean' ? String(value) : value, { maxPage: parameter.maximum });
    }
    case 'page_size': {
      const value = single(parameter, spelling, raw);
      if (value === undefined) return undefined;
      return readPageSize(spelling, typeof value === 'boolean' ? String(value) : value, { pageSizes: PAGE_SIZES });
    }
    case 'date': {
      const value = single(parameter, spelling, raw);
      if (value === undefined || String(value).trim() === '') return undefined;
      const seconds = parseIsoDate(String(value), parameter.bound);
      if (seconds === undefined) {
        throw parameterError(
          parameter,
          spelling,
          `${shown(value)} is not an ISO 8601 date (YYYY-MM-DD) or date-time (e.g. 2024-03-09T10:00:00Z) of the calendar`,
        );
      }
      return seconds;
    }
    case 'color': {
      const value = single(parameter, spelling, raw);
      if (value === undefined || String(value).trim() === '') return undefined;
      const match = /^#?([0-9a-f]{6})$/i.exec(String(value).trim());
      if (!match?.[1]) throw parameterError(parameter, spelling, `${shown(value)} is not a hex RGB colour (#RRGGBB or RRGGBB)`);
      return `#${match[1].toLowerCase()}`;
    }
    case 'product': {
      const value = single(parameter, spelling, raw);
      if (value === undefined || String(value).trim() === '') return undefined;
      return product(parameter, spelling, String(value).trim());
    }
    case 'product_list': {
      const list = unique(
        items(parameter, spelling, raw).map((item) => product(parameter, spelling, item)),
        (choice) => `${choice.product_type}:${choice.product_id ?? ''}`,
      );
      return list.length > 0 ? list : undefined;
    }
  }
}

/** The value a parameter has when the caller leaves it out. */
function defaultOf(parameter: SearchParameter): ParsedValue | undefined {
  switch (parameter.type) {
    case 'text':
    case 'enum':
    case 'integer':
      return parameter.default;
    case 'boolean':
    case 'page_size':
      return parameter.default;
    case 'page':
      return 1;
    default:
      return undefined;
  }
}

function sameValue(a: ParsedValue, b: ParsedValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const PARAMETER_INDEX: Readonly<Record<SearchEndpoint, ReadonlyMap<string, SearchParameter>>> = Object.fromEntries(
  SEARCH_ENDPOINTS.map((endpoint): [SearchEndpoint, ReadonlyMap<string, SearchParameter>] => {
    const index = new Map<string, SearchParameter>();
    for (const parameter of SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters) {
      for (const spelling of [parameter.name, ...(parameter.aliases ?? [])]) index.set(spelling, parameter);
    }
    return [endpoint, index];
  }),
) as Record<SearchEndpoint, ReadonlyMap<string, SearchParameter>>;

/** The checked values of one request, by canonical parameter name, with defaults applied. */
class ParsedQuery {
  constructor(private readonly values: ReadonlyMap<string, ParsedValue>) {}

  text(name: string): string | undefined {
    const value = this.values.get(name);
    return typeof value === 'string' ? value : undefined;
  }

  /** An enum value, checked against the parameter's list when it was read. */
  choice<T extends string>(name: string): T | undefined {
    return this.text(name) as T | undefined;
  }

  number(name: string): number | undefined {
    const value = this.values.get(name);
    return typeof value === 'number' ? value : undefined;
  }

  flag(name: string): boolean | undefined {
    const value = this.values.get(name);
    return typeof value === 'boolean' ? value : undefined;
  }

  /** A list parameter's items (strings, ids or product choices, as its type reads them). */
  list<T>(name: string): readonly T[] | undefined {
    const value = this.values.get(name);
    return Array.isArray(value) ? (value as readonly T[]) : undefined;
  }

  product(name: string): ProductChoice | undefined {
    const value = this.values.get(name);
    return typeof value === 'object' && !Array.isArray(value) ? (value as ProductChoice) : undefined;
  }

  fields(): RawFields {
    const value = this.values.get('fields');
    return typeof value === 'string' || Array.isArray(value) ? (value as RawFields) : undefined;
  }
}

/** Reads every parameter of the query: unknown names refused, two spellings merged, defaults added. */
function readQuery(endpoint: SearchEndpoint, query: RawSearchQuery): ParsedQuery {
  const index = PARAMETER_INDEX[endpoint];
  const values = new Map<string, ParsedValue>();
  const spellings = new Map<string, string>();
  for (const key of Object.keys(query)) {
    const raw = query[key];
    if (raw === undefined) continue;
    const parameter = index.get(key);
    if (!parameter) throw malformedRequest(`Unknown parameter '${key}'`);
    const value = parseValue(parameter, key, raw);
    if (value === undefined) continue;
    const earlier = values.get(parameter.name);
    if (earlier === undefined) {
      values.set(parameter.name, value);
      spellings.set(parameter.name, key);
    } else if (Array.isArray(earlier) && Array.isArray(value)) {
      // Both spellings of a list (orientation and orientations): one list.
      values.set(parameter.name, unique<unknown>([...earlier, ...value]) as readonly string[]);
    } else if (!sameValue(earlier, value)) {
      throw parameterError(parameter, key, `${shown(value)} differs from ${spellings.get(parameter.name)}=${shown(earlier)}; give one of them`);
    }
  }
  for (const parameter of SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters) {
    if (values.has(parameter.name)) continue;
    if (parameter.required) throw invalidParameterValue(`Missing required parameter '${parameter.name}'`);
    const fallback = defaultOf(parameter);
    if (fallback !== undefined) values.set(parameter.name, fallback);
  }
  return new ParsedQuery(values);
}

// ---- Building the normalized request ---------------------------------------------------------

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function put<K extends keyof SearchFilters>(filters: Mutable<SearchFilters>, key: K, value: SearchFilters[K] | undefined): void {
  if (value !== undefined) filters[key] = value;
}

const onlyTrue = (value: boolean | undefined): true | undefined => (value === true ? true : undefined);
const positive = (value: number | undefined): number | undefined => (value !== undefined && value > 0 ? value : undefined);

function includeOrExclude<T extends string>(values: readonly T[] | undefined, mode: FilterType | undefined): IncludeOrExclude<T> | undefined {
  return values ? { mode: mode ?? 'include', values } : undefined;
}

/** Every filter the query carries; an endpoint's parameters decide which can be there. */
function buildFilters(q: ParsedQuery): SearchFilters {
  const filters: Mutable<SearchFilters> = {};
  put(filters, 'age_of_people', q.list<AgeOfPeople>('age_of_people'));
  put(filters, 'artists', q.list<string>('artists'));
  put(filters, 'aspect_ratios', q.list<AspectRatio>('aspect_ratios'));
  put(filters, 'collections', includeOrExclude(q.list<string>('collection_codes'), q.choice<FilterType>('collections_filter_type')));
  put(filters, 'color', q.text('color'));
  put(filters, 'compositions', q.list<Composition>('compositions'));
  const from = q.number('date_from');
  const to = q.number('date_to');
  if (from !== undefined && to !== undefined && from > to) {
    throw invalidParameter('date_to', 'is before date_from');
  }
  if (from !== undefined || to !== undefined) {
    put(filters, 'date_range', { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) });
  }
  put(filters, 'download_product', q.product('download_product'));
  put(filters, 'editorial_segment', q.choice<EditorialSegment>('editorial_segment'));
  put(filters, 'editorial_segments', q.list<EditorialSegment>('editorial_segments'));
  put(filters, 'editorial_video_types', q.list<EditorialVideoType>('editorial_video_types'));
  put(filters, 'embed_content_only', onlyTrue(q.flag('embed_content_only')));
  put(filters, 'entity_uris', q.list<string>('entity_uris'));
  put(filters, 'ethnicity', q.list<Ethnicity>('ethnicity'));
  put(filters, 'event_ids', q.list<number>('event_ids'));
  put(filters, 'exclude_editorial_use_only', onlyTrue(q.flag('exclude_editorial_use_only')));
  put(filters, 'exclude_keyword_ids', q.list<number>('exclude_keyword_ids'));
  put(filters, 'exclude_nudity', onlyTrue(q.flag('exclude_nudity')));
  put(filters, 'file_types', q.list<FileType>('file_types'));
  put(filters, 'format_available', q.choice<VideoFormat>('format_available'));
  put(filters, 'frame_rates', q.list<FrameRate>('frame_rates'));
  put(
    filters,
    'graphical_styles',
    includeOrExclude(q.list<GraphicalStyle>('graphical_styles'), q.choice<FilterType>('graphical_styles_filter_type')),
  );
  put(filters, 'image_techniques', q.list<ImageTechnique>('image_techniques'));
  put(filters, 'keyword_ids', q.list<number>('keyword_ids'));
  put(filters, 'license_models', q.list<VideoLicenseModel>('license_models'));
  const minClip = positive(q.number('min_clip_length'));
  const maxClip = positive(q.number('max_clip_length'));
  if (minClip !== undefined && maxClip !== undefined && minClip > maxClip) {
    throw invalidParameter('max_clip_length', `${maxClip} is less than min_clip_length ${minClip}`);
  }
  put(filters, 'max_clip_length', maxClip);
  put(filters, 'min_clip_length', minClip);
  put(filters, 'minimum_quality_rank', q.number('minimum_quality_rank'));
  put(filters, 'minimum_size', q.choice<MinimumSize>('minimum_size'));
  put(filters, 'moods', q.list<Mood>('moods'));
  put(filters, 'number_of_people', q.list<NumberOfPeople>('number_of_people'));
  put(filters, 'orientations', q.list<ImageOrientation>('orientations'));
  put(filters, 'prestige_content_only', onlyTrue(q.flag('prestige_content_only')));
  put(filters, 'product_types', q.list<ProductChoice>('product_types'));
  put(filters, 'release_status', q.choice<ReleaseStatus>('release_status'));
  put(filters, 'safe_search', onlyTrue(q.flag('safe_search')));
  put(filters, 'specific_people', q.list<string>('specific_people'));
  put(filters, 'style', q.choice<AffiliateStyle>('style'));
  put(filters, 'viewpoints', q.list<Viewpoint>('viewpoints'));
  return filters;
}

function facets(q: ParsedQuery, all: readonly FacetField[]): FacetRequest<FacetField> {
  return {
    include: q.flag('include_facets') ?? false,
    fields: q.list<FacetField>('facet_fields') ?? all,
    max_count: q.number('facet_max_count') ?? 300,
  };
}

function paging(q: ParsedQuery): Paging {
  return { page: q.number('page') ?? 1, page_size: (q.number('page_size') ?? 30) as PageSize };
}

/** Exactly one of asset_id and image_url. */
function imageSource(q: ParsedQuery): ImageSource {
  const assetId = q.text('asset_id');
  const imageUrl = q.text('image_url');
  if (assetId !== undefined && imageUrl === undefined) return { asset_id: assetId };
  if (imageUrl !== undefined && assetId === undefined) return { image_url: imageUrl };
  throw invalidParameterValue(
    `Exactly one of the parameters 'asset_id' and 'image_url' is required; ${assetId === undefined ? 'neither was' : 'both were'} given`,
  );
}

/** The values a parameter of the endpoint allows; none for a parameter without a list. */
function allowedValues(endpoint: SearchEndpointDefinition, name: string): readonly string[] {
  const parameter = endpoint.parameters.find((candidate) => candidate.name === name);
  return parameter !== undefined && 'values' in parameter ? parameter.values : [];
}

/**
 * One part of a normalized search and the parameters it is read from. An endpoint's search
 * has a part when the endpoint takes the part's first parameter (its list in
 * search-parameters.ts), and `filters` when it takes any parameter no part reads: the endpoint
 * table decides the shape, so a new endpoint is an entry there and nothing here.
 */
interface SearchPart {
  readonly parameters: readonly [string, ...string[]];
  /** The part's fields, read from the query (defaults are in it already, see readQuery). */
  readonly read: (q: ParsedQuery, endpoint: SearchEndpointDefinition) => object;
}

/** The parts in the order a normalized search lists them. */
const SEARCH_PARTS: readonly SearchPart[] = [
  { parameters: ['phrase'], read: (q) => ({ phrase: q.text('phrase') ?? '' }) },
  { parameters: ['artist_name'], read: (q) => ({ artist_name: q.text('artist_name') ?? '' }) },
  { parameters: ['page', 'page_size'], read: paging },
  { parameters: ['fields'], read: (q) => ({ fields: q.fields() }) },
  { parameters: ['asset_id', 'image_url'], read: (q) => ({ source: imageSource(q) }) },
  { parameters: ['sort_order'], read: (q) => ({ sort_order: q.text('sort_order') }) },
  { parameters: ['enhanced_search'], read: (q) => ({ enhanced_search: q.flag('enhanced_search') }) },
  { parameters: ['include_related_searches'], read: (q) => ({ include_related_searches: q.flag('include_related_searches') }) },
  {
    parameters: ['include_facets', 'facet_fields', 'facet_max_count'],
    // facet_fields left out asks for every facet the endpoint has: the values its parameter lists
    read: (q, endpoint) => ({ facets: facets(q, allowedValues(endpoint, 'facet_fields') as readonly FacetField[]) }),
  },
];

const PART_PARAMETERS: ReadonlySet<string> = new Set(SEARCH_PARTS.flatMap((part) => part.parameters));

/** What a normalized search of one endpoint has: its parts, and whether filters (every parameter no part reads is one). */
interface SearchShape {
  readonly parts: readonly SearchPart[];
  readonly filters: boolean;
}

const SHAPES: Readonly<Record<SearchEndpoint, SearchShape>> = Object.fromEntries(
  SEARCH_ENDPOINTS.map((endpoint): [SearchEndpoint, SearchShape] => {
    const names = new Set(SEARCH_ENDPOINT_DEFINITIONS[endpoint].parameters.map((parameter) => parameter.name));
    const parts = SEARCH_PARTS.filter((part) => names.has(part.parameters[0]));
    return [endpoint, { parts, filters: [...names].some((name) => !PART_PARAMETERS.has(name)) }];
  }),
) as Record<SearchEndpoint, SearchShape>;

/** Rules over several parameters of one endpoint, checked on its normalized search (the descriptions state them). */
const ENDPOINT_RULES: Partial<Record<SearchEndpoint, (search: NormalizedSearch) => void>> = {
  events: (search) => {
    const { phrase, filters } = search as EventSearch;
    // A phrase of punctuation alone ("---") has no word to search for: it counts as none.
    if (!/[\p{L}\p{N}]/u.test(phrase) && filters.editorial_segment === undefined) {
      throw searchPhraseOrEditorialSegmentRequired();
    }
  },
};

function normalize(endpoint: SearchEndpoint, query: RawSearchQuery): NormalizedSearch {
  const q = readQuery(endpoint, query);
  const definition = SEARCH_ENDPOINT_DEFINITIONS[endpoint];
  const shape = SHAPES[endpoint];
  // the parts' types are per endpoint (NormalizedSearch); the table makes the object they describe
  const search: Record<string, unknown> = { endpoint };
  for (const part of shape.parts) Object.assign(search, part.read(q, definition));
  if (shape.filters) search.filters = buildFilters(q);
  const normalized = search as unknown as NormalizedSearch;
  ENDPOINT_RULES[endpoint]?.(normalized);
  return normalized;
}

/**
 * Checks one search request's query and returns it normalized. Throws ApiError (400):
 * MalformedRequest for an unknown parameter; InvalidPage / InvalidPageSize for page and
 * page_size; SearchPhraseOrEditorialSegmentRequired for an event search with neither;
 * InvalidParameterValue, naming the parameter and the value, for everything else.
 */
export function normalizeSearchParameters<E extends SearchEndpoint>(endpoint: E, rawQuery: RawSearchQuery = {}): NormalizedSearchFor<E> {
  return normalize(endpoint, rawQuery) as NormalizedSearchFor<E>;
}
