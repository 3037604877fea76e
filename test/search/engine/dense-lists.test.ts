import { describe, expect, it } from 'vitest';
import { documentsOf, type CompressedLists } from '../../../src/search/engine/compressed-lists.js';
import { PostingStore, RANK_GROUP_SHIFT, type DenseBitmaps } from '../../../src/search/engine/posting-store.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import { SnapshotReader } from '../../../src/search/engine/snapshot-format.js';
import type { IndexDocument, SearchQuery } from '../../../src/search/engine/search-index.js';
import { SCHEMA, doc } from './fixtures.js';

describe('a dense list', () => {
  // key 0: every third of 3,300 documents (1,100 postings: dense), key 1: ten documents, key 2: every other one
  const docCount = 3300;
  const lists = [Array.from({ length: 1100 }, (_, i) => i * 3), [5, 50, 500, 900, 1000, 1500, 2000, 2500, 3000, 3299], Array.from({ length: 1650 }, (_, i) => i * 2)];
  const start = Uint32Array.of(0, 1100, 1110, 2760);
  const built = (): PostingStore => {
    const store = new PostingStore(0);
    store.setBase(start.slice(), Uint32Array.from(lists.flat()), new Uint8Array(0), undefined, docCount);
    return store;
  };

  it('keeps its documents in its bitmap alone, the other lists theirs', () => {
    const store = built();
    expect([...store.denseKeys]).toEqual([0, 2]);
    // key 1's ten documents alone, one block of 12-bit distances (it spans 3,294): the dense keys have no blocks
    expect([...store.baseLists.blockStart]).toEqual([0, 0, 1, 1]);
    expect([store.baseLists.blockShift[1], store.baseLists.width[1]]).toEqual([4, 12]);
    expect(documentsOf(store.baseRun(0))).toEqual([]);
    expect(documentsOf(store.baseRun(1))).toEqual(lists[1]);
    // postings are numbered as their codes: key 1's first is the first four-bit code (the
    // dense lists' codes are bytes of their own), key 2's the first byte after key 0's 1,100
    expect(store.baseRun(1).start).toBe(0);
    expect([0, 1, 2].map((key) => store.codeStartOf(key))).toEqual([0, 0, 1100]);
    // the posting of the r-th set bit is start + r: the ranks find it
    const bitmap = store.denseBitmaps[2]!;
    const ranks = store.denseRanks[2]!;
    const groups = store.denseRankGroups[2]!;
    const d = 1234;
    expect(bitmap[d >>> 5]! & (1 << (d & 31))).not.toBe(0);
    const below = bitmap[d >>> 5]! & ((1 << (d & 31)) - 1);
    // a byte a word, counted from its group of 2^RANK_GROUP_SHIFT words
    expect(ranks).toBeInstanceOf(Uint8Array);
    expect(groups[(d >>> 5) >>> RANK_GROUP_SHIFT]! + ranks[d >>> 5]! + [...below.toString(2)].filter((bit) => bit === '1').length).toBe(617);
  });

  it('is restored from its keys and bitmaps, and refused when they are out of step with the lists', () => {
    const store = built();
    const copied = (): CompressedLists => ({ ...store.baseLists, words: store.baseLists.words.slice(), blocks: store.baseLists.blocks.slice() });
    const dense = (keys: Uint32Array, words: Uint32Array): DenseBitmaps => ({ keys, words, docCount });
    const restored = new PostingStore(0);
    restored.restoreBase(store.baseStart.slice(), copied(), new Uint8Array(0), undefined, dense(store.denseKeys.slice(), store.denseWords.slice()));
    expect([...restored.denseBitmaps[0]!]).toEqual([...store.denseBitmaps[0]!]);
    expect([...restored.denseRanks[2]!]).toEqual([...store.denseRanks[2]!]);
    expect(documentsOf(restored.baseRun(1))).toEqual(lists[1]);
    expect(restored.byteSize()).toBe(store.byteSize());

    const restoring = (keys: Uint32Array, words: Uint32Array) => () => new PostingStore(0).restoreBase(store.baseStart.slice(), copied(), new Uint8Array(0), undefined, dense(keys, words));
    // key 1 keeps its documents in the list: it cannot be dense too
    expect(restoring(Uint32Array.of(0, 1), new Uint32Array(2 * 104))).toThrow(/besides its bitmap/);
    // key 2 has neither documents nor a bitmap (nor has any dense list without its bitmap)
    expect(restoring(Uint32Array.of(0), store.denseWords.slice(0, 104))).toThrow(/neither/);
    expect(() => new PostingStore(0).restoreBase(store.baseStart.slice(), copied(), new Uint8Array(0))).toThrow(/neither/);
    const shortBitmap = store.denseWords.slice();
    shortBitmap[0] = 0;
    expect(restoring(store.denseKeys.slice(), shortBitmap)).toThrow(/out of step/);
    expect(restoring(store.denseKeys.slice(), store.denseWords.slice(1))).toThrow(/out of step/);
    expect(() => new PostingStore(0).setBase(start.slice(), Uint32Array.from(lists[1]!), new Uint8Array(0))).toThrow(/out of step/);
  });
});

describe('an index whose common words are dense lists', () => {
  // 4,000 documents: 'blue' in every other one and 'bluebell' in every third (dense lists: their
  // bitmaps alone), 'blueberry' in every 97th and 'rare' in every 250th (lists); frequencies
  // vary so that scores differ.
  const times = (word: string, n: number) => Array.from({ length: n }, () => word).join(' ');
  const documentsUpTo = (count: number): IndexDocument[] => Array.from({ length: count }, (_, i) =>
    doc(`d-${String(i).padStart(5, '0')}`, {
      title: `${i % 2 === 0 ? times('blue', 1 + (i % 3)) : times('grey', 1 + (i % 5))} ${i % 97 === 0 ? 'blueberry' : ''} item`,
      caption: `${i % 3 === 1 ? times('bluebell', 1 + (i % 4)) : 'plain'} ${i % 250 === 0 ? 'rare' : ''} ${times('filler', i % 7)}`,
      keywords: i % 3 === 0 ? ['sky', 'blue'] : ['ground'],
      orientation: i % 3 === 0 ? 'horizontal' : 'vertical',
      popularity: i % 17,
      quality: i % 4,
    }),
  );
  const documents = documentsUpTo(4000);
  const queries: SearchQuery[] = [
    { phrase: 'item' }, // one dense list (no variants), bounded over its candidates
    { phrase: 'grey' },
    { phrase: 'grey', offset: 60, limit: 30 },
    { phrase: 'grey', filters: [{ attribute: 'popularity', min: 2 }] }, // most of the list, found by rank
    { phrase: 'blue' }, // two dense lists and a list (variants), bounded by rank
    { phrase: 'blue', limit: 2500 }, // unbounded
    { phrase: 'blue', offset: 900, limit: 30 },
    { phrase: 'blu' },
    { phrase: 'blu', limit: 3000 },
    { phrase: 'blue bluebell' }, // two dense lists located by rank
    { phrase: 'blue bluebell', limit: 1000 },
    { phrase: 'blue rare' }, // a dense list looked up from a short one
    { phrase: 'blu rare', limit: 50 },
    { phrase: 'bluebell -blue', limit: 500 }, // excluded by its bitmap
    { phrase: 'rare -blue' },
    { phrase: '"blue item"', limit: 200 },
    { phrase: 'blue', filters: [{ attribute: 'orientation', anyOf: ['horizontal'] }], limit: 100 },
    { phrase: 'bluebell', sort: 'newest', limit: 100 },
  ];
  const answers = (index: SearchIndex) => queries.map((query) => index.search(query));

  it('answers as the same documents held in lists only, built one at a time', () => {
    const bulk = new SearchIndex(SCHEMA);
    bulk.upsertMany(documents);
    const expected = answers(bulk);
    expect(expected[0]!.total).toBeGreaterThan(2000);
    // the words the queries are about are dense lists there
    const snapshot = new SnapshotReader(bulk.toSnapshot());
    const terms = snapshot.strings('terms');
    const denseTerms = [...snapshot.u32('postings.denseKeys')].map((key) => terms[key]);
    expect(denseTerms).toEqual(expect.arrayContaining(['blue', 'bluebell']));
    expect(denseTerms).not.toContain('rare');

    // upserted one at a time into an empty index, every list is a tail list: no bitmaps
    const oneByOne = new SearchIndex(SCHEMA);
    for (const item of documents) oneByOne.upsert(item);
    expect(answers(oneByOne)).toEqual(expected);
  });

  it('answers the same past 32,768 documents, where a dense list counts its postings by groups of words and a byte a word', () => {
    const many = documentsUpTo(40_000);
    const bulk = new SearchIndex(SCHEMA);
    bulk.upsertMany(many);
    const oneByOne = new SearchIndex(SCHEMA);
    for (const item of many) oneByOne.upsert(item);
    expect(answers(oneByOne)).toEqual(answers(bulk));
    // every match scored (a page as long as the matches), a word's lists walked by rank
    const whole: SearchQuery[] = [{ phrase: 'blu', limit: 40_000 }, { phrase: 'blue bluebell', limit: 40_000 }];
    expect(whole.map((query) => oneByOne.search(query))).toEqual(whole.map((query) => bulk.search(query)));
  });

  it('answers the same after a snapshot, and with appends after it (a dense base and a tail)', () => {
    const bulk = new SearchIndex(SCHEMA);
    bulk.upsertMany(documents);
    const expected = answers(bulk);
    expect(answers(SearchIndex.fromSnapshot(bulk.toSnapshot()))).toEqual(expected);

    const part = new SearchIndex(SCHEMA);
    part.upsertMany(documents.slice(0, 3000));
    const loaded = SearchIndex.fromSnapshot(part.toSnapshot());
    for (const item of documents.slice(3000)) loaded.upsert(item);
    expect(answers(loaded)).toEqual(expected);
    loaded.compact();
    expect(answers(loaded)).toEqual(expected);
  });
});
