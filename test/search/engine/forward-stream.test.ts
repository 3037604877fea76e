import { describe, expect, it } from 'vitest';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import { doc, indexOf } from './fixtures.js';

/*
 * The forward stream keeps each document's term codes in 16-bit units: a term past the first
 * 65,533 takes three (an escape and two halves). Phrases are read from it, deletions and
 * compactions rewrite it (renumbered terms take fewer units), snapshots carry it.
 */

/** A made-up word per number: every one a distinct term. */
const word = (n: number) => `w${n.toString(36)}x`;

describe('the forward stream', () => {
  it('reads phrases of one- and three-unit codes, before and after a compaction renumbers them', () => {
    // 40,000 filler documents of two new words each: the last terms have ids past 65,533 (three units)
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
});
