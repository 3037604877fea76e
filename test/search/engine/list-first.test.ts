import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../src/search/engine/analyzer.js';
import type { SearchFilter, SearchQuery } from '../../../src/search/engine/types.js';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { doc, expectPages, indexOf } from './fixtures.js';
import type { DocSpec } from './fixtures.js';

/*
 * A search whose rarest word has few documents starts from its list and checks every other
 * requirement per document (listFromPlan); a commoner one goes through a bitmap first. Both
 * must find exactly the documents a plain scan finds, whatever else the query asks: filters
 * (single- and multi-valued, excluded, ranges), deleted documents, more words, excluded words.
 */

const COMMON = ['sea', 'boat', 'harbour', 'sky'];
const RARE = ['quokka', 'narwhal', 'axolotl'];
const ORIENTATIONS = ['horizontal', 'vertical', 'square'];
const SEGMENTS = ['news', 'sport', 'royalty'];

function corpus(count: number): Map<string, DocSpec> {
  const random = seededRandom(0x11577);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const specs = new Map<string, DocSpec>();
  for (let i = 0; i < count; i++) {
    const words = [pick(COMMON), pick(COMMON), `filler${i % 50}`];
    // each rare word in about 1 document in 150: a few dozen in all, far fewer than the bitmap has words
    for (const word of RARE) if (random() < 1 / 150) words.push(word);
    // the plural too, alone or beside the singular: in enhanced search both are variants of one word
    if (random() < (words.includes('quokka') ? 0.4 : 1 / 400)) words.push('quokkas');
    const segments = SEGMENTS.filter(() => random() < 0.3);
    // a value too rare for a bitmap: filters naming it are checked per document
    if (random() < 0.01) segments.push('archive');
    specs.set(`doc-${String(i).padStart(5, '0')}`, {
      title: words.slice(0, 2).join(' '),
      caption: words.slice(2).join(' '),
      orientation: random() < 0.9 ? pick(ORIENTATIONS) : undefined,
      collection: random() < 0.95 ? `c${i % 97}` : undefined,
      segments,
      date: i, // unique: `newest` orders the matches completely
      quality: i % 5,
    });
  }
  return specs;
}

const specs = corpus(6_000);
const deleted = new Set([...specs.keys()].filter((_, i) => i % 17 === 0));
const documents = [...specs].map(([id, spec]) => doc(id, spec));
// Most documents in the base lists, the rest appended after (tail lists): a word has two
// lists to start from. The deletions come after both are indexed, so they stay in the lists.
const index = indexOf(documents.slice(0, 5_000));
index.compact();
index.upsertMany(documents.slice(5_000));
index.search({ phrase: 'sea' });
for (const id of deleted) index.remove(id);

function tokensOf(spec: DocSpec): Set<string> {
  return new Set([...tokenize(spec.title ?? ''), ...tokenize(spec.caption ?? '')]);
}

function passes(spec: DocSpec, filter: SearchFilter): boolean {
  if (!('anyOf' in filter)) {
    const value = spec[filter.attribute as 'date'];
    return typeof value === 'number' && value >= (filter.min ?? -Infinity) && value <= (filter.max ?? Infinity);
  }
  const single = filter.attribute === 'orientation' ? spec.orientation : filter.attribute === 'collection' ? spec.collection : undefined;
  const values = filter.attribute === 'segments' ? (spec.segments ?? []) : single === undefined ? [] : [single];
  return values.some((value) => filter.anyOf.includes(value)) !== (filter.exclude === true);
}

/** The matches of a query by a scan of every live document, newest first. */
function scanned(words: readonly string[], without: readonly string[], filters: readonly SearchFilter[]): string[] {
  const found: Array<[string, number]> = [];
  for (const [id, spec] of specs) {
    if (deleted.has(id)) continue;
    const tokens = tokensOf(spec);
    if (!words.every((word) => tokens.has(word)) || without.some((word) => tokens.has(word))) continue;
    if (filters.every((filter) => passes(spec, filter))) found.push([id, spec.date!]);
  }
  return found.sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

const FILTER_SETS: SearchFilter[][] = [
  [],
  [{ attribute: 'orientation', anyOf: ['horizontal', 'square'] }],
  [{ attribute: 'orientation', anyOf: ['vertical'], exclude: true }],
  [{ attribute: 'segments', anyOf: ['news', 'sport'] }],
  [{ attribute: 'segments', anyOf: ['royalty'], exclude: true }],
  [{ attribute: 'date', min: 1_000, max: 4_500 }],
  // values of fewer documents than the bitmaps' threshold: per-document checks
  [{ attribute: 'collection', anyOf: Array.from({ length: 40 }, (_, i) => `c${i}`) }],
  [{ attribute: 'collection', anyOf: ['c3', 'c5', 'c8'], exclude: true }],
  [{ attribute: 'segments', anyOf: ['archive', 'sport'] }],
  [{ attribute: 'segments', anyOf: ['archive', 'royalty'], exclude: true }],
  [
    { attribute: 'orientation', anyOf: ['horizontal'] },
    { attribute: 'segments', anyOf: ['news'], exclude: true },
    { attribute: 'date', min: 500 },
  ],
];

const WORD_SETS: Array<{ words: string[]; without: string[] }> = [
  ...RARE.map((word) => ({ words: [word], without: [] })),
  { words: ['quokka', 'sea'], without: [] },
  { words: ['narwhal', 'axolotl'], without: [] },
  { words: ['axolotl'], without: ['boat'] },
  { words: ['quokka', 'harbour'], without: ['narwhal'] },
  // commoner words: the bitmap path, for comparison
  { words: ['sky'], without: [] },
  { words: ['sea', 'boat'], without: ['sky'] },
];

describe('searches that start from a short list', () => {
  it('find what a scan finds, under every kind of filter, with deleted documents', () => {
    let compared = 0;
    for (const { words, without } of WORD_SETS) {
      for (const filters of FILTER_SETS) {
        const phrase = [...words, ...without.map((word) => `-${word}`)].join(' ');
        const query: SearchQuery = { phrase, mode: 'precise', filters, sort: 'newest', limit: 10_000 };
        const expected = scanned(words, without, filters);
        const result = index.search(query);
        expect({ phrase, filters, total: result.total, ids: result.ids }).toEqual({ phrase, filters, total: expected.length, ids: expected });
        compared += expected.length;
      }
    }
    expect(compared).toBeGreaterThan(1_000);
  });

  it('give the same best_match pages as the whole ranking', () => {
    for (const word of RARE) {
      const all = index.search({ phrase: word, mode: 'precise', limit: 10_000 });
      expect(all.total).toBeGreaterThan(20);
      expectPages(index, { phrase: word, mode: 'precise' }, all.ids, [
        [0, 5],
        [5, 10],
        [20, 30],
      ]);
    }
  });

  it('take a word through all its variants once each (the plural, the singular, or both)', () => {
    const expected = [...specs]
      .filter(([id, spec]) => !deleted.has(id) && (tokensOf(spec).has('quokka') || tokensOf(spec).has('quokkas')))
      .sort((a, b) => b[1].date! - a[1].date!)
      .map(([id]) => id);
    const both = expected.filter((id) => tokensOf(specs.get(id)!).has('quokka') && tokensOf(specs.get(id)!).has('quokkas'));
    expect(both.length).toBeGreaterThan(0);
    const result = index.search({ phrase: 'quokka', sort: 'newest', limit: 10_000 });
    expect({ total: result.total, ids: result.ids }).toEqual({ total: expected.length, ids: expected });
  });

  it('count facets over the same matches', () => {
    const filters: SearchFilter[] = [{ attribute: 'orientation', anyOf: ['horizontal', 'vertical'] }];
    const result = index.search({ phrase: 'quokka', mode: 'precise', filters, facets: [{ attribute: 'segments', limit: 10 }] });
    const expected = new Map<string, number>();
    for (const id of scanned(['quokka'], [], filters)) for (const segment of specs.get(id)!.segments ?? []) expected.set(segment, (expected.get(segment) ?? 0) + 1);
    expect(Object.fromEntries(result.facets.segments!.map((f) => [f.value, f.count]))).toEqual(Object.fromEntries(expected));
  });
});
