import { describe, expect, it } from 'vitest';
import type { IndexStore } from '../../../src/search/engine/index-store.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import type { SearchQuery } from '../../../src/search/engine/search-index.js';
import { doc, SCHEMA } from './fixtures.js';

/*
 * A numeric attribute takes two bytes a document while every document has a whole number of
 * int16, four while every value is a float32 exactly (a missing one NaN), and eight from the
 * first value that is not: range filters and sorts answer with the values as given, before and
 * after the widening, a compaction and a snapshot.
 */

const columnsOf = (index: SearchIndex) => (index as unknown as { store: IndexStore }).store.numbers;
const kinds = (index: SearchIndex) => columnsOf(index).map((column) => column.constructor.name);

// date: small whole numbers, then seconds since 1970 (past 2^24); popularity: halves, then a tenth; quality: always small
const QUERIES: SearchQuery[] = [
  { filters: [{ attribute: 'date', min: 1_700_000_001, max: 1_700_000_003 }], sort: 'newest' },
  { filters: [{ attribute: 'popularity', min: 0.1, max: 0.1 }] },
  { filters: [{ attribute: 'popularity', min: 0.10000001 }], sort: 'most_popular', limit: 100 },
  { phrase: 'sea', sort: 'oldest', limit: 100 },
  { phrase: 'sea', sort: 'most_popular', limit: 100 },
];

describe('numeric columns', () => {
  it('hold int16 or float32 until a value needs more, and answer with the values as given', () => {
    const index = new SearchIndex(SCHEMA);
    index.upsertMany(Array.from({ length: 50 }, (_, i) => doc(`d${i}`, { title: 'sea', date: i, popularity: i / 2, quality: i % 5 })));
    expect(kinds(index)).toEqual(['Int16Array', 'Float32Array', 'Int16Array']);

    index.upsert(doc('late-1', { title: 'sea', date: 1_700_000_001, popularity: 0.1, quality: 1 }));
    index.upsert(doc('late-2', { title: 'sea', date: 1_700_000_002, popularity: 0.5 }));
    index.upsert(doc('late-3', { title: 'sea', date: 1_700_000_003, popularity: 0.1 }));
    expect(kinds(index)).toEqual(['Float64Array', 'Float64Array', 'Float32Array']);
    expect(columnsOf(index)[0]![50]).toBe(1_700_000_001);
    expect(columnsOf(index)[1]![50]).toBe(0.1);

    const answers = () => QUERIES.map((query) => index.search(query).ids);
    const before = answers();
    expect(before[0]).toEqual(['late-3', 'late-2', 'late-1']);
    expect(before[1]!.sort()).toEqual(['late-1', 'late-3']);
    expect(before[2]!.slice(0, 3)).toEqual(['d49', 'd48', 'd47']);
    expect(before[3]!.slice(0, 2)).toEqual(['d0', 'd1']);

    index.remove('d3');
    index.compact();
    const compacted = answers();
    expect(compacted).toEqual(before.map((ids) => ids.filter((id) => id !== 'd3')));

    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    expect(kinds(restored)).toEqual(['Float64Array', 'Float64Array', 'Float32Array']);
    expect(QUERIES.map((query) => restored.search(query).ids)).toEqual(compacted);
    restored.upsert(doc('late-4', { title: 'sea', date: 1_700_000_002.5, popularity: 0.1, quality: 0.25 }));
    expect(restored.search(QUERIES[0]!).ids).toEqual(['late-3', 'late-4', 'late-2', 'late-1']);
    expect(restored.search({ filters: [{ attribute: 'quality', min: 0.25, max: 0.25 }] }).ids).toEqual(['late-4']);
  });

  it('hold int16 while every document has a whole number from -32,768 to 32,767, and widen at a missing value, a larger one or a fraction', () => {
    const index = new SearchIndex(SCHEMA);
    const docs = Array.from({ length: 300 }, (_, i) => doc(`d${String(i).padStart(3, '0')}`, { title: 'sea', date: i * 100, popularity: (i * 7919) % 301, quality: (i % 5) - 2 }));
    index.upsertMany(docs);
    expect(kinds(index)).toEqual(['Int16Array', 'Int16Array', 'Int16Array']);
    const queries: SearchQuery[] = [
      { filters: [{ attribute: 'quality', min: -1, max: 1 }], sort: 'newest', limit: 1_000 },
      { filters: [{ attribute: 'date', min: 29_000 }], sort: 'oldest' },
      { phrase: 'sea', sort: 'most_popular', limit: 1_000 },
      { phrase: 'sea', sortNumbers: { date: 'quality', popularity: 'quality', quality: 'quality' }, sort: 'oldest', limit: 1_000 },
    ];
    const answers = (engine: SearchIndex) => queries.map((query) => engine.search(query).ids);
    const before = answers(index);
    expect(before[0]).toEqual(docs.filter((d) => Math.abs(d.numbers.quality!) <= 1).map((d) => d.id).reverse());
    expect(before[1]).toEqual(['d290', 'd291', 'd292', 'd293', 'd294', 'd295', 'd296', 'd297', 'd298', 'd299']);
    expect(before[2]![0]).toBe(docs.find((d) => d.numbers.popularity === 300)!.id);
    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    expect(kinds(restored)).toEqual(['Int16Array', 'Int16Array', 'Int16Array']);
    expect(answers(restored)).toEqual(before);
    index.remove('d001');
    index.compact();
    expect(kinds(index)).toEqual(['Int16Array', 'Int16Array', 'Int16Array']);
    expect(answers(index)).toEqual(before.map((ids) => ids.filter((id) => id !== 'd001')));

    // past int16 (date), a missing value (quality) and a fraction (popularity): float32, the values before kept exactly
    index.upsert(doc('late', { title: 'sea', date: 32_768, popularity: 0.5, quality: null }));
    expect(kinds(index)).toEqual(['Float32Array', 'Float32Array', 'Float32Array']);
    const widened = answers(index);
    expect(widened[0]).toEqual(before[0]!.filter((id) => id !== 'd001'));
    expect(widened[1]).toEqual([...before[1]!, 'late']);
    expect(widened[2]!.slice(-2)).toEqual(['late', 'd000']);
    expect(widened[3]!.at(-1)).toBe('late');
    expect(index.search({ filters: [{ attribute: 'quality', min: -Infinity }] }).total).toBe(299);
    expect(index.search({ filters: [{ attribute: 'date', min: 32_768 }] }).ids).toEqual(['late']);
  });

  it('keep a missing value missing in float32: it fails every range and sorts last', () => {
    const index = new SearchIndex(SCHEMA);
    index.upsertMany([doc('a', { title: 'sea', quality: 2 }), doc('b', { title: 'sea', quality: null }), doc('c', { title: 'sea', quality: 1 })]);
    expect(kinds(index)[2]).toBe('Float32Array');
    expect(index.search({ filters: [{ attribute: 'quality', min: -Infinity }] }).ids.sort()).toEqual(['a', 'c']);
    expect(index.search({ phrase: 'sea', sortNumbers: { date: 'quality', popularity: 'quality', quality: 'quality' }, sort: 'newest' }).ids).toEqual(['a', 'c', 'b']);
  });
});
