import { describe, expect, it } from 'vitest';
import type { KeywordColumn } from '../../../src/search/engine/keyword-column.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import type { SearchQuery } from '../../../src/search/engine/types.js';
import { doc, indexOf, SCHEMA } from './fixtures.js';

/*
 * A keyword attribute keeps one value per document until a document brings two, then offsets
 * and values; a compaction that leaves no document with two goes back. Whatever the layout,
 * filters, facets and snapshots answer the same.
 */

const SEGMENTS = ['news', 'sport', 'royalty', 'archive'];

function segmentsOf(i: number): string[] {
  return i % 11 === 0 ? [] : [SEGMENTS[i % SEGMENTS.length]!];
}

/** Filters and facets over the segments, sorted by date so that the whole answer is compared. */
const QUERIES: SearchQuery[] = [
  { filters: [{ attribute: 'segments', anyOf: ['news', 'archive'] }] },
  { filters: [{ attribute: 'segments', anyOf: ['sport'], exclude: true }] },
  { phrase: 'harbour', filters: [{ attribute: 'segments', anyOf: ['royalty'] }] },
  { phrase: 'harbour', facets: [{ attribute: 'segments', limit: 10 }] },
  { facets: [{ attribute: 'segments', limit: 10 }] },
].map((query) => ({ ...query, sort: 'newest', limit: 10_000 }));

function answers(index: SearchIndex) {
  return QUERIES.map((query) => index.search(query));
}

describe('keyword attribute layouts', () => {
  it('switch to offsets and values at the first document with two values, answering as before', () => {
    const docs = Array.from({ length: 3_000 }, (_, i) =>
      doc(`d${String(i).padStart(4, '0')}`, { title: i % 3 === 0 ? 'harbour' : 'field', segments: segmentsOf(i), date: i }),
    );
    const index = indexOf(docs);
    const column = (index as unknown as { store: { columns: KeywordColumn[] } }).store.columns.find((c) => c.name === 'segments')!;
    index.search({ phrase: 'harbour' });
    expect(column.singleValued).toBe(true);
    const before = answers(index);

    // a document with two values: the column switches, and the new document is found through both
    index.upsert(doc('two', { title: 'harbour', segments: ['news', 'royalty'], date: 5_000 }));
    expect(column.singleValued).toBe(false);
    const after = answers(index);
    expect(after[0]!.ids).toEqual(['two', ...before[0]!.ids]);
    expect(after[1]!.ids).toEqual(['two', ...before[1]!.ids]);
    expect(after[2]!.ids).toEqual(['two', ...before[2]!.ids]);
    const facetCount = (result: (typeof after)[number], value: string) => result.facets.segments!.find((f) => f.value === value)!.count;
    expect(facetCount(after[3]!, 'news')).toBe(facetCount(before[3]!, 'news') + 1);
    expect(facetCount(after[3]!, 'royalty')).toBe(facetCount(before[3]!, 'royalty') + 1);

    // a snapshot keeps the layout and the answers
    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    expect(answers(restored)).toEqual(answers(index));

    // once it is deleted and the index compacted, one value per document again — same answers as at first
    index.remove('two');
    index.compact();
    expect(column.singleValued).toBe(true);
    expect(answers(index)).toEqual(before);
    expect(answers(SearchIndex.fromSnapshot(index.toSnapshot()))).toEqual(before);
  });

  it('keep one value per document in a byte up to 255 values, in two bytes up to 65,535, in four beyond', () => {
    const single = (index: SearchIndex) => (index as unknown as { store: { columns: KeywordColumn[] } }).store.columns.find((c) => c.name === 'collection')!.single;
    const numbered = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => doc(`d${from + k}`, { title: 'sea', collection: `c${from + k}`, date: from + k }));
    const named = (values: string[]): SearchQuery => ({ filters: [{ attribute: 'collection', anyOf: values }], sort: 'oldest' });
    const index = indexOf(numbered(0, 255));
    expect(single(index)).toBeInstanceOf(Uint8Array);
    expect(index.search(named(['c0', 'c254'])).ids).toEqual(['d0', 'd254']);

    // the 256th value widens the column to two bytes, the 65,536th to four; each value stays found
    index.upsert(numbered(255, 256)[0]!);
    expect(single(index)).toBeInstanceOf(Uint16Array);
    expect(index.search(named(['c0', 'c254', 'c255'])).ids).toEqual(['d0', 'd254', 'd255']);
    index.upsertMany(numbered(256, 65_535));
    expect(single(index)).toBeInstanceOf(Uint16Array);
    index.upsert(numbered(65_535, 65_536)[0]!);
    expect(single(index)).toBeInstanceOf(Uint32Array);
    const query = named(['c0', 'c255', 'c65534', 'c65535']);
    expect(index.search(query).ids).toEqual(['d0', 'd255', 'd65534', 'd65535']);
    expect(index.search({ phrase: 'sea', filters: [{ attribute: 'collection', anyOf: ['c255'], exclude: true }] }).total).toBe(65_535);
    const facets = index.search({ filters: [{ attribute: 'collection', anyOf: ['c65535', 'c3'] }], facets: [{ attribute: 'collection', limit: 5 }] }).facets;
    expect(facets).toEqual({ collection: [{ value: 'c3', count: 1 }, { value: 'c65535', count: 1 }] });

    // a compaction with a deletion and a snapshot keep the width and the answers
    index.remove('d255');
    index.compact();
    expect(single(index)).toBeInstanceOf(Uint32Array);
    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    expect(single(restored)).toBeInstanceOf(Uint32Array);
    for (const engine of [index, restored]) expect(engine.search(query).ids).toEqual(['d0', 'd65534', 'd65535']);
    const small = SearchIndex.fromSnapshot(indexOf(numbered(0, 255)).toSnapshot());
    expect(single(small)).toBeInstanceOf(Uint8Array);
    small.upsert(numbered(255, 256)[0]!);
    expect(single(small)).toBeInstanceOf(Uint16Array);
    expect(small.search(named(['c254', 'c255'])).ids).toEqual(['d254', 'd255']);
  });

  it('hold nothing per document for an attribute no document has, until one has it', () => {
    const docs = Array.from({ length: 2_000 }, (_, i) => doc(`d${i}`, { title: 'sea', date: i }));
    const index = indexOf(docs);
    const column = (index as unknown as { store: { columns: KeywordColumn[] } }).store.columns.find((c) => c.name === 'collection')!;
    index.search({ phrase: 'sea' });
    expect(column.single.length).toBe(0);
    const named = { attribute: 'collection', anyOf: ['c1'] };
    expect(index.search({ phrase: 'sea', filters: [named] }).total).toBe(0);
    expect(index.search({ phrase: 'sea', filters: [{ ...named, exclude: true }] }).total).toBe(2_000);
    expect(index.search({ phrase: 'sea', facets: [{ attribute: 'collection', limit: 5 }] }).facets).toEqual({ collection: [] });
    expect(SearchIndex.fromSnapshot(index.toSnapshot()).search({ phrase: 'sea', filters: [{ ...named, exclude: true }] }).total).toBe(2_000);

    // the first value: every earlier document has none
    index.upsert(doc('late', { title: 'sea', collection: 'c1', date: 9_000 }));
    index.upsert(doc('later', { title: 'sea', date: 9_001 }));
    expect(index.search({ phrase: 'sea', filters: [named] }).ids).toEqual(['late']);
    expect(index.search({ phrase: 'sea', filters: [{ ...named, exclude: true }] }).total).toBe(2_001);
    index.remove('d7');
    index.compact();
    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    for (const engine of [index, restored]) {
      expect(engine.search({ phrase: 'sea', filters: [named] }).ids).toEqual(['late']);
      expect(engine.search({ phrase: 'sea', facets: [{ attribute: 'collection', limit: 5 }] }).facets).toEqual({ collection: [{ value: 'c1', count: 1 }] });
    }
  });

  it('switch straight from holding nothing to offsets and values when the first document with the attribute has two', () => {
    const plain = (i: number) => doc(`d${i}`, { title: 'sea', date: i });
    const two = doc('two', { title: 'sea', segments: ['news', 'sport'], date: 100 });
    const one = new SearchIndex(SCHEMA);
    for (let i = 0; i < 40; i++) one.upsert(plain(i));
    one.upsert(two);
    one.upsert(plain(40));
    const bulk = new SearchIndex(SCHEMA);
    bulk.upsertMany([...Array.from({ length: 40 }, (_, i) => plain(i)), two, plain(40)]);
    const base = new SearchIndex(SCHEMA);
    base.upsertMany(Array.from({ length: 40 }, (_, i) => plain(i)));
    const restored = SearchIndex.fromSnapshot(base.toSnapshot());
    restored.upsert(two);
    restored.upsert(plain(40));
    for (const index of [one, bulk, restored]) {
      expect(index.size).toBe(42);
      expect(index.search({ filters: [{ attribute: 'segments', anyOf: ['sport'] }] }).ids).toEqual(['two']);
      expect(index.search({ phrase: 'sea', filters: [{ attribute: 'segments', anyOf: ['news'], exclude: true }] }).total).toBe(41);
    }
  });

  it('keep the values of documents appended after the switch, and of deleted ones out of the counts', () => {
    const index = indexOf([doc('a', { title: 'sea', segments: ['news'] }), doc('b', { title: 'sea', segments: ['news', 'sport'] })]);
    index.upsert(doc('c', { title: 'sea', segments: ['sport'] }));
    index.upsert(doc('d', { title: 'sea' }));
    index.remove('a');
    const result = index.search({ phrase: 'sea', facets: [{ attribute: 'segments', limit: 10 }] });
    expect(result.facets.segments).toEqual([
      { value: 'sport', count: 2 },
      { value: 'news', count: 1 },
    ]);
    expect(index.search({ filters: [{ attribute: 'segments', anyOf: ['sport'] }] }).ids.sort()).toEqual(['b', 'c']);
  });
});
