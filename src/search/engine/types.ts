/** What the index knows of its documents: text fields with their BM25 weights, attribute columns. */
export interface IndexSchema {
  /** text field name → BM25 weight (a title typically weighs more than a caption) */
  textFields: Record<string, number>;
  /** multi-valued string attributes: filters (anyOf / exclude) and facet counts */
  keywordAttributes: readonly string[];
  /** numeric attributes: range filters and sorts */
  numericAttributes: readonly string[];
  /**
   * keyword attributes only ever filtered on, never counted as facets (a facet request on one
   * is refused): their documents are kept per value alone, nothing per document — for an
   * attribute with a dozen values a document, most of its memory (see KeywordColumn)
   */
  filterOnlyAttributes?: readonly string[];
}

export interface IndexDocument {
  id: string;
  /** a field given as a list (keywords) is several values: a phrase never spans two of them */
  text: Record<string, string | readonly string[]>;
  keywords: Record<string, readonly string[]>;
  /** null, absent or not finite is a missing value: it fails every range filter and sorts last */
  numbers: Record<string, number | null>;
}

export interface KeywordFilter {
  attribute: string;
  /** a document passes when it has any of these values (none: nothing passes) */
  anyOf: readonly string[];
  /** negates the filter: a document passes when it has none of these values */
  exclude?: boolean;
}

export interface RangeFilter {
  attribute: string;
  /** inclusive bounds; a document without the value never passes */
  min?: number;
  max?: number;
}

export type SearchFilter = KeywordFilter | RangeFilter;

export type SearchSort = 'best_match' | 'newest' | 'oldest' | 'most_popular' | 'random';

export interface SortNumbers {
  date: string;
  popularity: string;
  quality: string;
}

export interface SearchQuery {
  phrase?: string;
  /** enhanced (default): stems, synonyms and prefixes; precise: tokens exactly as written */
  mode?: 'enhanced' | 'precise';
  /** all must pass */
  filters?: readonly SearchFilter[];
  /** default best_match */
  sort?: SearchSort;
  /** which numeric attributes the sorts use; default { date: 'date', popularity: 'popularity', quality: 'quality' } */
  sortNumbers?: SortNumbers;
  randomSeed?: number;
  /** default 0 */
  offset?: number;
  /** default 30 */
  limit?: number;
  facets?: ReadonlyArray<{ attribute: string; limit: number }>;
}

export interface FacetCount {
  value: string;
  count: number;
}

export interface SearchResult {
  /** exact number of matching documents */
  total: number;
  /** the page, in order */
  ids: string[];
  /** per requested attribute: the top values over the whole match set */
  facets: Record<string, FacetCount[]>;
  /** the phrase with a misspelled term replaced, when a term matched nothing and a close frequent term exists */
  corrections?: string;
}
