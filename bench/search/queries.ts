import { seededRandom } from '../../src/platform/seeded-random.js';
import { parseQuery } from '../../src/search/engine/analyzer.js';
import type { SearchQuery } from '../../src/search/engine/types.js';
import { normalizeSearchParameters } from '../../src/search/params/normalize.js';
import { SEARCH_ENDPOINT_DEFINITIONS } from '../../src/search/params/search-parameters.js';
import { assetSearchQuery, type KeywordAssetSearch } from '../../src/search/search-query.js';
import type { FtsFacetColumn, FtsFilterColumn, FtsQuery } from './fts5.js';

/*
 * The query classes, each a list of concrete searches drawn deterministically from bands of
 * the vocabulary's ranks. One search is written once, as the query string of an HTTP request;
 * the index query is what the route makes of it (normalizeSearchParameters + assetSearchQuery),
 * and the FTS5 query is the same words, filters, page and facets in SQL.
 */

type Endpoint = 'images' | 'images_creative';

export interface BenchSearch {
  endpoint: Endpoint;
  params: Record<string, string>;
}

export interface QueryClass {
  name: string;
  searches: BenchSearch[];
}

/** The class the HTTP latency target is about. */
export const HEADLINE_CLASS = 'two common words + 2 filters + facets';

const FACETS = { include_facets: 'true', facet_fields: 'artists,locations' };
// Creative search (the asset family is the endpoint's own filter) narrowed by two more.
const TWO_FILTERS = { orientations: 'horizontal,square', graphical_styles: 'photography' };

export function queryClasses(words: readonly string[], count: number): QueryClass[] {
  const random = seededRandom(0x5ea7c4);
  const band = (from: number, to: number) => {
    const step = Math.max(1, Math.floor((to - from) / count));
    return Array.from({ length: count }, (_, i) => words[from + ((i * step) % (to - from))]!);
  };
  // Ranks 20-120 are in ~3-15% of the assets, 1,000-3,000 in ~0.1-0.4%, 20,000-40,000 in ~0.01%.
  const rare = band(20_000, 40_000);
  const medium = band(1_000, 3_000);
  const common = band(20, 120);
  const commonWords = words.slice(20, 120);
  const pairs = Array.from({ length: count }, () => {
    const a = Math.floor(random() * commonWords.length);
    let b = Math.floor(random() * (commonWords.length - 1));
    if (b >= a) b++;
    return `${commonWords[a]} ${commonWords[b]}`;
  });
  // Quoted: the two words next to each other, as in the two-word keywords of frequent words.
  const phrases = Array.from({ length: count }, () => {
    const a = Math.floor(random() * 30);
    let b = Math.floor(random() * 29);
    if (b >= a) b++;
    return `"${words[a]} ${words[b]}"`;
  });
  const images = (phrase: string, extra: Record<string, string> = {}): BenchSearch => ({ endpoint: 'images', params: { phrase, ...extra } });
  const creative = (phrase: string, extra: Record<string, string> = {}): BenchSearch => ({
    endpoint: 'images_creative',
    params: { phrase, ...TWO_FILTERS, ...extra },
  });
  return [
    { name: 'rare word', searches: rare.map((w) => images(w)) },
    { name: 'medium word', searches: medium.map((w) => images(w)) },
    { name: 'common word', searches: common.map((w) => images(w)) },
    { name: 'common word, page 20', searches: common.map((w) => images(w, { page: '20' })) },
    { name: 'two common words', searches: pairs.map((p) => images(p)) },
    { name: 'quoted two-word phrase', searches: phrases.map((p) => images(p)) },
    { name: 'two common words + 2 filters', searches: pairs.map((p) => creative(p)) },
    { name: HEADLINE_CLASS, searches: pairs.map((p) => creative(p, FACETS)) },
    { name: `${HEADLINE_CLASS}, page 20`, searches: pairs.map((p) => creative(p, { ...FACETS, page: '20' })) },
  ];
}

export function pathOf(search: BenchSearch): string {
  return `/v3${SEARCH_ENDPOINT_DEFINITIONS[search.endpoint].path}?${new URLSearchParams(search.params).toString()}`;
}

/** The index query the HTTP route runs for this search. */
export function indexQueryOf(search: BenchSearch): SearchQuery {
  const normalized = normalizeSearchParameters(search.endpoint, search.params) as KeywordAssetSearch;
  return assetSearchQuery(normalized, 0);
}

/**
 * The same search for FTS5: the index query's words, filters, page and facets. Each word
 * stands for the terms it matches in the index (`matchingTerms`: its stem, synonym and prefix
 * forms in enhanced search), OR-ed, so that both engines find the same documents; a quoted
 * phrase is its tokens as written.
 */
export function ftsQueryOf(search: BenchSearch, matchingTerms: (word: string) => readonly string[]): FtsQuery {
  const query = indexQueryOf(search);
  const parsed = parseQuery(query.phrase ?? '');
  const word = (term: string): string => {
    const terms = matchingTerms(term);
    if (terms.length === 0) return `"${term}"`;
    return terms.length === 1 ? `"${terms[0]}"` : `(${terms.map((t) => `"${t}"`).join(' OR ')})`;
  };
  const match = [...parsed.terms.map(word), ...parsed.phrases.map((p) => `"${p.join(' ')}"`)].join(' AND ');
  const filters: Partial<Record<FtsFilterColumn, readonly string[]>> = {};
  for (const filter of query.filters ?? []) {
    // every asset is an image: the index checks asset_type, the reference has no such column
    if (filter.attribute === 'asset_type') continue;
    if (!('anyOf' in filter) || filter.exclude) throw new Error(`the FTS5 reference has no filter ${JSON.stringify(filter)}`);
    const column = filter.attribute === 'asset_family' || filter.attribute === 'orientation' || filter.attribute === 'graphical_style' ? filter.attribute : undefined;
    if (!column) throw new Error(`the FTS5 reference has no column for ${filter.attribute}`);
    filters[column] = filter.anyOf;
  }
  const facets = (query.facets ?? []).map((f) => {
    if (f.attribute !== 'artist' && f.attribute !== 'location') throw new Error(`the FTS5 reference has no facet ${f.attribute}`);
    return f.attribute as FtsFacetColumn;
  });
  return {
    match,
    filters,
    offset: query.offset ?? 0,
    limit: query.limit ?? 30,
    facets,
    facetLimit: query.facets?.[0]?.limit ?? 0,
  };
}
