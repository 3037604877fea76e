import { describe, expect, it } from 'vitest';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import { align8 } from '../../../src/search/engine/snapshot-format.js';
import type { SearchQuery } from '../../../src/search/engine/search-index.js';
import { SYNTHETIC_SCHEMA, syntheticDocuments, syntheticVocabulary } from '../../../bench/fixtures/synthetic-documents.js';
import { doc } from './fixtures.js';

const words = syntheticVocabulary();
const queries: SearchQuery[] = [
  { phrase: words[3], facets: [{ attribute: 'artist', limit: 5 }, { attribute: 'editorial_segments', limit: 3 }] },
  { phrase: `${words[10]} ${words[40]}`, filters: [{ attribute: 'orientation', anyOf: ['horizontal'] }], limit: 50 },
  { phrase: `"${words[0]} ${words[1]}"`, sort: 'newest' },
  { phrase: `${words[5]} -${words[6]}`, mode: 'precise', sort: 'most_popular', offset: 10 },
  { sort: 'random', randomSeed: 42, filters: [{ attribute: 'quality', min: 2 }], facets: [{ attribute: 'collection_code', limit: 4 }] },
  { phrase: words[500]!.slice(0, 4), sort: 'oldest' },
  { phrase: 'café', mode: 'precise' },
];

function build(): SearchIndex {
  const index = new SearchIndex(SYNTHETIC_SCHEMA);
  index.upsertMany(syntheticDocuments(3_000, 5));
  // live changes after the build: a tail, deletions and a replacement
  index.upsert({ ...doc('x-1'), text: { title: 'Café au lait', caption: words[3]!, keywords: [] }, keywords: { artist: ['Someone'] }, numbers: { date: 1 } });
  index.remove('10000007');
  index.remove('10000008');
  const replaced = [...syntheticDocuments(20, 5)][12]!;
  index.upsert({ ...replaced, text: { ...replaced.text, title: `${words[0]} ${words[1]} again` } });
  // ids and a keyword value past ASCII, and past Latin-1 (kept aside by the packed strings), tied with others on the score
  for (const id of ['u-é', 'u-日本', 'u-日', 'u-😀']) index.upsert({ ...doc(id), text: { title: words[3]!, caption: '', keywords: [] }, keywords: { artist: ['北斎'] }, numbers: {} });
  return index;
}

describe('snapshot', () => {
  it('places sections past 2^31 and 2^32 bytes (a ten-million-asset snapshot) at their offsets, not wrapped', () => {
    // 32-bit bit operations made these negative, and every snapshot over 2 GiB was refused as damaged
    expect(align8(0)).toBe(0);
    expect(align8(1)).toBe(8);
    expect(align8(2 ** 31 - 1)).toBe(2 ** 31);
    expect(align8(2 ** 31 + 1)).toBe(2 ** 31 + 8);
    expect(align8(3_302_227_193)).toBe(3_302_227_200);
    expect(align8(2 ** 32 + 3)).toBe(2 ** 32 + 8);
    expect(align8(2 ** 40 + 8)).toBe(2 ** 40 + 8);
  });

  it('round-trips to an index that gives identical results', () => {
    const index = build();
    const before = queries.map((query) => index.search(query));
    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    expect(restored.size).toBe(index.size);
    expect(queries.map((query) => restored.search(query))).toEqual(before);
    // and the original answers the same after the compaction toSnapshot made
    expect(queries.map((query) => index.search(query))).toEqual(before);
  });

  it('keeps ids and keyword values past Latin-1 findable, replaceable and in order', () => {
    const restored = SearchIndex.fromSnapshot(build().toSnapshot());
    const tied = restored.search({ phrase: words[3]!, limit: 10_000 }).ids.filter((id) => id.startsWith('u-'));
    expect(tied).toEqual(['u-é', 'u-日', 'u-日本', 'u-😀']);
    const artist = restored.search({ filters: [{ attribute: 'artist', anyOf: ['北斎'] }], facets: [{ attribute: 'artist', limit: 1 }] });
    expect(artist.total).toBe(4);
    expect(artist.facets['artist']).toEqual([{ value: '北斎', count: 4 }]);
    expect(restored.has('u-日本')).toBe(true);
    restored.remove('u-日本');
    restored.upsert({ ...doc('u-😀'), text: { title: 'zeppelin', caption: '', keywords: [] }, keywords: {}, numbers: {} });
    expect(restored.has('u-日本')).toBe(false);
    expect(restored.search({ phrase: 'zeppelin' }).ids).toEqual(['u-😀']);
  });

  it('gives an index that takes further updates', () => {
    const restored = SearchIndex.fromSnapshot(build().toSnapshot());
    restored.upsert({ id: 'late', text: { title: 'zeppelin over harbour' }, keywords: {}, numbers: {} });
    restored.remove('x-1');
    expect(restored.search({ phrase: 'zeppelin' }).ids).toEqual(['late']);
    expect(restored.search({ phrase: 'cafe' }).total).toBe(0);
  });

  it('survives being copied to an unaligned buffer', () => {
    const snapshot = build().toSnapshot();
    const shifted = Buffer.alloc(snapshot.length + 3);
    snapshot.copy(shifted, 3);
    const restored = SearchIndex.fromSnapshot(shifted.subarray(3));
    expect(restored.search(queries[0]!)).toEqual(SearchIndex.fromSnapshot(snapshot).search(queries[0]!));
  });

  it('is a binary format with a header, not JSON', () => {
    const snapshot = build().toSnapshot();
    expect(snapshot.toString('latin1', 0, 8)).toBe('STKIDXv1');
    expect(snapshot.length).toBeGreaterThan(100_000);
  });

  it('refuses a buffer that is not a snapshot, or is cut short', () => {
    expect(() => SearchIndex.fromSnapshot(Buffer.from('{"not":"a snapshot"}'))).toThrow(/snapshot/);
    const snapshot = build().toSnapshot();
    expect(() => SearchIndex.fromSnapshot(snapshot.subarray(0, snapshot.length - 1000))).toThrow(/truncated/);
  });

  it('round-trips an empty index', () => {
    const empty = new SearchIndex(SYNTHETIC_SCHEMA);
    const restored = SearchIndex.fromSnapshot(empty.toSnapshot());
    expect(restored.size).toBe(0);
    expect(restored.search({ phrase: 'anything' }).total).toBe(0);
    restored.upsert({ id: 'first', text: { title: 'first light' }, keywords: {}, numbers: {} });
    expect(restored.search({ phrase: 'light' }).ids).toEqual(['first']);
  });
});
