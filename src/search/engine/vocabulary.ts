import { stem, synonymStems } from './analyzer.js';
import { boundedEditDistance } from './edit-distance.js';
import { TermDictionary } from './term-dictionary.js';
import { bitCount, ensureCapacity } from './typed-arrays.js';

/** How much a match through a variant counts against a match of the word as written. */
export const VARIANT_FACTOR = { exact: 1, stem: 0.85, synonym: 0.7, prefix: 0.5 } as const;
/** Prefix (partial) matching starts at this many characters ... */
const MIN_PREFIX_LENGTH = 4;
/** ... and adds at most this many vocabulary terms (the most frequent ones). */
const PREFIX_EXPANSION_CAP = 50;
/** New terms are merged into the sorted order (for prefix look-ups) past this many. */
const UNSORTED_TERMS_LIMIT = 1024;
/** A correction must be a term of at least this many live documents. */
const MIN_CORRECTION_FREQUENCY = 2;

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Bit per letter present (a–z; other characters share bits by code): a cheap edit-distance filter. */
function letterMask(term: string): number {
  let mask = 0;
  for (let i = 0; i < term.length; i++) {
    const code = term.charCodeAt(i);
    mask |= 1 << (code >= 97 && code <= 122 ? code - 97 : 26 + (code % 6));
  }
  return mask;
}


/**
 * The terms of the index: dense ids (TermDictionary), live document frequencies, the stem of
 * every term (stem → terms, for enhanced matching), and the terms in string order (prefix
 * look-ups; terms added since the last sort are scanned until there are enough to merge).
 */
export class Vocabulary {
  private dictionary = new TermDictionary();
  /** live documents per term */
  frequency: Uint32Array = new Uint32Array(1024);
  private stems: string[] = [];
  private byStem = new Map<string, number[]>();
  /** each term's entry of byStem (lists only grow, so the reference stays current) */
  private stemGroups: number[][] = [];
  private sorted: Uint32Array = new Uint32Array(0);
  /** each sorted term's position in `sorted`: a term's own prefix look-up starts there */
  private rankOf: Uint32Array = new Uint32Array(0);
  /**
   * each sorted term's first three UTF-16 units as one number (see prefixKey), in the same
   * order: a prefix look-up narrows to its terms through these numbers, touching no string —
   * a binary search over the strings would read a dozen of them from all over the heap
   */
  private sortedKeys: Float64Array = new Float64Array(0);
  private sortedUpTo = 0;
  private masks: Uint32Array = new Uint32Array(0);
  private maskedUpTo = 0;

  get size(): number {
    return this.dictionary.size;
  }

  get terms(): readonly string[] {
    return this.dictionary.terms;
  }

  /** Id of text[start..end) read as a lower-cased ASCII token, or -1. */
  findRange(text: string, start: number, end: number): number {
    return this.dictionary.findRange(text, start, end);
  }

  /** Id of a token, adding it when new. */
  idOf(token: string): number {
    const id = this.dictionary.find(token);
    return id >= 0 ? id : this.add(token);
  }

  add(token: string): number {
    const id = this.dictionary.add(token);
    this.frequency = ensureCapacity(this.frequency, id + 1);
    const termStem = stem(token);
    this.stems[id] = termStem;
    let list = this.byStem.get(termStem);
    if (list) list.push(id);
    else this.byStem.set(termStem, (list = [id]));
    this.stemGroups[id] = list;
    return id;
  }

  /** Replaces every term (ids become positions in `terms`). */
  reset(terms: readonly string[], frequency: Uint32Array, sorted?: Uint32Array): void {
    this.dictionary = new TermDictionary();
    this.stems = [];
    this.byStem = new Map();
    this.stemGroups = [];
    this.frequency = new Uint32Array(1);
    for (const term of terms) this.add(term);
    this.frequency = ensureCapacity(frequency, Math.max(1024, terms.length));
    this.masks = new Uint32Array(0);
    this.maskedUpTo = 0;
    if (sorted !== undefined && sorted.length === terms.length) {
      this.setSorted(sorted);
    } else {
      this.sortInFull();
    }
  }

  /** The ids in string order, all terms included (for snapshots). */
  sortedIds(): Uint32Array {
    this.mergeNewTerms(true);
    return this.sorted;
  }

  private sortInFull(): void {
    const terms = this.terms;
    const ids = Array.from({ length: terms.length }, (_, t) => t);
    ids.sort((a, b) => compareStrings(terms[a]!, terms[b]!));
    this.setSorted(Uint32Array.from(ids));
  }

  /** Takes `sorted` (every term's id, in string order) as the order for prefix look-ups. */
  private setSorted(sorted: Uint32Array): void {
    const terms = this.terms;
    this.sorted = sorted;
    this.sortedKeys = Float64Array.from(sorted, (id) => prefixKey(terms[id]!));
    this.rankOf = new Uint32Array(sorted.length);
    for (let i = 0; i < sorted.length; i++) this.rankOf[sorted[i]!] = i;
    this.sortedUpTo = terms.length;
  }

  private mergeNewTerms(force: boolean): void {
    const unsorted = this.size - this.sortedUpTo;
    if (unsorted === 0 || (!force && unsorted <= UNSORTED_TERMS_LIMIT)) return;
    const terms = this.terms;
    const added = Array.from({ length: unsorted }, (_, i) => this.sortedUpTo + i);
    added.sort((a, b) => compareStrings(terms[a]!, terms[b]!));
    const old = this.sorted;
    const merged = new Uint32Array(old.length + added.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < added.length) {
      merged[k++] = terms[old[i]!]! <= terms[added[j]!]! ? old[i++]! : added[j++]!;
    }
    while (i < old.length) merged[k++] = old[i++]!;
    while (j < added.length) merged[k++] = added[j++]!;
    this.setSorted(merged);
  }

  /**
   * The terms a query token matches, with their factors: the token itself; in enhanced mode
   * also the terms of the same stem; when `expanded` also the stems of its synonyms and, for
   * tokens of 4+ characters, the most frequent terms it (or its stem) is a prefix of.
   * Only terms of live documents are returned.
   */
  variantsOf(token: string, enhanced: boolean, expanded: boolean): Map<number, number> {
    const variants = new Map<number, number>();
    const known = this.dictionary.find(token);
    if (known >= 0 && this.frequency[known]! > 0) variants.set(known, VARIANT_FACTOR.exact);
    if (!enhanced) return variants;
    // a term of the vocabulary (live or not) has its stem and stem group at hand; the dictionary
    // ignores ASCII case, stem() does not: only the term exactly as written takes them
    const asWritten = known >= 0 && this.terms[known] === token;
    const tokenStem = asWritten ? this.stems[known]! : stem(token);
    const group = asWritten ? this.stemGroups[known] : this.byStem.get(tokenStem);
    for (const id of group ?? []) this.addVariant(variants, id, VARIANT_FACTOR.stem);
    if (!expanded) return variants;
    for (const synonym of synonymStems(tokenStem)) {
      for (const id of this.byStem.get(synonym) ?? []) this.addVariant(variants, id, VARIANT_FACTOR.synonym);
    }
    if (token.length >= MIN_PREFIX_LENGTH) {
      const prefixes = tokenStem.length >= MIN_PREFIX_LENGTH && tokenStem !== token ? [token, tokenStem] : [token];
      for (const id of this.prefixTerms(prefixes)) this.addVariant(variants, id, VARIANT_FACTOR.prefix);
    }
    return variants;
  }

  private addVariant(variants: Map<number, number>, id: number, factor: number): void {
    if (this.frequency[id] === 0) return;
    const known = variants.get(id);
    if (known === undefined || known < factor) variants.set(id, factor);
  }

  /**
   * Completions of what a person is typing: the live terms that begin with the prefix, the most
   * documents first (then string order), at most `limit`.
   */
  completions(prefix: string, limit: number): string[] {
    if (prefix === '' || limit <= 0) return [];
    const terms = this.terms;
    const frequency = this.frequency;
    return this.prefixTerms([prefix], Number.MAX_SAFE_INTEGER)
      .sort((a, b) => frequency[b]! - frequency[a]! || compareStrings(terms[a]!, terms[b]!))
      .slice(0, limit)
      .map((id) => terms[id]!);
  }

  /** The most frequent live terms starting with any of the prefixes (at most `cap`). */
  private prefixTerms(prefixes: readonly string[], cap = PREFIX_EXPANSION_CAP): number[] {
    this.mergeNewTerms(false);
    const terms = this.terms;
    const sorted = this.sorted;
    const keys = this.sortedKeys;
    const found = new Set<number>();
    for (const prefix of prefixes) {
      // a sorted term is the first of those it begins; else the terms sharing the prefix's
      // first three units, by their keys, then by the strings
      const known = this.dictionary.find(prefix);
      let low = known >= 0 && known < this.sortedUpTo ? this.rankOf[known]! : -1;
      if (low < 0) {
        const key = prefixKey(prefix);
        low = firstAtLeast(keys, key, 0, keys.length);
        let high = prefix.length >= 3 ? firstAtLeast(keys, key + 1, low, keys.length) : keys.length;
        while (low < high) {
          const middle = (low + high) >>> 1;
          if (terms[sorted[middle]!]! < prefix) low = middle + 1;
          else high = middle;
        }
      }
      for (let i = low; i < sorted.length && terms[sorted[i]!]!.startsWith(prefix); i++) found.add(sorted[i]!);
      for (let t = this.sortedUpTo; t < terms.length; t++) if (terms[t]!.startsWith(prefix)) found.add(t);
    }
    const frequency = this.frequency;
    const live = [...found].filter((t) => frequency[t]! > 0);
    if (live.length <= cap) return live;
    live.sort((a, b) => frequency[b]! - frequency[a]! || compareStrings(terms[a]!, terms[b]!));
    return live.slice(0, cap);
  }

  /**
   * The closest frequent term to a token that matched nothing: edit distance 1 (tokens of
   * 3–5 characters) or up to 2 (longer), then the most documents, then string order.
   * A letter-set check discards almost every term before the edit distance is computed.
   */
  closestTerm(token: string): string | undefined {
    if (token.length < 3) return undefined;
    // One edit for words of up to five letters, two beyond: two edits turn a short word into
    // an unrelated one (woman → omar).
    const limit = token.length <= 5 ? 1 : 2;
    this.updateMasks();
    const masks = this.masks;
    const tokenMask = letterMask(token);
    const terms = this.terms;
    const frequency = this.frequency;
    let best = -1;
    let bestDistance = limit + 1;
    for (let t = 0; t < terms.length; t++) {
      const f = frequency[t]!;
      if (f < MIN_CORRECTION_FREQUENCY) continue;
      // each edit adds at most one letter and removes at most one
      if (bitCount((masks[t]! ^ tokenMask) >>> 0) > 2 * limit) continue;
      const term = terms[t]!;
      if (Math.abs(term.length - token.length) > limit) continue;
      const distance = boundedEditDistance(token, term, limit);
      if (distance > limit) continue;
      if (
        best < 0 ||
        distance < bestDistance ||
        (distance === bestDistance && (f > frequency[best]! || (f === frequency[best] && term < terms[best]!)))
      ) {
        best = t;
        bestDistance = distance;
      }
    }
    return best < 0 ? undefined : terms[best];
  }

  private updateMasks(): void {
    if (this.maskedUpTo === this.size) return;
    this.masks = ensureCapacity(this.masks, this.size);
    for (let t = this.maskedUpTo; t < this.size; t++) this.masks[t] = letterMask(this.terms[t]!);
    this.maskedUpTo = this.size;
  }
}

/**
 * A string's first three UTF-16 units as one number (48 bits, exact), missing units as 0:
 * strings in code-unit order have non-decreasing keys, and every string starting with a
 * prefix of three units or more has that prefix's key.
 */
function prefixKey(text: string): number {
  const length = text.length;
  return (length > 0 ? text.charCodeAt(0) * 0x100000000 : 0) + (length > 1 ? text.charCodeAt(1) * 0x10000 : 0) + (length > 2 ? text.charCodeAt(2) : 0);
}

/** First index in `[low, high)` whose key is ≥ `key` (binary search). */
function firstAtLeast(keys: Float64Array, key: number, low: number, high: number): number {
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}
