import { describe, expect, it } from 'vitest';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import { doc, filler, indexOf, SCHEMA } from './fixtures.js';

const facets = [{ attribute: 'collection', limit: 5 }];

describe('upsert', () => {
  it('makes a document searchable at once', () => {
    const index = indexOf(filler(50));
    index.upsert(doc('new', { title: 'lighthouse', collection: 'x' }));
    expect(index.search({ phrase: 'lighthouse' }).ids).toEqual(['new']);
    expect(index.size).toBe(51);
  });

  it('replaces the document with the same id (text, attributes, totals and facets)', () => {
    const index = indexOf([doc('a', { title: 'lighthouse', collection: 'x' }), doc('b', { title: 'lighthouse', collection: 'x' }), ...filler(20)]);
    index.upsert(doc('a', { title: 'harbour', collection: 'y' }));
    expect(index.size).toBe(22);
    expect(index.search({ phrase: 'lighthouse', facets })).toEqual({ total: 1, ids: ['b'], facets: { collection: [{ value: 'x', count: 1 }] } });
    expect(index.search({ phrase: 'harbour', facets })).toEqual({ total: 1, ids: ['a'], facets: { collection: [{ value: 'y', count: 1 }] } });
  });

  it('replaces again and again without growing the index', () => {
    const index = indexOf(filler(10));
    for (let round = 0; round < 5; round++) index.upsert(doc('a', { title: `version${round}` }));
    expect(index.size).toBe(11);
    expect(index.search({ phrase: 'version4' }).ids).toEqual(['a']);
    expect(index.search({ phrase: 'version3' }).total).toBe(0);
  });
});

describe('remove', () => {
  it('deletes a document from results, totals and facets', () => {
    const index = indexOf([doc('a', { title: 'lighthouse', collection: 'x' }), doc('b', { title: 'lighthouse', collection: 'y' }), ...filler(20)]);
    index.remove('a');
    expect(index.size).toBe(21);
    expect(index.search({ phrase: 'lighthouse', facets })).toEqual({ total: 1, ids: ['b'], facets: { collection: [{ value: 'y', count: 1 }] } });
    expect(index.search({ facets: [{ attribute: 'collection', limit: 10 }] }).facets['collection']).not.toContainEqual({ value: 'x', count: 1 });
    expect(index.has('a')).toBe(false);
  });

  it('ignores an unknown id', () => {
    const index = indexOf(filler(5));
    index.remove('nope');
    expect(index.size).toBe(5);
  });

  it('lets the id come back', () => {
    const index = indexOf(filler(5));
    index.upsert(doc('a', { title: 'phoenix' }));
    index.remove('a');
    index.upsert(doc('a', { title: 'phoenix' }));
    expect(index.search({ phrase: 'phoenix' }).ids).toEqual(['a']);
  });
});

describe('upsertMany', () => {
  it('gives the same answers as one upsert at a time', () => {
    const docs = [...filler(300), doc('x', { title: 'plain item special' }), doc('filler-0003', { title: 'replaced twice' })];
    const bulk = indexOf(docs, true);
    const single = indexOf(docs, false);
    for (const query of [{ phrase: 'plain item' }, { phrase: 'replaced' }, { phrase: 'number 12', sort: 'newest' as const }, { facets }]) {
      expect(bulk.search({ ...query, facets })).toEqual(single.search({ ...query, facets }));
    }
    expect(bulk.size).toBe(301);
  });

  it('fed page by page gives the same answers as one batch', () => {
    const docs = [...filler(1000), doc('filler-0010', { title: 'replaced in a later page' })];
    const paged = new SearchIndex(SCHEMA);
    for (let start = 0; start < docs.length; start += 64) paged.upsertMany(docs.slice(start, start + 64));
    const whole = indexOf(docs);
    for (const query of [{ phrase: 'plain item', limit: 50 }, { phrase: 'replaced' }, { sort: 'oldest' as const, facets }]) {
      expect(paged.search(query)).toEqual(whole.search(query));
    }
    expect(paged.size).toBe(1000);
  });

  it('makes documents searchable by the next search, between pages too', () => {
    const index = indexOf(filler(200));
    expect(index.search({ phrase: 'plain' }).total).toBe(200);
    index.upsertMany([doc('late-1', { title: 'plain late' })]);
    expect(index.search({ phrase: 'late' }).ids).toEqual(['late-1']);
    index.upsertMany([doc('late-2', { title: 'plain late' })]);
    index.upsert(doc('late-3', { title: 'plain late' }));
    expect([...index.search({ phrase: 'late' }).ids].sort()).toEqual(['late-1', 'late-2', 'late-3']);
  });

  it('appends a small batch to a large index', () => {
    const index = indexOf(filler(500));
    index.upsertMany([doc('filler-0001', { title: 'moved' }), doc('n1', { title: 'moved too' })]);
    expect(index.size).toBe(501);
    expect([...index.search({ phrase: 'moved' }).ids].sort()).toEqual(['filler-0001', 'n1']);
  });
});

describe('compaction', () => {
  it('does not change any answer', () => {
    const index = indexOf(filler(400));
    for (let i = 0; i < 100; i++) index.remove(`filler-${String(i * 2).padStart(4, '0')}`);
    for (let i = 0; i < 50; i++) index.upsert(doc(`late-${i}`, { title: `plain late ${i}`, collection: 'c1', date: i }));
    const queries = [
      { phrase: 'plain', limit: 500, facets },
      { phrase: 'number', sort: 'oldest' as const, limit: 40 },
      { filters: [{ attribute: 'collection', anyOf: ['c1'] }], sort: 'random' as const, randomSeed: 9, facets },
    ];
    const before = queries.map((query) => index.search(query));
    index.compact();
    expect(queries.map((query) => index.search(query))).toEqual(before);
  });

  it('runs by itself once deletions pass a share of the index', () => {
    const index = indexOf(filler(2000));
    for (let i = 0; i < 1500; i++) index.remove(`filler-${String(i).padStart(4, '0')}`);
    expect(index.size).toBe(500);
    const full = indexOf(filler(2000));
    full.compact();
    expect(index.byteSize()).toBeLessThan(full.byteSize());
    expect(index.search({ phrase: 'plain' }).total).toBe(500);
  });
});

describe('documents', () => {
  it('may leave out fields, attributes and numbers', () => {
    const index = new SearchIndex(SCHEMA);
    index.upsert({ id: 'bare', text: { title: 'bare' }, keywords: {}, numbers: {} });
    expect(index.search({ phrase: 'bare', facets }).ids).toEqual(['bare']);
    expect(index.search({ filters: [{ attribute: 'date', min: 0 }] }).total).toBe(0);
  });
});

describe('appendNew (a whole read of the store: ids new and distinct)', () => {
  const docs = () => [doc('a', { title: 'lighthouse', collection: 'x' }), doc('b', { title: 'harbour lighthouse', collection: 'y' }), ...filler(30)];

  it('gives the index upsertMany gives, the same snapshot', () => {
    const appended = new SearchIndex(SCHEMA);
    const page = docs();
    appended.appendNew(page.slice(0, 10));
    appended.appendNew(page.slice(10));
    appended.compact();
    const upserted = indexOf(page);
    upserted.compact();
    expect(appended.toSnapshot().equals(upserted.toSnapshot())).toBe(true);
  });

  it('knows its ids before any compaction: has, upsert, remove', () => {
    const index = new SearchIndex(SCHEMA);
    index.appendNew(docs());
    expect(index.has('b')).toBe(true);
    expect(index.has('nope')).toBe(false);
    index.upsert(doc('a', { title: 'meadow', collection: 'z' }));
    expect(index.size).toBe(32);
    expect(index.search({ phrase: 'lighthouse' }).ids).toEqual(['b']);
    expect(index.search({ phrase: 'meadow' }).ids).toEqual(['a']);
    index.remove('b');
    expect(index.search({ phrase: 'lighthouse' }).total).toBe(0);
    expect(index.size).toBe(31);
  });

  it('knows its ids when searched first, then replaces one', () => {
    const index = new SearchIndex(SCHEMA);
    index.appendNew(docs());
    expect(index.search({ phrase: 'lighthouse' }).total).toBe(2);
    index.upsert(doc('b', { title: 'meadow' }));
    expect(index.search({ phrase: 'lighthouse' }).ids).toEqual(['a']);
    expect(index.size).toBe(32);
  });

  it('into an index holding other documents, replaces an id it already has', () => {
    const index = indexOf(docs());
    index.appendNew([doc('a', { title: 'meadow' }), doc('c', { title: 'meadow' })]);
    expect(index.size).toBe(33);
    expect(index.search({ phrase: 'meadow' }).total).toBe(2);
    expect(index.search({ phrase: 'lighthouse' }).ids).toEqual(['b']);
  });
});
