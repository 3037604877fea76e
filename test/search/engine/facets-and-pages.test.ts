import { describe, expect, it } from 'vitest';
import { doc, indexOf } from './fixtures.js';

// 60 "beach" documents: collection c0..c3 (c0 most), orientation alternating, segments overlapping
const docs = Array.from({ length: 60 }, (_, i) =>
  doc(`b${String(i).padStart(2, '0')}`, {
    title: 'beach',
    collection: i < 30 ? 'c0' : i < 45 ? 'c1' : i < 55 ? 'c2' : 'c3',
    orientation: i % 2 === 0 ? 'horizontal' : 'vertical',
    segments: i % 3 === 0 ? ['news', 'sport'] : ['news'],
    quality: i % 5,
    popularity: i,
  }),
);
const others = Array.from({ length: 40 }, (_, i) => doc(`o${i}`, { title: 'mountain', collection: 'c9', orientation: 'square' }));
const index = indexOf([...docs, ...others]);

describe('facets', () => {
  it('count values over the whole match set, not just the page', () => {
    const result = index.search({ phrase: 'beach', limit: 5, facets: [{ attribute: 'collection', limit: 10 }] });
    expect(result.ids).toHaveLength(5);
    expect(result.facets['collection']).toEqual([
      { value: 'c0', count: 30 },
      { value: 'c1', count: 15 },
      { value: 'c2', count: 10 },
      { value: 'c3', count: 5 },
    ]);
  });

  it('keep the top `limit` values by count', () => {
    const result = index.search({ phrase: 'beach', facets: [{ attribute: 'collection', limit: 2 }] });
    expect(result.facets['collection']).toEqual([
      { value: 'c0', count: 30 },
      { value: 'c1', count: 15 },
    ]);
  });

  it('break equal counts by value', () => {
    const result = index.search({ phrase: 'beach', facets: [{ attribute: 'orientation', limit: 5 }] });
    expect(result.facets['orientation']).toEqual([
      { value: 'horizontal', count: 30 },
      { value: 'vertical', count: 30 },
    ]);
  });

  it('count every value of a multi-valued attribute', () => {
    const result = index.search({ phrase: 'beach', facets: [{ attribute: 'segments', limit: 5 }] });
    expect(result.facets['segments']).toEqual([
      { value: 'news', count: 60 },
      { value: 'sport', count: 20 },
    ]);
  });

  it('count after filters', () => {
    const result = index.search({
      phrase: 'beach',
      filters: [{ attribute: 'orientation', anyOf: ['horizontal'] }],
      facets: [{ attribute: 'collection', limit: 10 }],
    });
    expect(result.facets['collection']).toEqual([
      { value: 'c0', count: 15 },
      { value: 'c1', count: 8 },
      { value: 'c2', count: 5 },
      { value: 'c3', count: 2 },
    ]);
  });

  it('count the whole index when nothing narrows the search', () => {
    const result = index.search({ facets: [{ attribute: 'collection', limit: 2 }, { attribute: 'orientation', limit: 3 }] });
    expect(result.facets['collection']).toEqual([
      { value: 'c9', count: 40 },
      { value: 'c0', count: 30 },
    ]);
    expect(result.facets['orientation']).toEqual([
      { value: 'square', count: 40 },
      { value: 'horizontal', count: 30 },
      { value: 'vertical', count: 30 },
    ]);
  });

  it('are empty when nothing matches, and absent when not asked for', () => {
    expect(index.search({ phrase: 'volcano', facets: [{ attribute: 'collection', limit: 3 }] }).facets).toEqual({ collection: [] });
    expect(index.search({ phrase: 'beach' }).facets).toEqual({});
  });

  it('refuse an attribute the schema does not have', () => {
    expect(() => index.search({ facets: [{ attribute: 'artist', limit: 3 }] })).toThrow(/artist/);
  });
});

describe('total', () => {
  it('is the exact number of matches, whatever the page', () => {
    expect(index.search({ phrase: 'beach', limit: 1 }).total).toBe(60);
    expect(index.search({ phrase: 'beach', offset: 200 }).total).toBe(60);
    expect(index.search({ phrase: 'beach mountain' }).total).toBe(0);
    expect(index.search({}).total).toBe(100);
  });
});

describe('pagination', () => {
  const whole = index.search({ phrase: 'beach', limit: 60 }).ids;

  it('returns `limit` ids from `offset` in the order of the whole list', () => {
    expect(whole).toHaveLength(60);
    expect(index.search({ phrase: 'beach', offset: 0, limit: 10 }).ids).toEqual(whole.slice(0, 10));
    expect(index.search({ phrase: 'beach', offset: 10, limit: 10 }).ids).toEqual(whole.slice(10, 20));
    expect(index.search({ phrase: 'beach', offset: 55, limit: 10 }).ids).toEqual(whole.slice(55));
  });

  it('returns no ids past the end, with the total still exact', () => {
    expect(index.search({ phrase: 'beach', offset: 60, limit: 10 })).toMatchObject({ total: 60, ids: [] });
  });

  it('defaults to the first 30', () => {
    expect(index.search({ phrase: 'beach' }).ids).toEqual(whole.slice(0, 30));
  });

  it('returns totals and facets without ids for limit 0', () => {
    const result = index.search({ phrase: 'beach', limit: 0, facets: [{ attribute: 'collection', limit: 1 }] });
    expect(result).toEqual({ total: 60, ids: [], facets: { collection: [{ value: 'c0', count: 30 }] } });
  });

  it('pages every sort the same way', () => {
    for (const sort of ['newest', 'oldest', 'most_popular', 'random'] as const) {
      const all = index.search({ phrase: 'beach', sort, randomSeed: 3, limit: 60 }).ids;
      expect(index.search({ phrase: 'beach', sort, randomSeed: 3, offset: 20, limit: 20 }).ids).toEqual(all.slice(20, 40));
    }
  });
});

describe('limits', () => {
  it('accept a page size far past the matches', () => {
    expect(index.search({ phrase: 'beach', limit: 1e9 }).ids).toHaveLength(60);
    expect(index.search({ limit: 1e9, sort: 'newest' }).ids).toHaveLength(100);
    expect(index.search({ limit: Number.POSITIVE_INFINITY }).ids).toHaveLength(30);
  });
});
