import type { AssetRecord, AssetType } from '../catalog/catalog.records.js';
import type { SearchFilter, SearchQuery, SearchResult } from './engine/types.js';
import type { ImageByImageSearch, SearchFilters, VideoByImageSearch } from './params/normalize.js';
import { DEFAULT_FACT_RULES, FACET_ATTRIBUTES, indexFilters, nudityFilter, type FactFilterRules } from './search-query.js';

/*
 * The index queries of the searches that start from an asset or a picture rather than a
 * phrase: search by image, similar assets and assets of the same series. Which assets they
 * rank is decided here; the ranking itself is the search service's.
 */

/** A page of results, as offset and limit. */
export interface PageWindow {
  offset: number;
  limit: number;
}

const SECONDS_PER_DAY = 86_400;

/** page and page_size (page from 1) as offset and limit. */
export function pageWindow(search: { page: number; page_size: number }): PageWindow {
  return { offset: (search.page - 1) * search.page_size, limit: search.page_size };
}

/**
 * The assets GET /search/{images|videos}/creative/by-image ranks by visual distance:
 * creative assets of the endpoint's type that pass its filters and, when given, its phrase.
 * Facets are counted over that set.
 *
 * The contract says nudity is always filtered out of by-image results: what the classifier
 * scored above the threshold is left out, whatever the parameters say.
 */
export function byImageQuery(
  search: ImageByImageSearch | VideoByImageSearch,
  assetType: AssetType,
  rules: FactFilterRules = DEFAULT_FACT_RULES,
): SearchQuery {
  const window = pageWindow(search);
  return {
    phrase: search.phrase,
    // By-image searches have no enhanced_search parameter: the phrase matches as in the
    // keyword searches' default.
    mode: 'enhanced',
    filters: [
      { attribute: 'asset_type', anyOf: [assetType] },
      { attribute: 'asset_family', anyOf: ['creative'] },
      ...indexFilters(search.filters as Partial<SearchFilters>, rules),
      nudityFilter(rules),
    ],
    offset: window.offset,
    limit: window.limit,
    facets: search.facets.include ? search.facets.fields.map((field) => ({ attribute: FACET_ATTRIBUTES[field], limit: search.facets.max_count })) : [],
  };
}

/**
 * The assets GET /{images|videos}/{id}/similar ranks by visual distance to the asset: every
 * asset of the same type, creative or editorial (the source itself is excluded by the caller).
 */
export function similarQuery(assetType: AssetType, window: PageWindow, limits: readonly SearchFilter[] = []): SearchQuery {
  return { filters: [{ attribute: 'asset_type', anyOf: [assetType] }, ...limits], offset: window.offset, limit: window.limit };
}

/**
 * The same series, as GET /images/{id}/same-series and /videos/{id}/same-series answer it.
 * The contract only says "creative images from the same series (usually the same shoot); not
 * available for editorial assets". The catalogue records no shoot, so a series is defined
 * from what it does record. The assets of the same series as a source asset are the
 * assets that:
 *
 * 1. are creative and of the same type (image or video) as the source;
 * 2. have the same artist as the source;
 * 3. were created (date_created) on the same UTC calendar day as the source;
 * 4. share at least one event with the source, when the source belongs to events;
 *    otherwise, when the source has a collection, are of the same collection;
 * 5. are not the source itself.
 *
 * They are listed in shoot order: date_created ascending, then id.
 *
 * A source that is not creative (an editorial asset, as the contract says, or one without a
 * family) has no series, nor does one whose artist or creation date is not recorded: the
 * answer is then an empty list, not an error.
 *
 * Returns undefined when the source has no series; otherwise the query of its rules 1-4
 * (rule 5 is applied by sameSeriesPage, the index having no filter on ids).
 */
export function sameSeriesQuery(source: AssetRecord): SearchQuery | undefined {
  const fields = source.fields;
  if (fields.asset_family !== 'creative') return undefined;
  const artist = typeof fields.artist === 'string' && fields.artist !== '' ? fields.artist : undefined;
  const day = utcDayOf(fields.date_created);
  if (artist === undefined || day === undefined) return undefined;
  const filters: SearchFilter[] = [
    { attribute: 'asset_type', anyOf: [source.asset_type] },
    { attribute: 'asset_family', anyOf: ['creative'] },
    { attribute: 'artist', anyOf: [artist] },
    // The index keeps date_created in whole epoch seconds.
    { attribute: 'date', min: day, max: day + SECONDS_PER_DAY - 1 },
  ];
  const eventIds = Array.isArray(fields.event_ids) ? fields.event_ids.map(String) : [];
  const collection = typeof fields.collection_code === 'string' && fields.collection_code !== '' ? fields.collection_code : undefined;
  if (eventIds.length > 0) filters.push({ attribute: 'event_id', anyOf: eventIds });
  else if (collection !== undefined) filters.push({ attribute: 'collection_code', anyOf: [collection] });
  // 'oldest' orders by date ascending and breaks ties by id.
  return { filters, sort: 'oldest' };
}

/**
 * One page of the source's series (see sameSeriesQuery), the source left out. The index
 * cannot leave an id out, so the ranking is read from its top to one past the page and the
 * source removed wherever it falls; that is the length of ranking the index reads for any
 * page anyway.
 */
export function sameSeriesPage(
  searchAssets: (query: SearchQuery) => SearchResult,
  source: AssetRecord,
  window: PageWindow,
): { total: number; ids: string[] } {
  const query = sameSeriesQuery(source);
  if (query === undefined) return { total: 0, ids: [] };
  const result = searchAssets({ ...query, offset: 0, limit: window.offset + window.limit + 1 });
  const others = result.ids.filter((id) => id !== source.id);
  // The source matches its own series, so it is in the match set unless the index has not
  // caught up with it yet; when it falls past the ids read, it is taken to be there.
  const sourceMatched = others.length < result.ids.length || result.ids.length < result.total;
  return {
    total: result.total - (sourceMatched ? 1 : 0),
    ids: others.slice(window.offset, window.offset + window.limit),
  };
}

/** The start of the UTC day of a date_created, in epoch seconds; undefined when it is no date. */
function utcDayOf(dateCreated: unknown): number | undefined {
  if (typeof dateCreated !== 'string') return undefined;
  // Parsed exactly as the index parses it, so that the range and the indexed value agree.
  const time = Date.parse(dateCreated);
  if (Number.isNaN(time)) return undefined;
  return Math.floor(time / 1000 / SECONDS_PER_DAY) * SECONDS_PER_DAY;
}
