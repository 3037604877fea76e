import { describe, expect, it } from 'vitest';
import { parseQuery, stem, synonymStems, SYNONYMS, tokenize } from '../../../src/search/engine/analyzer.js';

describe('tokenize', () => {
  it('lower-cases and splits on everything but letters and digits', () => {
    expect(tokenize('Golden Hour, over the BEACH! 4K-ready')).toEqual(['golden', 'hour', 'over', 'the', 'beach', '4k', 'ready']);
  });

  it('folds diacritics', () => {
    expect(tokenize('Café Crème Brûlée naïve Ångström')).toEqual(['cafe', 'creme', 'brulee', 'naive', 'angstrom']);
  });

  it('unfolds compatibility forms (ligatures, full-width digits)', () => {
    expect(tokenize('ﬁsh ＡＢＣ１２')).toEqual(['fish', 'abc12']);
  });

  it('drops apostrophes inside words', () => {
    expect(tokenize("dog's day, the dogs' bowl, rock 'n' roll")).toEqual(['dogs', 'day', 'the', 'dogs', 'bowl', 'rock', 'n', 'roll']);
    expect(tokenize('children’s toys')).toEqual(['childrens', 'toys']);
  });

  it('keeps letters of every script', () => {
    expect(tokenize('Москва 東京 كلب')).toEqual(['москва', '東京', 'كلب']);
  });

  it('gives nothing for text without letters or digits', () => {
    expect(tokenize(' -- !! ')).toEqual([]);
  });
});

describe('stem', () => {
  it('removes plural -s, -es and turns -ies into -y', () => {
    expect(stem('dogs')).toBe('dog');
    expect(stem('boxes')).toBe('box');
    expect(stem('beaches')).toBe('beach');
    expect(stem('cities')).toBe('city');
    expect(stem('glasses')).toBe('glass');
  });

  it('removes verb endings -ing and -ed, undoubling the consonant', () => {
    expect(stem('running')).toBe('run');
    expect(stem('runs')).toBe('run');
    expect(stem('jumped')).toBe('jump');
    expect(stem('stopped')).toBe('stop');
    expect(stem('carried')).toBe('carry');
    expect(stem('flying')).toBe('fly');
  });

  it('removes -ly and turns -ily into -y', () => {
    expect(stem('quickly')).toBe('quick');
    expect(stem('happily')).toBe('happy');
  });

  it('brings a base form and its inflections to one stem', () => {
    const forms = ['smile', 'smiles', 'smiled', 'smiling'];
    expect(new Set(forms.map(stem)).size).toBe(1);
  });

  it('leaves words that only look inflected', () => {
    for (const word of ['glass', 'bus', 'tennis', 'news', 'series', 'thing', 'sing', 'string', 'speed', 'early', 'family', 'water', 'flower']) {
      expect(stem(word), word).toBe(word);
    }
  });

  it('never stems tokens shorter than 4 characters except a plural -s', () => {
    expect(stem('red')).toBe('red');
    expect(stem('bed')).toBe('bed');
    expect(stem('gas')).toBe('gas');
    expect(stem('tvs')).toBe('tv');
  });

  it('maps irregular plurals', () => {
    expect(stem('children')).toBe(stem('child'));
    expect(stem('women')).toBe(stem('woman'));
    expect(stem('mice')).toBe(stem('mouse'));
  });

  it('leaves tokens with digits or other scripts alone', () => {
    expect(stem('1990s')).toBe('1990s');
    expect(stem('москвы')).toBe('москвы');
  });

  it('is deterministic and idempotent on its own stems of plain words', () => {
    for (const word of ['running', 'cities', 'boxes', 'happily', 'stopped']) {
      expect(stem(word)).toBe(stem(word));
      expect(stem(stem(word))).toBe(stem(word));
    }
  });
});

describe('synonyms', () => {
  it('has about forty groups of single words', () => {
    expect(SYNONYMS.length).toBeGreaterThanOrEqual(40);
    for (const group of SYNONYMS) {
      expect(group.length).toBeGreaterThanOrEqual(2);
      for (const word of group) expect(tokenize(word)).toEqual([word]);
    }
  });

  it('links the words of a group both ways, by stem', () => {
    expect(synonymStems(stem('car'))).toContain(stem('automobile'));
    expect(synonymStems(stem('automobile'))).toContain(stem('car'));
    expect(synonymStems(stem('kid'))).toContain(stem('child'));
    expect(synonymStems(stem('ocean'))).toContain(stem('sea'));
    expect(synonymStems(stem('puppy'))).toContain(stem('dog'));
  });

  it('gives nothing for a word in no group', () => {
    expect(synonymStems(stem('zebra'))).toEqual([]);
  });
});

describe('parseQuery', () => {
  it('splits plain words into terms', () => {
    expect(parseQuery('Red  Car').terms).toEqual(['red', 'car']);
  });

  it('separates clauses at any white space, ASCII or not, and reads a minus before one as no exclusion', () => {
    for (const space of [' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\u2003', '\u3000', '\ufeff']) {
      const parsed = parseQuery(`dog${space}-cat${space}"red${space}car"${space}-${space}sun`);
      expect(parsed.terms).toEqual(['dog', 'sun']);
      expect(parsed.excluded).toEqual(['cat']);
      expect(parsed.phrases).toEqual([['red', 'car']]);
    }
    // not white space: a clause goes on through them
    expect(parseQuery('dog\u200bcat').clauses).toHaveLength(1);
  });

  it('keeps a quoted phrase together', () => {
    const parsed = parseQuery('beach "golden hour"');
    expect(parsed.terms).toEqual(['beach']);
    expect(parsed.phrases).toEqual([['golden', 'hour']]);
  });

  it('reads a leading minus as an exclusion, of a word or a phrase', () => {
    const parsed = parseQuery('dog -cat -"black and white"');
    expect(parsed.terms).toEqual(['dog']);
    expect(parsed.excluded).toEqual(['cat']);
    expect(parsed.excludedPhrases).toEqual([['black', 'and', 'white']]);
  });

  it('does not read a hyphen inside a word as an exclusion; a split word is a phrase', () => {
    const parsed = parseQuery('e-mail');
    expect(parsed.excluded).toEqual([]);
    expect(parsed.phrases).toEqual([['e', 'mail']]);
  });

  it('runs an unclosed quote to the end', () => {
    expect(parseQuery('sky "blue sea').phrases).toEqual([['blue', 'sea']]);
  });

  it('counts a repeated word once', () => {
    expect(parseQuery('dog Dog DOG').terms).toEqual(['dog']);
  });

  it('gives nothing for an empty or blank phrase', () => {
    for (const phrase of ['', '   ', '"" -']) {
      const parsed = parseQuery(phrase);
      expect(parsed.terms).toEqual([]);
      expect(parsed.phrases).toEqual([]);
      expect(parsed.excluded).toEqual([]);
    }
  });

  it('keeps the clauses in the order written', () => {
    expect(parseQuery('a "b c" -d').clauses).toEqual([
      { tokens: ['a'], quoted: false, excluded: false },
      { tokens: ['b', 'c'], quoted: true, excluded: false },
      { tokens: ['d'], quoted: false, excluded: true },
    ]);
  });
});
