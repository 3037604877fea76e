import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { SearchIndex } from '../../../src/search/engine/search-index.js';
import { SYNTHETIC_SCHEMA, syntheticDocuments, syntheticVocabulary } from '../../../bench/fixtures/synthetic-documents.js';
import { doc, expectPages, filler, indexOf, SCHEMA } from './fixtures.js';

describe('BM25', () => {
  it('ranks a term in the title above the same term only in the caption (title weighs more)', () => {
    const index = indexOf([
      doc('in-caption', { title: 'a quiet morning', caption: 'lighthouse on the cliff' }),
      doc('in-title', { title: 'lighthouse on the cliff', caption: 'a quiet morning' }),
      ...filler(30),
    ]);
    expect(index.search({ phrase: 'lighthouse' }).ids).toEqual(['in-title', 'in-caption']);
  });

  it('weighs rarer terms more', () => {
    // "dog" is common, "zebra" rare: the document with more "zebra" ranks first
    const index = indexOf([
      doc('more-dog', { caption: 'dog dog dog zebra' }),
      doc('more-zebra', { caption: 'dog zebra zebra zebra' }),
      ...Array.from({ length: 40 }, (_, i) => doc(`dog-${i}`, { caption: 'a dog somewhere' })),
      ...filler(40),
    ]);
    expect(index.search({ phrase: 'dog zebra' }).ids).toEqual(['more-zebra', 'more-dog']);
  });

  it('ranks more occurrences higher, with diminishing returns', () => {
    const index = indexOf([
      doc('once', { caption: 'sail across the bay today' }),
      doc('twice', { caption: 'sail sail across the bay' }),
      ...filler(20),
    ]);
    expect(index.search({ phrase: 'sail' }).ids).toEqual(['twice', 'once']);
  });

  it('ranks the shorter field higher for the same occurrences', () => {
    const index = indexOf([
      doc('long', { caption: 'kayak on a long winding river under tall trees at dawn' }),
      doc('short', { caption: 'kayak at dawn' }),
      ...filler(20),
    ]);
    expect(index.search({ phrase: 'kayak' }).ids).toEqual(['short', 'long']);
  });

  it('ranks an exact match above a stem, synonym or prefix match', () => {
    const index = indexOf([
      doc('prefix', { title: 'dogsled race' }),
      doc('stem', { title: 'dog race' }),
      doc('synonym', { title: 'puppy race' }),
      doc('exact', { title: 'dogs race' }),
      ...filler(20),
    ]);
    const ids = index.search({ phrase: 'dogs' }).ids;
    expect(ids[0]).toBe('exact');
    expect(ids.indexOf('stem')).toBeLessThan(ids.indexOf('synonym'));
    expect(ids.indexOf('synonym')).toBeLessThan(ids.indexOf('prefix'));
  });

  it('sums the scores of every query word', () => {
    const index = indexOf([
      doc('both-in-title', { title: 'red kite', caption: 'bird' }),
      doc('one-in-title', { title: 'red sky', caption: 'a kite' }),
      ...filler(20),
    ]);
    expect(index.search({ phrase: 'red kite' }).ids).toEqual(['both-in-title', 'one-in-title']);
  });
});

describe('corrections', () => {
  const index = indexOf([
    ...Array.from({ length: 30 }, (_, i) => doc(`m${i}`, { title: 'mountain lake', caption: 'calm water' })),
    ...Array.from({ length: 3 }, (_, i) => doc(`f${i}`, { title: 'fountain' })),
    doc('rare', { title: 'mounting bracket' }),
    ...filler(10),
  ]);

  it('suggests the phrase with a misspelled term replaced by a close frequent term', () => {
    const result = index.search({ phrase: 'montain lake' });
    expect(result.total).toBe(0);
    expect(result.corrections).toBe('mountain lake');
  });

  it('handles a transposition and two edits', () => {
    expect(index.search({ phrase: 'mountian' }).corrections).toBe('mountain');
    expect(index.search({ phrase: 'muontian' }).corrections).toBe('mountain');
  });

  it('keeps the rest of the phrase as written', () => {
    expect(index.search({ phrase: 'lake "calm water" montain -snow' }).corrections).toBe('lake "calm water" mountain -snow');
  });

  it('allows one edit only in words of up to five letters (two would reach unrelated words)', () => {
    const names = indexOf([...Array.from({ length: 5 }, (_, i) => doc(`o${i}`, { title: 'omar lake' })), ...filler(5)]);
    expect(names.search({ phrase: 'woman' }).corrections).toBeUndefined();
    expect(names.search({ phrase: 'omat' }).corrections).toBe('omar');
  });

  it('is absent when every term matched, or nothing is close', () => {
    expect(index.search({ phrase: 'mountain' }).corrections).toBeUndefined();
    expect(index.search({ phrase: 'xylophone' }).corrections).toBeUndefined();
  });

  it('prefers the more frequent of equally close terms', () => {
    // "nountain" is one edit from "mountain" (30 documents) and from "fountain" (3)
    expect(index.search({ phrase: 'nountain' }).corrections).toBe('mountain');
    expect(index.search({ phrase: 'fountainn' }).corrections).toBe('fountain');
  });

  it('ignores terms of a single document', () => {
    expect(index.search({ phrase: 'brackett' }).corrections).toBeUndefined();
  });
});

// A page needs exact scores for its documents only; the rest are bounded (scoreTop). The
// fast paths sum any number of text fields: checked with the synthetic schema's three and
// with a fourth (people, as the asset schema has), against the exhaustive ranking.
const FOUR_FIELDS = { ...SYNTHETIC_SCHEMA, textFields: { ...SYNTHETIC_SCHEMA.textFields, people: 2 } };
describe.each([
  ['three text fields', SYNTHETIC_SCHEMA],
  ['four text fields', FOUR_FIELDS],
])('best_match pages with %s', (_name, schema) => {
  const index = new SearchIndex(schema);
  index.upsertMany(
    [...syntheticDocuments(4_000, 3)].map((document, i) =>
      schema === FOUR_FIELDS
        ? { ...document, text: { ...document.text, people: (document.text.keywords as readonly string[]).slice(i % 3, (i % 3) + 2) } }
        : document,
    ),
  );
  const words = syntheticVocabulary();

  it('of one word are slices of the whole ranking', () => {
    for (const word of [words[0]!, words[2]!, words[7]!, words[30]!, words[150]!]) {
      const all = index.search({ phrase: word, mode: 'precise', limit: 100_000 });
      const pages = [
        [0, 10],
        [0, 30],
        [25, 30],
        [300, 5],
      ] as const;
      expectPages(index, { phrase: word, mode: 'precise' }, all.ids, pages, all.total);
    }
  });

  it('of several words, with variants and filters, are slices of the whole ranking', () => {
    const queries = [
      { phrase: `${words[0]} ${words[1]}` },
      { phrase: `${words[2]} ${words[5]} ${words[40]}` },
      { phrase: `${words[3]} ${words[9]}`, filters: [{ attribute: 'orientation', anyOf: ['horizontal'] }] },
      { phrase: `${words[1]} ${words[220]!.slice(0, 4)}` },
    ];
    for (const query of queries) {
      const all = index.search({ ...query, limit: 100_000 });
      expect(all.total).toBeGreaterThan(40);
      expectPages(index, query, all.ids, [
        [0, 10],
        [10, 20],
      ]);
    }
  });
});

// A word with several variants (its plural, a longer word it begins) has several lists; a
// page of it takes bounds first and exact scores only where a bound can reach the page.
describe('best_match pages of a word with variants', () => {
  const random = seededRandom(0x7a11);
  const forms = ['harbour', 'harbours', 'harbourside', 'harbourmaster'];
  const harbourDoc = (i: number, id = `d${i}`) => {
    const words = Array.from({ length: 1 + Math.floor(random() * 3) }, () => forms[Math.floor(random() * forms.length)]!);
    // a variant too rare for a bitmap (its candidates are found by a walk, not by rank)
    if (random() < 0.03) words.push('harbourfront');
    const padding = Array.from({ length: Math.floor(random() * 12) }, (_, j) => `pad${(i + j) % 40}`);
    return doc(id, {
      title: random() < 0.3 ? words[0] : 'plain',
      caption: [...padding, ...words].join(' '),
      keywords: random() < 0.2 ? [words[words.length - 1]!, 'boats'] : ['boats'],
      quality: i % 4,
      popularity: i % 9,
      orientation: i % 3 === 0 ? 'vertical' : 'horizontal',
    });
  };
  const index = new SearchIndex(SCHEMA);
  index.upsertMany(Array.from({ length: 6_000 }, (_, i) => harbourDoc(i)));

  const expectSlices = () => {
    for (const phrase of ['harbour', 'harbour boats']) {
      for (const filters of [[], [{ attribute: 'orientation', anyOf: ['horizontal'] }]]) {
        const all = index.search({ phrase, filters, limit: 100_000 });
        expect(all.total).toBeGreaterThan(2_000);
        const pages = [
          [0, 10],
          [10, 30],
          [400, 20],
        ] as const;
        expectPages(index, { phrase, filters }, all.ids, pages, all.total);
      }
    }
  };

  it('are slices of the whole ranking, alone and beside another word', () => {
    expectSlices();
  });

  it('stay slices with tail lists beside the base ones and deleted documents', () => {
    // new documents and new text for old ones: every variant gets a tail list, some base postings
    // die; "harbour boats" has 10 lists (the most located one by one)
    for (let i = 5_500; i < 6_600; i++) index.upsert(harbourDoc(i + 7, `d${i}`));
    for (let i = 0; i < 600; i += 5) index.remove(`d${i}`);
    expectSlices();
  });
});

// A score bound assumes the shortest field a term fits in; lengths past 127 tokens are stored
// rounded (130 as 128), so the bound must assume the rounded length, or a document whose field
// is nearly all one word scores above its "upper" bound and is skipped (found by review).
describe('score bounds of fields past 127 tokens', () => {
  const documents = [
    ...Array.from({ length: 1_200 }, (_, i) => doc(`n${String(i).padStart(4, '0')}`, { title: 'cat dog', caption: 'dog', quality: 0 })),
    // tied on score (130 × cat in the caption), better quality the later they come
    ...Array.from({ length: 20 }, (_, i) => doc(`h${String(i).padStart(2, '0')}`, { title: 'cat dog', caption: Array(130).fill('cat').join(' '), quality: i })),
    doc('plural', { title: 'cats dog', quality: 0 }),
  ];
  const best = ['h19', 'h18', 'h17', 'h16', 'h15'];

  it('keep every document that can reach the page, one list or several, one word or two', () => {
    const index = indexOf(documents);
    for (const mode of ['enhanced', 'precise'] as const) {
      expect(index.search({ phrase: 'cat', mode, limit: 5 }).ids).toEqual(best);
      expect(index.search({ phrase: 'cat dog', mode, limit: 5 }).ids).toEqual(best);
    }
    // a tail list beside the base one: a word of two lists in precise search too
    index.upsert(doc('late', { title: 'cat', caption: 'bird' }));
    expect(index.search({ phrase: 'cat', mode: 'precise', limit: 5 }).ids).toEqual(best);
  });
});

// A word with several lists, scored by rank (each posting finds its candidate's position by
// counting the candidates before it in a bitmap). Right after the bitmap becomes the list the
// bitmap itself is that count's source; once an excluded phrase has dropped candidates it no
// longer is. Here that drops every document of one variant: were their bits still counted,
// the scores of the rest would land on the wrong documents.
describe('best_match of a word with several lists, after an excluded phrase drops some', () => {
  const caption = (repeats: number) => ['harbour', 'view', ...Array.from({ length: repeats - 1 }, () => 'harbour'), ...Array.from({ length: 6 - repeats }, () => 'calm')].join(' ');
  // interleaved: a document dropped sits between two kept ones
  const index = indexOf(
    Array.from({ length: 2_700 }, (_, i) =>
      i % 9 < 4
        ? // "harbour" 1-5 times in a caption of 7 words
          doc(`kept-${(i % 5) + 1}-${String(i).padStart(4, '0')}`, { caption: caption((i % 5) + 1) })
        : // "harbours", a variant of the word, right after "calm"
          doc(`dropped-${String(i).padStart(4, '0')}`, { caption: 'view calm harbours harbours harbours harbours harbours' }),
    ),
  );
  const query = { phrase: '"harbour" -"calm harbours"' };
  const repeatsOf = (id: string) => Number(id.split('-')[1]);

  it('ranks the documents left by their own occurrences, on a page and in full', () => {
    const all = index.search({ ...query, limit: 5_000 });
    expect(all.total).toBe(1_200);
    const repeats = all.ids.map(repeatsOf);
    expect(repeats.every((r, i) => i === 0 || r <= repeats[i - 1]!)).toBe(true);
    expect(repeats[0]).toBe(5);
    expect(repeats.at(-1)).toBe(1);
    expectPages(index, query, all.ids, [
      [0, 30],
      [500, 20],
    ]);
  });
});

// Four text fields (the asset schema's) take a fast path that reads each candidate's four
// length codes as one word, gathered before the scoring loop. A fifth field no document uses
// adds 0 to every score: an index with it takes the general loop, the reference here. The
// four-field index is searched before it grows, so a view of its old length array would show.
describe('BM25 with four text fields, against the general loop', () => {
  const FIVE_FIELDS = { ...FOUR_FIELDS, textFields: { ...FOUR_FIELDS.textFields, unused: 1 } };
  const documents = [...syntheticDocuments(3_000, 11)].map((document, i) => ({
    ...document,
    text: { ...document.text, people: (document.text.keywords as readonly string[]).slice(i % 4, (i % 4) + 2) },
  }));
  const words = syntheticVocabulary();
  const phrases = [words[40]!, words[300]!, words[900]!, `${words[20]} ${words[100]}`, words[5]!];

  it('ranks every match as the general loop does, before and after the index grows', () => {
    const four = new SearchIndex(FOUR_FIELDS);
    four.upsertMany(documents.slice(0, 1_000));
    const early = new SearchIndex(FIVE_FIELDS);
    early.upsertMany(documents.slice(0, 1_000));
    for (const phrase of phrases) expect(four.search({ phrase, limit: 5_000 })).toEqual(early.search({ phrase, limit: 5_000 }));

    four.upsertMany(documents.slice(1_000));
    const reference = new SearchIndex(FIVE_FIELDS);
    reference.upsertMany(documents);
    for (const phrase of phrases) {
      const expected = reference.search({ phrase, limit: 5_000 });
      expect(expected.total).toBeGreaterThan(5);
      expect(four.search({ phrase, limit: 5_000 })).toEqual(expected);
    }
  });
});

// A one-word page scores most candidates by bound only and the rest exactly, a batch at a
// time (ExactBatch): here the best documents come last, in the walk's final, unfilled batch —
// for a word kept as a list and for one common enough to be kept as a bitmap.
describe('one-word best_match pages whose best documents come last', () => {
  const documents = [
    ...filler(45_000),
    ...Array.from({ length: 2_000 }, (_, i) => doc(`boat-${String(i).padStart(4, '0')}`, { caption: `a boat on calm water near the quay number ${i % 50}` })),
    ...Array.from({ length: 1_200 }, (_, i) => doc(`harbour-${String(i).padStart(4, '0')}`, { caption: `the old harbour wall seen from the hill road ${i % 40}` })),
    ...['e', 'd', 'c', 'b', 'a'].map((letter) => doc(`best-${letter}`, { title: 'harbour boat', keywords: ['harbour', 'boat'], caption: 'harbour boat' })),
  ];
  const index = indexOf(documents);

  it('finds them, the list walk and the bitmap walk alike', () => {
    for (const word of ['harbour', 'boat']) {
      const page = index.search({ phrase: word, mode: 'precise', limit: 5 });
      expect(page.total).toBeGreaterThan(1_000);
      expect(page.ids).toEqual(['best-a', 'best-b', 'best-c', 'best-d', 'best-e']);
    }
  });
});
