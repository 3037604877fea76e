import { describe, expect, it } from 'vitest';
import { doc, expectPages, indexOf } from './fixtures.js';

const index = indexOf([
  doc('old-popular', { title: 'tree', date: 100, popularity: 90, quality: 1 }),
  doc('new-unpopular', { title: 'tree', date: 900, popularity: 1, quality: 1 }),
  doc('middle', { title: 'tree', date: 500, popularity: 40, quality: 3 }),
  doc('undated', { title: 'tree', date: null, popularity: null, quality: null }),
  doc('best', { title: 'tree', date: 300, popularity: 40, quality: 4 }),
]);

describe('sort newest', () => {
  it('orders by the date number, newest first, missing dates last', () => {
    expect(index.search({ phrase: 'tree', sort: 'newest' }).ids).toEqual(['new-unpopular', 'middle', 'best', 'old-popular', 'undated']);
  });
});

describe('sort oldest', () => {
  it('orders by the date number, oldest first, missing dates last', () => {
    expect(index.search({ phrase: 'tree', sort: 'oldest' }).ids).toEqual(['old-popular', 'best', 'middle', 'new-unpopular', 'undated']);
  });
});

describe('sort most_popular', () => {
  it('orders by popularity, highest first, then relevance and id', () => {
    expect(index.search({ phrase: 'tree', sort: 'most_popular' }).ids).toEqual(['old-popular', 'best', 'middle', 'new-unpopular', 'undated']);
  });
});

describe('sort best_match', () => {
  it('breaks equal scores by quality, then popularity, then id', () => {
    // same text everywhere: equal BM25 scores
    expect(index.search({ phrase: 'tree', sort: 'best_match' }).ids).toEqual(['best', 'middle', 'old-popular', 'new-unpopular', 'undated']);
  });

  it('is the default sort', () => {
    expect(index.search({ phrase: 'tree' }).ids).toEqual(index.search({ phrase: 'tree', sort: 'best_match' }).ids);
  });

  it('orders by quality then popularity when there is no phrase', () => {
    expect(index.search({}).ids).toEqual(['best', 'middle', 'old-popular', 'new-unpopular', 'undated']);
  });

  it('ends ties on the id, whatever the insertion order', () => {
    const docs = ['d', 'b', 'e', 'a', 'c'].map((id) => doc(id, { title: 'same' }));
    expect(indexOf(docs).search({ phrase: 'same' }).ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(indexOf([...docs].reverse(), false).search({ phrase: 'same' }).ids).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('uses the numbers named by sortNumbers', () => {
    const result = index.search({ phrase: 'tree', sort: 'newest', sortNumbers: { date: 'popularity', popularity: 'date', quality: 'quality' } });
    expect(result.ids[0]).toBe('old-popular');
  });
});

describe('sort random', () => {
  const many = indexOf(Array.from({ length: 200 }, (_, i) => doc(`r${String(i).padStart(3, '0')}`, { title: 'shuffle me', quality: i % 5 })));
  const page = (seed: number, offset: number, limit: number): string[] =>
    many.search({ phrase: 'shuffle', sort: 'random', randomSeed: seed, offset, limit }).ids;

  it('is a permutation: every document once across the pages', () => {
    const all = [...page(7, 0, 50), ...page(7, 50, 50), ...page(7, 100, 50), ...page(7, 150, 50)];
    expect(new Set(all).size).toBe(200);
  });

  it('is stable across pages of the same seed', () => {
    const whole = page(7, 0, 200);
    expect([...page(7, 0, 30), ...page(7, 30, 30)]).toEqual(whole.slice(0, 60));
    expect(page(7, 120, 25)).toEqual(whole.slice(120, 145));
  });

  it('differs from one seed to another', () => {
    expect(page(1, 0, 20)).not.toEqual(page(2, 0, 20));
  });

  it('gives the same order after appends, deletions and a compaction as an index built with the final documents', () => {
    // the random sort keeps the ids' hashes from its first use: they must follow later appends and renumbering
    const shuffled = (i: number) => doc(`s${i}`, { title: 'shuffle me', quality: i % 5 });
    const changed = indexOf(Array.from({ length: 200 }, (_, i) => shuffled(i)));
    const query = { phrase: 'shuffle', sort: 'random' as const, randomSeed: 3, limit: 400 };
    expect(changed.search(query).ids).toHaveLength(200);
    for (let i = 200; i < 300; i++) changed.upsert(shuffled(i));
    for (let i = 0; i < 300; i += 3) changed.remove(`s${i}`);
    const rebuilt = indexOf(Array.from({ length: 300 }, (_, i) => i).filter((i) => i % 3 !== 0).map(shuffled));
    expect(changed.search(query).ids).toEqual(rebuilt.search(query).ids);
    changed.compact();
    expect(changed.search(query).ids).toEqual(rebuilt.search(query).ids);
    for (let i = 0; i < 300; i += 3) changed.upsert(shuffled(i));
    expect(changed.search(query).ids).toEqual(indexOf(Array.from({ length: 300 }, (_, i) => shuffled(i))).search(query).ids);
  });

  it('is not the id order nor the best_match order', () => {
    const ordered = many.search({ phrase: 'shuffle', limit: 20 }).ids;
    expect(page(7, 0, 20)).not.toEqual(ordered);
    expect(page(7, 0, 20)).not.toEqual([...page(7, 0, 20)].sort());
  });
});

describe('sorts', () => {
  it('refuse an unknown sort', () => {
    expect(() => index.search({ phrase: 'tree', sort: 'sideways' as never })).toThrow(/sideways/);
  });
});

describe('browsing without a phrase', () => {
  // 5000 documents built in bulk, then a tail of live upserts (some replacing) and deletions
  interface Row {
    id: string;
    orientation: string;
    collection: string;
    date: number | null;
    popularity: number | null;
    quality: number | null;
  }
  const rows = new Map<string, Row>();
  const make = (i: number, round: number): Row => ({
    id: `p${String(i).padStart(5, '0')}`,
    orientation: (i * 7 + round) % 3 === 0 ? 'vertical' : 'horizontal',
    collection: i % 997 === 0 ? 'rare' : `c${i % 4}`,
    date: i % 11 === 0 ? null : (i * 7919 + round * 13) % 2000,
    popularity: i % 13 === 0 ? null : (i * 31 + round) % 50,
    quality: (i * 17 + round) % 5,
  });
  const toDoc = (row: Row) => doc(row.id, { title: 'browse me', ...row });
  for (let i = 0; i < 5000; i++) rows.set(make(i, 0).id, make(i, 0));
  const index = indexOf([...rows.values()].map(toDoc));
  for (let i = 4900; i < 5300; i++) {
    const row = make(i, 1);
    rows.set(row.id, row);
    index.upsert(toDoc(row));
  }
  for (let i = 0; i < 200; i += 3) {
    const id = `p${String(i).padStart(5, '0')}`;
    rows.delete(id);
    index.remove(id);
  }

  const value = (v: number | null, sign: number): number => (v === null ? -Infinity : v * sign);
  const reference = (sort: string, keep: (row: Row) => boolean): string[] => {
    const levels: Array<(row: Row) => number> =
      sort === 'newest'
        ? [(r) => value(r.date, 1)]
        : sort === 'oldest'
          ? [(r) => value(r.date, -1)]
          : sort === 'most_popular'
            ? [(r) => value(r.popularity, 1)]
            : [(r) => value(r.quality, 1), (r) => value(r.popularity, 1)];
    return [...rows.values()]
      .filter(keep)
      .sort((a, b) => {
        for (const level of levels) if (level(a) !== level(b)) return level(b) - level(a);
        return a.id < b.id ? -1 : 1;
      })
      .map((row) => row.id);
  };

  const cases = [
    { name: 'everything', filters: [], keep: () => true },
    { name: 'a broad filter', filters: [{ attribute: 'orientation', anyOf: ['horizontal'] }], keep: (r: Row) => r.orientation === 'horizontal' },
    { name: 'a rare filter', filters: [{ attribute: 'collection', anyOf: ['rare'] }], keep: (r: Row) => r.collection === 'rare' },
    { name: 'a range', filters: [{ attribute: 'date', min: 100, max: 900 }], keep: (r: Row) => r.date !== null && r.date >= 100 && r.date <= 900 },
  ];

  for (const sort of ['best_match', 'newest', 'oldest', 'most_popular'] as const) {
    for (const { name, filters, keep } of cases) {
      it(`pages ${sort} over ${name} like a full sort of the matches`, () => {
        const expected = reference(sort, keep);
        const pages = [
          [0, 30],
          [40, 25],
          [1000, 10],
        ] as const;
        expectPages(index, { sort, filters }, expected, pages, expected.length);
      });
    }
  }

  it('agrees with the same sort through a phrase every document has', () => {
    for (const sort of ['newest', 'oldest'] as const) {
      const browsed = index.search({ sort, limit: 100, offset: 50 });
      const searched = index.search({ phrase: 'browse', sort, limit: 100, offset: 50 });
      expect(browsed.total).toBe(searched.total);
      // dates repeat, so equal dates may differ in relevance order only if scores differ: they do not here
      expect(browsed.ids).toEqual(searched.ids);
    }
  });

  // Every document has the same score for "browse": best_match is its tie-break alone (quality,
  // popularity, id), settled by places in the base order for base documents, by the values for
  // the tail's: both must agree with a full sort, base and tail documents mixed.
  it('breaks ties of equal scores in one order, base and tail documents alike', () => {
    for (const { filters, keep } of cases) {
      const expected = reference('best_match', keep);
      const pages = [
        [0, 30],
        [40, 25],
        [1000, 60],
        [0, 100_000],
      ] as const;
      expectPages(index, { phrase: 'browse', filters }, expected, pages, expected.length);
    }
  });

  // last: it compacts the shared index, every document then in the base (all placed)
  it('breaks them in the same order when every match has a place', () => {
    index.compact();
    for (const { filters, keep } of cases) {
      const expected = reference('best_match', keep);
      expectPages(index, { phrase: 'browse', filters }, expected, [
        [0, 30],
        [1000, 60],
        [0, 100_000],
      ]);
    }
  });
});
