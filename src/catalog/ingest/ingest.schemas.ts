import { FormatRegistry, Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError, type ValueErrorIterator } from '@sinclair/typebox/errors';
import type { EventInput, KeywordInput } from '../catalog.records.js';
import { ASSET_PRODUCT_TYPES } from '../product-types.js';
import { EDITORIAL_VIDEO_TYPES, IMAGE_TECHNIQUES, VIEWPOINTS } from '../../search/params/search-values.js';
import { utcDateTime } from '../../platform/http/date-time.js';

/*
 * One line of an ingest manifest: a JSON object describing an image, a video or an
 * event, in the spec's own field names, discriminated by `asset_type`. Everything is
 * strict: a field the spec does not name is an error, never silently dropped.
 *
 * Schemas carry an extra `hint` option (ignored by TypeBox) that completes the
 * sentence "<field> must be …" in error reports.
 */

// ── formats ─────────────────────────────────────────────────────────────────

/** The largest value of a PostgreSQL int4 (integer) column. */
export const INT4_MAX = 2_147_483_647;

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 date or date-time, normalised to the spec's UTC form `YYYY-MM-DDTHH:MM:SSZ`;
 * undefined when the text is not one (wrong shape, or a day that does not exist).
 * A date-time without an offset is taken as UTC.
 */
export function normalizeIsoDate(text: string): string | undefined {
  const match = ISO_DATE.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', , zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
  if (day > daysInMonth) return undefined;
  let offsetMinutes = 0;
  if (zone && zone !== 'Z') {
    const digits = zone.replace(':', '');
    const offsetHours = Number(digits.slice(1, 3));
    const offsetMins = Number(digits.slice(3, 5));
    if (offsetHours > 14 || offsetMins > 59) return undefined;
    offsetMinutes = (digits.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  // Already in UTC (most dates): the text is its own answer, without the two Dates and the
  // formatting that an ingest of millions of lines would pay for each of its dates.
  if (offsetMinutes === 0) return `${y}-${mo}-${d}T${h}:${mi}:${s}Z`;
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute - offsetMinutes, second, 0);
  if (Number.isNaN(instant.getTime())) return undefined;
  return utcDateTime(instant);
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const CLIP_LENGTH = /^(\d{2}):([0-5]\d):([0-5]\d):(\d{2})$/;

/** `HH:MM:SS:FF`: hours, minutes, seconds and a frame number below 60 (the highest frame rate offered). */
export function isClipLength(text: string): boolean {
  const match = CLIP_LENGTH.exec(text);
  return match !== null && Number(match[4]) < 60;
}

// Namespaced, so no other user of TypeBox's global registry can collide with them.
const DATE_FORMAT = 'stockroom-iso8601';
const CLIP_LENGTH_FORMAT = 'stockroom-clip-length';
const INT4_DIGITS_FORMAT = 'stockroom-int4-digits';
FormatRegistry.Set(DATE_FORMAT, (value) => normalizeIsoDate(value) !== undefined);
FormatRegistry.Set(CLIP_LENGTH_FORMAT, isClipLength);
FormatRegistry.Set(INT4_DIGITS_FORMAT, (value) => /^[0-9]{1,10}$/.test(value) && Number(value) <= INT4_MAX);

// ── building blocks ─────────────────────────────────────────────────────────

const strict = { additionalProperties: false } as const;

const NonEmpty = () => Type.String({ minLength: 1 });
const Strings = () => Type.Array(Type.String());
/**
 * A whole number within 0..2147483647 unless narrowed: every integer of a line ends up
 * in an int4 column (ids, ranks, sizes) or beside them, so none may be larger.
 */
const Int = ({ minimum = 0, maximum = INT4_MAX }: { minimum?: number; maximum?: number } = {}) =>
  Type.Integer({ minimum, maximum });
/** An id: 1..2147483647. */
const Int32 = () => Int({ minimum: 1 });
/** A byte count: kept in JSON, not an int4 column, but it must stay exactly representable. */
const ByteCount = () => Int({ maximum: Number.MAX_SAFE_INTEGER });
const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Enum = <const V extends readonly string[]>(values: V) =>
  Type.Union(values.map((value) => Type.Literal(value as V[number])));
const IsoDate = () =>
  Type.String({ format: DATE_FORMAT, hint: 'an ISO 8601 date or date-time, e.g. 2024-05-01 or 2024-05-01T14:30:00Z' });

export const ASSET_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const AssetId = () => Type.String({ pattern: ASSET_ID_PATTERN, hint: "1-64 letters, digits, '_' or '-'" });

export const IMAGE_ORIENTATIONS = ['Horizontal', 'PanoramicHorizontal', 'PanoramicVertical', 'Square', 'Vertical'] as const;
export const VIDEO_ORIENTATIONS = ['horizontal', 'vertical'] as const;
export const EDITORIAL_SEGMENTS = ['archival', 'entertainment', 'news', 'publicity', 'royalty', 'sport'] as const;
export const ASSET_FAMILIES = ['creative', 'editorial'] as const;
export const PARTNER_COLLECTIONS = ['essentials', 'signature'] as const;
export const PARTNER_LICENSE_TYPES = ['Standard', 'Multiseat', 'Unlimited', 'Resale', 'Indemnification'] as const;
export const COLOR_TYPES = ['color', 'black_and_white'] as const;
export const GRAPHICAL_STYLES = ['Photography', 'Fine Art', 'Illustration', 'Vector'] as const;

const AllowedUse = Type.Object(
  {
    how_can_i_use_it: Type.Optional(OrNull(Type.String())),
    release_info: Type.Optional(OrNull(Type.String())),
    usage_restrictions: Type.Optional(Strings()),
  },
  strict,
);

/**
 * The spec's form, an array of {Key, Value}; a plain {key: value} map is accepted too.
 * A key is never empty in either form (a Record's key schema only counts by its pattern).
 */
const AlternativeIds = Type.Union(
  [
    Type.Array(Type.Object({ Key: NonEmpty(), Value: Type.String() }, strict)),
    Type.Record(Type.String({ pattern: '^[\\s\\S]+$' }), Type.String(), { ...strict, keyHint: 'non-empty' }),
  ],
  { hint: 'an array of {Key, Value} or an object of key → value strings' },
);

const LANGUAGE_TAG = '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$';

const KEYWORD_ID_HINT = `a whole number 0-${INT4_MAX}`;

/** The id the repository files a keyword under (an int4): a whole number, given as a number or as digits. */
const KeywordId = Type.Union(
  [Type.String({ format: INT4_DIGITS_FORMAT, hint: `digits of ${KEYWORD_ID_HINT}` }), Int()],
  { hint: `${KEYWORD_ID_HINT} or a string of its digits` },
);

const KeywordObject = Type.Object(
  {
    keyword_id: Type.Optional(KeywordId),
    text: NonEmpty(),
    type: Type.Optional(OrNull(Type.String())),
    relevance: Type.Optional(OrNull(Int({ minimum: 0, maximum: 5 }))),
    entity_uris: Type.Optional(Strings()),
    entity_types: Type.Optional(Strings()),
    translations: Type.Optional(
      Type.Record(Type.String({ pattern: LANGUAGE_TAG }), NonEmpty(), { ...strict, keyHint: 'a language tag such as de or pt-BR' }),
    ),
  },
  strict,
);

const AssetKeyword = Type.Union([NonEmpty(), KeywordObject], { hint: 'a string or a keyword object {text, …}' });

const EventKeyword = Type.Union(
  [
    NonEmpty(),
    Type.Object(
      {
        keyword_id: Type.Optional(Type.Union([Type.String(), Int()], { hint: `a string or ${KEYWORD_ID_HINT}` })),
        text: NonEmpty(),
        type: Type.Optional(OrNull(Type.String())),
      },
      strict,
    ),
  ],
  { hint: 'a string or a keyword object {text, type?, keyword_id?}' },
);

const MaxDimensions = Type.Object({ height: Int({ minimum: 1 }), width: Int({ minimum: 1 }) }, strict);
const Link = Type.Object({ rel: NonEmpty(), uri: NonEmpty() }, strict);
const ReferralDestination = Type.Object({ site_name: NonEmpty(), uri: NonEmpty() }, strict);
const PartnerLicense = Type.Object({ license_type: Enum(PARTNER_LICENSE_TYPES), credits: Int() }, strict);
const EditorialSource = Type.Object({ id: Int32(), name: Type.Optional(OrNull(Type.String())) }, strict);
/**
 * Nudity scores a library already holds (its own moderation), in the classifier's five classes,
 * each 0–1. They stand for the classifier's: given, the picture is not classified again.
 */
const Probability = () => Type.Number({ minimum: 0, maximum: 1 });
const NudityScores = Type.Object(
  { drawing: Probability(), hentai: Probability(), neutral: Probability(), porn: Probability(), sexy: Probability() },
  strict,
);

/** Entity details have no published shape: each is an object of free properties. */
const EntityDetail = Type.Object({}, { additionalProperties: true });

const ImageDownloadSize = Type.Object(
  {
    bytes: Type.Optional(OrNull(ByteCount())),
    height: Int({ minimum: 1 }),
    width: Int({ minimum: 1 }),
    media_type: Type.Optional(OrNull(Type.String())),
    name: Type.Optional(OrNull(Type.String())),
    dpi: Type.Optional(OrNull(Int({ minimum: 1 }))),
  },
  strict,
);

const VideoDownloadSize = Type.Object(
  {
    bytes: Type.Optional(OrNull(ByteCount())),
    bit_depth: Type.Optional(OrNull(Type.String())),
    compression: Type.Optional(OrNull(Type.String())),
    content_type: Type.Optional(OrNull(Type.String())),
    description: Type.Optional(OrNull(Type.String())),
    format: Type.Optional(OrNull(Type.String())),
    frame_rate: Type.Optional(OrNull(Type.Number({ exclusiveMinimum: 0 }))),
    frame_size: Type.Optional(OrNull(Type.String())),
    height: Int({ minimum: 1 }),
    interlaced: Type.Optional(OrNull(Type.Boolean())),
    name: Type.Optional(OrNull(Type.String())),
    width: Int({ minimum: 1 }),
  },
  strict,
);

/** Fields images and videos share, all optional. */
const commonFields = {
  id: AssetId(),
  file: Type.Optional(Type.String({ minLength: 1, hint: 'a path relative to the media folder' })),
  allowed_use: Type.Optional(AllowedUse),
  artist: Type.Optional(NonEmpty()),
  asset_family: Type.Optional(Enum(ASSET_FAMILIES)),
  call_for_image: Type.Optional(Type.Boolean()),
  caption: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  collection_code: Type.Optional(
    Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$', hint: "1-32 letters, digits, '_' or '-'" }),
  ),
  collection_id: Type.Optional(Int32()),
  collection_name: Type.Optional(NonEmpty()),
  color_type: Type.Optional(Enum(COLOR_TYPES)),
  copyright: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
  date_created: Type.Optional(IsoDate()),
  date_submitted: Type.Optional(IsoDate()),
  download_product: Type.Optional(Type.String()),
  editorial_segments: Type.Optional(Type.Array(Enum(EDITORIAL_SEGMENTS))),
  /** false keeps the asset off other sites: no uri_oembed, no oEmbed answer, no embed page. Absent: embeddable. */
  embeddable: Type.Optional(Type.Boolean()),
  entity_details: Type.Optional(Type.Array(EntityDetail)),
  event_ids: Type.Optional(Type.Array(Int32())),
  is_ai_editable: Type.Optional(Type.Boolean()),
  keywords: Type.Optional(Type.Array(AssetKeyword)),
  max_dimensions: Type.Optional(MaxDimensions),
  nudity_scores: Type.Optional(NudityScores),
  object_name: Type.Optional(Type.String()),
  partner_collection: Type.Optional(Enum(PARTNER_COLLECTIONS)),
  partner_licenses: Type.Optional(Type.Array(PartnerLicense)),
  people: Type.Optional(Strings()),
  product_types: Type.Optional(Type.Array(Enum(ASSET_PRODUCT_TYPES))),
  referral_destinations: Type.Optional(Type.Array(ReferralDestination)),
  state_province: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
};

export const ImageLine = Type.Object(
  {
    asset_type: Type.Literal('image'),
    ...commonFields,
    alternative_ids: Type.Optional(AlternativeIds),
    artist_title: Type.Optional(Type.String()),
    credit_line: Type.Optional(Type.String()),
    date_camera_shot: Type.Optional(IsoDate()),
    download_sizes: Type.Optional(Type.Array(ImageDownloadSize)),
    editorial_source: Type.Optional(EditorialSource),
    /** the image's EPS (vector) original, beside the raster `file`: file_types=eps, downloads with file_type=eps */
    eps_file: Type.Optional(Type.String({ minLength: 1, hint: "a path, relative to the media folder, of the image's EPS (vector) file" })),
    graphical_style: Type.Optional(Enum(GRAPHICAL_STYLES)),
    license_model: Type.Optional(Enum(['royaltyfree', 'rightsmanaged'] as const)),
    links: Type.Optional(Type.Array(Link)),
    orientation: Type.Optional(Enum(IMAGE_ORIENTATIONS)),
    prestige: Type.Optional(Type.Boolean()),
    quality_rank: Type.Optional(Int()),
  },
  strict,
);

export const VideoLine = Type.Object(
  {
    asset_type: Type.Literal('video'),
    ...commonFields,
    file: Type.Optional(Type.String({ minLength: 1, hint: 'a path, relative to the media folder, of a video file (MP4, MOV, anything ffprobe reads) or of a poster still image' })),
    aspect_ratio: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,3}(\\.[0-9]{1,3})?:[0-9]{1,3}(\\.[0-9]{1,3})?$', hint: 'a ratio such as 16:9' }),
    ),
    clip_length: Type.Optional(Type.String({ format: CLIP_LENGTH_FORMAT, hint: 'a clip length HH:MM:SS:FF, e.g. 00:00:21:12' })),
    download_sizes: Type.Optional(Type.Array(VideoDownloadSize)),
    /** raw footage or a produced (edited) piece: the editorial_video_types filter */
    editorial_video_type: Type.Optional(Enum(EDITORIAL_VIDEO_TYPES)),
    era: Type.Optional(Type.String()),
    /** true: every release the clip needs is held (release_status=fully_released); wins over allowed_use.release_info */
    fully_released: Type.Optional(Type.Boolean()),
    /** techniques beyond what shot_speed and color_type say (animation, selective_focus …): the image_techniques filter */
    image_techniques: Type.Optional(Type.Array(Enum(IMAGE_TECHNIQUES))),
    license_model: Type.Optional(Enum(['royaltyfree', 'rightsmanaged', 'rightsready'] as const)),
    mastered_to: Type.Optional(Type.String()),
    orientation: Type.Optional(Enum(VIDEO_ORIENTATIONS)),
    originally_shot_on: Type.Optional(Type.String()),
    quality_rank: Type.Optional(Int({ minimum: 0, maximum: 4 })),
    shot_speed: Type.Optional(Type.String()),
    source: Type.Optional(Type.String()),
    /** camera viewpoints (aerial_view, tracking_shot …): the viewpoints filter */
    viewpoints: Type.Optional(Type.Array(Enum(VIEWPOINTS))),
  },
  strict,
);

export const EventLine = Type.Object(
  {
    asset_type: Type.Literal('event'),
    id: Int32(),
    name: NonEmpty(),
    start_date: Type.Optional(IsoDate()),
    parent_id: Type.Optional(Int32()),
    type: Type.Optional(Type.String()),
    editorial_segments: Type.Optional(Type.Array(Enum(EDITORIAL_SEGMENTS))),
    hero_image_id: Type.Optional(AssetId()),
    location: Type.Optional(
      Type.Object(
        {
          city: Type.Optional(OrNull(Type.String())),
          country: Type.Optional(OrNull(Type.String())),
          state_province: Type.Optional(OrNull(Type.String())),
          venue: Type.Optional(OrNull(Type.String())),
        },
        strict,
      ),
    ),
    keywords: Type.Optional(Type.Array(EventKeyword)),
  },
  strict,
);

// ── parsed records ──────────────────────────────────────────────────────────

type Normalized<T> = Omit<T, 'keywords' | 'alternative_ids'> & {
  keywords?: KeywordInput[];
  alternative_ids?: Array<{ Key: string; Value: string }>;
};

/** A validated image line: plain-string keywords become {text}, alternative_ids an array, dates UTC. */
export type ImageManifestRecord = Normalized<Static<typeof ImageLine>>;
export type VideoManifestRecord = Normalized<Static<typeof VideoLine>>;
export type EventManifestRecord = EventInput & { asset_type: 'event' };
export type AssetManifestRecord = ImageManifestRecord | VideoManifestRecord;
export type ManifestRecord = AssetManifestRecord | EventManifestRecord;

export type ParseResult = { ok: true; record: ManifestRecord } | { ok: false; reason: string };

/** One problem of a record: the top-level field it is in ('record' for the record as a whole) and ingest's message. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A record checked field by field: every problem, each with its field, in ingest's own words. */
export type CheckResult = { ok: true; record: ManifestRecord } | { ok: false; problems: FieldProblem[] };

/** The field a problem of the record as a whole is filed under. */
export const WHOLE_RECORD = 'record';

const CHECKS: Record<ManifestRecord['asset_type'], { schema: TSchema; check: TypeCheck<TSchema> }> = {
  image: { schema: ImageLine, check: TypeCompiler.Compile(ImageLine) },
  video: { schema: VideoLine, check: TypeCompiler.Compile(VideoLine) },
  event: { schema: EventLine, check: TypeCompiler.Compile(EventLine) },
};

/** How many problems one reason lists before it says "and N more". */
const MAX_REPORTED = 3;

/** Validates one manifest line (already JSON-parsed) and normalises it; the reason names the field and the fault. */
export function parseManifestLine(value: unknown): ParseResult {
  const checked = checkManifestLine(value);
  return checked.ok ? checked : { ok: false, reason: reasonOfProblems(checked.problems) };
}

/**
 * parseManifestLine with every problem apart, filed under its field: what the back office shows
 * beside each field of a form. One check and one set of messages for both.
 */
export function checkManifestLine(value: unknown): CheckResult {
  const refuse = (field: string, message: string): CheckResult => ({ ok: false, problems: [{ field, message }] });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refuse(WHOLE_RECORD, 'a manifest line must be a JSON object');
  }
  const prototypeKey = findPrototypeKey(value);
  if (prototypeKey !== undefined) return refuse(prototypeKey.split('/')[0]!, `unknown field '${prototypeKey}'`);
  const assetType = (value as Record<string, unknown>).asset_type;
  if (assetType === undefined) return refuse('asset_type', "missing field 'asset_type' (image, video or event)");
  // An own-key test: 'constructor' or 'toString' must not find Object.prototype's members.
  if (typeof assetType !== 'string' || !Object.hasOwn(CHECKS, assetType)) {
    return refuse('asset_type', `asset_type must be one of image, video, event; got ${show(assetType)}`);
  }
  const { schema, check } = CHECKS[assetType as ManifestRecord['asset_type']];
  const candidate = withoutNullOptionals(value as Record<string, unknown>, schema);
  if (!check.Check(candidate)) return { ok: false, problems: problemsOf(check.Errors(candidate)) };
  const normalized = normalize(candidate as Static<typeof ImageLine> | Static<typeof VideoLine> | Static<typeof EventLine>);
  return normalized.ok ? normalized : refuse('parent_id', normalized.reason);
}

/**
 * The path of a `__proto__` key anywhere in a line, or undefined. JSON.parse makes
 * such a key an ordinary own property, but copying it by assignment (`out[key] = …`,
 * Object.assign) sets the copy's prototype instead, so the field would vanish unreported;
 * no field of the spec is called that, so it is refused wherever it appears.
 */
function findPrototypeKey(line: object): string | undefined {
  // Almost no line has one: looked for first without making the paths, which cost more than the search.
  if (!hasPrototypeKey(line)) return undefined;
  // Depth first with a stack of its own: a deeply nested free-form field must not overflow the call stack.
  const pending: Array<{ value: unknown; path: string }> = [{ value: line, path: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value !== 'object' || value === null) continue;
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index): [string, unknown] => [String(index), item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      if (key === '__proto__' && !Array.isArray(value)) return `${path}${key}`;
      pending.push({ value: item, path: `${path}${key}/` });
    }
  }
  return undefined;
}

/** Whether an object anywhere in `line` has a `__proto__` key of its own (findPrototypeKey without the path). */
function hasPrototypeKey(line: object): boolean {
  const pending: unknown[] = [line];
  for (let value = pending.pop(); value !== undefined || pending.length > 0; value = pending.pop()) {
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    if (Object.hasOwn(value, '__proto__')) return true;
    for (const key in value) pending.push((value as Record<string, unknown>)[key]);
  }
  return false;
}

/**
 * A null in an optional top-level field means "no value", as in the API's responses,
 * so it is dropped before validation. Unknown fields are kept, to be reported.
 */
function withoutNullOptionals(value: Record<string, unknown>, schema: TSchema): Record<string, unknown> {
  const properties = schema.properties as Record<string, TSchema>;
  const required = new Set<string>(schema.required as string[]);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null && Object.hasOwn(properties, key) && !required.has(key)) continue;
    // Defined, not assigned, when it is `__proto__`: a key is copied as a field whatever its name.
    if (key === '__proto__') Object.defineProperty(out, key, { value: field, enumerable: true, writable: true, configurable: true });
    else out[key] = field;
  }
  return out;
}

function normalize(line: Static<typeof ImageLine> | Static<typeof VideoLine> | Static<typeof EventLine>): ParseResult {
  if (line.asset_type === 'event') {
    if (line.parent_id === line.id) return { ok: false, reason: 'parent_id must not be the event’s own id' };
    const { keywords, ...rest } = line;
    const record: EventManifestRecord = { ...rest };
    if (line.start_date !== undefined) record.start_date = normalizeIsoDate(line.start_date)!;
    if (keywords) {
      record.keywords = keywords.map((k) =>
        typeof k === 'string'
          ? { text: k }
          : { text: k.text, type: k.type ?? null, keyword_id: k.keyword_id === undefined ? null : String(k.keyword_id) },
      );
    }
    return { ok: true, record };
  }
  const { keywords, alternative_ids, ...rest } = line as Static<typeof ImageLine>;
  const record = { ...rest } as AssetManifestRecord;
  const dates = record as Record<string, unknown>;
  for (const name of ['date_created', 'date_submitted', 'date_camera_shot']) {
    if (typeof dates[name] === 'string') dates[name] = normalizeIsoDate(dates[name] as string);
  }
  if (keywords) record.keywords = keywords.map((k) => (typeof k === 'string' ? { text: k } : { ...k }));
  if (alternative_ids !== undefined) {
    (record as ImageManifestRecord).alternative_ids = Array.isArray(alternative_ids)
      ? alternative_ids.map(({ Key, Value }) => ({ Key, Value }))
      : Object.entries(alternative_ids).map(([Key, Value]) => ({ Key, Value }));
  }
  return { ok: true, record };
}

// ── readable errors ─────────────────────────────────────────────────────────

/** Every problem once per path, in the validator's order, under its top-level field. */
function problemsOf(errors: ValueErrorIterator): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seenPaths = new Set<string>();
  for (const error of errors) {
    // A missing field is reported once, not again as "must be a string".
    if (seenPaths.has(error.path)) continue;
    seenPaths.add(error.path);
    const field = unescapePointer(error.path.split('/')[1] ?? '');
    problems.push({ field: field === '' ? WHOLE_RECORD : field, message: describe(error) });
  }
  return problems;
}

/** A line's one reason: its first problems, and how many more. */
export function reasonOfProblems(problems: readonly FieldProblem[]): string {
  const reasons = problems.slice(0, MAX_REPORTED).map((problem) => problem.message);
  const more = problems.length - reasons.length;
  if (more > 0) reasons.push(`and ${more} more problem${more === 1 ? '' : 's'}`);
  return reasons.join('; ');
}

function fieldName(path: string): string {
  const trimmed = unescapePointer(path.replace(/^\//, ''));
  return trimmed === '' ? 'the record' : trimmed;
}

function unescapePointer(text: string): string {
  return text.replace(/~1/g, '/').replace(/~0/g, '~');
}

function describe(error: ValueError): string {
  const where = fieldName(error.path);
  const schema = error.schema as TSchema & Record<string, unknown>;
  switch (error.type) {
    case ValueErrorType.ObjectAdditionalProperties:
      if (schema.patternProperties) {
        // The path ends in the refused key, which may be empty.
        const slash = error.path.lastIndexOf('/');
        const key = unescapePointer(error.path.slice(slash + 1));
        const keyHint = String(schema.keyHint ?? 'valid');
        return `${fieldName(error.path.slice(0, slash))}: key ${show(key)} is not allowed; keys must be ${keyHint}`;
      }
      return `unknown field '${where}'${suggestion(error.path, schema)}`;
    case ValueErrorType.ObjectRequiredProperty:
      return `missing field '${where}'`;
    case ValueErrorType.Union:
      return describeUnion(error, where);
    case ValueErrorType.Literal:
      return `${where} must be ${show(schema.const)}`;
    case ValueErrorType.String:
      return `${where} must be a string${got(error.value)}`;
    case ValueErrorType.Integer:
      return `${where} must be a whole number${got(error.value)}`;
    case ValueErrorType.Number:
      return `${where} must be a number${got(error.value)}`;
    case ValueErrorType.Boolean:
      return `${where} must be true or false${got(error.value)}`;
    case ValueErrorType.Array:
      return `${where} must be an array${got(error.value)}`;
    case ValueErrorType.Object:
      return `${where} must be an object${got(error.value)}`;
    case ValueErrorType.Null:
      return `${where} must be null`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `${where} must be ≤ ${String(schema.maximum)}${got(error.value)}`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `${where} must be ≥ ${String(schema.minimum)}${got(error.value)}`;
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return `${where} must be > ${String(schema.exclusiveMinimum)}${got(error.value)}`;
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1 ? `${where} must not be empty` : `${where} must be at least ${String(schema.minLength)} characters`;
    case ValueErrorType.StringMaxLength:
      return `${where} must be at most ${String(schema.maxLength)} characters`;
    case ValueErrorType.StringPattern:
      return `${where} must be ${String(schema.hint ?? `text matching ${String(schema.pattern)}`)}${got(error.value)}`;
    case ValueErrorType.StringFormat:
      return `${where} must be ${String(schema.hint ?? `in the ${String(schema.format)} format`)}${got(error.value)}`;
    default:
      return `${where}: ${error.message}`;
  }
}

/**
 * A union fails as a whole; the useful message is the one from the variant the value was
 * evidently meant to be (the one of the same JSON kind), e.g. the keyword object's
 * `relevance must be ≤ 5` rather than "expected a string or an object".
 */
function describeUnion(error: ValueError, where: string): string {
  const schema = error.schema as TSchema & { anyOf: TSchema[]; hint?: string };
  const variants = schema.anyOf;
  if (variants.every((variant) => 'const' in variant)) {
    return `${where} must be one of ${variants.map((variant) => String(variant.const)).join(', ')}${got(error.value)}`;
  }
  const kind = jsonKind(error.value);
  for (const [index, variant] of variants.entries()) {
    if (!kindsOf(variant).includes(kind)) continue;
    const first = error.errors[index]?.First();
    if (first) return describe(first);
  }
  const expected = schema.hint ?? variants.flatMap(kindsOf).join(' or ');
  return `${where} must be ${expected}${got(error.value)}`;
}

type JsonKind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';

function jsonKind(value: unknown): JsonKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return type;
  return 'object';
}

function kindsOf(schema: TSchema): JsonKind[] {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as TSchema[]).flatMap(kindsOf);
  if ('const' in schema) return [jsonKind(schema.const)];
  const type = schema.type as string | undefined;
  if (type === 'integer' || type === 'number') return ['number'];
  if (type === 'string' || type === 'boolean' || type === 'null' || type === 'array' || type === 'object') return [type];
  return [];
}

/** " (did you mean 'title'?)" for a misspelt field of an object, or nothing when no known field is close. */
function suggestion(path: string, objectSchema: TSchema): string {
  const properties = objectSchema.properties as Record<string, TSchema> | undefined;
  if (!properties) return '';
  const unknown = unescapePointer(path.slice(path.lastIndexOf('/') + 1));
  const meant = closestName(unknown, Object.keys(properties));
  return meant === undefined ? '' : ` (did you mean '${meant}'?)`;
}

/**
 * The known name nearest to a misspelt one, ignoring case: at most one edit away for a short
 * name, two for a longer one (an edit: a letter added, dropped, changed or two swapped), and
 * never more than a third of the name; undefined when none is that close or two are equally close.
 */
export function closestName(misspelt: string, known: readonly string[]): string | undefined {
  const word = misspelt.toLowerCase();
  const allowed = Math.min(word.length < 6 ? 1 : 2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = allowed + 1;
  let tied = false;
  for (const name of known) {
    const distance = editDistance(word, name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
      tied = false;
    } else if (distance === bestDistance) {
      tied = true;
    }
  }
  return best !== undefined && !tied ? best : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return Math.abs(a.length - b.length);
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = distance;
    }
  }
  return rows[a.length]![b.length]!;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

function got(value: unknown): string {
  return value === undefined ? '' : ` (got ${show(value)})`;
}
