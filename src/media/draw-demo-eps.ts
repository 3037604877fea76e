import { seededRandom } from '../platform/seeded-random.js';

export interface DemoEpsRequest {
  /** Same seed, size, title and palette → byte-identical file. */
  seed: number;
  /** The bounding box, in PostScript points. */
  width: number;
  height: number;
  title: string;
  /** Hex colours (#rgb or #rrggbb) to fill the shapes with, cycled. */
  palette: readonly string[];
}

/**
 * Writes a small vector illustration as an EPS file for the demo catalogue's vector pictures:
 * a flat background, a sun and hills as filled circles, and a few bands, in the picture's
 * palette. Plain PostScript text that any EPS reader places; nothing is rasterised.
 */
export function drawDemoEps({ seed, width, height, title, palette }: DemoEpsRequest): Buffer {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`an EPS bounding box must be positive whole points, got ${width}x${height}`);
  }
  if (palette.length === 0) throw new RangeError('an EPS drawing needs at least one colour');
  const random = seededRandom(seed);
  const colour = (index: number) => rgb(palette[index % palette.length]!);
  const between = (low: number, high: number) => low + (high - low) * random();
  const at = (low: number, high: number) => between(low, high).toFixed(1);
  const shapes: string[] = [`${colour(0)} setrgbcolor 0 0 ${width} ${height} rectfill`];
  // A sun in the sky, then hills rising from below the bottom edge, back to front.
  shapes.push(`${colour(2)} setrgbcolor newpath ${at(0.15 * width, 0.85 * width)} ${at(0.6 * height, 0.85 * height)} ${(between(0.05, 0.1) * Math.min(width, height)).toFixed(1)} 0 360 arc closepath fill`);
  for (let hill = 0; hill < 3; hill += 1) {
    const radius = between(0.4, 0.7) * width;
    const top = between(0.2, 0.45) * height;
    shapes.push(`${colour(3 + hill)} setrgbcolor newpath ${at(0, width)} ${(top - radius).toFixed(1)} ${radius.toFixed(1)} 0 360 arc closepath fill`);
  }
  for (let band = 0; band < 2; band += 1) {
    shapes.push(`${colour(1 + band)} setrgbcolor 0 ${at(0.02 * height, 0.12 * height)} ${width} ${at(2, 6)} rectfill`);
  }
  const lines = [
    '%!PS-Adobe-3.0 EPSF-3.0',
    `%%BoundingBox: 0 0 ${width} ${height}`,
    `%%Title: (${postscriptText(title)})`,
    '%%Creator: Stockroom demo catalogue',
    '%%Pages: 1',
    '%%EndComments',
    'gsave',
    ...shapes,
    'grestore',
    'showpage',
    '%%EOF',
    '',
  ];
  return Buffer.from(lines.join('\n'), 'latin1');
}

/** "#1e90ff" → "0.118 0.565 1.000" */
function rgb(hex: string): string {
  const digits = hex.replace(/^#/, '');
  const full = digits.length === 3 ? [...digits].map((digit) => digit + digit).join('') : digits;
  if (!/^[0-9a-fA-F]{6}$/.test(full)) throw new RangeError(`not a hex colour: ${hex}`);
  return [0, 2, 4].map((offset) => (parseInt(full.slice(offset, offset + 2), 16) / 255).toFixed(3)).join(' ');
}

/** Text inside a PostScript string: printable ASCII, with its parentheses and backslashes escaped. */
function postscriptText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/[\\()]/g, (char) => `\\${char}`)
    .slice(0, 200);
}
