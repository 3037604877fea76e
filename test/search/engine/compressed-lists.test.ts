import { describe, expect, it } from 'vitest';
import { checkLists, compressLists, documentAt, documentsOf, gallopRun, plainRun, runOf } from '../../../src/search/engine/compressed-lists.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import type { IndexDocument, SearchQuery } from '../../../src/search/engine/search-index.js';
import { SCHEMA, doc } from './fixtures.js';

describe('compressed lists', () => {
  // a list every 3rd document (blocks of 256), one every 300th (spans force blocks of 128), a
  // rare one far apart (its documents as they are), an empty one, one skipped (a dense list),
  // three close documents (one block) and one alone (as it is: no smaller as a block)
  const lists = [
    Array.from({ length: 1000 }, (_, i) => 5 + i * 3),
    Array.from({ length: 700 }, (_, i) => 7 + i * 300),
    [0, 70_000, 200_000, 200_001, 4_000_000_000],
    [],
    [1, 2, 3],
    [10, 20, 30],
    [99],
  ];
  const docStart = Uint32Array.from([0, ...lists.map((_, k) => lists.slice(0, k + 1).flat().length)]);
  const compressed = compressLists(docStart, Uint32Array.from(lists.flat()), (key) => key === 4);

  it('give back every list as it was, at two bytes a posting and a block each 2^b of them', () => {
    let start = 0;
    lists.forEach((list, key) => {
      const run = runOf(compressed, key, start);
      expect(documentsOf(run)).toEqual(key === 4 ? [] : list);
      start += list.length;
    });
    expect([...compressed.blockShift]).toEqual([8, 7, 0, 0, 0, 8, 0]);
    expect(compressed.low.length).toBe(1000 + 700 + 3);
    expect(compressed.blocks.length).toBe(4 + 6 + 5 + 1 + 1);
    expect(() => checkLists(compressed, docStart)).not.toThrow();
  });

  it('find the first posting at or past a document by galloping, as a scan does', () => {
    const start = 1000;
    const run = runOf(compressed, 1, start);
    for (const target of [0, 7, 8, 306, 307, 65_000, 100_000, 209_707, 209_708, 300_000]) {
      const scanned = lists[1]!.findIndex((d) => d >= target);
      const expected = scanned === -1 ? run.end : start + scanned;
      expect(gallopRun(run, run.start, run.end, target)).toBe(expected);
      if (expected < run.end) expect(documentAt(run, expected)).toBe(lists[1]![expected - start]);
    }
    // from a later position, within a window
    expect(gallopRun(run, start + 500, start + 600, 7)).toBe(start + 500);
    expect(gallopRun(run, start + 500, start + 600, 1_000_000)).toBe(start + 600);
  });

  it('read a plain list (a tail list) as blocks of one', () => {
    const run = plainRun(Uint32Array.of(3, 90_000, 4_000_000_000, 0), 3);
    expect(documentsOf(run)).toEqual([3, 90_000, 4_000_000_000]);
    expect(gallopRun(run, 0, 3, 90_001)).toBe(2);
  });

  it('are refused when out of step with their postings', () => {
    const shifted = Uint32Array.from(docStart);
    shifted[2] = shifted[2]! + 1;
    expect(() => checkLists(compressed, shifted)).toThrow(/out of step/);
    expect(() => checkLists({ ...compressed, blocks: compressed.blocks.subarray(1) }, docStart)).toThrow(/out of step/);
    expect(() => checkLists({ ...compressed, blockShift: Uint8Array.from([9, 7, 0, 0, 0, 8, 0]) }, docStart)).toThrow(/out of step/);
    expect(() => checkLists({ ...compressed, blockShift: Uint8Array.from([8, 7, 0, 0, 0, 0, 0]) }, docStart)).toThrow(/out of step/);
  });
});

describe('an index past 65,536 documents', () => {
  // 'common' in every third document, 'medium' in every 300th, 'rare' in five far apart: each
  // list's documents span more than 16 bits, so their blocks hold them apart
  const count = 70_000;
  const rare = new Set([1, 30_000, 65_535, 65_536, 69_999]);
  const documents: IndexDocument[] = Array.from({ length: count }, (_, i) =>
    doc(`d-${String(i).padStart(5, '0')}`, {
      title: `${i % 3 === 0 ? 'common' : 'plain'} ${i % 300 === 7 ? 'medium' : ''} ${rare.has(i) ? 'rare' : ''}`,
      keywords: [i % 2 === 0 ? 'even' : 'odd'],
      popularity: i % 17,
    }),
  );
  const ids = (test: (i: number) => boolean) => documents.filter((_, i) => test(i)).map((document) => document.id);
  const all = (query: SearchQuery) => index.search({ ...query, limit: count }).ids.sort();
  const index = new SearchIndex(SCHEMA);
  index.upsertMany(documents);

  it('finds every document of a list and of an intersection', () => {
    expect(all({ phrase: 'rare' })).toEqual(ids((i) => rare.has(i)));
    expect(all({ phrase: 'medium' })).toEqual(ids((i) => i % 300 === 7));
    expect(all({ phrase: 'medium common' })).toEqual(ids((i) => i % 300 === 7 && i % 3 === 0));
    expect(all({ phrase: 'rare even' })).toEqual(ids((i) => rare.has(i) && i % 2 === 0));
    expect(all({ phrase: 'medium -rare' })).toEqual(ids((i) => i % 300 === 7 && !rare.has(i)));
    expect(index.search({ phrase: 'plain medium', limit: 5 }).total).toBe(ids((i) => i % 300 === 7 && i % 3 !== 0).length);
  });

  it('answers the same after a snapshot', () => {
    const queries: SearchQuery[] = [{ phrase: 'rare' }, { phrase: 'medium', limit: 300 }, { phrase: 'common medium' }, { phrase: 'plain', offset: 100 }];
    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    expect(queries.map((query) => restored.search(query))).toEqual(queries.map((query) => index.search(query)));
  });
});
