import { seededRandom } from '../platform/seeded-random.js';
import sharp from 'sharp';

export interface DemoImageRequest {
  /** Same seed, size, title and palette → byte-identical JPEG. */
  seed: number;
  width: number;
  height: number;
  /** Printed small in the bottom-left corner, like a caption burnt into a proof. */
  title: string;
  /** Hex colours (#rgb or #rrggbb) to paint with, in order: sky top, horizon, sun, far land, near land, accent. Cycled when shorter. */
  palette?: string[];
}

/** Largest edge accepted; the demo never needs more and it bounds the render time. */
const MAX_EDGE = 8000;

/**
 * Paints a believable abstract "photograph" for the demo catalogue: a gradient
 * sky over land or water, a few shapes chosen by the seed, and the title in a
 * corner. Drawn as SVG and rendered by sharp, with no filters or blurs so the
 * demo can seed hundreds quickly.
 */
export async function drawDemoImage(request: DemoImageRequest): Promise<Buffer> {
  return sharp(Buffer.from(demoImageSvg(request)))
    .jpeg({ quality: 84 })
    .toBuffer();
}

/** The SVG behind drawDemoImage; exposed so the drawing can be inspected without rendering. */
export function demoImageSvg({ seed, width, height, title, palette }: DemoImageRequest): string {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`demo image size must be positive whole pixels, got ${width}x${height}`);
  }
  if (width > MAX_EDGE || height > MAX_EDGE) {
    throw new RangeError(`demo image edges are limited to ${MAX_EDGE}px, got ${width}x${height}`);
  }
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
  const random = seededRandom(seed);
  const colours = palette === undefined ? pick(random, DEFAULT_PALETTES) : paletteFrom(palette);
  const canvas: Canvas = { width, height, random, colours };
  const scene = pick(random, SCENES);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    scene(canvas),
    edgeShade(canvas),
    caption(canvas, title),
    '</svg>',
  ].join('');
}

// ---------------------------------------------------------------------------
// Colours and randomness

interface Colours {
  skyTop: string;
  horizon: string;
  sun: string;
  far: string;
  near: string;
  accent: string;
}

interface Canvas {
  width: number;
  height: number;
  random: () => number;
  colours: Colours;
}

const DEFAULT_PALETTES: readonly Colours[] = [
  { skyTop: '#1e3c72', horizon: '#f6d365', sun: '#fff1c1', far: '#5b6f8a', near: '#2d4030', accent: '#ff9a5a' }, // dawn
  { skyTop: '#2b1846', horizon: '#ff7e5f', sun: '#ffd3a5', far: '#6a3d5c', near: '#231629', accent: '#feb47b' }, // dusk
  { skyTop: '#3a7bd5', horizon: '#cfe8fc', sun: '#ffffff', far: '#7fa889', near: '#3f6b3a', accent: '#f2c14e' }, // noon
  { skyTop: '#0b1026', horizon: '#2c3e70', sun: '#e8ecf5', far: '#1b2440', near: '#0a0f1f', accent: '#ffd166' }, // night
  { skyTop: '#4b6cb7', horizon: '#d4e4f1', sun: '#fffbe6', far: '#8a9bb0', near: '#4a5a48', accent: '#e76f51' }, // overcast
  { skyTop: '#134e5e', horizon: '#a8e6cf', sun: '#fdfbd4', far: '#4f8a6f', near: '#1f4d3a', accent: '#ffb347' }, // forest
];

const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** Only hex colours: they can be mixed for depth, and nothing else can slip into the SVG markup. */
function paletteFrom(palette: readonly string[]): Colours {
  if (palette.length === 0) throw new RangeError('palette must hold at least one colour');
  const invalid = palette.find((colour) => !HEX_COLOUR.test(colour));
  if (invalid !== undefined) throw new RangeError(`palette colours must be #rgb or #rrggbb, got '${invalid}'`);
  const at = (index: number): string => normaliseHex(palette[index % palette.length] as string);
  return { skyTop: at(0), horizon: at(1), sun: at(2), far: at(3), near: at(4), accent: at(5) };
}

function normaliseHex(colour: string): string {
  const digits = colour.slice(1).toLowerCase();
  return digits.length === 3 ? `#${[...digits].map((digit) => digit + digit).join('')}` : `#${digits}`;
}

/** Linear blend of two #rrggbb colours; t = 0 gives a, t = 1 gives b. */
function mix(a: string, b: string, t: number): string {
  const channel = (colour: string, index: number): number => parseInt(colour.slice(1 + index * 2, 3 + index * 2), 16);
  const blended = [0, 1, 2].map((index) => Math.round(channel(a, index) * (1 - t) + channel(b, index) * t));
  return `#${blended.map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}


function between(random: () => number, low: number, high: number): number {
  return low + (high - low) * random();
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** One decimal keeps the markup short and its text stable across platforms. */
function n(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

// ---------------------------------------------------------------------------
// Scene parts

type Scene = (canvas: Canvas) => string;

function sky({ width, height, colours }: Canvas, horizonY: number): string {
  return [
    '<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">',
    `<stop offset="0" stop-color="${colours.skyTop}"/>`,
    `<stop offset="1" stop-color="${colours.horizon}"/>`,
    '</linearGradient></defs>',
    `<rect width="${width}" height="${n(horizonY + height * 0.05)}" fill="url(#sky)"/>`,
    // Land and water below the horizon start from a darkened horizon colour, so no gap shows between shapes.
    `<rect y="${n(horizonY)}" width="${width}" height="${n(height - horizonY)}" fill="${mix(colours.near, colours.horizon, 0.15)}"/>`,
  ].join('');
}

/** A glowing disc: a radial gradient fading to transparent around a bright core. */
function sun({ width, height, random, colours }: Canvas, horizonY: number): string {
  const radius = Math.min(width, height) * between(random, 0.05, 0.09);
  const cx = width * between(random, 0.15, 0.85);
  const cy = horizonY * between(random, 0.3, 0.8);
  return [
    '<defs><radialGradient id="glow">',
    `<stop offset="0" stop-color="${colours.sun}"/>`,
    `<stop offset="0.22" stop-color="${colours.sun}"/>`,
    `<stop offset="0.3" stop-color="${colours.accent}" stop-opacity="0.55"/>`,
    `<stop offset="1" stop-color="${colours.accent}" stop-opacity="0"/>`,
    '</radialGradient></defs>',
    `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(radius * 4.5)}" fill="url(#glow)"/>`,
  ].join('');
}

/**
 * A ridge of rounded hills from edge to edge, closed down to the bottom of the picture.
 * Peaks and valleys alternate, joined by cubic curves with level tangents, so the line never kinks.
 */
function ridge({ width, height, random }: Canvas, baseY: number, amplitude: number, fill: string): string {
  const humps = 2 + Math.floor(random() * 3);
  const halfStep = width / (humps * 2);
  let x = -halfStep * random();
  let y = baseY - amplitude * between(random, 0, 0.3);
  let path = `M${n(x)} ${n(y)}`;
  for (let point = 1; x < width; point += 1) {
    const nextX = x + halfStep * between(random, 0.7, 1.3);
    const nextY = point % 2 === 1 ? baseY - amplitude * between(random, 0.6, 1) : baseY - amplitude * between(random, 0, 0.3);
    const handle = (nextX - x) / 2;
    path += ` C${n(x + handle)} ${n(y)} ${n(nextX - handle)} ${n(nextY)} ${n(nextX)} ${n(nextY)}`;
    x = nextX;
    y = nextY;
  }
  return `<path d="${path} V${height} H${n(-halfStep)} Z" fill="${fill}"/>`;
}

const hills: Scene = (canvas) => {
  const { height, random, colours } = canvas;
  const horizonY = height * between(random, 0.5, 0.65);
  const layers = 3;
  const parts = [sky(canvas, horizonY), sun(canvas, horizonY)];
  for (let layer = 0; layer < layers; layer += 1) {
    // Farther ridges fade towards the sky (aerial perspective), nearer ones sit lower and darker.
    const depth = layer / (layers - 1);
    const fill = mix(mix(colours.far, colours.horizon, 0.35), colours.near, depth);
    const baseY = horizonY + (height - horizonY) * depth * 0.45;
    parts.push(ridge(canvas, baseY, height * between(random, 0.08, 0.16), fill));
  }
  return parts.join('');
};

const city: Scene = (canvas) => {
  const { width, height, random, colours } = canvas;
  const horizonY = height * between(random, 0.62, 0.75);
  const parts = [sky(canvas, horizonY), sun(canvas, horizonY * 0.8)];
  for (const [layer, shade] of [
    [0, mix(colours.far, colours.horizon, 0.3)],
    [1, colours.near],
  ] as const) {
    let x = -random() * width * 0.03;
    while (x < width) {
      const towerWidth = width * between(random, 0.04, 0.1);
      const towerHeight = height * between(random, 0.12, layer === 0 ? 0.42 : 0.3);
      const top = horizonY - towerHeight;
      parts.push(`<rect x="${n(x)}" y="${n(top)}" width="${n(towerWidth)}" height="${n(height - top)}" fill="${shade}"/>`);
      if (layer === 1) parts.push(windows(canvas, x, top, towerWidth, horizonY));
      x += towerWidth + width * between(random, 0, 0.015);
    }
  }
  return parts.join('');
};

/** A sparse grid of lit windows on a near tower; sparse keeps the element count, and the render time, low. */
function windows({ width, random, colours }: Canvas, x: number, top: number, towerWidth: number, bottom: number): string {
  const size = Math.max(1, width * 0.006);
  const columns = Math.max(1, Math.floor(towerWidth / (size * 3)));
  const rows = Math.max(1, Math.floor((bottom - top) / (size * 3.5)));
  const lit: string[] = [];
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < columns; column += 1) {
      if (random() < 0.28) {
        lit.push(`<rect x="${n(x + size + column * size * 3)}" y="${n(top + size * 2 + row * size * 3.5)}" width="${n(size)}" height="${n(size * 1.4)}"/>`);
      }
    }
  }
  return `<g fill="${colours.accent}" fill-opacity="0.75">${lit.join('')}</g>`;
}

const sea: Scene = (canvas) => {
  const { width, height, random, colours } = canvas;
  const horizonY = height * between(random, 0.45, 0.6);
  const sunX = width * between(random, 0.25, 0.75);
  const water = mix(colours.skyTop, colours.near, 0.4);
  const parts = [
    sky(canvas, horizonY),
    '<defs><linearGradient id="water" x1="0" y1="0" x2="0" y2="1">',
    `<stop offset="0" stop-color="${mix(water, colours.horizon, 0.45)}"/>`,
    `<stop offset="1" stop-color="${mix(water, '#000000', 0.35)}"/>`,
    '</linearGradient></defs>',
    // The sun sits low over the sea and is drawn before the water, so the horizon cuts it.
    `<circle cx="${n(sunX)}" cy="${n(horizonY)}" r="${n(Math.min(width, height) * 0.07)}" fill="${colours.sun}"/>`,
    `<rect y="${n(horizonY)}" width="${width}" height="${n(height - horizonY)}" fill="url(#water)"/>`,
  ];
  // A distant headland on one side.
  const headlandLeft = random() < 0.5;
  const headlandWidth = width * between(random, 0.2, 0.4);
  const headlandX = headlandLeft ? 0 : width - headlandWidth;
  const rise = height * between(random, 0.03, 0.07);
  parts.push(
    `<path d="M${n(headlandX)} ${n(horizonY)} Q${n(headlandX + headlandWidth / 2)} ${n(horizonY - rise * 2)} ${n(headlandX + headlandWidth)} ${n(horizonY)} Z" fill="${mix(colours.far, colours.horizon, 0.3)}"/>`,
  );
  // Glints: short strokes in a column below the sun, thinning with distance from it.
  const glints: string[] = [];
  for (let index = 0; index < 28; index += 1) {
    const y = horizonY + (height - horizonY) * Math.pow(random(), 1.6);
    const spread = width * 0.02 + (y - horizonY) * 0.35;
    const x = sunX + between(random, -spread, spread);
    const length = width * between(random, 0.01, 0.05);
    glints.push(`<rect x="${n(x - length / 2)}" y="${n(y)}" width="${n(length)}" height="${n(Math.max(1, height * 0.003))}"/>`);
  }
  parts.push(`<g fill="${colours.sun}" fill-opacity="0.45">${glints.join('')}</g>`);
  return parts.join('');
};

const bokeh: Scene = (canvas) => {
  const { width, height, random, colours } = canvas;
  const parts = [sky(canvas, height)];
  const discs: string[] = [];
  const count = 18 + Math.floor(random() * 18);
  for (let index = 0; index < count; index += 1) {
    const radius = Math.min(width, height) * between(random, 0.03, 0.14);
    const fill = pick(random, [colours.accent, colours.sun, colours.horizon, colours.far]);
    discs.push(
      `<circle cx="${n(random() * width)}" cy="${n(random() * height)}" r="${n(radius)}" fill="${fill}" fill-opacity="${n(between(random, 0.12, 0.4))}"/>`,
    );
  }
  parts.push(discs.join(''));
  return parts.join('');
};

const SCENES: readonly Scene[] = [hills, city, sea, bokeh];

/**
 * Darker top and bottom edges, like a lens or a graduated filter. A linear gradient, not a
 * radial vignette: librsvg fills a full-frame radial gradient several times slower.
 */
function edgeShade({ width, height }: Canvas): string {
  return [
    '<defs><linearGradient id="shade" x1="0" y1="0" x2="0" y2="1">',
    '<stop offset="0" stop-color="#000000" stop-opacity="0.28"/>',
    '<stop offset="0.3" stop-color="#000000" stop-opacity="0"/>',
    '<stop offset="0.7" stop-color="#000000" stop-opacity="0"/>',
    '<stop offset="1" stop-color="#000000" stop-opacity="0.32"/>',
    '</linearGradient></defs>',
    `<rect width="${width}" height="${height}" fill="url(#shade)"/>`,
  ].join('');
}

/** The title, small, in the bottom-left corner, with a soft shadow so it reads on any background. */
function caption({ width, height }: Canvas, title: string): string {
  const fontSize = Math.max(8, Math.round(Math.min(width, height) * 0.028));
  const margin = Math.round(fontSize * 0.9);
  // DejaVu Sans averages about 0.6 em per character; shorten titles that would run off the picture.
  const maxCharacters = Math.max(1, Math.floor((width - margin * 2) / (fontSize * 0.6)));
  const characters = [...title.replace(/\s+/g, ' ').trim()];
  const shown = characters.length > maxCharacters ? `${characters.slice(0, Math.max(1, maxCharacters - 1)).join('')}…` : characters.join('');
  const text = escapeXml(shown);
  const y = height - margin;
  return [
    `<g font-family="DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif" font-size="${fontSize}">`,
    `<text x="${margin + 1}" y="${y + 1}" fill="#000000" fill-opacity="0.45">${text}</text>`,
    `<text x="${margin}" y="${y}" fill="#ffffff" fill-opacity="0.88">${text}</text>`,
    '</g>',
  ].join('');
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    // Control characters are not allowed in XML 1.0 at all; drop them rather than fail the render.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}
