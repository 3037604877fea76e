/**
 * Text analysis shared by indexing and querying: the same tokenizer and stemmer run on both
 * sides, so a document token and a query token meet exactly when they should.
 */

// Only text with characters outside printable ASCII needs the (slower) Unicode folding.
const NEEDS_FOLDING = /[^\t\n\r -~]/;
const COMBINING_MARKS = /\p{M}+/gu;
// ASCII apostrophe, right single quotation mark, modifier letter apostrophe, left quote, backtick.
const APOSTROPHES = /['\u2019\u02BC\u2018`]/g;
const HAS_APOSTROPHE = /['\u2019\u02BC\u2018`]/;
const TOKEN = /[\p{L}\p{N}]+/gu;
const WHITE_SPACE = /\s/;

/**
 * Lower-cased tokens of letters and digits. Diacritics are folded (NFKD, combining marks
 * dropped: "Café" → "cafe"), compatibility forms unfolded ("ﬁ" → "fi", full-width digits →
 * digits), apostrophes dropped ("dog's" → "dogs"); every other character separates tokens.
 */
export function tokenize(text: string): string[] {
  return tokenizeAscii(text) ?? tokenizeUnicode(text);
}

function tokenizeUnicode(text: string): string[] {
  let folded = text.toLowerCase();
  if (NEEDS_FOLDING.test(folded)) folded = folded.normalize('NFKD').replace(COMBINING_MARKS, '');
  if (HAS_APOSTROPHE.test(folded)) folded = folded.replace(APOSTROPHES, '');
  return folded.match(TOKEN) ?? [];
}

/**
 * The same rules by a plain scan, for ASCII text (nearly all catalogue text): several times
 * faster than the regular expressions. Undefined as soon as a non-ASCII character shows up.
 */
function tokenizeAscii(text: string): string[] | undefined {
  const tokens: string[] = [];
  const n = text.length;
  let start = -1;
  let apostrophes = false;
  let upper = false;
  for (let i = 0; i <= n; i++) {
    const code = i < n ? text.charCodeAt(i) : 32;
    if (code > 127) return undefined;
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      if (start < 0) start = i;
    } else if (code >= 65 && code <= 90) {
      if (start < 0) start = i;
      upper = true;
    } else if (code === 39 || code === 96) {
      // an apostrophe neither ends nor starts a token: it is dropped from it
      if (start >= 0) apostrophes = true;
    } else if (start >= 0) {
      let token = text.slice(start, i);
      if (apostrophes) token = token.replace(APOSTROPHES, '');
      if (upper) token = token.toLowerCase();
      tokens.push(token);
      start = -1;
      apostrophes = false;
      upper = false;
    }
  }
  return tokens;
}

/** Irregular forms mapped to a regular word before the rules run (the result is stemmed too). */
const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['children', 'child'],
  ['men', 'man'],
  ['women', 'woman'],
  ['businessmen', 'businessman'],
  ['businesswomen', 'businesswoman'],
  ['people', 'person'],
  ['mice', 'mouse'],
  ['geese', 'goose'],
  ['feet', 'foot'],
  ['teeth', 'tooth'],
  ['leaves', 'leaf'],
  ['wolves', 'wolf'],
  ['knives', 'knife'],
  ['wives', 'wife'],
  ['lives', 'life'],
  ['shelves', 'shelf'],
  ['calves', 'calf'],
  ['halves', 'half'],
  ['loaves', 'loaf'],
  ['thieves', 'thief'],
  ['oxen', 'ox'],
  ['dice', 'die'],
  ['canoes', 'canoe'],
]);

/** Words that look inflected but are not (left exactly as they are). */
const INVARIANT: ReadonlySet<string> = new Set([
  'news', 'series', 'species', 'physics', 'politics', 'economics', 'athletics', 'gymnastics',
  'aerobics', 'ethics', 'mathematics', 'always', 'perhaps', 'christmas', 'texas', 'paris',
  'atlas', 'canvas', 'lens', 'chaos', 'thing', 'things', 'during', 'nothing', 'something',
  'anything', 'everything', 'ceiling', 'wedding', 'pudding',
]);

const VOWELS = 'aeiou';

function isVowelAt(word: string, index: number): boolean {
  const char = word[index]!;
  // "y" is a vowel after a consonant ("fly", "try"), a consonant at the start ("yes").
  return VOWELS.includes(char) || (char === 'y' && index > 0 && !VOWELS.includes(word[index - 1]!));
}

function hasVowel(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (isVowelAt(word, i)) return true;
  return false;
}

/** "runn" → "run", "stopp" → "stop"; not "fall", "dress", "buzz", nor a short base ("add"). */
function undouble(base: string): string {
  const n = base.length;
  if (n >= 4 && base[n - 1] === base[n - 2] && !isVowelAt(base, n - 1) && !'lsz'.includes(base[n - 1]!)) {
    return base.slice(0, -1);
  }
  return base;
}

const PLAIN_WORD = /^[a-z]+$/;

/**
 * A light English stemmer, deterministic and deliberately conservative: both sides of a match
 * go through it, so a crude stem is harmless as long as it does not merge unrelated words.
 * Only plain a–z tokens are stemmed; anything with digits or other scripts is returned as is.
 *
 * 0. Irregular forms are mapped first ("children" → "child", "mice" → "mouse"); a short list
 *    of invariant words ("news", "series", "wedding") is returned unchanged, also when it is
 *    what remains after step 1 ("weddings" → "wedding").
 * 1. Plural -s (the one rule that also applies to 3-letter tokens):
 *    -ies → -y when 5+ letters ("cities" → "city"; "ties" → "tie");
 *    -sses → -ss ("glasses" → "glass"); -xes, -ches, -shes, -zzes → drop "es" ("boxes" → "box");
 *    -ss, -us, -is stay ("glass", "bus", "tennis");
 *    -oes → -o when 6+ letters ("tomatoes" → "tomato"), else drop "s" ("shoes" → "shoe");
 *    other -s is dropped when 4+ letters, or 3 letters with a consonant before the "s"
 *    ("dogs" → "dog", "runs" → "run", "tvs" → "tv"; "gas", "yes" stay).
 * 2. One verb/adverb suffix, only on words of 4+ letters, keeping a base of 3+ letters with a
 *    vowel: -ing ("running" → "run", "flying" → "fly"; "sing", "string" stay),
 *    -ied → -y ("carried" → "carry"), -eed stays ("speed", "need"), -ed ("jumped" → "jump",
 *    "stopped" → "stop"), -ily → -y with a 4+ letter base ("happily" → "happy"),
 *    -ly with a 4+ letter base ("quickly" → "quick"; "early", "family" stay).
 *    A doubled final consonant left by -ing/-ed is undoubled ("runn" → "run"), except l, s, z.
 * 3. A final silent "e" after a consonant goes on words of 4+ letters, so that the base form
 *    and the stripped forms meet: "smile", "smiles", "smiled", "smiling" → "smil";
 *    "tree", "blue", "free" keep theirs.
 * -er is deliberately not stripped: in stock vocabulary most -er words are nouns whose
 * stripped form is another word (water, flower, paper, summer, tiger).
 */
export function stem(token: string): string {
  if (token.length < 3 || !PLAIN_WORD.test(token) || INVARIANT.has(token)) return token;
  let word = stripPlural(IRREGULAR.get(token) ?? token);
  if (INVARIANT.has(word)) return word;
  if (word.length >= 4) word = stripSuffix(word);
  if (word.length >= 4 && word.endsWith('e') && !isVowelAt(word, word.length - 2) && word[word.length - 2] !== 'e') {
    word = word.slice(0, -1);
  }
  return word;
}

function stripPlural(word: string): string {
  const n = word.length;
  if (!word.endsWith('s')) return word;
  if (word.endsWith('ies')) return n >= 5 ? word.slice(0, -3) + 'y' : word.slice(0, -1);
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('xes') || word.endsWith('ches') || word.endsWith('shes') || word.endsWith('zzes')) return word.slice(0, -2);
  if (word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('oes')) return n >= 6 ? word.slice(0, -2) : word.slice(0, -1);
  if (n >= 4) return word.slice(0, -1);
  if (n === 3 && !isVowelAt(word, 1)) return word.slice(0, -1);
  return word;
}

function stripSuffix(word: string): string {
  if (word.endsWith('ing')) {
    const base = word.slice(0, -3);
    return base.length >= 3 && hasVowel(base) ? undouble(base) : word;
  }
  if (word.endsWith('ied')) return word.length >= 5 ? word.slice(0, -3) + 'y' : word;
  if (word.endsWith('eed')) return word;
  if (word.endsWith('ed')) {
    const base = word.slice(0, -2);
    return base.length >= 3 && hasVowel(base) ? undouble(base) : word;
  }
  if (word.endsWith('ily')) {
    const base = word.slice(0, -3);
    return base.length >= 4 ? base + 'y' : word;
  }
  if (word.endsWith('ly')) {
    const base = word.slice(0, -2);
    return base.length >= 4 && hasVowel(base) ? base : word;
  }
  return word;
}

/**
 * Stock-photo synonym groups, used only in enhanced mode: a query word of a group also
 * matches the other words of its group (scored below an exact match). Single words only.
 */
export const SYNONYMS: readonly (readonly string[])[] = [
  ['car', 'automobile', 'auto'],
  ['kid', 'child', 'youngster'],
  ['puppy', 'dog', 'canine'],
  ['kitten', 'cat', 'feline'],
  ['ocean', 'sea'],
  ['city', 'urban', 'metropolis'],
  ['photo', 'photograph', 'picture', 'snapshot'],
  ['woman', 'lady', 'female'],
  ['man', 'gentleman', 'male'],
  ['happy', 'joyful', 'cheerful'],
  ['sad', 'unhappy', 'sorrowful'],
  ['beautiful', 'pretty', 'gorgeous', 'lovely'],
  ['big', 'large', 'huge'],
  ['small', 'tiny', 'little'],
  ['fast', 'quick', 'rapid', 'speedy'],
  ['road', 'street', 'highway'],
  ['forest', 'woods', 'woodland'],
  ['mountain', 'peak', 'summit'],
  ['river', 'stream', 'creek'],
  ['sunset', 'dusk', 'sundown'],
  ['sunrise', 'dawn', 'daybreak'],
  ['business', 'corporate', 'commerce'],
  ['office', 'workplace'],
  ['doctor', 'physician', 'medic'],
  ['phone', 'smartphone', 'cellphone', 'mobile'],
  ['laptop', 'notebook'],
  ['money', 'cash', 'currency'],
  ['house', 'home', 'residence'],
  ['boat', 'ship', 'vessel'],
  ['baby', 'infant', 'newborn'],
  ['teenager', 'teen', 'adolescent'],
  ['senior', 'elderly', 'aged'],
  ['friend', 'buddy', 'pal'],
  ['food', 'meal', 'cuisine'],
  ['drink', 'beverage'],
  ['holiday', 'vacation'],
  ['shop', 'store', 'boutique'],
  ['bicycle', 'bike', 'cycle', 'cyclist'],
  ['airplane', 'plane', 'aircraft', 'aeroplane'],
  ['garbage', 'trash', 'rubbish', 'waste'],
  ['autumn', 'fall'],
  ['movie', 'film', 'cinema'],
  ['gift', 'present'],
  ['party', 'celebration', 'festivity'],
  ['teacher', 'instructor', 'tutor'],
  ['rain', 'rainfall', 'downpour'],
];

/** stem → every stem in a synonym group with it (itself included), built once. */
const SYNONYM_STEMS: ReadonlyMap<string, readonly string[]> = (() => {
  const byStem = new Map<string, Set<string>>();
  for (const group of SYNONYMS) {
    const stems = group.map((word) => stem(word));
    for (const own of stems) {
      const set = byStem.get(own) ?? new Set<string>();
      for (const other of stems) set.add(other);
      byStem.set(own, set);
    }
  }
  return new Map([...byStem].map(([key, set]) => [key, [...set]]));
})();

/** The stems of a stem's synonyms (without itself); empty when it is in no group. */
export function synonymStems(termStem: string): readonly string[] {
  const stems = SYNONYM_STEMS.get(termStem);
  return stems ? stems.filter((other) => other !== termStem) : [];
}

/** One part of a query, in the order written. */
export interface QueryClause {
  /** one token for a plain word; a quoted phrase (or a word that splits, "e-mail") has several */
  tokens: string[];
  /** written in quotes: matched literally (no synonyms, no prefixes) */
  quoted: boolean;
  /** written with a leading "-": documents matching it are left out */
  excluded: boolean;
}

export interface ParsedQuery {
  /** required single tokens, each matched on its own (deduplicated, in order) */
  terms: string[];
  /** required phrases: consecutive tokens in one field (a quoted single word is a phrase of one) */
  phrases: string[][];
  /** excluded single tokens */
  excluded: string[];
  /** excluded phrases */
  excludedPhrases: string[][];
  /** every clause in the order written, to render the query back (corrections) */
  clauses: QueryClause[];
}

const MAX_CLAUSES = 64;

/**
 * Splits a search phrase into required terms, quoted phrases and exclusions:
 * `red "golden hour" -night -"black and white"`. An unclosed quote runs to the end; a word
 * that tokenizes into several tokens ("e-mail", "rock'n'roll" stays one) is a phrase.
 */
export function parseQuery(phrase: string): ParsedQuery {
  const clauses: QueryClause[] = [];
  let i = 0;
  const n = phrase.length;
  while (i < n && clauses.length < MAX_CLAUSES) {
    const char = phrase[i]!;
    if (isSpace(char)) {
      i++;
      continue;
    }
    let excluded = false;
    let start = i;
    if (char === '-' && i + 1 < n && !isSpace(phrase[i + 1]!)) {
      excluded = true;
      start = i + 1;
    }
    if (phrase[start] === '"') {
      const close = phrase.indexOf('"', start + 1);
      const end = close === -1 ? n : close;
      const tokens = tokenize(phrase.slice(start + 1, end));
      if (tokens.length > 0) clauses.push({ tokens, quoted: true, excluded });
      i = close === -1 ? n : close + 1;
      continue;
    }
    let end = start;
    while (end < n && !isSpace(phrase[end]!) && phrase[end] !== '"') end++;
    const tokens = tokenize(phrase.slice(start, end));
    if (tokens.length > 0) clauses.push({ tokens, quoted: false, excluded });
    i = end === start ? end + 1 : end;
  }
  const terms: string[] = [];
  const phrases: string[][] = [];
  const excluded: string[] = [];
  const excludedPhrases: string[][] = [];
  for (const clause of clauses) {
    const single = clause.tokens.length === 1 && !clause.quoted;
    if (clause.excluded) {
      if (single) pushUnique(excluded, clause.tokens[0]!);
      else excludedPhrases.push(clause.tokens);
    } else if (single) {
      pushUnique(terms, clause.tokens[0]!);
    } else {
      phrases.push(clause.tokens);
    }
  }
  return { terms, phrases, excluded, excludedPhrases, clauses };
}

/** Whether a character is white space as `\s` has it: ASCII by its code, the rest (rare in a query) by the expression. */
function isSpace(char: string): boolean {
  const code = char.charCodeAt(0);
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return WHITE_SPACE.test(char);
}

function pushUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

/** Writes clauses back as a query string (quotes and minus signs where they were). */
export function renderQuery(clauses: readonly QueryClause[]): string {
  return clauses
    .map((clause) => {
      const body = clause.quoted || clause.tokens.length > 1 ? `"${clause.tokens.join(' ')}"` : clause.tokens[0]!;
      return clause.excluded ? `-${body}` : body;
    })
    .join(' ');
}
