import { describe, expect, it } from 'vitest';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import { doc, indexOf } from './fixtures.js';
import type { DocSpec } from './fixtures.js';

const specs: Record<string, DocSpec> = {
  a: { title: 'sea', orientation: 'horizontal', collection: 'ab', segments: ['sport', 'news'], date: 10, quality: 1 },
  b: { title: 'sea', orientation: 'vertical', collection: 'ab', segments: ['news'], date: 20, quality: 2 },
  c: { title: 'sea', orientation: 'square', collection: 'cd', segments: [], date: 30, quality: null },
  d: { title: 'sea', orientation: 'horizontal', collection: 'cd', segments: ['royalty'], date: null, quality: 4 },
  e: { title: 'lake', orientation: 'horizontal', collection: 'ab', date: 50, quality: 3 },
};
const index = indexOf(Object.entries(specs).map(([id, spec]) => doc(id, spec)));
const ids = (result: { ids: string[] }): string[] => [...result.ids].sort();

describe('keyword filters', () => {
  it('anyOf keeps documents with any of the values (OR within a filter)', () => {
    expect(ids(index.search({ phrase: 'sea', filters: [{ attribute: 'orientation', anyOf: ['vertical', 'square'] }] }))).toEqual(['b', 'c']);
  });

  it('work on multi-valued attributes', () => {
    expect(ids(index.search({ filters: [{ attribute: 'segments', anyOf: ['news'] }] }))).toEqual(['a', 'b']);
    expect(ids(index.search({ filters: [{ attribute: 'segments', anyOf: ['sport', 'royalty'] }] }))).toEqual(['a', 'd']);
  });

  it('combine with AND across filters', () => {
    const result = index.search({
      filters: [
        { attribute: 'orientation', anyOf: ['horizontal'] },
        { attribute: 'collection', anyOf: ['cd'] },
      ],
    });
    expect(ids(result)).toEqual(['d']);
  });

  it('exclude keeps documents with none of the values', () => {
    expect(ids(index.search({ phrase: 'sea', filters: [{ attribute: 'orientation', anyOf: ['horizontal'], exclude: true }] }))).toEqual(['b', 'c']);
    expect(ids(index.search({ filters: [{ attribute: 'segments', anyOf: ['news'], exclude: true }] }))).toEqual(['c', 'd', 'e']);
  });

  it('an unknown value matches nothing; excluding it drops nothing', () => {
    expect(index.search({ filters: [{ attribute: 'orientation', anyOf: ['diagonal'] }] }).total).toBe(0);
    expect(index.search({ filters: [{ attribute: 'orientation', anyOf: ['diagonal'], exclude: true }] }).total).toBe(5);
    expect(index.search({ filters: [{ attribute: 'orientation', anyOf: [] }] }).total).toBe(0);
  });

  it('refuse an attribute the schema does not have', () => {
    expect(() => index.search({ filters: [{ attribute: 'colour', anyOf: ['red'] }] })).toThrow(/colour/);
  });
});

describe('range filters', () => {
  it('keep values within inclusive bounds', () => {
    expect(ids(index.search({ filters: [{ attribute: 'date', min: 20, max: 50 }] }))).toEqual(['b', 'c', 'e']);
    expect(ids(index.search({ filters: [{ attribute: 'quality', min: 3 }] }))).toEqual(['d', 'e']);
    expect(ids(index.search({ filters: [{ attribute: 'quality', max: 1 }] }))).toEqual(['a']);
  });

  it('drop documents missing the value, even without bounds', () => {
    expect(ids(index.search({ filters: [{ attribute: 'date' }] }))).toEqual(['a', 'b', 'c', 'e']);
    expect(ids(index.search({ phrase: 'sea', filters: [{ attribute: 'quality', min: 0 }] }))).toEqual(['a', 'b', 'd']);
  });

  it('combine with keyword filters and words', () => {
    const result = index.search({
      phrase: 'sea',
      filters: [
        { attribute: 'collection', anyOf: ['ab'] },
        { attribute: 'date', min: 15 },
      ],
    });
    expect(ids(result)).toEqual(['b']);
  });

  it('refuse an attribute the schema does not have', () => {
    expect(() => index.search({ filters: [{ attribute: 'width', min: 1 }] })).toThrow(/width/);
  });
});

describe('filters on a larger index (bitmap and driver paths)', () => {
  // 3000 documents: dense values get bitmaps, a rare value drives the search from its list
  const big = indexOf(
    Array.from({ length: 3000 }, (_, i) =>
      doc(`d${i}`, {
        title: i % 3 === 0 ? 'common word here' : 'other text',
        orientation: i % 4 === 0 ? 'vertical' : 'horizontal',
        collection: i % 1000 === 7 ? 'rare' : 'usual',
        segments: i % 2 === 0 ? ['even', 'all'] : ['all'],
        date: i,
      }),
    ),
  );

  it('give the same answers as a plain check of every document', () => {
    const expected = (test: (i: number) => boolean): number => Array.from({ length: 3000 }, (_, i) => i).filter(test).length;
    expect(big.search({ phrase: 'common', filters: [{ attribute: 'orientation', anyOf: ['vertical'] }] }).total).toBe(expected((i) => i % 3 === 0 && i % 4 === 0));
    expect(big.search({ phrase: 'common', filters: [{ attribute: 'collection', anyOf: ['rare'] }] }).total).toBe(expected((i) => i % 3 === 0 && i % 1000 === 7));
    expect(big.search({ filters: [{ attribute: 'collection', anyOf: ['rare'] }] }).total).toBe(3);
    expect(big.search({ filters: [{ attribute: 'segments', anyOf: ['even'], exclude: true }, { attribute: 'date', min: 100, max: 199 }] }).total).toBe(50);
    expect(big.search({ phrase: 'common', filters: [{ attribute: 'orientation', anyOf: ['horizontal'], exclude: true }] }).total).toBe(expected((i) => i % 3 === 0 && i % 4 === 0));
  });

  it('that every live document passes answer as no filter does, until one document does not', () => {
    const plain = { phrase: 'common', facets: [{ attribute: 'collection', limit: 5 }], sort: 'newest' as const, limit: 50 };
    const everyValue = { attribute: 'orientation', anyOf: ['horizontal', 'vertical'] };
    const noneHas = { attribute: 'orientation', anyOf: ['square'], exclude: true };
    const unfiltered = big.search(plain);
    expect(big.search({ ...plain, filters: [everyValue] })).toEqual(unfiltered);
    expect(big.search({ ...plain, filters: [noneHas] })).toEqual(unfiltered);
    expect(big.search({ filters: [everyValue] }).total).toBe(3000);

    big.upsert(doc('no-orientation', { title: 'common', date: 10_000 }));
    big.upsert(doc('square', { title: 'common', orientation: 'square', date: 10_001 }));
    expect(big.search({ ...plain, filters: [everyValue] }).ids).toEqual(unfiltered.ids);
    expect(big.search({ ...plain, filters: [noneHas] }).ids.slice(0, 2)).toEqual(['no-orientation', ...unfiltered.ids.slice(0, 1)]);
    expect(big.search({ filters: [everyValue] }).total).toBe(3000);
  });
});

describe('a filter that drives the search with dense and rare values', () => {
  // 3200 documents: 'edge' on exactly 1/32 of them (dense: kept as a bitmap, no list), 'rare'
  // on three (a list), 'usual' on the rest; segments likewise, several values a document
  const isRare = (i: number) => i % 1000 === 7 || i % 1000 === 250;
  const specOf = (i: number): DocSpec => ({
    title: i % 2 === 0 ? 'harbour view' : 'field view',
    collection: i % 32 === 5 ? 'edge' : isRare(i) ? 'rare' : 'usual',
    segments: i % 32 === 9 ? ['edgy', 'all'] : i % 1100 === 3 ? ['odd', 'all'] : ['all'],
    date: i,
  });
  const documents = Array.from({ length: 3200 }, (_, i) => doc(`d${String(i).padStart(4, '0')}`, specOf(i)));
  const expected = (test: (i: number) => boolean, among = Array.from({ length: 3200 }, (_, i) => i)) =>
    among.filter(test).map((i) => `d${String(i).padStart(4, '0')}`);
  const edgeOrRare = { attribute: 'collection', anyOf: ['edge', 'rare'] };
  const edgyOrOdd = { attribute: 'segments', anyOf: ['edgy', 'odd'] };
  const all = (index: SearchIndex, filter: typeof edgeOrRare) => index.search({ filters: [filter], sort: 'oldest', limit: 4000 }).ids;

  it('finds the documents of both, single-valued or not, in the base, after appends and deletions and after a snapshot', () => {
    const index = indexOf(documents);
    expect(all(index, edgeOrRare)).toEqual(expected((i) => i % 32 === 5 || isRare(i)));
    expect(all(index, edgyOrOdd)).toEqual(expected((i) => i % 32 === 9 || i % 1100 === 3));
    expect(index.search({ phrase: 'harbour', filters: [edgeOrRare], limit: 4000 }).total).toBe(expected((i) => i % 2 === 0 && (i % 32 === 5 || isRare(i))).length);

    // appended documents of the dense value (in its bitmap) and of the rare one (a tail list), deletions
    for (let i = 3200; i < 3300; i++) index.upsert(doc(`d${i}`, specOf(i)));
    for (let i = 5; i < 600; i += 64) index.remove(`d${String(i).padStart(4, '0')}`);
    const kept = Array.from({ length: 3300 }, (_, i) => i).filter((i) => !(i >= 5 && i < 600 && (i - 5) % 64 === 0));
    expect(all(index, edgeOrRare)).toEqual(expected((i) => i % 32 === 5 || isRare(i), kept));
    expect(all(index, edgyOrOdd)).toEqual(expected((i) => i % 32 === 9 || i % 1100 === 3, kept));

    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    expect(all(restored, edgeOrRare)).toEqual(expected((i) => i % 32 === 5 || isRare(i), kept));
    expect(all(restored, edgyOrOdd)).toEqual(expected((i) => i % 32 === 9 || i % 1100 === 3, kept));
  });
});
