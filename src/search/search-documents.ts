import type { AssetRecord, EventRecord, StoredKeyword } from '../catalog/catalog.records.js';
import type { IndexDocument, IndexSchema } from './engine/types.js';
import { dominantColourCells, nudityScore } from '../media/media-facts.js';
import { IMAGE_TECHNIQUES, VIEWPOINTS } from './params/search-values.js';
import { epsOriginalOf } from '../catalog/eps-original.js';

/*
 * How catalogue records become search documents: which text is searched with what weight,
 * and which attributes filters and facets read. Policies are data; this file is the table.
 */

/**
 * Raise it whenever assetDocument or eventDocument change what they produce: snapshots made
 * with other documents are then rebuilt rather than loaded.
 */
export const SEARCH_DOCUMENT_VERSION = 7;

export const ASSET_INDEX_SCHEMA: IndexSchema = {
  // A word in the title says more about a picture than one in its caption.
  textFields: { title: 3, keywords: 2, people: 2, caption: 1 },
  keywordAttributes: [
    'asset_type',
    'asset_family',
    'orientation',
    'license_model',
    'collection_code',
    'graphical_style',
    'editorial_segment',
    'event_id',
    'keyword_id',
    'artist',
    'artist_key',
    'person',
    'location',
    'product_type',
    'download_product',
    'color_type',
    'mood',
    'number_of_people',
    'ethnicity',
    'composition',
    'age_of_people',
    'aspect_ratio',
    'prestige',
    // 'eps' when the image has an EPS (vector) original (file_types)
    'file_type',
    // cells of the colour grid (media-facts.ts) holding the picture's dominant colours
    'color',
    // a video's download sizes: sd, hd, 4k, hd_web (format_available) and their frame rates
    'video_format',
    'frame_rate',
    // 'true' when other sites may embed the asset (embed_content_only)
    'embeddable',
    // the entity URIs of the asset's keywords (entity_uris)
    'entity_uri',
    // 'true' for what is for editorial use only (exclude_editorial_use_only)
    'editorial_use_only',
    // videos only, the facts of the video searches' filters: editorial_video_types, image_techniques,
    // release_status ('fully_released' or nothing) and viewpoints
    'editorial_video_type',
    'image_technique',
    'release_status',
    'viewpoint',
  ],
  numericAttributes: ['date', 'popularity', 'quality', 'long_edge', 'clip_seconds', 'quality_rank', 'nudity'],
  // keyword_ids / exclude_keyword_ids filter on it, no facet counts it: a dozen values an asset, kept per value alone
  filterOnlyAttributes: ['keyword_id'],
};

export const EVENT_INDEX_SCHEMA: IndexSchema = {
  textFields: { name: 3, keywords: 2, location: 1 },
  keywordAttributes: ['editorial_segment'],
  numericAttributes: ['date'],
};

/**
 * Keyword types whose keywords are also filter values: a record tagged with the keyword
 * {text: "Two People", type: "NumberOfPeople"} passes `number_of_people=two`.
 * Texts are compared in snake case, through the alias table of their attribute.
 */
const KEYWORD_TYPE_ATTRIBUTES: ReadonlyMap<string, string> = new Map([
  ['mood', 'mood'],
  ['numberofpeople', 'number_of_people'],
  ['ethnicity', 'ethnicity'],
  ['composition', 'composition'],
  ['age', 'age_of_people'],
  ['ageofpeople', 'age_of_people'],
  ['imagetechnique', 'image_technique'],
  // the shorter name some libraries' keyword vocabularies use
  ['technique', 'image_technique'],
  ['viewpoint', 'viewpoint'],
]);

/** Keyword types as stored, each to its attribute or null: a catalogue has a handful, and a boot's scan meets one with every keyword. */
const attributeByStoredType = new Map<string, string | null>();
/** Types remembered at most: they are data, and a catalogue of arbitrary ones must not grow the map for good. */
const MAX_REMEMBERED_TYPES = 1000;

/** The filter attribute of a keyword type ("Number of People" → number_of_people), or null for a type no filter reads. */
function attributeOfType(type: string): string | null {
  let attribute = attributeByStoredType.get(type);
  if (attribute === undefined) {
    attribute = KEYWORD_TYPE_ATTRIBUTES.get(type.toLowerCase().replace(/[^a-z]/g, '')) ?? null;
    if (attributeByStoredType.size < MAX_REMEMBERED_TYPES) attributeByStoredType.set(type, attribute);
  }
  return attribute;
}

const VALUE_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  number_of_people: {
    no_people: 'none',
    nobody: 'none',
    one_person: 'one',
    only_one_person: 'one',
    two_people: 'two',
    group_of_people: 'group',
    three_people: 'group',
    large_group_of_people: 'group',
  },
  ethnicity: { east_asian_ethnicity: 'east_asian', hispanic: 'hispanic_latinx', latinx: 'hispanic_latinx' },
  composition: { close_up: 'close_up', full_length: 'full_length', head_shot: 'headshot' },
  // also read for shot_speed ("Real Time") and color_type
  image_technique: {
    real_time: 'realtime',
    timelapse: 'time_lapse',
    color_image: 'color',
    colour_image: 'color',
    colour: 'color',
    black_and_white_image: 'black_and_white',
    monochrome: 'black_and_white',
    animated: 'animation',
  },
  viewpoint: {
    lock_down: 'lockdown',
    locked_down: 'lockdown',
    locked_off: 'lockdown',
    pan: 'panning',
    tracking: 'tracking_shot',
    aerial: 'aerial_view',
    high_angle: 'high_angle_view',
    low_angle: 'low_angle_view',
    tilting: 'tilt',
    personal_perspective: 'point_of_view',
    pov: 'point_of_view',
  },
};

const IMAGE_TECHNIQUE_VALUES: ReadonlySet<string> = new Set(IMAGE_TECHNIQUES);
const VIEWPOINT_VALUES: ReadonlySet<string> = new Set(VIEWPOINTS);

/** The values of a set that a filter's list holds, in snake case through the attribute's aliases. */
function filterValues(attribute: string, values: Iterable<string>, allowed: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const value of values) {
    const snake = snakeCase(value);
    const canonical = VALUE_ALIASES[attribute]?.[snake] ?? snake;
    if (allowed.has(canonical)) found.add(canonical);
  }
  return [...found];
}

/** "Editorial use only", however it is cased, spaced or punctuated around it. */
const EDITORIAL_USE_ONLY = /\beditorial use only\b/;

/** Lower case, every run of anything but letters and digits one space. */
function words(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/**
 * Whether an asset is for editorial use only (exclude_editorial_use_only leaves it out): every
 * editorial asset, and a creative one whose `allowed_use.usage_restrictions` say so.
 */
export function isEditorialUseOnly(fields: Record<string, unknown>): boolean {
  if (fields.asset_family === 'editorial') return true;
  const allowedUse = fields.allowed_use as { usage_restrictions?: unknown } | null | undefined;
  return list(allowedUse?.usage_restrictions).some((restriction) => EDITORIAL_USE_ONLY.test(words(restriction)));
}

/** `allowed_use.release_info` texts that say every release is held. */
const FULL_RELEASE = /^(?:model and property released|fully released)\b/;

/**
 * Whether every release an asset needs is held (release_status=fully_released): the ingest field
 * `fully_released` when given, else `allowed_use.release_info` reading "Model and property
 * released" (or "Fully released"). "Model released" or "Property released" alone may leave the
 * other one wanting, so they do not count.
 */
export function isFullyReleased(fields: Record<string, unknown>): boolean {
  if (typeof fields.fully_released === 'boolean') return fields.fully_released;
  const releaseInfo = (fields.allowed_use as { release_info?: unknown } | null | undefined)?.release_info;
  return typeof releaseInfo === 'string' && FULL_RELEASE.test(words(releaseInfo));
}

/**
 * A typed keyword's text as its filter's value: snake case, except that an age range keeps its
 * hyphen ("20-24 Years" → 20-24_years, as age_of_people writes it).
 */
function typedKeywordValue(attribute: string, text: string): string {
  const value = snakeCase(text);
  return attribute === 'age_of_people' ? value.replace(/^(\d+)_(\d+)_/, '$1-$2_') : value;
}

/** Printable ASCII: its own NFC and NFKD form, without marks (anything else takes the long way, as before). */
const ASCII = /^[ -~]*$/;

/** An artist name as filters compare it: Unicode NFC, spaces trimmed and collapsed, lower case. */
export function artistKey(name: string): string {
  // ASCII is its own NFC form; normalize() costs a copy of every name of a boot's scan
  return (ASCII.test(name) ? name : name.normalize('NFC')).trim().replace(/\s+/g, ' ').toLowerCase();
}

/** "Black and White" → black_and_white */
export function snakeCase(text: string): string {
  // ASCII has no marks to strip and is its own NFKD form: most values, once per asset at a boot
  const letters = ASCII.test(text) ? text : text.normalize('NFKD').replace(/\p{M}/gu, '');
  return letters
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** Image orientations as stored (Horizontal, PanoramicHorizontal…) to the filter values (horizontal, panoramic_horizontal…). */
function orientationValue(orientation: unknown): string[] {
  if (typeof orientation !== 'string' || !orientation) return [];
  return [snakeCase(orientation.replace(/([a-z])([A-Z])/g, '$1_$2'))];
}

const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number').map(String) : [];
const one = (value: unknown): string[] => (typeof value === 'string' && value ? [value] : typeof value === 'number' ? [String(value)] : []);
const epochSeconds = (value: unknown): number | null => {
  if (typeof value !== 'string') return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : Math.floor(time / 1000);
};

/** "00:01:02:12" (HH:MM:SS:FF) → 62 */
export function clipSeconds(clipLength: unknown): number | null {
  if (typeof clipLength !== 'string') return null;
  const match = /^(\d{2}):(\d{2}):(\d{2})(?::\d{2})?$/.exec(clipLength);
  return match ? Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]) : null;
}

/**
 * The video formats (format_available) a clip's download sizes offer: 4k, hd (720 lines or
 * more), sd (fewer), and hd_web for the lightweight HD file (the size named "HD Web").
 */
export function videoFormatsOf(downloadSizes: unknown): string[] {
  if (!Array.isArray(downloadSizes)) return [];
  const formats = new Set<string>();
  for (const size of downloadSizes as Array<Record<string, unknown>>) {
    const width = typeof size.width === 'number' ? size.width : 0;
    const height = typeof size.height === 'number' ? size.height : 0;
    const shortEdge = Math.min(width, height);
    if (shortEdge <= 0) continue;
    if (typeof size.name === 'string' && /^hd web\b/i.test(size.name)) formats.add('hd_web');
    else formats.add(shortEdge >= 2160 ? '4k' : shortEdge >= 720 ? 'hd' : 'sd');
  }
  return [...formats];
}

/** The frame rates (frame_rates) of a clip's download sizes, written as the filter's values are (29.97, 25). */
export function frameRatesOf(downloadSizes: unknown): string[] {
  if (!Array.isArray(downloadSizes)) return [];
  const rates = (downloadSizes as Array<Record<string, unknown>>)
    .map((size) => size.frame_rate)
    .filter((rate): rate is number => typeof rate === 'number' && rate > 0)
    .map((rate) => String(Math.round(rate * 100) / 100));
  return [...new Set(rates)];
}

/*
 * A boot's scan makes a document of every asset: loops rather than flatMap, whose array for
 * each keyword was the garbage of a dozen keywords an asset, ten million times.
 */

/** Each keyword's text, then its translations, in the keywords' order. */
function keywordTexts(keywords: readonly StoredKeyword[]): string[] {
  const texts: string[] = [];
  for (const keyword of keywords) {
    texts.push(keyword.text);
    for (const language in keyword.translations) texts.push(keyword.translations[language]!);
  }
  return texts;
}

/** The keywords' entity URIs, each once, in order of first appearance. */
function entityUris(keywords: readonly StoredKeyword[]): string[] {
  const uris = new Set<string>();
  for (const keyword of keywords) for (const uri of keyword.entity_uris ?? []) uris.add(uri);
  return [...uris];
}

/** The search document of an image or video. */
export function assetDocument(record: AssetRecord): IndexDocument {
  const f = record.fields;
  const keywords = (f.keywords as StoredKeyword[] | undefined) ?? [];
  const typed: Record<string, Set<string>> = {};
  for (const keyword of keywords) {
    const attribute = keyword.type ? attributeOfType(keyword.type) : null;
    if (!attribute) continue;
    const value = typedKeywordValue(attribute, keyword.text);
    (typed[attribute] ??= new Set()).add(VALUE_ALIASES[attribute]?.[value] ?? value);
  }
  const moods = typed.mood ?? new Set<string>();
  if (f.color_type === 'black_and_white') moods.add('black_and_white');
  const location = [f.city, f.state_province, f.country].filter((part): part is string => typeof part === 'string' && part !== '');
  const qualityRank = typeof f.quality_rank === 'number' ? f.quality_rank : null;
  const video = record.asset_type === 'video';
  return {
    id: record.id,
    text: {
      title: typeof f.title === 'string' ? f.title : '',
      caption: typeof f.caption === 'string' ? f.caption : '',
      keywords: keywordTexts(keywords),
      people: list(f.people),
    },
    keywords: {
      asset_type: [record.asset_type],
      asset_family: one(f.asset_family),
      orientation: record.asset_type === 'image' ? orientationValue(f.orientation) : one(f.orientation),
      license_model: one(f.license_model),
      collection_code: one(f.collection_code),
      graphical_style: one(f.graphical_style).map(snakeCase),
      editorial_segment: list(f.editorial_segments),
      event_id: list(f.event_ids),
      keyword_id: keywords.map((k) => k.keyword_id),
      artist: one(f.artist),
      artist_key: one(f.artist).map(artistKey),
      person: list(f.people),
      location: location.length > 0 ? [location.join(', ')] : [],
      product_type: list(f.product_types),
      download_product: one(f.download_product),
      color_type: one(f.color_type),
      mood: [...moods],
      number_of_people: [...(typed.number_of_people ?? [])],
      ethnicity: [...(typed.ethnicity ?? [])],
      composition: [...(typed.composition ?? [])],
      age_of_people: [...(typed.age_of_people ?? [])],
      aspect_ratio: one(f.aspect_ratio),
      video_format: record.asset_type === 'video' ? videoFormatsOf(f.download_sizes) : [],
      frame_rate: record.asset_type === 'video' ? frameRatesOf(f.download_sizes) : [],
      prestige: f.prestige === true ? ['true'] : [],
      file_type: epsOriginalOf(f) !== undefined ? ['eps'] : [],
      // The embed module's rule (src/embed): not withdrawn by the ingest field, and a comp to show.
      embeddable: f.embeddable !== false && record.original !== null ? ['true'] : [],
      color: dominantColourCells(record.media_facts?.colors ?? []).map(String),
      entity_uri: entityUris(keywords),
      editorial_use_only: isEditorialUseOnly(f) ? ['true'] : [],
      editorial_video_type: video ? one(f.editorial_video_type) : [],
      // The ingest field, the shot speed ("Time Lapse"), the colour type and ImageTechnique keywords.
      image_technique: video
        ? filterValues(
            'image_technique',
            [...list(f.image_techniques), ...one(f.shot_speed), ...one(f.color_type), ...(typed.image_technique ?? [])],
            IMAGE_TECHNIQUE_VALUES,
          )
        : [],
      release_status: video && isFullyReleased(f) ? ['fully_released'] : [],
      viewpoint: video ? filterValues('viewpoint', [...list(f.viewpoints), ...(typed.viewpoint ?? [])], VIEWPOINT_VALUES) : [],
    },
    numbers: {
      date: epochSeconds(f.date_created),
      // most_popular: how often the asset has been downloaded (licensed)
      popularity: record.downloads ?? 0,
      // quality_rank: 0 is best (the spec's video rule; images follow it), so quality is its negation.
      quality: qualityRank === null ? null : -qualityRank,
      long_edge: record.width !== null && record.height !== null ? Math.max(record.width, record.height) : null,
      clip_seconds: clipSeconds(f.clip_length),
      quality_rank: qualityRank,
      // Never classified: below every score, so a nudity filter keeps it (see nudityFilter).
      nudity: record.media_facts?.nudity ? nudityScore(record.media_facts.nudity) : -1,
    },
  };
}

/** The search document of an editorial event. */
export function eventDocument(event: EventRecord): IndexDocument {
  const location = [event.location.venue, event.location.city, event.location.state_province, event.location.country].filter(
    (part): part is string => typeof part === 'string' && part !== '',
  );
  return {
    id: String(event.id),
    text: { name: event.name, keywords: event.keywords.map((k) => k.text), location: location.join(' ') },
    keywords: { editorial_segment: event.editorial_segments },
    numbers: { date: epochSeconds(event.start_date) },
  };
}
