import { createHash } from 'node:crypto';
import type { AssetRecord, AssetType } from '../catalog/catalog.records.js';
import type { CatalogService, ReadContext } from '../catalog/catalog.service.js';
import type { FieldSelection } from '../platform/http/fields.js';
import type { SearchFilter, SearchQuery, SearchResult } from './engine/types.js';
import type { AffiliateImageSearch, AffiliateVideoSearch, ArtistSearch, EventSearch, ImageByImageSearch, VideoByImageSearch } from './params/normalize.js';
import type { SearchEndpoint } from './params/search-values.js';
import { byImageQuery, pageWindow, sameSeriesPage, similarQuery } from './related-assets.js';
import { relatedSearches, type RelatedSearch } from './related-searches.js';
import { resolveFacets, type FacetValues } from './search-facets.js';
import {
  affiliateSearchQuery,
  artistAssetsQuery,
  assetSearchQuery,
  licensingFilter,
  narrowed,
  type FactFilterRules,
  type KeywordAssetSearch,
} from './search-query.js';
import type { SearchService } from './search.service.js';

/*
 * A search from end to end, whoever asks — a JSON search route or a page of the catalogue
 * browser: the index query of a normalised request under the caller's licensing view, its run,
 * the records in hit order as the caller reads them, and, where the request asks for them, the
 * facets, the correction of the phrase and related searches. The routes only parse and shape,
 * so a page and the API never disagree about what a search finds.
 */

/** Who searches, as a search needs to know them. */
export interface SearchCaller {
  /** The product types the caller's results are limited to (the token rule, see licensingFilter); empty: no limit. */
  licensingTypes: readonly string[];
  /** What is read of each asset found. */
  selection: FieldSelection;
  /** The language and authorization the records are read with. */
  read: ReadContext;
}

/** What a search of assets finds. */
export interface AssetSearchResult {
  /** How many assets match, over every page. */
  total: number;
  /** This page's assets in hit order, with the caller's fields (an asset the catalogue no longer has is left out). */
  assets: Array<Record<string, unknown>>;
  /** The facets asked for, counted over the whole match set. */
  facets?: FacetValues;
  /** The phrase the index searched for instead of a misspelt one (did-you-mean). */
  corrections?: string;
  /** Searches near this one, when asked for. */
  relatedSearches?: RelatedSearch[];
}

export interface AssetSearchOptions {
  search: SearchService;
  catalog: CatalogService;
  /** The settings of the filters on computed facts (the nudity threshold). */
  factRules: FactFilterRules;
  /** The URL of a search of the endpoint for a phrase alone: a related search links to it. */
  searchUrl: (endpoint: SearchEndpoint, phrase: string) => string;
}

/**
 * random is random, yet one permutation for every page of one query: the seed is the query
 * without what only shapes the page (page, page_size, fields), so paging at another size, or
 * asking for other fields, walks the same order.
 */
function seedOf(search: object): number {
  const { page: _page, page_size: _pageSize, fields: _fields, ...rest } = search as { page?: number; page_size?: number; fields?: unknown };
  return createHash('sha256').update(JSON.stringify(rest)).digest().readUInt32BE(0);
}

/** Which page of a search: page from 1. */
export interface Paging {
  page: number;
  page_size: number;
}

const assetTypeOf = (endpoint: string): AssetType => (endpoint.startsWith('image') ? 'image' : 'video');

/** Keyword, artist, affiliate, visual and related-asset searches over the asset index, and event search. */
export class AssetSearch {
  private readonly search: SearchService;
  private readonly catalog: CatalogService;
  private readonly factRules: FactFilterRules;
  private readonly searchUrl: AssetSearchOptions['searchUrl'];

  constructor(options: AssetSearchOptions) {
    this.search = options.search;
    this.catalog = options.catalog;
    this.factRules = options.factRules;
    this.searchUrl = options.searchUrl;
  }

  /** A phrase search over images or videos (GET /search/images, …/videos/editorial; the browser's search page). */
  async keyword(request: KeywordAssetSearch, caller: SearchCaller): Promise<AssetSearchResult> {
    const assetType = assetTypeOf(request.endpoint);
    const query = assetSearchQuery(request, seedOf(request), caller.licensingTypes, this.factRules);
    const found = await this.answer(assetType, this.search.searchAssets(query), caller, 'facets' in request ? request.facets : undefined);
    if (request.include_related_searches) {
      found.relatedSearches = await relatedSearches(
        query,
        assetType,
        { searchAssets: (q) => this.search.searchAssets(q), findAssets: (type, ids) => this.catalog.findAssets(type, ids) },
        (phrase) => this.searchUrl(request.endpoint, phrase),
      );
    }
    return found;
  }

  /** One page of an artist's images or videos, newest first. */
  artist(request: ArtistSearch<'artists_images' | 'artists_videos'>, caller: SearchCaller): Promise<AssetSearchResult> {
    const assetType: AssetType = request.endpoint === 'artists_images' ? 'image' : 'video';
    const query = artistAssetsQuery(assetType, request.artist_name, request);
    return this.answer(assetType, this.search.searchAssets(this.limited(query, caller)), caller);
  }

  /** The best creative matches of a phrase for an affiliate: one fixed page. */
  affiliate(request: AffiliateImageSearch | AffiliateVideoSearch, caller: SearchCaller): Promise<AssetSearchResult> {
    const assetType: AssetType = request.endpoint === 'affiliates_images' ? 'image' : 'video';
    const style = request.endpoint === 'affiliates_images' ? request.filters.style : undefined;
    const query = affiliateSearchQuery(assetType, request.phrase, style);
    return this.answer(assetType, this.search.searchAssets(this.limited(query, caller)), caller);
  }

  /**
   * Creative assets nearest to a picture's visual signature (search by image); the source
   * asset, when the picture is a catalogue asset's, is never among them.
   */
  byImage(request: ImageByImageSearch | VideoByImageSearch, signature: Float32Array, caller: SearchCaller): Promise<AssetSearchResult> {
    const assetType = assetTypeOf(request.endpoint);
    const result = this.search.searchVisual({
      signature,
      assetType,
      query: this.limited(byImageQuery(request, assetType, this.factRules), caller),
      excludeId: 'asset_id' in request.source ? request.source.asset_id : undefined,
    });
    return this.answer(assetType, result, caller, request.facets);
  }

  /**
   * Assets of the source's type that look like it, nearest first. An asset without a signature
   * (no original picture) has no visual neighbours: an empty page, not an error, as for any
   * asset that resembles nothing.
   */
  similar(source: AssetRecord, paging: Paging, caller: SearchCaller): Promise<AssetSearchResult> {
    const assetType = source.asset_type;
    const window = pageWindow(paging);
    const signature = this.search.visualSignatureOf(source.id);
    const result: SearchResult =
      signature === undefined
        ? { total: 0, ids: [], facets: {} }
        : this.search.searchVisual({ signature, assetType, query: similarQuery(assetType, window, this.limits(caller)), excludeId: source.id });
    return this.answer(assetType, result, caller);
  }

  /** One page of the source's series (see sameSeriesQuery), the source left out. */
  sameSeries(source: AssetRecord, paging: Paging, caller: SearchCaller): Promise<AssetSearchResult> {
    const page = sameSeriesPage((query) => this.search.searchAssets(this.limited(query, caller)), source, pageWindow(paging));
    return this.answer(source.asset_type, { ...page, facets: {} }, caller);
  }

  /**
   * Event search, by start date only (newest by default), as the contract says. Not limited by
   * the caller's licensing view: an event is not licensed, its assets are.
   */
  async events(request: EventSearch, caller: SearchCaller): Promise<{ total: number; events: Array<Record<string, unknown>> }> {
    const filters: SearchFilter[] = [];
    if (request.filters.editorial_segment) filters.push({ attribute: 'editorial_segment', anyOf: [request.filters.editorial_segment] });
    if (request.filters.date_range) filters.push({ attribute: 'date', min: request.filters.date_range.from, max: request.filters.date_range.to });
    const result = this.search.searchEvents({
      phrase: request.phrase,
      filters,
      sort: request.sort_order,
      offset: (request.page - 1) * request.page_size,
      limit: request.page_size,
    });
    const { events } = await this.catalog.getEvents(result.ids.map(Number), caller.selection, caller.read);
    return { total: result.total, events };
  }

  /** The asset's visual signature (current version), if it has one: what a search by asset id compares with. */
  visualSignatureOf(assetId: string): Float32Array | undefined {
    return this.search.visualSignatureOf(assetId);
  }

  /** Suggestions as a person types a search: the text with its last word completed from the catalogue's vocabulary. */
  suggestions(text: string, limit?: number): string[] {
    return this.search.suggestions(text, limit);
  }

  private limits(caller: SearchCaller): SearchFilter[] {
    return licensingFilter(caller.licensingTypes);
  }

  private limited(query: SearchQuery, caller: SearchCaller): SearchQuery {
    return narrowed(query, this.limits(caller));
  }

  /** The records of a result in hit order, with its facets (when asked for) and its correction. */
  private async answer(
    assetType: AssetType,
    result: SearchResult,
    caller: SearchCaller,
    facets?: { include: boolean; fields: readonly string[] },
  ): Promise<AssetSearchResult> {
    const { assets } = await this.catalog.getAssets(assetType, result.ids, caller.selection, caller.read);
    const found: AssetSearchResult = { total: result.total, assets };
    if (facets?.include) {
      found.facets = await resolveFacets(result.facets ?? {}, facets.fields, {
        language: caller.read.language,
        findEvents: (ids) => this.catalog.findEventRecords(ids),
      });
    }
    if (result.corrections) found.corrections = result.corrections;
    return found;
  }
}
