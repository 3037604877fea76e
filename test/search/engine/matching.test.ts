import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../src/search/engine/analyzer.js';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { doc, filler, indexOf } from './fixtures.js';

const sorted = (ids: string[]): string[] => [...ids].sort();

describe('precise mode', () => {
  const index = indexOf([
    doc('runs', { title: 'dog runs on the beach' }),
    doc('dogs', { title: 'two dogs' }),
    doc('puppy', { title: 'a puppy asleep' }),
    doc('dogma', { title: 'dogma and doctrine' }),
    ...filler(20),
  ]);

  it('matches tokens exactly as written: no stems, synonyms or prefixes', () => {
    expect(index.search({ phrase: 'dog', mode: 'precise' }).ids).toEqual(['runs']);
    expect(index.search({ phrase: 'dogs', mode: 'precise' }).ids).toEqual(['dogs']);
  });

  it('refuses "running dogs" for a document saying "dog runs"', () => {
    expect(index.search({ phrase: 'running dogs', mode: 'precise' }).total).toBe(0);
  });

  it('still ignores case and diacritics (they are the tokenizer’s)', () => {
    expect(index.search({ phrase: 'DÖG', mode: 'precise' }).ids).toEqual(['runs']);
  });
});

describe('enhanced mode', () => {
  const index = indexOf([
    doc('runs', { title: 'dog runs on the beach' }),
    doc('dogs', { title: 'two dogs' }),
    doc('puppy', { title: 'a puppy asleep' }),
    doc('dogma', { title: 'dogma and doctrine' }),
    doc('photographer', { title: 'a photographer at work' }),
    doc('car', { title: 'red automobile' }),
    ...filler(20),
  ]);

  it('is the default', () => {
    expect(index.search({ phrase: 'running dogs' }).ids).toEqual(['runs']);
  });

  it('finds "dog runs" for "running dogs": every word through its stem', () => {
    expect(index.search({ phrase: 'running dogs', mode: 'enhanced' }).ids).toEqual(['runs']);
  });

  it('matches the stem of a word', () => {
    expect(sorted(index.search({ phrase: 'dogs' }).ids)).toEqual(['dogs', 'puppy', 'runs']);
  });

  it('matches synonyms', () => {
    expect(index.search({ phrase: 'car' }).ids).toEqual(['car']);
    expect(index.search({ phrase: 'puppy' }).ids).toContain('dogs');
    expect(index.search({ phrase: 'car', mode: 'precise' }).total).toBe(0);
  });

  it('matches longer words that start with a word of 4 or more characters', () => {
    expect(index.search({ phrase: 'photo' }).ids).toEqual(['photographer']);
    expect(index.search({ phrase: 'photo', mode: 'precise' }).total).toBe(0);
  });

  it('does not expand words shorter than 4 characters as prefixes', () => {
    expect(index.search({ phrase: 'dog' }).ids).not.toContain('dogma');
  });

  it('requires every word (AND), each through any of its variants', () => {
    expect(index.search({ phrase: 'dog beach' }).ids).toEqual(['runs']);
    expect(index.search({ phrase: 'dog doctrine' }).total).toBe(0);
  });

  it('matches no document for a word the index does not have', () => {
    expect(index.search({ phrase: 'zebra' })).toMatchObject({ total: 0, ids: [] });
  });

  it('names the terms a word matches, as the search uses them', () => {
    expect(sorted(index.matchingTerms('dogs'))).toEqual(['dog', 'dogs', 'puppy']);
    expect(index.matchingTerms('photo')).toEqual(['photographer']);
    expect(index.matchingTerms('dogs', 'precise')).toEqual(['dogs']);
    expect(index.matchingTerms('zebra')).toEqual([]);
  });

  it('stems a word only as written: the term look-up ignores case, stemming does not', () => {
    // a search lowercases its words first; a word given with capitals is not a term's stem
    expect(index.matchingTerms('DOGS')).toEqual(['dogs']);
  });
});

describe('phrase match', () => {
  const index = indexOf([
    doc('together', { title: 'beach at golden hour' }),
    doc('apart', { title: 'golden sand, late hour' }),
    doc('reversed', { title: 'hour golden' }),
    doc('split-fields', { title: 'golden', caption: 'hour' }),
    doc('split-keywords', { keywords: ['golden', 'hour glass'] }),
    doc('keyword', { keywords: ['sunset', 'golden hour'] }),
    doc('plural', { caption: 'the golden hours of evening' }),
    ...filler(10),
  ]);

  it('requires the tokens consecutive and in order', () => {
    expect(sorted(index.search({ phrase: '"golden hour"', mode: 'precise' }).ids)).toEqual(['keyword', 'together']);
  });

  it('never spans two fields or two values of a list field', () => {
    const ids = index.search({ phrase: '"golden hour"' }).ids;
    expect(ids).not.toContain('split-fields');
    expect(ids).not.toContain('split-keywords');
  });

  it('matches stems of the phrase words in enhanced mode, not in precise mode', () => {
    expect(sorted(index.search({ phrase: '"golden hour"' }).ids)).toEqual(['keyword', 'plural', 'together']);
  });

  it('combines with plain words', () => {
    expect(index.search({ phrase: 'beach "golden hour"' }).ids).toEqual(['together']);
  });
});

describe('exclusion', () => {
  const index = indexOf([
    doc('dog-cat', { title: 'dog and cat' }),
    doc('dog', { title: 'dog alone' }),
    doc('dog-cats', { title: 'dog among cats' }),
    doc('bw', { title: 'dog in black and white' }),
    ...filler(10),
  ]);

  it('drops documents with an excluded word', () => {
    expect(sorted(index.search({ phrase: 'dog -cat', mode: 'precise' }).ids)).toEqual(['bw', 'dog', 'dog-cats']);
  });

  it('drops the stem forms of an excluded word in enhanced mode', () => {
    expect(sorted(index.search({ phrase: 'dog -cat' }).ids)).toEqual(['bw', 'dog']);
  });

  it('drops documents with an excluded phrase', () => {
    expect(sorted(index.search({ phrase: 'dog -"black and white"' }).ids)).toEqual(['dog', 'dog-cat', 'dog-cats']);
  });

  it('alone, excludes from every document', () => {
    expect(index.search({ phrase: '-dog' }).total).toBe(10);
  });

  it('ignores an excluded word the index does not have', () => {
    expect(index.search({ phrase: 'dog -zebra' }).total).toBe(4);
  });
});

describe('no phrase', () => {
  it('matches every document', () => {
    const index = indexOf(filler(25));
    expect(index.search({}).total).toBe(25);
    expect(index.search({ phrase: '' }).total).toBe(25);
    expect(index.search({ phrase: '  ' }).total).toBe(25);
  });
});

describe('list text fields', () => {
  it('match any of their values', () => {
    const index = indexOf([doc('k', { keywords: ['sunset', 'sea shore'] }), ...filler(5)]);
    expect(index.search({ phrase: 'shore' }).ids).toEqual(['k']);
  });
});

// Prefix look-ups narrow to the terms sharing a word's first three letters by numbers kept
// beside the sorted terms, then search the strings: checked against a scan, with terms crowding
// the same first letters, letters beyond Latin, and terms added since the index was built.
describe('prefix look-ups', () => {
  const random = seededRandom(0x9f1);
  const letters = ['b', 'k', 'q', 'z', 'ж', 'щ', '中', '文'];
  const word = () => Array.from({ length: 3 + Math.floor(random() * 6) }, () => letters[Math.floor(random() * letters.length)]!).join('');
  const early = Array.from({ length: 3_000 }, word);
  const late = Array.from({ length: 1_500 }, word);
  const index = indexOf(early.map((text, i) => doc(`early-${i}`, { title: text })));
  index.search({ phrase: early[0]! });
  late.forEach((text, i) => index.upsert(doc(`late-${i}`, { title: text })));
  const vocabulary = [...new Set([...early, ...late].flatMap((text) => tokenize(text)))];

  it('find every term a word begins, as a scan does', () => {
    let compared = 0;
    for (const term of vocabulary.slice(0, 400)) {
      for (const length of [4, 5]) {
        if (term.length < length) continue;
        const prefix = term.slice(0, length);
        const expected = vocabulary.filter((t) => t.startsWith(prefix) && t !== prefix);
        if (expected.length === 0 || expected.length > 40) continue;
        const found = index.matchingTerms(prefix).filter((t) => t.startsWith(prefix) && t !== prefix);
        expect(sorted(found), prefix).toEqual(sorted(expected));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(200);
  });
});
