import countries from 'i18n-iso-countries';

/*
 * What a picture says about itself: the IPTC, XMP and EXIF metadata photographers' tools and
 * agencies write into the file, read with exifr. Each fact is taken from the first of its
 * sources that has it, in the order the IPTC and Metadata Working Group guidance gives:
 * XMP (Unicode, the current standard), then IPTC IIM (the legacy block most tools still write
 * beside it), then EXIF (the camera's own, where it has the fact at all).
 */

/** The catalogue fields embedded metadata can supply, in the spec's names and the catalogue's forms. */
export interface EmbeddedMetadata {
  title?: string;
  caption?: string;
  keywords?: string[];
  /** The creator (XMP dc:creator, IPTC By-line, EXIF Artist). */
  artist?: string;
  copyright?: string;
  credit_line?: string;
  /** ISO 8601 as written in the file (with its offset when it has one); the manifest parser normalises it. */
  date_created?: string;
  city?: string;
  state_province?: string;
  /** The country's English name, as the catalogue stores countries; from the ISO code when the file has one. */
  country?: string;
}

type Block = Record<string, unknown>;

/** Reads the embedded metadata of an image; a file with none (or none readable) gives an empty object. */
export async function readEmbeddedMetadata(file: Buffer): Promise<EmbeddedMetadata> {
  // exifr is loaded at the first file read, not at start: a serving node that ingests nothing
  // does not hold it (outside the try: a package that cannot load is a fault, not "no metadata").
  const { default: exifr } = await import('exifr');
  let parsed: Record<string, Block | undefined> | undefined;
  try {
    parsed = (await exifr.parse(file, {
      tiff: true,
      exif: true,
      xmp: true,
      iptc: true,
      gps: false,
      icc: false,
      jfif: false,
      ihdr: false,
      interop: false,
      makerNote: false,
      userComment: false,
      // Each block apart: dc:title and IPTC ObjectName must not overwrite each other.
      mergeOutput: false,
      // Dates as written: exifr's own Date objects lose the offset.
      reviveValues: false,
    })) as Record<string, Block | undefined> | undefined;
  } catch {
    // Unreadable metadata is no reason to refuse a picture that decodes: it simply says nothing.
    return {};
  }
  if (!parsed) return {};
  // exifr hands XMP text over with its XML character references still in it (&amp; for &).
  const dc = xmlDecoded(parsed.dc ?? {}) as Block;
  const photoshop = xmlDecoded(parsed.photoshop ?? {}) as Block;
  const iptcCore = xmlDecoded(parsed.Iptc4xmpCore ?? {}) as Block;
  const iptc = parsed.iptc ?? {};
  const ifd0 = parsed.ifd0 ?? {};
  const exif = parsed.exif ?? {};

  const out: EmbeddedMetadata = {};
  const set = <K extends keyof EmbeddedMetadata>(field: K, value: EmbeddedMetadata[K] | undefined) => {
    if (value !== undefined) out[field] = value;
  };
  set('title', firstText(dc.title, iptc.ObjectName, photoshop.Headline, iptc.Headline));
  set('caption', firstText(dc.description, iptc.Caption, ifd0.ImageDescription));
  const keywords = uniqueTexts([...texts(dc.subject), ...texts(iptc.Keywords)]);
  if (keywords.length > 0) out.keywords = keywords;
  set('artist', firstText(dc.creator, iptc.Byline, ifd0.Artist));
  set('copyright', firstText(dc.rights, iptc.CopyrightNotice, ifd0.Copyright));
  set('credit_line', firstText(photoshop.Credit, iptc.Credit));
  set(
    'date_created',
    xmpDate(photoshop.DateCreated) ?? iptcDate(iptc.DateCreated, iptc.TimeCreated) ?? exifDate(exif.DateTimeOriginal, exif.OffsetTimeOriginal),
  );
  set('city', firstText(photoshop.City, iptc.City));
  set('state_province', firstText(photoshop.State, iptc.State));
  set('country', countryName(firstText(iptcCore.CountryCode, iptc.CountryCode), firstText(photoshop.Country, iptc.Country)));
  return out;
}

const XML_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Every text inside a value with XML's character references replaced by the characters. */
function xmlDecoded(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (reference, name: string) => {
      if (name.startsWith('#')) {
        const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
        return code <= 0x10ffff ? String.fromCodePoint(code) : reference;
      }
      return XML_ENTITIES[name] ?? reference;
    });
  }
  if (Array.isArray(value)) return value.map(xmlDecoded);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, xmlDecoded(inner)]));
  return value;
}

/**
 * exifr reads IPTC IIM text as Latin-1, even when the block declares UTF-8 (record 1:90), which
 * is what every current tool writes. Text that is valid UTF-8 once taken back to its bytes was
 * UTF-8; pure ASCII is the same either way, and true Latin-1 text (an é alone) is not valid UTF-8.
 */
function repairedText(text: string): string {
  const codes = [...text].map((character) => character.codePointAt(0)!);
  if (!codes.some((code) => code >= 0x80) || codes.some((code) => code > 0xff)) return text;
  const decoded = Buffer.from(text, 'latin1').toString('utf8');
  return decoded.includes('\uFFFD') ? text : decoded;
}

/** One text of a value: an XMP language alternative ({lang, value}), a list (its first item), or plain text. */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(textOf).find((text) => text !== undefined);
  if (value !== null && typeof value === 'object' && 'value' in value) return textOf((value as { value: unknown }).value);
  if (typeof value !== 'string') return undefined;
  // IIM and EXIF texts may end in NUL padding.
  const text = repairedText(value).replaceAll(String.fromCharCode(0), '').trim();
  return text === '' ? undefined : text;
}

function firstText(...values: unknown[]): string | undefined {
  for (const value of values) {
    const text = textOf(value);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** Every text of a list-valued field (keywords); IPTC keywords may also come as one text separated by commas or semicolons. */
function texts(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(texts);
  const text = textOf(value);
  if (text === undefined) return [];
  return text
    .split(/[;,]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function uniqueTexts(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = value.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** XMP dates are ISO 8601 already (a date, or a date-time with or without an offset). */
function xmpDate(value: unknown): string | undefined {
  const text = textOf(value);
  return text !== undefined && /^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(Date.parse(text.slice(0, 10))) ? text : undefined;
}

/** IPTC 2:55 (CCYYMMDD) and 2:60 (HHMMSS±HHMM). */
function iptcDate(dateValue: unknown, timeValue: unknown): string | undefined {
  const date = /^(\d{4})(\d{2})(\d{2})$/.exec(textOf(dateValue) ?? '');
  if (!date || date[2] === '00' || date[3] === '00') return undefined;
  const day = `${date[1]}-${date[2]}-${date[3]}`;
  const time = /^(\d{2})(\d{2})(\d{2})(?:([+-])(\d{2})(\d{2}))?$/.exec(textOf(timeValue) ?? '');
  if (!time) return day;
  const offset = time[4] ? `${time[4]}${time[5]}:${time[6]}` : '';
  return `${day}T${time[1]}:${time[2]}:${time[3]}${offset}`;
}

/** EXIF "YYYY:MM:DD HH:MM:SS", with the offset EXIF 2.31 keeps beside it when present. */
function exifDate(value: unknown, offsetValue: unknown): string | undefined {
  const match = /^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})/.exec(textOf(value) ?? '');
  if (!match || match[1] === '0000') return undefined;
  const offset = /^[+-]\d{2}:\d{2}$/.test(textOf(offsetValue) ?? '') ? textOf(offsetValue)! : '';
  return `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}${offset}`;
}

const englishNames = new Intl.DisplayNames(['en-US'], { type: 'region', fallback: 'code' });

/**
 * The country as the catalogue stores it: the English name of its ISO 3166 code. The code wins
 * when the file has one (it is unambiguous); otherwise a name that is itself a code is looked up,
 * a name in any language i18n-iso-countries knows of is translated, and any other name is kept.
 */
function countryName(code: string | undefined, name: string | undefined): string | undefined {
  const fromCode = (candidate: string | undefined): string | undefined => {
    if (candidate === undefined || !/^[A-Za-z]{2,3}$/.test(candidate)) return undefined;
    const alpha2 = candidate.length === 3 ? countries.alpha3ToAlpha2(candidate.toUpperCase()) : candidate.toUpperCase();
    return alpha2 && countries.isValid(alpha2) ? englishNames.of(alpha2) : undefined;
  };
  const byCode = fromCode(code) ?? fromCode(name);
  if (byCode !== undefined) return byCode;
  if (name === undefined) return undefined;
  for (const language of countries.langs()) {
    const alpha2 = countries.getAlpha2Code(name, language);
    if (alpha2) return englishNames.of(alpha2);
  }
  return name;
}

/** What runs ffprobe (the video tools of src/media/video). */
export interface ProbeRunner {
  ffprobe(args: readonly string[], options: { timeoutMs: number }): Promise<{ stdout: Buffer }>;
}

/** ffprobe only reads the container's header for its tags: a few seconds is ample. */
const TAGS_TIMEOUT_MS = 30_000;

/**
 * What a video file says about itself: the container's metadata tags (MP4/MOV `©nam`, `©ART`,
 * `©cmt`, `cprt`, the QuickTime keys cameras and editors write; Matroska's tags), as ffprobe
 * reads them. Names are compared without regard to case; a file with none gives an empty object.
 */
export async function readVideoMetadata(tools: ProbeRunner, file: string): Promise<EmbeddedMetadata> {
  let tags: Record<string, string> = {};
  try {
    const run = await tools.ffprobe(['-v', 'error', '-print_format', 'json', '-show_format', file], { timeoutMs: TAGS_TIMEOUT_MS });
    const parsed = JSON.parse(run.stdout.toString('utf8')) as { format?: { tags?: Record<string, unknown> } };
    for (const [name, value] of Object.entries(parsed.format?.tags ?? {})) {
      if (typeof value === 'string') tags[name.toLowerCase()] = value;
    }
  } catch {
    // A file ffprobe cannot read says nothing here; its ingest reports why it is no video.
    tags = {};
  }
  const tag = (...names: string[]) => firstText(...names.map((name) => tags[name]));
  const out: EmbeddedMetadata = {};
  const set = <K extends keyof EmbeddedMetadata>(field: K, value: EmbeddedMetadata[K] | undefined) => {
    if (value !== undefined) out[field] = value;
  };
  set('title', tag('title', 'com.apple.quicktime.title'));
  set('caption', tag('description', 'com.apple.quicktime.description', 'synopsis', 'comment', 'com.apple.quicktime.comment'));
  set('artist', tag('artist', 'com.apple.quicktime.artist', 'author', 'com.apple.quicktime.author'));
  set('copyright', tag('copyright', 'com.apple.quicktime.copyright'));
  const keywords = uniqueTexts(texts(tag('keywords', 'com.apple.quicktime.keywords')));
  if (keywords.length > 0) out.keywords = keywords;
  const date = tag('com.apple.quicktime.creationdate', 'creation_time', 'date');
  // creation_time is when the file was written: the date the footage was shot is the one cameras put in creationdate.
  if (date !== undefined && /^\d{4}-\d{2}-\d{2}/.test(date)) out.date_created = date.replace(/\.\d+(?=Z|[+-]|$)/, '');
  return out;
}
