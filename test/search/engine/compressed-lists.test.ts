import { describe, expect, it } from 'vitest';
import { bitsAt, checkLists, compressLists, documentAt, documentsOf, gallopRun, maskOf, plainRun, runOf } from '../../../src/search/engine/compressed-lists.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import type { IndexDocument, SearchQuery } from '../../../src/search/engine/search-index.js';
import { SCHEMA, doc } from './fixtures.js';

describe('compressed lists', () => {
  // a list every 3rd document, one every 300th, a rare one far apart, an empty one, one skipped
  // (a dense list), three close documents (one block) and one alone (as it is)
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
  const runAt = (key: number) => runOf(compressed, key, docStart[key]!, docStart[key + 1]!);

  it('give back every list as it was, each in the blocks and width that take the fewest bits', () => {
    lists.forEach((list, key) => expect(documentsOf(runAt(key))).toEqual(key === 4 ? [] : list));
    // every 3rd: blocks of 16 spanning 45 (6 bits: 63 × 32 + 1,000 × 6 bits, where blocks of 32
    // take 32 × 32 + 1,000 × 7); every 300th: blocks of 32 spanning 9,300 (14 bits); the rare
    // list: blocks of 4 spanning 200,001 (18 bits: 2 × 32 + 5 × 18 < 5 × 32); the one alone as
    // it is; the three close ones one block of 5 bits
    expect([...compressed.blockShift]).toEqual([4, 5, 2, 0, 0, 2, 0]);
    expect([...compressed.width]).toEqual([6, 14, 18, 0, 0, 5, 0]);
    expect([...compressed.wordStart]).toEqual([0, 188, 495, 498, 498, 498, 499, 499]);
    expect(compressed.words.length).toBe(499 + 2);
    expect(compressed.blocks.length).toBe(63 + 22 + 2 + 0 + 0 + 1 + 1);
    expect(() => checkLists(compressed, docStart)).not.toThrow();
  });

  it('find the first posting at or past a document by galloping, as a scan does', () => {
    const run = runAt(1);
    const start = run.start;
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

  it('read distances of every width, within a word and across two', () => {
    for (let width = 1; width <= 31; width++) {
      const mask = maskOf(width);
      const values = Array.from({ length: 70 }, (_, i) => (i % 3 === 0 ? mask : Math.floor((i * 2_654_435_761) % 2 ** 32) & mask) >>> 0);
      const words = new Uint32Array(Math.ceil((values.length * width) / 32) + 2);
      values.forEach((value, i) => {
        for (let b = 0; b < width; b++) if ((value >>> b) & 1) words[(i * width + b) >>> 5] = words[(i * width + b) >>> 5]! | (1 << ((i * width + b) & 31));
      });
      expect(values.map((_, i) => bitsAt(words, 0, i * width, mask))).toEqual(values);
    }
    expect(maskOf(0)).toBe(0);
    expect(maskOf(31)).toBe(0x7fffffff);
  });

  it('give back lists of every density, up to the largest ordinals and spans at the width limit', () => {
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
    // eleven documents, then a jump inside the first block of any length and 1,013 more: the
    // whole list spans 2^31 - 1 (31 bits, the widest: one block of 1,024 takes the fewest bits)
    // or 2^31 (too wide for one block: two of 512)
    const jumping = (last: number) => [...Array.from({ length: 11 }, (_, i) => i), ...Array.from({ length: 1013 }, (_, i) => last - 1012 + i)];
    const cases: number[][] = [
      jumping(2 ** 31 - 1),
      jumping(2 ** 31),
      // at the top of the ordinals
      Array.from({ length: 600 }, (_, i) => 2 ** 32 - 600 + i),
      [2 ** 32 - 1],
      [0, 2 ** 32 - 1],
    ];
    for (const gap of [1, 2, 5, 40, 1_000, 70_000, 5_000_000]) {
      for (const length of [1, 2, 31, 32, 33, 257, 1_500]) {
        const list: number[] = [];
        let d = Math.floor(random() * gap);
        for (let i = 0; i < length && d < 2 ** 32; i++, d += 1 + Math.floor(random() * 2 * gap)) list.push(d);
        cases.push(list);
      }
    }
    const starts = Uint32Array.from([0, ...cases.map((_, k) => cases.slice(0, k + 1).flat().length)]);
    const all = compressLists(starts, Uint32Array.from(cases.flat()), () => false);
    expect(() => checkLists(all, starts)).not.toThrow();
    expect([all.blockShift[0], all.width[0], all.blockShift[1], all.width[1]]).toEqual([10, 31, 9, 31]);
    cases.forEach((list, key) => {
      const run = runOf(all, key, starts[key]!, starts[key + 1]!);
      expect(documentsOf(run)).toEqual(list);
      // a document of the list and the one past it, found as a scan finds them
      const probe = list[Math.floor(list.length / 2)]!;
      expect(gallopRun(run, run.start, run.end, probe)).toBe(run.start + list.indexOf(probe));
      const after = list.findIndex((x) => x > probe);
      expect(gallopRun(run, run.start, run.end, probe + 1)).toBe(run.start + (after === -1 ? list.length : after));
    });
  });

  it('are refused when out of step with their postings', () => {
    const shifted = Uint32Array.from(docStart);
    shifted[2] = shifted[2]! + 1;
    expect(() => checkLists(compressed, shifted)).toThrow(/out of step/);
    expect(() => checkLists({ ...compressed, blocks: compressed.blocks.subarray(1) }, docStart)).toThrow(/out of step/);
    expect(() => checkLists({ ...compressed, words: compressed.words.subarray(1) }, docStart)).toThrow(/out of step/);
    expect(() => checkLists({ ...compressed, blockShift: Uint8Array.from([5, 5, 2, 0, 0, 2, 0]) }, docStart)).toThrow(/out of step/);
    expect(() => checkLists({ ...compressed, width: Uint8Array.from([6, 15, 18, 0, 0, 5, 0]) }, docStart)).toThrow(/out of step/);
    expect(() => checkLists({ ...compressed, width: Uint8Array.from([6, 14, 18, 0, 0, 32, 0]) }, docStart)).toThrow(/out of step/);
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
