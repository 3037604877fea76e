import type { AssetRecord, AssetType, StoredKeyword } from '../catalog/catalog.records.js';
import { parseQuery, stem, tokenize } from './engine/analyzer.js';
import type { SearchQuery, SearchResult } from './engine/types.js';

export interface RelatedSearch {
  phrase: string;
  url: string;
}

/** What related searches read: the asset index and the catalogue's records. */
export interface RelatedSearchSources {
  searchAssets(query: SearchQuery): SearchResult;
  findAssets(assetType: AssetType, ids: readonly string[]): Promise<{ found: AssetRecord[] }>;
}

/** How many related searches a response carries at most. */
export const RELATED_SEARCH_COUNT = 5;

/** How many of the best results the keywords are counted over. */
export const RELATED_SEARCH_SAMPLE = 100;

/**
 * Keyword types that say who or how rather than what (they are filter values: moods, number of
 * people, ethnicity, composition, age, technique, viewpoint); a search refined by one of them
 * is a filter, not a related subject. Compared in lower case, letters only.
 */
const DESCRIPTIVE_KEYWORD_TYPES: ReadonlySet<string> = new Set([
  'mood',
  'numberofpeople',
  'ethnicity',
  'composition',
  'age',
  'ageofpeople',
  'technique',
  'imagetechnique',
  'viewpoint',
]);

const typeKey = (type: string | null): string => (type ?? '').toLowerCase().replace(/[^a-z]/g, '');

/**
 * Related searches of a keyword search — the rule:
 *
 * 1. The sample: the first RELATED_SEARCH_SAMPLE (100) results of the same search (same phrase,
 *    same filters, the same token limit) in best-match order, whatever order was asked for.
 * 2. Every catalogue keyword of those assets is counted once per asset that carries it (its
 *    English text, compared without regard to case; written as the best-ranked result has it).
 * 3. Left out: keywords of a descriptive type (mood, number of people, ethnicity, composition,
 *    age, technique, viewpoint), and keywords that share a word with the phrase (compared as
 *    the search compares words: folded and stemmed, so "dog" is already in "dogs").
 * 4. The RELATED_SEARCH_COUNT (5) most frequent remain; a tie goes to the keyword text that
 *    sorts first.
 * 5. Each becomes the phrase followed by that keyword ("skyline" + "sunset" → "skyline sunset"),
 *    or the keyword alone when the search had no phrase; its url is the same endpoint's URL with
 *    that phrase as its only parameter (`urlFor`).
 *
 * An empty list when the search found nothing.
 */
export async function relatedSearches(
  search: SearchQuery,
  assetType: AssetType,
  sources: RelatedSearchSources,
  urlFor: (phrase: string) => string,
): Promise<RelatedSearch[]> {
  const sample = sources.searchAssets({
    ...search,
    sort: 'best_match',
    offset: 0,
    limit: RELATED_SEARCH_SAMPLE,
    facets: [],
  });
  if (sample.ids.length === 0) return [];
  const { found } = await sources.findAssets(assetType, sample.ids);

  const phrase = (search.phrase ?? '').trim();
  const phraseStems = new Set(
    parseQuery(phrase)
      .clauses.flatMap((clause) => clause.tokens)
      .map(stem),
  );
  const counted = new Map<string, { text: string; count: number }>();
  for (const record of found) {
    const seenInAsset = new Set<string>();
    for (const keyword of (record.fields.keywords as StoredKeyword[] | undefined) ?? []) {
      const text = keyword.text.trim().replace(/\s+/g, ' ');
      const key = text.toLowerCase();
      if (key === '' || seenInAsset.has(key) || DESCRIPTIVE_KEYWORD_TYPES.has(typeKey(keyword.type))) continue;
      const tokens = tokenize(text);
      if (tokens.length === 0 || tokens.some((token) => phraseStems.has(stem(token)))) continue;
      seenInAsset.add(key);
      const entry = counted.get(key);
      if (entry) entry.count += 1;
      else counted.set(key, { text, count: 1 });
    }
  }
  return [...counted.entries()]
    .sort(([keyA, a], [keyB, b]) => b.count - a.count || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0))
    .slice(0, RELATED_SEARCH_COUNT)
    .map(([, { text }]) => {
      const related = phrase === '' ? text : `${phrase} ${text}`;
      return { phrase: related, url: urlFor(related) };
    });
}
