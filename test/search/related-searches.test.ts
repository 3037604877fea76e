import { describe, expect, it } from 'vitest';
import type { AssetRecord, StoredKeyword } from '../../src/catalog/catalog.records.js';
import { SearchIndex } from '../../src/search/engine/search-index.js';
import type { SearchQuery } from '../../src/search/engine/types.js';
import { RELATED_SEARCH_SAMPLE, relatedSearches, type RelatedSearchSources } from '../../src/search/related-searches.js';
import { ASSET_INDEX_SCHEMA, assetDocument } from '../../src/search/search-documents.js';

function keyword(text: string, type = 'Concept'): StoredKeyword {
  return { keyword_id: text, text, type, relevance: 3, entity_uris: [], entity_types: [], translations: {} };
}

function image(id: string, title: string, keywords: StoredKeyword[], extra: Record<string, unknown> = {}): AssetRecord {
  return {
    id,
    asset_type: 'image',
    fields: { title, keywords, asset_family: 'creative', ...extra },
    width: 1200,
    height: 800,
    original: null,
    visual_signature: null,
  };
}

/** The sources related searches read, over the given records; counts how often the index is asked. */
function sourcesOver(records: readonly AssetRecord[]): RelatedSearchSources & { queries: SearchQuery[] } {
  const index = new SearchIndex(ASSET_INDEX_SCHEMA);
  index.upsertMany(records.map(assetDocument));
  const byId = new Map(records.map((record) => [record.id, record]));
  const queries: SearchQuery[] = [];
  return {
    queries,
    searchAssets(query) {
      queries.push(query);
      return index.search(query);
    },
    async findAssets(_type, ids) {
      return { found: ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])) };
    },
  };
}

const urlFor = (phrase: string) => `https://stock.example/v3/search/images?phrase=${encodeURIComponent(phrase)}`;
const base = (phrase: string): SearchQuery => ({ phrase, filters: [{ attribute: 'asset_type', anyOf: ['image'] }], limit: 10 });

describe('related searches', () => {
  const records = [
    image('1', 'Dog running on the beach', [keyword('dog'), keyword('beach'), keyword('summer'), keyword('happiness', 'Mood')]),
    image('2', 'Dog playing in the park', [keyword('dogs'), keyword('park'), keyword('summer'), keyword('one animal', 'NumberOfPeople')]),
    image('3', 'Sleeping dog', [keyword('dog'), keyword('pet'), keyword('Beach'), keyword('close-up', 'Composition')]),
    image('4', 'Dog with a ball', [keyword('pet'), keyword('ball'), keyword('summer')]),
    image('5', 'Cat on a sofa', [keyword('cat'), keyword('pet'), keyword('sofa')]),
  ];

  it('suggests the keywords most common among the results, phrase first, ties by keyword text', async () => {
    const related = await relatedSearches(base('dog'), 'image', sourcesOver(records), urlFor);
    // summer 3, beach 2 (once as "Beach"), pet 2, then ball and park with 1 each. "Sleeping dog"
    // is the best match (the shortest title), so beach is written as that result writes it.
    expect(related).toEqual([
      { phrase: 'dog summer', url: 'https://stock.example/v3/search/images?phrase=dog%20summer' },
      { phrase: 'dog Beach', url: urlFor('dog Beach') },
      { phrase: 'dog pet', url: urlFor('dog pet') },
      { phrase: 'dog ball', url: urlFor('dog ball') },
      { phrase: 'dog park', url: urlFor('dog park') },
    ]);
  });

  it('leaves out words of the phrase (stemmed, so dogs is dog) and descriptive keyword types', async () => {
    const related = await relatedSearches(base('dogs'), 'image', sourcesOver(records), urlFor);
    const phrases = related.map((r) => r.phrase);
    expect(phrases).not.toContain('dogs dog');
    expect(phrases).not.toContain('dogs dogs');
    expect(phrases.some((p) => /happiness|one animal|close-up/.test(p))).toBe(false);
  });

  it('counts a keyword once per asset, and only over the results of the search (filters too)', async () => {
    const sources = sourcesOver([
      image('1', 'Red kite', [keyword('bird'), keyword('bird'), keyword('sky')], { orientation: 'Vertical' }),
      image('2', 'Red kite over a field', [keyword('sky'), keyword('field')], { orientation: 'Vertical' }),
      image('3', 'Red kite nest', [keyword('bird'), keyword('nest')], { orientation: 'Horizontal' }),
    ]);
    const vertical: SearchQuery = { ...base('kite'), filters: [...base('kite').filters!, { attribute: 'orientation', anyOf: ['vertical'] }] };
    const related = await relatedSearches(vertical, 'image', sources, urlFor);
    expect(related.map((r) => r.phrase)).toEqual(['kite sky', 'kite bird', 'kite field']);
  });

  it('uses the keyword alone without a phrase, and answers [] when nothing is found', async () => {
    const sources = sourcesOver(records);
    const browse = await relatedSearches(base(''), 'image', sources, urlFor);
    expect(browse[0]).toEqual({ phrase: 'pet', url: urlFor('pet') });
    expect(await relatedSearches(base('zebra'), 'image', sources, urlFor)).toEqual([]);
  });

  it('samples the first 100 best matches of the same search, whatever page or order was asked', async () => {
    const sources = sourcesOver(records);
    await relatedSearches({ ...base('dog'), sort: 'random', randomSeed: 7, offset: 60, limit: 30, facets: [{ attribute: 'artist', limit: 5 }] }, 'image', sources, urlFor);
    expect(sources.queries).toHaveLength(1);
    expect(sources.queries[0]).toMatchObject({ phrase: 'dog', sort: 'best_match', offset: 0, limit: RELATED_SEARCH_SAMPLE, facets: [] });
    expect(sources.queries[0]!.filters).toEqual(base('dog').filters);
  });
});
