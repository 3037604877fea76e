import { describe, expect, it } from 'vitest';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import type { SearchQuery } from '../../../src/search/engine/search-index.js';
import { SYNTHETIC_SCHEMA, syntheticDocuments, syntheticVocabulary } from '../../../bench/fixtures/synthetic-documents.js';

const words = syntheticVocabulary();
const queries: SearchQuery[] = [
  { phrase: words[3], facets: [{ attribute: 'artist', limit: 5 }] },
  { phrase: `${words[10]} ${words[40]}`, filters: [{ attribute: 'orientation', anyOf: ['horizontal'] }], limit: 50 },
  { phrase: `"${words[0]} ${words[1]}"`, sort: 'newest' },
  { sort: 'most_popular', filters: [{ attribute: 'quality', min: 2 }], limit: 30 },
];

describe('an index built in process', () => {
  it('holds no more typed-array memory after its build than the same index loaded from its snapshot', () => {
    // a build fed page by page grows its per-document arrays by half at a time: the slack the
    // compaction at the end of a build drops (a store boot would otherwise keep it for good)
    const built = new SearchIndex(SYNTHETIC_SCHEMA);
    const docs = [...syntheticDocuments(20_000, 3)];
    for (let start = 0; start < docs.length; start += 2_000) built.upsertMany(docs.slice(start, start + 2_000));
    built.compact();
    const loaded = SearchIndex.fromSnapshot(built.toSnapshot());
    // within 2%: the forward stream keeps up to a byte per document of its encoding's bound
    // (a copy of the whole stream to drop it would cost more at the build's peak than it saves);
    // before the fit, 9% over
    expect(built.byteSize()).toBeLessThanOrEqual(loaded.byteSize() * 1.02);
  });

  it('takes appends and deletions after its arrays were fitted, answering as an index built with them from the start', () => {
    const docs = [...syntheticDocuments(6_000, 4)];
    const fittedIndex = new SearchIndex(SYNTHETIC_SCHEMA);
    fittedIndex.upsertMany(docs.slice(0, 5_000));
    fittedIndex.compact();
    for (const doc of docs.slice(5_000)) fittedIndex.upsert(doc);
    for (let i = 0; i < 50; i++) fittedIndex.remove(docs[i * 7]!.id);
    const reference = new SearchIndex(SYNTHETIC_SCHEMA);
    reference.upsertMany(docs.filter((_, i) => i % 7 !== 0 || i >= 350));
    for (const query of queries) expect(fittedIndex.search(query)).toEqual(reference.search(query));
    fittedIndex.compact();
    for (const query of queries) expect(fittedIndex.search(query)).toEqual(reference.search(query));
  });
});
