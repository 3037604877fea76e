import { downloadSizesFor } from '../../src/media/image-probe.js';
import type { AssetInput, EventInput, KeywordInput } from '../../src/catalog/catalog.records.js';
import { seededRandom } from '../../src/platform/seeded-random.js';
import { syntheticVocabulary } from '../../src/search/engine/synthetic.js';

/*
 * A deterministic synthetic catalogue for the search benchmark: metadata-only image records
 * shaped like the ones the ingest writes (AssetInput, as buildAssetInput hands it to
 * CatalogRepository.upsertAsset when no file comes with a line), over the synthetic
 * vocabulary of src/search/engine/synthetic.ts drawn with a Zipf law.
 *
 * - Titles (5-10 words), captions (15-30 words) and 5-20 "Concept" keywords (one in eight a
 *   two-word expression of two of the 2,000 most frequent words) come from the vocabulary,
 *   so a word's rank says how common it is: ranks 20-120 are in ~3-15% of the assets,
 *   ~2,000 in ~0.2%, ~30,000 in ~0.01%.
 * - Names (artists, people, places, events) are made from syllables that start differently from
 *   every vocabulary word, so that they neither add to a vocabulary word's counts nor meet
 *   one in a prefix look-up.
 * - 30% of the assets are editorial: they belong to an event (Zipf over the events), show one
 *   or two people and carry the editorial segments of their collection.
 *
 * The same (size, seed) gives the same records, in the same order; records are generated
 * one after another, so keep one generator per pass.
 */

export interface CollectionSpec {
  id: number;
  code: string;
  name: string;
  asset_family: 'creative' | 'editorial';
  license_model: 'royaltyfree' | 'rightsmanaged';
  product_types: readonly string[];
  segments: readonly string[];
  weight: number;
}

export const COLLECTIONS: readonly CollectionSpec[] = [
  { id: 1001, code: 'SRC', name: 'Stockroom Creative', asset_family: 'creative', license_model: 'royaltyfree', product_types: ['easyaccess', 'imagepack', 'royaltyfreesubscription'], segments: [], weight: 40 },
  { id: 1002, code: 'SRE', name: 'Stockroom Essentials', asset_family: 'creative', license_model: 'royaltyfree', product_types: ['easyaccess', 'royaltyfreesubscription'], segments: [], weight: 28 },
  { id: 1003, code: 'LUM', name: 'Lumen Signature', asset_family: 'creative', license_model: 'royaltyfree', product_types: ['premiumaccess', 'imagepack'], segments: [], weight: 14 },
  { id: 1004, code: 'VIS', name: 'Vista Images', asset_family: 'creative', license_model: 'royaltyfree', product_types: ['premiumaccess', 'easyaccess'], segments: [], weight: 10 },
  { id: 1005, code: 'ARS', name: 'Archive Select', asset_family: 'creative', license_model: 'rightsmanaged', product_types: ['premiumaccess'], segments: [], weight: 5 },
  { id: 1006, code: 'FAA', name: 'Fine Art Atelier', asset_family: 'creative', license_model: 'rightsmanaged', product_types: ['premiumaccess'], segments: [], weight: 3 },
  { id: 2001, code: 'NWS', name: 'Stockroom News', asset_family: 'editorial', license_model: 'royaltyfree', product_types: ['editorialsubscription', 'premiumaccess'], segments: ['news'], weight: 38 },
  { id: 2002, code: 'SPT', name: 'Stockroom Sport', asset_family: 'editorial', license_model: 'royaltyfree', product_types: ['editorialsubscription', 'premiumaccess'], segments: ['sport'], weight: 30 },
  { id: 2003, code: 'ENT', name: 'Stockroom Entertainment', asset_family: 'editorial', license_model: 'rightsmanaged', product_types: ['editorialsubscription', 'premiumaccess'], segments: ['entertainment', 'publicity'], weight: 20 },
  { id: 2004, code: 'ROY', name: 'Royal Press', asset_family: 'editorial', license_model: 'rightsmanaged', product_types: ['premiumaccess'], segments: ['royalty', 'news'], weight: 5 },
  { id: 2005, code: 'HIS', name: 'Stockroom History', asset_family: 'editorial', license_model: 'rightsmanaged', product_types: ['premiumaccess'], segments: ['archival'], weight: 7 },
];

/** Keyword ids by kind: the ingest takes a given keyword_id as the keyword's id. */
export const KEYWORD_IDS = {
  /** a vocabulary word of rank r */
  word: (rank: number) => 1 + rank,
  /** two words of ranks a, b < EXPRESSION_RANKS */
  expression: (a: number, b: number) => 100_001 + a * EXPRESSION_RANKS + b,
  person: (index: number) => 5_000_001 + index,
  event: (index: number) => 6_000_001 + index,
  place: (index: number) => 7_000_001 + index,
  /** every id is below this */
  limit: 8_000_000,
} as const;

const EXPRESSION_RANKS = 2_000;
const ARTIST_COUNT = 5_000;
const PEOPLE_COUNT = 20_000;
const PLACE_COUNT = 300;
const COUNTRY_COUNT = 40;
const FIRST_EVENT_ID = 300_000;
const FIRST_ASSET_ID = 10_000_000;
const DATE_FROM = Date.UTC(2000, 0, 1);
const DATE_TO = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;

/** Draws ranks 0..n-1 with P(r) ∝ (r + 1)^-exponent: a binary search over the cumulative weights. */
class Zipf {
  private readonly cumulative: Float64Array;

  constructor(n: number, exponent: number) {
    this.cumulative = new Float64Array(n);
    let sum = 0;
    for (let r = 0; r < n; r++) {
      sum += (r + 1) ** -exponent;
      this.cumulative[r] = sum;
    }
    for (let r = 0; r < n; r++) this.cumulative[r] = this.cumulative[r]! / sum;
  }

  draw(random: () => number): number {
    const u = random();
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.cumulative[middle]! < u) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

// Vocabulary words start with one of b d f g k l m n p r s t v z h j (br, tr, st, gr, pl, ch,
// sh, th): names start with none of these.
const NAME_STARTS = ['c', 'w', 'x', 'qu', 'y', 'cr', 'cl', 'wh', 'kw', 'dw', 'sw', 'sk'];
const NAME_VOWELS = ['a', 'e', 'i', 'o', 'u', 'ia', 'eo'];
const NAME_MIDDLES = ['l', 'n', 'r', 'v', 'd', 'ss', 'nt', 'rk', 'm', 'c', 'x'];
const NAME_ENDS = ['', 'n', 'r', 's', 'x', 'lle', 'tt', 'a'];

function names(count: number, seed: number, words: number): string[] {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const word = () => {
    let text = pick(NAME_STARTS) + pick(NAME_VOWELS);
    const middles = Math.floor(random() * 3);
    for (let i = 0; i < middles; i++) text += pick(NAME_MIDDLES) + pick(NAME_VOWELS);
    text += pick(NAME_ENDS);
    return text.charAt(0).toUpperCase() + text.slice(1);
  };
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < count) {
    const name = Array.from({ length: words }, word).join(' ');
    if (seen.has(name)) continue;
    seen.add(name);
    out.push(name);
  }
  return out;
}

const ORIENTATIONS: ReadonlyArray<readonly [string, number, number, number]> = [
  // orientation, weight, width, height
  ['Horizontal', 60, 6000, 4000],
  ['Vertical', 30, 4000, 6000],
  ['Square', 7, 4000, 4000],
  ['PanoramicHorizontal', 2, 9000, 3000],
  ['PanoramicVertical', 1, 3000, 9000],
];
/** The pixel sizes of the catalogue's pictures (max_dimensions), one for each orientation. */
export const PICTURE_SIZES: ReadonlyArray<{ width: number; height: number }> = ORIENTATIONS.map(([, , width, height]) => ({ width, height }));
const CREATIVE_STYLES: ReadonlyArray<readonly [string, number]> = [
  ['Photography', 80],
  ['Illustration', 10],
  ['Vector', 6],
  ['Fine Art', 4],
];
const EVENT_KINDS: ReadonlyArray<readonly [string, string]> = [
  ['Championship', 'sport'],
  ['Grand Prix', 'sport'],
  ['Open', 'sport'],
  ['Summit', 'news'],
  ['Election Night', 'news'],
  ['Premiere', 'entertainment'],
  ['Awards', 'entertainment'],
  ['Festival', 'entertainment'],
  ['Royal Visit', 'royalty'],
  ['Retrospective', 'archival'],
];

function weighted<C extends readonly [unknown, number, ...unknown[]]>(random: () => number, choices: readonly C[]): C {
  let total = 0;
  for (const choice of choices) total += choice[1];
  let u = random() * total;
  for (const choice of choices) {
    u -= choice[1];
    if (u < 0) return choice;
  }
  return choices[choices.length - 1]!;
}

function isoSeconds(time: number): string {
  return `${new Date(time).toISOString().slice(0, 19)}Z`;
}

export interface Place {
  city: string;
  state_province: string;
  country: string;
}

export class SyntheticCatalogue {
  readonly words = syntheticVocabulary();
  readonly artists = names(ARTIST_COUNT, 0xa7, 2);
  readonly people = names(PEOPLE_COUNT, 0x9e0, 2);
  readonly places: Place[];
  readonly eventCount: number;
  private readonly eventPlaces: number[] = [];
  private readonly eventStarts: number[] = [];
  private readonly eventNames: string[] = [];

  constructor(
    readonly size: number,
    readonly seed: number,
  ) {
    const cities = names(PLACE_COUNT, 0xc17, 1);
    const regions = names(PLACE_COUNT, 0x5e9, 1);
    const countries = names(COUNTRY_COUNT, 0xc0, 1);
    this.places = cities.map((city, i) => ({ city, state_province: regions[i]!, country: countries[(i * 7) % COUNTRY_COUNT]! }));
    // About fifty editorial pictures per event on average, whatever the size.
    this.eventCount = Math.min(20_000, Math.max(50, Math.floor(size / 50)));
    const random = seededRandom(seed ^ 0xe7e7);
    const placeZipf = new Zipf(PLACE_COUNT, 1);
    const eventNames = names(this.eventCount, seed ^ 0xe1, 1);
    for (let i = 0; i < this.eventCount; i++) {
      const [kind] = EVENT_KINDS[i % EVENT_KINDS.length]!;
      const start = DATE_FROM + Math.floor(Math.sqrt(random()) * (DATE_TO - DATE_FROM));
      this.eventPlaces.push(placeZipf.draw(random));
      this.eventStarts.push(start);
      this.eventNames.push(`${eventNames[i]} ${kind} ${new Date(start).getUTCFullYear()}`);
    }
  }

  /** The events the editorial assets belong to, as the ingest takes them. */
  events(): EventInput[] {
    return this.eventNames.map((name, i) => {
      const place = this.places[this.eventPlaces[i]!]!;
      return {
        id: FIRST_EVENT_ID + i,
        name,
        start_date: isoSeconds(this.eventStarts[i]!),
        type: 'Event',
        editorial_segments: [EVENT_KINDS[i % EVENT_KINDS.length]![1]],
        location: { city: place.city, country: place.country, state_province: place.state_province, venue: null },
        keywords: [],
      };
    });
  }

  /** Every asset, in id order, as CatalogRepository.upsertAsset receives it from the ingest. */
  *assets(): Generator<AssetInput> {
    const { words, artists, people } = this;
    const random = seededRandom(this.seed);
    const wordZipf = new Zipf(words.length, 1);
    const expressionZipf = new Zipf(EXPRESSION_RANKS, 1);
    const artistZipf = new Zipf(ARTIST_COUNT, 0.9);
    const peopleZipf = new Zipf(PEOPLE_COUNT, 0.9);
    const placeZipf = new Zipf(PLACE_COUNT, 1);
    const eventZipf = new Zipf(this.eventCount, 0.8);
    const creative = COLLECTIONS.filter((c) => c.asset_family === 'creative').map((c) => [c, c.weight] as const);
    const editorial = COLLECTIONS.filter((c) => c.asset_family === 'editorial').map((c) => [c, c.weight] as const);
    const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
    const parts: string[] = [];
    const sentence = (length: number): string => {
      parts.length = 0;
      for (let i = 0; i < length; i++) parts.push(words[wordZipf.draw(random)]!);
      const text = parts.join(' ');
      return text.charAt(0).toUpperCase() + text.slice(1);
    };

    for (let n = 0; n < this.size; n++) {
      const id = String(FIRST_ASSET_ID + n);
      const isEditorial = random() < 0.3;
      const [collection] = weighted(random, isEditorial ? editorial : creative);
      const [orientation, , width, height] = weighted(random, ORIENTATIONS);
      const artist = artists[artistZipf.draw(random)]!;
      const eventIndex = isEditorial ? eventZipf.draw(random) : -1;
      const placeIndex = isEditorial ? this.eventPlaces[eventIndex]! : placeZipf.draw(random);
      const place = this.places[placeIndex]!;
      const created = isEditorial
        ? this.eventStarts[eventIndex]! + Math.floor(random() * 10 * HOUR)
        : DATE_FROM + Math.floor(Math.sqrt(random()) * (DATE_TO - DATE_FROM));
      const submitted = created + Math.floor((isEditorial ? 2 : 24 * (3 + random() * 60)) * HOUR);

      const keywords: KeywordInput[] = [];
      const seen = new Set<number>();
      const addKeyword = (keywordId: number, text: string, type: string, relevance: number) => {
        if (seen.has(keywordId)) return;
        seen.add(keywordId);
        keywords.push({ keyword_id: keywordId, text, type, relevance });
      };
      const conceptCount = between(5, 20);
      for (let attempt = 0; keywords.length < conceptCount && attempt < 4 * conceptCount; attempt++) {
        const relevance = keywords.length < 3 ? 4 : keywords.length < 8 ? 3 : 2;
        if (random() < 0.125) {
          const a = expressionZipf.draw(random);
          const b = expressionZipf.draw(random);
          if (a !== b) addKeyword(KEYWORD_IDS.expression(a, b), `${words[a]} ${words[b]}`, 'Concept', relevance);
        } else {
          const rank = wordZipf.draw(random);
          addKeyword(KEYWORD_IDS.word(rank), words[rank]!, 'Concept', relevance);
        }
      }
      const shown: string[] = [];
      if (isEditorial) {
        const howMany = random() < 0.7 ? 1 : 2;
        for (let i = 0; i < howMany; i++) {
          const person = peopleZipf.draw(random);
          if (shown.includes(people[person]!)) continue;
          shown.push(people[person]!);
          addKeyword(KEYWORD_IDS.person(person), people[person]!, 'Person', 5);
        }
        addKeyword(KEYWORD_IDS.event(eventIndex), this.eventNames[eventIndex]!, 'Event', 5);
      }
      addKeyword(KEYWORD_IDS.place(placeIndex), place.city, 'Location', 3);

      const style = isEditorial ? (random() < 0.97 ? 'Photography' : 'Illustration') : weighted(random, CREATIVE_STYLES)[0];
      const title = sentence(between(5, 10));
      const caption = sentence(between(15, 30));
      const fields: Record<string, unknown> = {
        asset_family: collection.asset_family,
        title,
        caption,
        artist,
        collection_id: collection.id,
        collection_code: collection.code,
        collection_name: collection.name,
        license_model: collection.license_model,
        product_types: [...collection.product_types],
        max_dimensions: { height, width },
        // as ingest derives them from an original (a JPEG of about a third of a byte per pixel)
        download_sizes: downloadSizesFor({ width, height, dpi: 300, bytes: Math.round(width * height * 0.35), media_type: 'image/jpeg' }),
        orientation,
        quality_rank: between(0, 3),
        date_created: isoSeconds(created),
        date_submitted: isoSeconds(submitted),
        graphical_style: style,
        color_type: random() < 0.06 ? 'black_and_white' : 'color',
        city: place.city,
        state_province: place.state_province,
        country: place.country,
        copyright: `© ${new Date(created).getUTCFullYear()} ${artist}`,
        credit_line: `${artist}/${collection.name}`,
        keywords,
      };
      if (isEditorial) {
        fields.editorial_segments = [...collection.segments];
        fields.people = shown;
        fields.event_ids = [FIRST_EVENT_ID + eventIndex];
      }
      yield { asset_type: 'image', id, fields };
    }
  }
}
