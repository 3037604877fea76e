import { seededRandom } from '../../platform/seeded-random.js';
import type { IndexDocument, IndexSchema } from './types.js';

/**
 * A deterministic synthetic catalogue for benchmarks: made-up words from syllables drawn with a
 * Zipf law (a few very common words, a long tail of rare ones), stock-like attribute columns
 * with skewed value counts, and numbers for the sorts. The same (count, seed) gives the same
 * documents, and a longer run starts with the documents of a shorter one.
 */

export const SYNTHETIC_VOCABULARY_SIZE = 50_000;
const ARTIST_COUNT = 5_000;
const LOCATION_COUNT = 300;
const EVENT_COUNT = 20_000;
const COLLECTION_COUNT = 40;
const DATE_FROM = Date.UTC(2000, 0, 1);
const DATE_TO = Date.UTC(2025, 0, 1);

/** The schema the synthetic documents fill: what a stock-media index carries. */
export const SYNTHETIC_SCHEMA: IndexSchema = {
  textFields: { title: 3, caption: 1, keywords: 2 },
  keywordAttributes: [
    'asset_family',
    'orientation',
    'collection_code',
    'license_model',
    'graphical_style',
    'editorial_segments',
    'artist',
    'location',
    'event_id',
    'product_types',
  ],
  numericAttributes: ['date', 'popularity', 'quality'],
};

const ONSETS = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'tr', 'st', 'gr', 'pl', 'ch', 'sh', 'th', 'h', 'j'];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ea', 'y'];
const CODAS = ['', '', '', '', 'n', 'r', 'l', 'm', 'k', 't'];

function makeWords(count: number, seed: number, minSyllables: number, maxSyllables: number): string[] {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const seen = new Set<string>();
  const words: string[] = [];
  while (words.length < count) {
    const syllables = minSyllables + Math.floor(random() * (maxSyllables - minSyllables + 1));
    let word = '';
    for (let s = 0; s < syllables; s++) word += pick(ONSETS) + pick(NUCLEI) + pick(CODAS);
    if (seen.has(word)) continue;
    seen.add(word);
    words.push(word);
  }
  return words;
}

let vocabulary: readonly string[] | undefined;

/**
 * The synthetic vocabulary in rank order: word 0 is the most frequent. Shorter words rank
 * higher, as in natural language. Fixed (independent of the documents' seed), so a benchmark
 * can name a common (rank ~50), medium (~2,000) or rare (~30,000) word.
 */
export function syntheticVocabulary(): readonly string[] {
  if (vocabulary === undefined) {
    const words = makeWords(SYNTHETIC_VOCABULARY_SIZE, 0x5eed, 1, 4);
    const random = seededRandom(0xc0ffee);
    const keyed = words.map((word) => ({ word, key: word.length + random() * 2.5 }));
    keyed.sort((a, b) => a.key - b.key);
    vocabulary = keyed.map((entry) => entry.word);
  }
  return vocabulary;
}

/** Samples ranks 0..n-1 with P(r) ∝ 1 / (r + 1)^exponent, in O(1) per sample (Walker's alias method). */
class ZipfSampler {
  private readonly probability: Float64Array;
  private readonly alias: Uint32Array;
  private readonly n: number;

  constructor(n: number, exponent: number) {
    this.n = n;
    const weights = new Float64Array(n);
    let total = 0;
    for (let r = 0; r < n; r++) {
      weights[r] = 1 / Math.pow(r + 1, exponent);
      total += weights[r]!;
    }
    this.probability = new Float64Array(n);
    this.alias = new Uint32Array(n);
    const scaled = weights.map((weight) => (weight * n) / total);
    const small: number[] = [];
    const large: number[] = [];
    scaled.forEach((value, r) => (value < 1 ? small : large).push(r));
    while (small.length > 0 && large.length > 0) {
      const s = small.pop()!;
      const l = large[large.length - 1]!;
      this.probability[s] = scaled[s]!;
      this.alias[s] = l;
      scaled[l] = scaled[l]! + scaled[s]! - 1;
      if (scaled[l]! < 1) {
        large.pop();
        small.push(l);
      }
    }
    for (const r of large) this.probability[r] = 1;
    for (const r of small) this.probability[r] = 1;
  }

  sample(random: () => number): number {
    const u = random() * this.n;
    const index = Math.floor(u);
    return u - index < this.probability[index]! ? index : this.alias[index]!;
  }
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function weighted<T>(random: () => number, choices: ReadonlyArray<readonly [T, number]>): T {
  let total = 0;
  for (const [, weight] of choices) total += weight;
  let u = random() * total;
  for (const [value, weight] of choices) {
    u -= weight;
    if (u < 0) return value;
  }
  return choices[choices.length - 1]![0];
}

const ORIENTATIONS = [
  ['horizontal', 60],
  ['vertical', 30],
  ['square', 7],
  ['panoramic_horizontal', 2],
  ['panoramic_vertical', 1],
] as const;
const GRAPHICAL_STYLES = [
  ['photography', 85],
  ['illustration', 8],
  ['vector', 5],
  ['fine_art', 2],
] as const;
const QUALITIES = [
  [0, 10],
  [1, 30],
  [2, 35],
  [3, 20],
  [4, 5],
] as const;
const SEGMENTS = ['sport', 'news', 'entertainment', 'archival', 'publicity', 'royalty'];
const PRODUCT_TYPES = ['easyaccess', 'editorialsubscription', 'imagepack', 'premiumaccess', 'royaltyfreesubscription'];

function distinctPicks(random: () => number, list: readonly string[], howMany: number): string[] {
  const picked: string[] = [];
  while (picked.length < howMany) {
    const value = list[Math.floor(random() * list.length)]!;
    if (!picked.includes(value)) picked.push(value);
  }
  return picked;
}

/** `count` synthetic documents, ids "10000000", "10000001", … */
export function* syntheticDocuments(count: number, seed: number): Iterable<IndexDocument> {
  const words = syntheticVocabulary();
  const artists = makeWords(ARTIST_COUNT, 0xa1, 2, 3).map((first, i) => `${capitalized(first)} ${capitalized(words[(i * 7919) % words.length]!)}`);
  const locations = makeWords(LOCATION_COUNT, 0x10c, 2, 4).map(capitalized);
  const collections = Array.from({ length: COLLECTION_COUNT }, (_, i) => String.fromCharCode(65 + (i % 26)) + String.fromCharCode(65 + ((i * 7 + 3) % 26)) + (i >= 26 ? 'X' : ''));
  const wordSampler = new ZipfSampler(words.length, 1.0);
  const artistSampler = new ZipfSampler(ARTIST_COUNT, 0.9);
  const locationSampler = new ZipfSampler(LOCATION_COUNT, 1.0);
  const eventSampler = new ZipfSampler(EVENT_COUNT, 0.8);
  const collectionSampler = new ZipfSampler(COLLECTION_COUNT, 1.1);
  const random = seededRandom(seed);
  const between = (low: number, high: number): number => low + Math.floor(random() * (high - low + 1));
  const parts: string[] = [];
  // joined, not concatenated: a flat string, like text read from a store
  const sentence = (length: number): string => {
    parts.length = 0;
    for (let i = 0; i < length; i++) parts.push(words[wordSampler.sample(random)]!);
    return parts.join(' ');
  };

  for (let i = 0; i < count; i++) {
    const editorial = random() < 0.3;
    const keywordCount = between(5, 20);
    const keywords: string[] = [];
    for (let attempt = 0; keywords.length < keywordCount && attempt < 4 * keywordCount; attempt++) {
      // one keyword in eight is a two-word expression
      const keyword = random() < 0.125 ? sentence(2) : words[wordSampler.sample(random)]!;
      if (!keywords.includes(keyword)) keywords.push(keyword);
    }
    const title = sentence(between(5, 10));
    const caption = sentence(between(15, 30));
    const licenseModel = editorial ? (random() < 0.6 ? 'royaltyfree' : 'rightsmanaged') : random() < 0.95 ? 'royaltyfree' : 'rightsmanaged';
    const recency = Math.sqrt(random());
    const popularity = Math.min(10_000_000, Math.floor(Math.pow(1 - random(), -1.5)) - 1);
    yield {
      id: String(10_000_000 + i),
      text: { title, caption, keywords },
      keywords: {
        asset_family: [editorial ? 'editorial' : 'creative'],
        orientation: [weighted(random, ORIENTATIONS)],
        collection_code: [collections[collectionSampler.sample(random)]!],
        license_model: [licenseModel],
        graphical_style: [weighted(random, GRAPHICAL_STYLES)],
        editorial_segments: editorial ? distinctPicks(random, SEGMENTS, between(1, 2)) : [],
        artist: [artists[artistSampler.sample(random)]!],
        location: [locations[locationSampler.sample(random)]!],
        event_id: editorial ? [String(100_000 + eventSampler.sample(random))] : [],
        product_types: distinctPicks(random, PRODUCT_TYPES, between(1, 3)),
      },
      numbers: {
        date: Math.floor(DATE_FROM + recency * (DATE_TO - DATE_FROM)),
        popularity,
        quality: weighted(random, QUALITIES),
      },
    };
  }
}
