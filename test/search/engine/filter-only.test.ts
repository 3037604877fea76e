import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import type { IndexDocument, IndexSchema, SearchQuery } from '../../../src/search/engine/search-index.js';

/*
 * A filter-only keyword attribute keeps its documents per value alone, nothing per document:
 * every filter on it answers as on the same attribute kept both ways — driving the search,
 * checked beside a word (bitmap and list paths), excluded, broad (dense values) or narrow —
 * through appends, replacements, deletions, compactions and a snapshot.
 */

const PLAIN: IndexSchema = {
  textFields: { title: 3, caption: 1 },
  keywordAttributes: ['orientation', 'tags'],
  numericAttributes: ['date'],
};
const FILTER_ONLY: IndexSchema = { ...PLAIN, filterOnlyAttributes: ['tags'] };

const WORDS = ['harbour', 'field', 'sea', 'stone', 'light', 'rare'];

/** Document i: a few tags, tag t in about 1 / (t + 1) of the documents (t0-t2 dense, t40 and up in a handful). */
function documents(count: number, seed: number, prefix: string): IndexDocument[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const tags = new Set<string>();
    for (let k = 0; k < 1 + Math.floor(random() * 6); k++) tags.add(`t${Math.floor(1 / (random() + 0.012)) - 1}`);
    const word = WORDS[i % 97 === 0 ? 5 : Math.floor(random() * 5)]!;
    return {
      id: `${prefix}${String(i).padStart(5, '0')}`,
      text: { title: `${word} ${WORDS[Math.floor(random() * 5)]}`, caption: '' },
      keywords: { orientation: [i % 3 === 0 ? 'vertical' : 'horizontal'], tags: [...tags] },
      numbers: { date: i },
    };
  });
}

const tags = (...numbers: number[]) => numbers.map((n) => `t${n}`);
const QUERIES: SearchQuery[] = [
  // a narrow value alone, and two: the lists drive
  { filters: [{ attribute: 'tags', anyOf: tags(50) }] },
  { filters: [{ attribute: 'tags', anyOf: tags(41, 60, 999) }] },
  // a dense value: its bitmap
  { filters: [{ attribute: 'tags', anyOf: tags(0) }] },
  { filters: [{ attribute: 'tags', anyOf: tags(0, 1) }] },
  // beside a common word (a bitmap of the values' documents) and a rare one (the word's list drives)
  { phrase: 'harbour', filters: [{ attribute: 'tags', anyOf: tags(5, 9, 0) }] },
  { phrase: 'harbour', filters: [{ attribute: 'tags', anyOf: tags(7) }] },
  { phrase: 'rare', filters: [{ attribute: 'tags', anyOf: tags(3, 12) }] },
  // excluded, alone and with a word, and both ways on the same attribute
  { filters: [{ attribute: 'tags', anyOf: tags(2, 30), exclude: true }] },
  { phrase: 'sea', filters: [{ attribute: 'tags', anyOf: tags(4), exclude: true }] },
  { phrase: 'rare', filters: [{ attribute: 'tags', anyOf: tags(0), exclude: true }] },
  {
    phrase: 'stone',
    filters: [
      { attribute: 'tags', anyOf: tags(1, 2, 3) },
      { attribute: 'tags', anyOf: tags(6, 8), exclude: true },
      { attribute: 'orientation', anyOf: ['vertical'] },
    ],
  },
  // a value no document has, and one only deleted documents had
  { filters: [{ attribute: 'tags', anyOf: ['nowhere'] }] },
  { phrase: 'light', filters: [{ attribute: 'tags', anyOf: ['gone'] }] },
  { filters: [{ attribute: 'tags', anyOf: ['gone'], exclude: true }], limit: 50 },
].map((query) => ({ sort: 'newest', limit: 10_000, ...query }));

const answers = (index: SearchIndex) => QUERIES.map((query) => index.search(query));

/** The same changes to both indexes: appends (a tail), replacements, deletions. */
function change(index: SearchIndex, round: number): void {
  for (const item of documents(300, 100 + round, `new${round}-`)) index.upsert(item);
  documents(40, 200 + round, 'x').forEach((item, i) => index.upsert({ ...item, id: `d${String(round * 40 + i * 7).padStart(5, '0')}` }));
  index.upsert({ id: 'd00007', text: { title: 'light' }, keywords: { tags: ['gone', 't1'] }, numbers: { date: 1 } });
  index.remove('d00007');
  for (let i = 0; i < 400; i += 3) index.remove(`d${String(i + round).padStart(5, '0')}`);
}

describe('a filter-only keyword attribute', () => {
  it('answers every filter as the attribute kept per document does, through changes, compactions and a snapshot', () => {
    const plain = new SearchIndex(PLAIN);
    const filterOnly = new SearchIndex(FILTER_ONLY);
    for (const index of [plain, filterOnly]) index.upsertMany(documents(4_000, 7, 'd'));
    expect(answers(filterOnly)).toEqual(answers(plain));
    expect(answers(filterOnly)[0]!.total).toBeGreaterThan(0);

    for (const index of [plain, filterOnly]) change(index, 1);
    expect(answers(filterOnly)).toEqual(answers(plain));

    for (const index of [plain, filterOnly]) index.compact();
    expect(answers(filterOnly)).toEqual(answers(plain));

    const restored = SearchIndex.fromSnapshot(filterOnly.toSnapshot());
    expect(answers(restored)).toEqual(answers(plain));
    for (const index of [plain, restored]) change(index, 2);
    expect(answers(restored)).toEqual(answers(plain));
    for (const index of [plain, restored]) index.compact();
    expect(answers(restored)).toEqual(answers(plain));
  });

  it('answers the same after a compaction of appends alone (no document moves, the lists are made again as they are)', () => {
    const plain = new SearchIndex(PLAIN);
    const filterOnly = new SearchIndex(FILTER_ONLY);
    for (const index of [plain, filterOnly]) {
      index.appendNew(documents(4_000, 7, 'd'));
      index.compact();
      // new documents only: tails of the lists, and no tombstone for the next compaction to drop
      for (const item of documents(300, 11, 'tail')) index.upsert(item);
    }
    expect(answers(filterOnly)).toEqual(answers(plain));
    for (const index of [plain, filterOnly]) index.compact();
    expect(answers(filterOnly)).toEqual(answers(plain));
    expect(answers(filterOnly)[1]!.total).toBeGreaterThan(0);
  });

  it('holds less than the attribute kept per document', () => {
    const plain = new SearchIndex(PLAIN);
    const filterOnly = new SearchIndex(FILTER_ONLY);
    for (const index of [plain, filterOnly]) {
      index.upsertMany(documents(4_000, 7, 'd'));
      index.compact();
    }
    // the plain index's offsets and values: a byte of offset and one a value (under 257 values) per document
    expect(filterOnly.byteSize()).toBeLessThan(plain.byteSize() - 3 * 4_000);
  });

  it('refuses a facet count, and a schema that names an attribute it does not have', () => {
    const index = new SearchIndex(FILTER_ONLY);
    index.upsertMany(documents(100, 7, 'd'));
    expect(() => index.search({ facets: [{ attribute: 'tags', limit: 5 }] })).toThrow(/filter-only/);
    expect(() => index.search({ phrase: 'sea', facets: [{ attribute: 'tags', limit: 5 }] })).toThrow(/filter-only/);
    expect(() => new SearchIndex({ ...PLAIN, filterOnlyAttributes: ['colour'] })).toThrow(/not a keyword attribute/);
  });
});
