import { describe, expect, it } from 'vitest';
import { IndexSearcher } from '../../../src/search/engine/index-searcher.js';
import { IndexStore } from '../../../src/search/engine/index-store.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import { doc, indexOf, SCHEMA } from './fixtures.js';

/*
 * The forward stream keeps each document's term codes in a prefix code of bits
 * (forward-codes.ts): the larger a term's id, the more bits. Phrases are read from it,
 * deletions and compactions rewrite it (a compaction numbers the terms by frequency and makes
 * a new code: a document may grow or shrink), snapshots carry it and its code.
 */

/** A made-up word per number: every one a distinct term. */
const word = (n: number) => `w${n.toString(36)}x`;

describe('the forward stream', () => {
  it('reads phrases of short and long codes (small and large term ids), before and after a compaction renumbers them', () => {
    // 40,000 filler documents of two new words each: the last terms have ids past 65,536 (two bits more than ids past 32,768)
    const fillers = Array.from({ length: 40_000 }, (_, i) => doc(`f${i}`, { title: `${word(2 * i)} ${word(2 * i + 1)}` }));
    const late = word(79_990);
    const latest = word(79_991);
    const index = indexOf([
      doc('early', { title: 'harbour light', caption: 'old harbour at dusk' }),
      ...fillers,
      doc('late', { title: `${late} ${latest} harbour`, caption: `${latest} ${late}`, keywords: ['harbour light', late] }),
    ]);
    const phrase = (text: string) => index.search({ phrase: `"${text}"`, mode: 'precise' }).ids.sort();
    expect(phrase('harbour light')).toEqual(['early', 'late']);
    expect(phrase(`${late} ${latest}`)).toEqual(['f39995', 'late']);
    expect(phrase(`${latest} ${late}`)).toEqual(['late']);
    expect(phrase(`${latest} harbour`)).toEqual(['late']);
    // a phrase never spans two values of a list field, nor two fields
    expect(phrase(`light ${late}`)).toEqual([]);
    expect(phrase(`harbour ${latest}`)).toEqual([]);

    // deleting most fillers drops their terms; the compaction renumbers the rest to small ids
    for (let i = 0; i < 39_000; i++) index.remove(`f${i}`);
    index.compact();
    expect(phrase('harbour light')).toEqual(['early', 'late']);
    expect(phrase(`${late} ${latest}`)).toEqual(['f39995', 'late']);
    expect(phrase(`${latest} ${late}`)).toEqual(['late']);
    expect(index.search({ phrase: late, mode: 'precise' }).ids.sort()).toEqual(['f39995', 'late']);

    // after a deletion its terms no longer count, in a snapshot too
    index.remove('late');
    const restored = SearchIndex.fromSnapshot(index.toSnapshot());
    for (const engine of [index, restored]) {
      expect(engine.search({ phrase: `"${late} ${latest}"`, mode: 'precise' }).ids).toEqual(['f39995']);
      expect(engine.search({ phrase: '"harbour light"', mode: 'precise' }).ids).toEqual(['early']);
      expect(engine.search({ phrase: 'harbour', mode: 'precise' }).total).toBe(1);
    }
  });

  it('numbers the terms by frequency at a compaction, though the first documents\' codes grow', () => {
    // the first document brings 130 rare words (ids 0–129: the shorter codes);
    // 200 later documents bring 200 common words (ids 130–329: longer ones)
    const rare = Array.from({ length: 130 }, (_, i) => `r${i}x`);
    const common = Array.from({ length: 200 }, (_, i) => `c${i}x`);
    const store = new IndexStore(SCHEMA);
    store.upsertMany([
      doc('early', { title: rare.join(' '), caption: 'quiet harbour' }),
      ...Array.from({ length: 200 }, (_, i) => doc(`common${i}`, { title: common.join(' '), caption: i === 0 ? 'quiet harbour' : '' })),
    ]);
    const bytesOf = (ordinal: number) => store.forwardStart.at(ordinal + 1) - store.forwardStart.at(ordinal);
    const rareBefore = bytesOf(0);
    const commonBefore = bytesOf(1);
    const searcher = new IndexSearcher(store);
    const phrase = (text: string) => {
      store.indexPending();
      return searcher.search({ phrase: `"${text}"`, mode: 'precise', limit: 500 }).ids.sort();
    };
    const answers = () => [phrase('r0x r1x'), phrase('r128x r129x'), phrase('c0x c1x'), phrase('c198x c199x'), phrase('c199x c0x'), phrase('quiet harbour'), phrase('r129x quiet')];
    const before = answers();
    expect(before[0]).toEqual(['early']);
    expect(before[2]).toHaveLength(200);
    expect(before[4]).toEqual([]);
    expect(before[5]).toEqual(['common0', 'early']);

    store.compact();
    // the common words now have the smallest ids, the rare ones ids 200–329
    expect(store.vocabulary.terms.slice(0, 200)).toEqual(common);
    expect(store.vocabulary.frequency[0]).toBe(200);
    expect(bytesOf(0)).toBeGreaterThan(rareBefore);
    expect(bytesOf(1)).toBeLessThan(commonBefore);
    expect(answers()).toEqual(before);
    expect(store.vocabulary.completions('r12', 3)).toEqual(['r120x', 'r121x', 'r122x']);

    // deleting the common documents but one makes the rare words as frequent: ties keep the order
    for (let i = 1; i < 200; i++) store.remove(`common${i}`);
    store.compact();
    expect(store.vocabulary.terms.slice(0, 2)).toEqual(['quiet', 'harbour']);
    expect(phrase('r0x r1x')).toEqual(['early']);
    expect(phrase('c0x c1x')).toEqual(['common0']);
    expect(phrase('quiet harbour')).toEqual(['common0', 'early']);
  });

  it('keeps each start as a 16-bit distance from its block of 32, 32-bit while a block spans 64 KiB, in place through compactions and snapshots', () => {
    // three documents of 25,000 distinct words each (about 60 KiB of codes each) between two short ones, all in the first block
    const long = (n: number) => Array.from({ length: 25_000 }, (_, i) => word(25_000 * n + i)).join(' ');
    const docs = [
      doc('before', { title: 'harbour light', caption: 'quiet harbour' }),
      ...[0, 1, 2].map((n) => doc(`long${n}`, { title: long(n), caption: 'harbour' })),
      doc('after', { title: 'quiet harbour light', caption: `${word(3)} ${word(25_004)}` }),
      ...Array.from({ length: 40 }, (_, i) => doc(`next${i}`, { title: i === 39 ? 'harbour light' : `${word(i)} harbour` })),
    ];
    const store = new IndexStore(SCHEMA);
    store.upsertMany(docs);
    const searcher = new IndexSearcher(store);
    const phrase = (text: string) => {
      store.indexPending();
      return searcher.search({ phrase: `"${text}"`, mode: 'precise', limit: 500 }).ids.sort();
    };
    const answers = () => [phrase('harbour light'), phrase('quiet harbour'), phrase(`${word(3)} ${word(25_004)}`), phrase(`${word(25_003)} ${word(25_004)}`), phrase(`${word(0)} harbour`)];
    expect(store.forwardStart.offset).toBeInstanceOf(Uint32Array);
    const before = answers();
    expect(before).toEqual([['after', 'before', 'next39'], ['after', 'before'], ['after'], ['long1'], ['next0']]);
    store.compact();
    expect(store.forwardStart.offset).toBeInstanceOf(Uint32Array);
    expect(answers()).toEqual(before);

    // a snapshot carries the wide distances; dropping the long documents makes them narrow again
    const restored = SearchIndex.fromSnapshot(indexOf(docs).toSnapshot());
    expect(restored.search({ phrase: `"${word(25_003)} ${word(25_004)}"`, mode: 'precise' }).ids).toEqual(['long1']);
    expect(restored.search({ phrase: '"harbour light"', mode: 'precise' }).ids.sort()).toEqual(['after', 'before', 'next39']);
    for (const n of [0, 1, 2]) store.remove(`long${n}`);
    store.compact();
    expect(store.forwardStart.offset).toBeInstanceOf(Uint16Array);
    expect(answers()).toEqual([['after', 'before', 'next39'], ['after', 'before'], ['after'], [], ['next0']]);
  });
});
