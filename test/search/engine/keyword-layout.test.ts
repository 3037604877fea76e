import { describe, expect, it } from 'vitest';
import type { KeywordColumn } from '../../../src/search/engine/keyword-column.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import type { IndexDocument, SearchQuery } from '../../../src/search/engine/types.js';
import { doc, indexOf, SCHEMA } from './fixtures.js';

/*
 * A keyword attribute keeps one value per document until a document brings two, then a bitmask
 * per document (up to 32 values) or offsets and values; a compaction that leaves no document
 * with two goes back. Each layout's array is as narrow as the value count allows and widens
 * as values come. Whatever the layout, filters, facets and snapshots answer the same.
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
  it('switch to several values per document at the first document with two values, answering as before', () => {
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

  it('pack one value per document in 1, 2 or 4 bits up to 1, 3 and 15 values, widening as values come, answering as a plain index', () => {
    const column = (index: SearchIndex) => (index as unknown as { store: { columns: KeywordColumn[] } }).store.columns.find((c) => c.name === 'collection')!;
    // document i: no value every seventh, else one of the first `values` values; 1,003 documents, so the last byte is part-filled
    const batch = (from: number, to: number, values: number) =>
      Array.from({ length: to - from }, (_, k) => from + k).map((i) => doc(`d${String(i).padStart(5, '0')}`, { title: i % 3 === 0 ? 'harbour' : 'sea', collection: i % 7 === 0 ? undefined : `c${i % values}`, date: i }));
    const queries: SearchQuery[] = [
      ...['c0', 'c1', 'c2', 'c5', 'c15', 'c16'].flatMap((value): SearchQuery[] => [
        { filters: [{ attribute: 'collection', anyOf: [value] }] },
        { phrase: 'harbour', filters: [{ attribute: 'collection', anyOf: [value, 'c3'], exclude: true }] },
      ]),
      { phrase: 'sea', facets: [{ attribute: 'collection', limit: 20 }] },
      { phrase: 'harbour', filters: [{ attribute: 'collection', anyOf: ['c1'] }], facets: [{ attribute: 'collection', limit: 20 }] },
    ].map((query) => ({ ...query, sort: 'newest', limit: 10_000 }));
    const index = indexOf(batch(0, 1_003, 1));
    const expectAnswers = (docs: IndexDocument[]) => {
      // the same documents with a value each as a title word: the plain index's answers, written out
      for (const query of queries) {
        const result = index.search(query);
        const filter = query.filters?.[0] as { anyOf: string[]; exclude?: boolean } | undefined;
        const expected = docs
          .filter((d) => query.phrase === undefined || d.text.title === query.phrase)
          .filter((d) => filter === undefined || filter.anyOf.some((value) => d.keywords.collection?.includes(value)) !== (filter.exclude ?? false))
          .map((d) => d.id)
          .reverse();
        expect(result.ids).toEqual(expected);
        const counts = new Map<string, number>();
        for (const d of docs) if (expected.includes(d.id)) for (const value of d.keywords.collection ?? []) counts.set(value, (counts.get(value) ?? 0) + 1);
        if (query.facets !== undefined) expect(Object.fromEntries(result.facets.collection!.map((f) => [f.value, f.count]))).toEqual(Object.fromEntries(counts));
      }
    };
    const docs = batch(0, 1_003, 1);
    index.compact();
    expect(column(index).singleShape.bits).toBe(1);
    // eight documents a byte, the room for more dropped by the compaction
    expect(column(index).single.length).toBe(Math.ceil(1_003 / 8));
    expectAnswers(docs);
    for (const [values, bits] of [
      [3, 2],
      [15, 4],
      [17, 8],
    ] as const) {
      const more = batch(docs.length, docs.length + 500, values);
      index.upsertMany(more);
      docs.push(...more);
      expect(column(index).singleShape.bits).toBe(bits);
      expectAnswers(docs);
    }
    // a compaction with deletions moves the packed values down; a snapshot keeps them
    for (let i = 0; i < docs.length; i += 5) index.remove(docs[i]!.id);
    const kept = docs.filter((_, i) => i % 5 !== 0);
    index.compact();
    expectAnswers(kept);
    const small = indexOf(batch(0, 1_003, 3));
    expect(column(small).singleShape.bits).toBe(2);
    const restored = SearchIndex.fromSnapshot(small.toSnapshot());
    expect(column(restored).singleShape.bits).toBe(2);
    expect(column(restored).single.length).toBeGreaterThanOrEqual(Math.ceil(1_003 / 4));
    for (const query of queries) expect(restored.search(query)).toEqual(small.search(query));
  });

  it('keep several values per document as a bitmask up to 32 values (a byte to 8, two to 16), then as offsets and values', () => {
    const store = (index: SearchIndex) => (index as unknown as { store: { columns: KeywordColumn[] } }).store.columns.find((c) => c.name === 'segments')!;
    const held: IndexDocument[] = [];
    // document i has values s(i mod n) and s((i + 1) mod n), n growing as the documents come (each batch has all n)
    const add = (index: SearchIndex, from: number, to: number, values: number) => {
      const docs = Array.from({ length: to - from }, (_, k) => doc(`d${from + k}`, { title: 'sea', segments: [`s${(from + k) % values}`, `s${(from + k + 1) % values}`], date: from + k }));
      index.upsertMany(docs);
      held.push(...docs);
    };
    const index = new SearchIndex(SCHEMA);
    add(index, 0, 2_000, 4);
    expect(store(index).masked).toBe(true);
    expect(store(index).masks).toBeInstanceOf(Uint8Array);
    expectBruteForceAnswers(index, held, 4);
    add(index, 2_000, 2_010, 9);
    expect(store(index).masks).toBeInstanceOf(Uint16Array);
    add(index, 2_010, 2_030, 17);
    expect(store(index).masks).toBeInstanceOf(Uint32Array);
    add(index, 2_030, 2_070, 32);
    expect(store(index).masked).toBe(true);
    expectBruteForceAnswers(index, held, 32);
    for (const engine of [index, SearchIndex.fromSnapshot(index.toSnapshot())]) {
      expect(store(engine).masks).toBeInstanceOf(Uint32Array);
      expectBruteForceAnswers(engine, held, 32);
    }
    index.remove('d2001');
    held.splice(2_001, 1);
    index.compact();
    expect(store(index).masked).toBe(true);
    expectBruteForceAnswers(index, held, 32);

    // the 33rd value: offsets and values, a byte a value
    add(index, 2_070, 2_110, 33);
    expect(store(index).masked).toBe(false);
    expect(store(index).singleValued).toBe(false);
    expect(store(index).docValues).toBeInstanceOf(Uint8Array);
    expectBruteForceAnswers(index, held, 33);
    expectBruteForceAnswers(SearchIndex.fromSnapshot(index.toSnapshot()), held, 33);
  });

  it('keep where each document starts among offsets and values from its block of 32, a byte until a block holds 256 values', () => {
    const column = (index: SearchIndex) => (index as unknown as { store: { columns: KeywordColumn[] } }).store.columns.find((c) => c.name === 'segments')!;
    // document i has `wide` values (of s0..s39) when i is a multiple of `every`, else one
    const numbered = (from: number, to: number, wide: number, every: number) =>
      Array.from({ length: to - from }, (_, k) => {
        const i = from + k;
        return doc(`d${i}`, { title: 'sea', segments: Array.from({ length: i % every === 0 ? wide : 1 }, (_, j) => `s${(i + j * 7) % 40}`), date: i });
      });
    const held = numbered(0, 1_000, 10, 8);
    const index = indexOf(held);
    expect(column(index).masked).toBe(false);
    expect(column(index).docOffset).toBeInstanceOf(Uint8Array);
    expectBruteForceAnswers(index, held, 40);

    // blocks of 8 × 30 + 24 values: the offsets widen to two bytes
    const wide = numbered(1_000, 1_200, 30, 4);
    index.upsertMany(wide);
    held.push(...wide);
    expect(column(index).docOffset).toBeInstanceOf(Uint16Array);
    expectBruteForceAnswers(index, held, 40);

    // a compaction that drops most one-value documents moves the rest down across blocks
    const dropped = held.filter((d, i) => d.keywords.segments!.length === 1 && i % 3 !== 0);
    for (const d of dropped) index.remove(d.id);
    index.compact();
    const kept = held.filter((d) => !dropped.includes(d));
    expectBruteForceAnswers(index, kept, 40);
    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    expect(column(restored).docOffset).toBeInstanceOf(Uint16Array);
    expectBruteForceAnswers(restored, kept, 40);
    const later = numbered(2_000, 2_070, 3, 2);
    restored.upsertMany(later);
    expectBruteForceAnswers(restored, [...kept, ...later], 40);
  });

  it('keep the values of offsets and values in a byte up to 256 values, in two bytes up to 65,536, in four beyond', () => {
    const column = (index: SearchIndex) => (index as unknown as { store: { columns: KeywordColumn[] } }).store.columns.find((c) => c.name === 'segments')!;
    const numbered = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => doc(`d${from + k}`, { title: 'sea', segments: [`p${from + k}`, 'shared'], date: from + k }));
    const named = (values: string[]): SearchQuery => ({ filters: [{ attribute: 'segments', anyOf: values }], sort: 'oldest', limit: 10 });
    const index = indexOf(numbered(0, 255));
    expect(column(index).docValues).toBeInstanceOf(Uint8Array);
    index.upsert(numbered(255, 256)[0]!);
    expect(column(index).docValues).toBeInstanceOf(Uint16Array);
    expect(index.search(named(['p0', 'p255'])).ids).toEqual(['d0', 'd255']);
    index.upsertMany(numbered(256, 65_535));
    expect(column(index).docValues).toBeInstanceOf(Uint16Array);
    index.upsert(numbered(65_535, 65_536)[0]!);
    expect(column(index).docValues).toBeInstanceOf(Uint32Array);
    const query = named(['p0', 'p255', 'p65534', 'p65535']);
    expect(index.search(query).ids).toEqual(['d0', 'd255', 'd65534', 'd65535']);
    const facets = index.search({ ...query, facets: [{ attribute: 'segments', limit: 2 }] }).facets;
    expect(facets).toEqual({ segments: [{ value: 'shared', count: 4 }, { value: 'p0', count: 1 }] });
    index.remove('d255');
    index.compact();
    for (const engine of [index, SearchIndex.fromSnapshot(index.toSnapshot())]) {
      expect(column(engine).docValues).toBeInstanceOf(Uint32Array);
      expect(engine.search(query).ids).toEqual(['d0', 'd65534', 'd65535']);
      expect(engine.search({ phrase: 'sea', filters: [{ attribute: 'segments', anyOf: ['p7'], exclude: true }] }).total).toBe(65_534);
    }
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

/**
 * Filters (one value and two, kept and excluded, with and without a word) and facets over
 * `segments` answer as a scan of `docs` does, for values s0..s(values - 1).
 */
function expectBruteForceAnswers(index: SearchIndex, docs: readonly IndexDocument[], values: number): void {
  const picks = [[0], [values - 1], [1, values - 2], [Math.floor(values / 2)]].map((ids) => ids.map((v) => `s${v}`));
  for (const anyOf of picks) {
    for (const exclude of [false, true]) {
      const passes = docs.filter((d) => d.keywords.segments!.some((value) => anyOf.includes(value)) !== exclude);
      const query: SearchQuery = { filters: [{ attribute: 'segments', anyOf, exclude }], sort: 'oldest', limit: 10_000, facets: [{ attribute: 'segments', limit: 40 }] };
      for (const phrase of [undefined, 'sea']) {
        const result = index.search(phrase === undefined ? query : { ...query, phrase });
        expect(result.ids).toEqual(passes.map((d) => d.id));
        const counts = new Map<string, number>();
        for (const d of passes) for (const value of d.keywords.segments!) counts.set(value, (counts.get(value) ?? 0) + 1);
        const expected = [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
        expect(result.facets.segments).toEqual(expected);
      }
    }
  }
}
