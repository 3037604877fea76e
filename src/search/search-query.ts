import type { SearchFilter, SearchQuery } from './engine/types.js';
import type { NormalizedSearch, SearchFilters } from './params/normalize.js';
import { artistKey } from './search-documents.js';
import { colourCellsNear, DEFAULT_NUDITY_THRESHOLD } from '../media/media-facts.js';

/** The searches that take a phrase and filters over the asset index. */
export type KeywordAssetSearch = Extract<
  NormalizedSearch,
  { endpoint: 'images' | 'images_creative' | 'images_editorial' | 'videos' | 'videos_creative' | 'videos_editorial' }
>;

/** Facet names of the API → the index attribute they count. */
export const FACET_ATTRIBUTES = {
  artists: 'artist',
  locations: 'location',
  events: 'event_id',
  specific_people: 'person',
} as const;

/**
 * The long edge (pixels) an asset needs for each minimum_size. x_small is everything; the
 * others follow the download sizes media derives (small ≈ 1024, medium ≈ 2048, large ≈ 3500).
 */
const MINIMUM_LONG_EDGE: Readonly<Record<string, number>> = {
  x_small: 0,
  small: 1024,
  medium: 2048,
  large: 3500,
  x_large: 5000,
  xx_large: 7000,
};

const anyOf = (attribute: string, values: readonly (string | number)[] | undefined): SearchFilter[] =>
  values && values.length > 0 ? [{ attribute, anyOf: values.map(String) }] : [];
const noneOf = (attribute: string, values: readonly (string | number)[] | undefined): SearchFilter[] =>
  values && values.length > 0 ? [{ attribute, anyOf: values.map(String), exclude: true }] : [];

/** The settings the filters on computed facts follow. */
export interface FactFilterRules {
  /** A nudity score above it is nudity (STOCKROOM_NUDITY_THRESHOLD). */
  nudityThreshold: number;
}

export const DEFAULT_FACT_RULES: FactFilterRules = { nudityThreshold: DEFAULT_NUDITY_THRESHOLD };

/**
 * Leaves out what the classifier held to show nudity. An asset never classified (no original,
 * or ingested before the classifier and not yet backfilled) is indexed below every score, so it
 * stays: the filter removes what is known to show nudity, it cannot vouch for the unknown.
 */
export function nudityFilter(rules: FactFilterRules): SearchFilter {
  return { attribute: 'nudity', max: rules.nudityThreshold };
}

/**
 * The filters of a search as index filters: one table from API parameter to index attribute.
 * What each attribute is read from is search-documents.ts's table (and docs/ingest.md's).
 */
export function indexFilters(filters: Partial<SearchFilters>, rules: FactFilterRules = DEFAULT_FACT_RULES): SearchFilter[] {
  const out: SearchFilter[] = [
    ...anyOf('age_of_people', filters.age_of_people),
    // Artist names are free text: compared without regard to case or spacing.
    ...anyOf('artist_key', filters.artists?.map(artistKey)),
    ...anyOf('aspect_ratio', filters.aspect_ratios),
    ...anyOf('composition', filters.compositions),
    ...anyOf('editorial_segment', filters.editorial_segments),
    ...anyOf('editorial_segment', filters.editorial_segment ? [filters.editorial_segment] : undefined),
    ...anyOf('editorial_video_type', filters.editorial_video_types),
    ...anyOf('entity_uri', filters.entity_uris),
    ...anyOf('ethnicity', filters.ethnicity),
    ...anyOf('event_id', filters.event_ids),
    ...anyOf('keyword_id', filters.keyword_ids),
    ...noneOf('keyword_id', filters.exclude_keyword_ids),
    ...anyOf('license_model', filters.license_models),
    ...anyOf('mood', filters.moods),
    ...anyOf('number_of_people', filters.number_of_people),
    ...anyOf('orientation', filters.orientations),
    ...anyOf('person', filters.specific_people),
    ...anyOf('image_technique', filters.image_techniques),
    ...anyOf('viewpoint', filters.viewpoints),
  ];
  if (filters.collections) {
    out.push({ attribute: 'collection_code', anyOf: filters.collections.values, exclude: filters.collections.mode === 'exclude' });
  }
  if (filters.graphical_styles) {
    out.push({ attribute: 'graphical_style', anyOf: filters.graphical_styles.values, exclude: filters.graphical_styles.mode === 'exclude' });
  }
  // An asset downloads against a product type when its product_types list it (a product id after
  // the type picks one product of that type, which licenses the same assets).
  if (filters.download_product) out.push({ attribute: 'product_type', anyOf: [filters.download_product.product_type] });
  if (filters.product_types) out.push({ attribute: 'product_type', anyOf: filters.product_types.map((p) => p.product_type) });
  if (filters.date_range) out.push({ attribute: 'date', min: filters.date_range.from, max: filters.date_range.to });
  // The formats and frame rates of a clip's download sizes (read from its file at ingest).
  if (filters.format_available) out.push({ attribute: 'video_format', anyOf: [filters.format_available] });
  out.push(...anyOf('frame_rate', filters.frame_rates));
  if (filters.min_clip_length !== undefined || filters.max_clip_length !== undefined) {
    out.push({ attribute: 'clip_seconds', min: filters.min_clip_length, max: filters.max_clip_length });
  }
  if (filters.minimum_quality_rank !== undefined) out.push({ attribute: 'quality_rank', max: filters.minimum_quality_rank });
  if (filters.minimum_size !== undefined) {
    if (filters.minimum_size === 'vector') out.push({ attribute: 'graphical_style', anyOf: ['vector'] });
    else if ((MINIMUM_LONG_EDGE[filters.minimum_size] ?? 0) > 0) {
      out.push({ attribute: 'long_edge', min: MINIMUM_LONG_EDGE[filters.minimum_size] });
    }
  }
  // A colour matches a picture when one of its dominant colours is near it (see colourCellsNear).
  if (filters.color) out.push({ attribute: 'color', anyOf: colourCellsNear(filters.color).map(String) });
  if (filters.exclude_nudity || filters.safe_search) out.push(nudityFilter(rules));
  if (filters.embed_content_only) out.push({ attribute: 'embeddable', anyOf: ['true'] });
  if (filters.prestige_content_only) out.push({ attribute: 'prestige', anyOf: ['true'] });
  // A licensing matter: what is for editorial use only must not reach a commercial customer.
  if (filters.exclude_editorial_use_only) out.push({ attribute: 'editorial_use_only', anyOf: ['true'], exclude: true });
  // release_not_important asks for nothing.
  if (filters.release_status === 'fully_released') out.push({ attribute: 'release_status', anyOf: ['fully_released'] });
  // No file of the catalogue is an EPS: asking for one finds nothing, truthfully.
  if (filters.file_types && filters.file_types.length > 0) out.push({ attribute: 'file_type', anyOf: filters.file_types });
  return out;
}

/**
 * The token rule of the keyword searches (the spec: "with a token, results are limited to what
 * the customer may license (the product types the customer holds)"):
 *
 * - A valid bearer token whose user holds at least one active, unexpired product of a type that
 *   licenses catalogue assets (creditpack, easyaccess, editorialsubscription, imagepack,
 *   premiumaccess, royaltyfreesubscription) limits the results to the assets whose
 *   `product_types` include one of the types held. A credit pack is no exception: assets list
 *   creditpack when credits license them, so it limits like any other type.
 * - A token without a user (client credentials), or a user who holds no such product (none at
 *   all, only sandbox or aigen ones, or only inactive or expired ones), is not limited: there is
 *   nothing to license with yet, so browsing shows the whole catalogue — as without a token.
 * - A token that is invalid, expired or revoked is refused (401), as wherever a token is optional.
 *
 * Event search is not limited: an event is not licensed, its assets are.
 *
 * `licensingTypes` are the types the rule limits to (ProductsService.licensingProductTypes);
 * empty: no limit.
 */
export function licensingFilter(licensingTypes: readonly string[]): SearchFilter[] {
  return licensingTypes.length > 0 ? [{ attribute: 'product_type', anyOf: [...licensingTypes] }] : [];
}

/** The query with more filters, all of which must pass too. */
export function narrowed(query: SearchQuery, filters: readonly SearchFilter[]): SearchQuery {
  return filters.length === 0 ? query : { ...query, filters: [...(query.filters ?? []), ...filters] };
}

/** The index query of a phrase search over images or videos, limited by the token rule. */
export function assetSearchQuery(
  search: KeywordAssetSearch,
  randomSeed: number,
  licensingTypes: readonly string[] = [],
  rules: FactFilterRules = DEFAULT_FACT_RULES,
): SearchQuery {
  const assetType = search.endpoint.startsWith('images') ? 'image' : 'video';
  const family = search.endpoint.endsWith('_creative') ? 'creative' : search.endpoint.endsWith('_editorial') ? 'editorial' : undefined;
  const filters: SearchFilter[] = [
    { attribute: 'asset_type', anyOf: [assetType] },
    ...(family ? [{ attribute: 'asset_family', anyOf: [family] }] : []),
    // The contract: setting color on the blended image search leaves editorial images out.
    ...(!family && assetType === 'image' && (search.filters as Partial<SearchFilters>).color ? [{ attribute: 'asset_family', anyOf: ['creative'] }] : []),
    ...indexFilters(search.filters as Partial<SearchFilters>, rules),
    ...licensingFilter(licensingTypes),
  ];
  const facets =
    'facets' in search && search.facets.include
      ? search.facets.fields.map((field) => ({ attribute: FACET_ATTRIBUTES[field], limit: search.facets.max_count }))
      : [];
  return {
    phrase: search.phrase,
    mode: 'enhanced_search' in search && !search.enhanced_search ? 'precise' : 'enhanced',
    filters,
    sort: search.sort_order,
    randomSeed,
    offset: (search.page - 1) * search.page_size,
    limit: search.page_size,
    facets,
  };
}

// ---- Artists ---------------------------------------------------------------------------------

/** One page of an artist's images or videos, newest first. */
export function artistAssetsQuery(assetType: 'image' | 'video', artistName: string, paging: { page: number; page_size: number }): SearchQuery {
  return {
    filters: [
      { attribute: 'asset_type', anyOf: [assetType] },
      { attribute: 'artist_key', anyOf: [artistKey(artistName)] },
    ],
    sort: 'newest',
    offset: (paging.page - 1) * paging.page_size,
    limit: paging.page_size,
  };
}

// ---- Affiliates ------------------------------------------------------------------------------

/** The contract gives the affiliate searches no paging: one fixed page of the best matches. */
export const AFFILIATE_RESULT_COUNT = 30;

/** Affiliates sell creative content: the best creative matches, in one style when asked. */
export function affiliateSearchQuery(assetType: 'image' | 'video', phrase: string, style?: string): SearchQuery {
  return {
    phrase,
    filters: [
      { attribute: 'asset_type', anyOf: [assetType] },
      { attribute: 'asset_family', anyOf: ['creative'] },
      ...(style ? [{ attribute: 'graphical_style', anyOf: [style] }] : []),
    ],
    sort: 'best_match',
    offset: 0,
    limit: AFFILIATE_RESULT_COUNT,
  };
}
