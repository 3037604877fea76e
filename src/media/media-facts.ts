import sharp from 'sharp';

/*
 * Facts computed from an image's pixels at ingest, so that the search filters on them do what
 * they say: the dominant colours (the `color` filter), whether the picture is black and white
 * (`color_type` when the record does not give it) and, from the nudity classifier, how likely it
 * is to show nudity (`exclude_nudity`, `safe_search`). Stored with the asset (see the catalogue's
 * media_facts) and read by search.
 */

/**
 * Raise it whenever computeColourFacts or the classifier's scores change what they produce:
 * `stockroom backfill` then computes the facts again for every asset of an older version.
 */
export const MEDIA_FACTS_VERSION = 1;

export interface DominantColour {
  /** `#rrggbb`, lower case: the mean colour of the pixels of this cluster */
  hex: string;
  /** share of the picture's pixels, 0–1, rounded to three places */
  share: number;
}

/** The nudity classifier's five class probabilities (nsfwjs: they sum to 1). */
export interface NudityScores {
  drawing: number;
  hentai: number;
  neutral: number;
  porn: number;
  sexy: number;
}

export interface MediaFacts {
  version: number;
  /** Up to five, largest share first; each covers at least MIN_DOMINANT_SHARE of the picture. */
  colors: DominantColour[];
  color_type: 'black_and_white' | 'color';
  /** Null when no classifier ran (switched off, or the facts were computed before it was). */
  nudity: NudityScores | null;
}

/**
 * How likely a picture is to show nudity or sexual content, 0–1: the classifier's porn, hentai
 * and sexy probabilities together (everything but neutral and drawing). Search compares it with
 * STOCKROOM_NUDITY_THRESHOLD.
 */
export function nudityScore(scores: NudityScores): number {
  return Math.min(1, scores.porn + scores.hentai + scores.sexy);
}

/** STOCKROOM_NUDITY_THRESHOLD's default: a picture more likely than not to be sexual content. */
export const DEFAULT_NUDITY_THRESHOLD = 0.5;

/** The thumbnail colours are counted on: a few thousand pixels say which colours dominate. */
const THUMB = 64;
/** Levels per RGB channel of the colour grid: 6 × 6 × 6 = 216 cells, the web-safe palette's grid. */
const LEVELS = 6;
const STEP = 255 / (LEVELS - 1);
/** A colour covering less than this share of the picture is not one of its dominant colours. */
const MIN_DOMINANT_SHARE = 0.05;
const MAX_DOMINANT_COLOURS = 5;
/**
 * A pixel is grey when its channels differ by at most this much (of 255): JPEG's chroma noise
 * and a slight tone (a cold or warm print) stay under it, any real colour goes over it.
 */
const GREY_SPREAD = 24;
/** A picture is black and white when at least this share of its pixels is grey. */
const BLACK_AND_WHITE_SHARE = 0.99;

/** The cell of the colour grid a colour falls in, 0–215. */
export function colourCell(r: number, g: number, b: number): number {
  const level = (channel: number) => Math.round(channel / STEP);
  return (level(r) * LEVELS + level(g)) * LEVELS + level(b);
}

function cellCentre(cell: number): [number, number, number] {
  const b = cell % LEVELS;
  const g = Math.floor(cell / LEVELS) % LEVELS;
  const r = Math.floor(cell / (LEVELS * LEVELS));
  return [r * STEP, g * STEP, b * STEP];
}

/**
 * The colours and the colour type of a picture, from a 64×64 thumbnail: pixels are counted in
 * the cells of a 6×6×6 grid of RGB, and each cell holding at least 5 % of them is a dominant
 * colour, reported as the mean of its pixels.
 */
export async function computeColourFacts(file: Buffer): Promise<Pick<MediaFacts, 'colors' | 'color_type'>> {
  const { data, info } = await sharp(file, { failOn: 'error' })
    .rotate()
    .resize(THUMB, THUMB, { fit: 'fill' })
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const channels = info.channels;
  const pixels = info.width * info.height;
  const counts = new Uint32Array(LEVELS ** 3);
  const sums = new Float64Array(LEVELS ** 3 * 3);
  let grey = 0;
  for (let offset = 0; offset < data.length; offset += channels) {
    const r = data[offset]!;
    const g = channels >= 3 ? data[offset + 1]! : r;
    const b = channels >= 3 ? data[offset + 2]! : r;
    if (Math.max(r, g, b) - Math.min(r, g, b) <= GREY_SPREAD) grey += 1;
    const cell = colourCell(r, g, b);
    counts[cell]! += 1;
    sums[cell * 3]! += r;
    sums[cell * 3 + 1]! += g;
    sums[cell * 3 + 2]! += b;
  }
  const colors: DominantColour[] = [];
  for (let cell = 0; cell < counts.length; cell++) {
    const count = counts[cell]!;
    if (count / pixels < MIN_DOMINANT_SHARE) continue;
    const mean = [0, 1, 2].map((c) => Math.round(sums[cell * 3 + c]! / count));
    colors.push({ hex: hexOf(mean[0]!, mean[1]!, mean[2]!), share: Math.round((count / pixels) * 1000) / 1000 });
  }
  colors.sort((a, b) => b.share - a.share || a.hex.localeCompare(b.hex));
  return {
    colors: colors.slice(0, MAX_DOMINANT_COLOURS),
    color_type: grey / pixels >= BLACK_AND_WHITE_SHARE ? 'black_and_white' : 'color',
  };
}

function hexOf(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

/** `#rrggbb` → [r, g, b]; undefined for anything else. */
export function parseHexColour(hex: string): [number, number, number] | undefined {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!match) return undefined;
  const value = Number.parseInt(match[1]!, 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** CIE L*a*b* (D65) of an sRGB colour: distances in it follow what eyes see as different. */
function lab(r: number, g: number, b: number): [number, number, number] {
  const linear = (channel: number) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const [lr, lg, lb] = [linear(r), linear(g), linear(b)];
  const x = (lr * 0.4124 + lg * 0.3576 + lb * 0.1805) / 0.95047;
  const y = lr * 0.2126 + lg * 0.7152 + lb * 0.0722;
  const z = (lr * 0.0193 + lg * 0.1192 + lb * 0.9505) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27) * t / 116 + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/**
 * How far (CIE76 ΔE) a dominant colour may be from the colour asked for and still match. About
 * 25 is "clearly the same colour name, a different shade": #002244 finds navy pictures but not
 * black or royal blue ones.
 */
export const COLOUR_MATCH_DISTANCE = 25;

/**
 * The cells of the colour grid a `color` filter accepts: the cell of the colour asked for and
 * every cell whose centre is within COLOUR_MATCH_DISTANCE of it. A picture matches when one of
 * its dominant colours falls in one of them.
 */
export function colourCellsNear(hex: string): number[] {
  const rgb = parseHexColour(hex);
  if (rgb === undefined) return [];
  const target = lab(...rgb);
  const cells = new Set<number>([colourCell(...rgb)]);
  for (let cell = 0; cell < LEVELS ** 3; cell++) {
    const centre = lab(...cellCentre(cell));
    const distance = Math.hypot(centre[0] - target[0], centre[1] - target[1], centre[2] - target[2]);
    if (distance <= COLOUR_MATCH_DISTANCE) cells.add(cell);
  }
  return [...cells].sort((a, b) => a - b);
}

/** The grid cells of a picture's dominant colours, as search indexes them. */
export function dominantColourCells(colors: readonly DominantColour[]): number[] {
  const cells = new Set<number>();
  for (const colour of colors) {
    const rgb = parseHexColour(colour.hex);
    if (rgb) cells.add(colourCell(...rgb));
  }
  return [...cells];
}

/** A stored media_facts value read back; undefined when absent or not of this shape. */
export function parseStoredFacts(text: string | null): MediaFacts | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as MediaFacts;
    return typeof value === 'object' && value !== null && Array.isArray(value.colors) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** What computes nudity scores (the NudityClassifier, on its worker thread). */
export interface NudityScorer {
  classify(image: Buffer): Promise<NudityScores>;
}

/** Every media fact of a picture: its colours, and its nudity scores when a classifier is given. */
export async function computeMediaFacts(file: Buffer, classifier?: NudityScorer): Promise<MediaFacts> {
  // The classifier runs on its own thread: both go at once.
  const [colours, nudity] = await Promise.all([computeColourFacts(file), classifier ? classifier.classify(file) : Promise.resolve(null)]);
  return { version: MEDIA_FACTS_VERSION, ...colours, nudity };
}

/**
 * Whether stored facts can stand for a picture: of the current version, and classified when a
 * classifier is there to do it.
 */
export function isCurrentFacts(facts: MediaFacts | null | undefined, classifying: boolean): facts is MediaFacts {
  return facts !== null && facts !== undefined && facts.version === MEDIA_FACTS_VERSION && (!classifying || facts.nudity !== null);
}
