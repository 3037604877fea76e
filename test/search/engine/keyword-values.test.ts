import { describe, expect, it } from 'vitest';
import { KeywordValues, numberOf } from '../../../src/search/engine/keyword-values.js';
import { SnapshotReader, SnapshotWriter } from '../../../src/search/engine/snapshot-format.js';
import { hashString } from '../../../src/search/engine/typed-arrays.js';
import { doc, indexOf } from './fixtures.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';

/*
 * A keyword column's values (keyword-values.ts) are four-byte numbers while every one is a
 * number as JavaScript writes it, and packed strings from the first that is not; either way a
 * value reads, compares, hashes and round-trips through a snapshot as its string.
 */

const NUMBERS = ['0', '9', '10', '100', '5000001', '99', '1', '4294967294', '123456789', '19'];
/** Not kept as numbers: a leading zero, a sign, a letter, 2^32 - 1 and past, nothing. */
const NOT_NUMBERS = ['007', '-1', '12a', '4294967295', '99999999999', '', ' 1', '1.5'];

function roundTrip(values: KeywordValues): KeywordValues {
  const writer = new SnapshotWriter();
  values.addTo(writer, 'values');
  return KeywordValues.read(new SnapshotReader(writer.finish({})), 'values');
}

/** Checks every way of reading `values` against the strings they stand for. */
function expectValues(values: KeywordValues, strings: readonly string[]): void {
  expect(values.length).toBe(strings.length);
  strings.forEach((text, i) => {
    expect(values.get(i)).toBe(text);
    expect(values.hash(i), text).toBe(hashString(text));
    expect(values.equals(i, text)).toBe(true);
    expect(values.equals(i, `${text}0`)).toBe(false);
    strings.forEach((other, j) => {
      expect(Math.sign(values.compare(i, j)), `${text} against ${other}`).toBe(text < other ? -1 : text > other ? 1 : 0);
      expect(values.entriesEqual(i, j)).toBe(text === other);
    });
  });
}

describe('keyword values', () => {
  it('tell a number as JavaScript writes it from any other text', () => {
    for (const text of NUMBERS) expect(numberOf(text), text).toBe(Number(text));
    for (const text of NOT_NUMBERS) expect(numberOf(text), text).toBe(-1);
  });

  it('keep numbers in four bytes each, read as their strings, and in a snapshot', () => {
    const values = new KeywordValues();
    for (const text of NUMBERS) values.append(text);
    expect(values.numeric).toBe(true);
    expectValues(values, NUMBERS);
    expect(values.byteSize()).toBe(4 * 16);
    const restored = roundTrip(values);
    expect(restored.numeric).toBe(true);
    expectValues(restored, NUMBERS);
  });

  for (const other of NOT_NUMBERS) {
    it(`move to packed strings at "${other}", keeping the numbers before it`, () => {
      const values = new KeywordValues();
      const strings = [...NUMBERS, other, '42'];
      for (const text of strings) values.append(text);
      expect(values.numeric).toBe(false);
      expectValues(values, strings);
      const restored = roundTrip(values);
      expect(restored.numeric).toBe(false);
      expectValues(restored, strings);
    });
  }

  it('filter and count facets the same with number values as with text, before and after a snapshot', () => {
    const collections = ['10', '9', '100', '10', '9', '100'];
    const numeric = indexOf(collections.map((collection, i) => doc(`d${i}`, { title: 'harbour', collection })));
    const texts = indexOf(collections.map((collection, i) => doc(`d${i}`, { title: 'harbour', collection: `c${collection}` })));
    for (const index of [numeric, SearchIndex.fromSnapshot(numeric.toSnapshot())]) {
      const result = index.search({ phrase: 'harbour', facets: [{ attribute: 'collection', limit: 10 }], filters: [{ attribute: 'collection', anyOf: ['10', '9', '0010'] }] });
      // "0010" is not the value "10"
      expect(result.ids.sort()).toEqual(['d0', 'd1', 'd3', 'd4']);
      // ties in count are ordered as the strings are: "100" before "9"
      expect(result.facets['collection']).toEqual([
        { value: '10', count: 2 },
        { value: '9', count: 2 },
      ]);
      const all = index.search({ phrase: 'harbour', facets: [{ attribute: 'collection', limit: 10 }] });
      expect(all.facets['collection']!.map((facet) => facet.value)).toEqual(['10', '100', '9']);
    }
    expect(texts.search({ phrase: 'harbour', filters: [{ attribute: 'collection', anyOf: ['c10'] }] }).total).toBe(2);
  });
});
