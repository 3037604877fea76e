/*
 * A test set with known answers, drawn by code, and the measures of the built-in engine's
 * quality on it: background-removal IoU against the true mask, object-removal error inside the
 * hole against the true background (beside a mean-colour fill and OpenCV's Telea inpainting),
 * and the seam and texture of extended margins. Used by the tests (floors) and by
 * `npm run bench -- builtin-quality` (the table in docs/generation-engines.md).
 */
import { THEMES } from '../../../catalog/demo/demo-data.js';
import { drawDemoImage } from '../../../media/draw-demo-image.js';
import { seededRandom } from '../../../platform/seeded-random.js';
import { loadOpenCv, withMats } from './opencv.js';
import { crop, decodeRgb, emptyRaster, type Raster } from './raster.js';

export interface CutOutCase {
  name: string;
  picture: Raster;
  /** 1 where the subject is. */
  subject: Uint8Array;
  /** How much of each pixel the subject covers, 0..1 (its antialiased edge). */
  coverage: Float32Array;
  /** The subject's colours painted over the whole picture. */
  subjectPaint: Raster;
}

export interface HoleCase {
  name: string;
  /** The background with an object pasted over it. */
  picture: Raster;
  /** White where the object is (a little loose, as a person paints it). */
  mask: Uint8Array;
  /** What lies under the object. */
  truth: Raster;
}

export interface ExtendCase {
  name: string;
  /** The middle of `truth`. */
  picture: Raster;
  truth: Raster;
  margins: { left: number; right: number; top: number; bottom: number };
}

type Rgb = [number, number, number];
type Texture = (x: number, y: number) => Rgb;

/** A smooth random field (value noise, a few octaves) in 0..1. */
function valueNoise(random: () => number, cell: number): (x: number, y: number) => number {
  const size = 64;
  const lattice = Float32Array.from({ length: size * size }, () => random());
  const at = (i: number, j: number) => lattice[(((j % size) + size) % size) * size + (((i % size) + size) % size)]!;
  const smooth = (t: number) => t * t * (3 - 2 * t);
  const octave = (x: number, y: number) => {
    const i = Math.floor(x);
    const j = Math.floor(y);
    const u = smooth(x - i);
    const v = smooth(y - j);
    return (at(i, j) * (1 - u) + at(i + 1, j) * u) * (1 - v) + (at(i, j + 1) * (1 - u) + at(i + 1, j + 1) * u) * v;
  };
  return (x, y) => (octave(x / cell, y / cell) * 4 + octave((2 * x) / cell + 17, (2 * y) / cell + 5) * 2 + octave((4 * x) / cell + 3, (4 * y) / cell + 11)) / 7;
}

function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

function hsl(hue: number, saturation: number, lightness: number): Rgb {
  const k = (n: number) => (n + hue / 30) % 12;
  const a = saturation * Math.min(lightness, 1 - lightness);
  const f = (n: number) => lightness - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  return [f(0) * 255, f(8) * 255, f(4) * 255];
}

/** Background textures of the kinds photographs have: soft bokeh, grass-like grain, wood-like stripes, tiles, a sky gradient. */
function backgroundTexture(kind: number, random: () => number, fixedHue?: number): Texture {
  const hue = fixedHue ?? random() * 360;
  const dark = hsl(hue, 0.35 + random() * 0.3, 0.25 + random() * 0.15);
  const light = hsl((hue + 20 + random() * 40) % 360, 0.3 + random() * 0.3, 0.6 + random() * 0.2);
  const broad = valueNoise(random, 40 + random() * 40);
  const fine = valueNoise(random, 3 + random() * 3);
  const angle = random() * Math.PI;
  const period = 10 + random() * 14;
  switch (kind % 5) {
    case 0:
      return (x, y) => mix(dark, light, broad(x, y));
    case 1:
      return (x, y) => mix(dark, light, 0.55 * broad(x, y) + 0.45 * fine(x, y));
    case 2:
      return (x, y) => {
        const along = x * Math.cos(angle) + y * Math.sin(angle);
        return mix(dark, light, 0.5 + 0.35 * Math.sin((2 * Math.PI * along) / period + 3 * broad(x, y)) + 0.15 * (fine(x, y) - 0.5));
      };
    case 3:
      return (x, y) => {
        const tile = (Math.floor(x / period / 1.6) + Math.floor(y / period / 1.6)) % 2;
        return mix(dark, light, 0.25 + 0.5 * tile + 0.25 * (fine(x, y) - 0.5));
      };
    default:
      return (x, y) => mix(light, dark, Math.min(1, y / 300 + 0.3 * (broad(x, y) - 0.5)));
  }
}

/** A subject: a few overlapping shapes (body, head, limb) with their own shading and grain, and its coverage (0..1) per pixel, supersampled. */
function drawSubject(width: number, height: number, random: () => number, cutByTheFrame = false, fixedHue?: number): { coverage: Float32Array; colour: Texture } {
  const cx = width * (0.4 + random() * 0.2);
  const cy = height * (cutByTheFrame ? 0.55 + random() * 0.1 : 0.45 + random() * 0.15);
  const scale = Math.min(width, height) * (0.22 + random() * 0.08);
  // A subject cut by the frame is a portrait's: its body runs on past the bottom edge.
  const body = { x: cx, y: cy + scale * (cutByTheFrame ? 1.2 : 0.3), rx: scale * (0.6 + random() * 0.3), ry: scale * (cutByTheFrame ? 1.6 : 0.9 + random() * 0.3) };
  const head = { x: cx + (random() - 0.5) * scale * 0.4, y: cy - scale * 0.85, r: scale * (0.35 + random() * 0.15) };
  const limbAngle = (random() - 0.5) * 1.6;
  const limb = { x: cx, y: cy, length: scale * 1.5, half: scale * 0.13, cos: Math.cos(limbAngle), sin: Math.sin(limbAngle) };
  const inside = (x: number, y: number) => {
    if (((x - body.x) / body.rx) ** 2 + ((y - body.y) / body.ry) ** 2 <= 1) return true;
    if ((x - head.x) ** 2 + (y - head.y) ** 2 <= head.r ** 2) return true;
    const along = (x - limb.x) * limb.cos + (y - limb.y) * limb.sin;
    const across = -(x - limb.x) * limb.sin + (y - limb.y) * limb.cos;
    return along >= 0 && along <= limb.length && Math.abs(across) <= limb.half;
  };
  const coverage = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let hits = 0;
      for (const [sx, sy] of [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]] as const) if (inside(x + sx, y + sy)) hits++;
      coverage[y * width + x] = hits / 4;
    }
  }
  const hue = fixedHue ?? random() * 360;
  const base = hsl(hue, 0.55 + random() * 0.35, 0.45 + random() * 0.15);
  const shade = hsl((hue + 30) % 360, 0.5, 0.25 + random() * 0.15);
  const grain = valueNoise(random, 4);
  const light = { x: cx - scale, y: cy - scale * 1.5 };
  const colour: Texture = (x, y) => mix(base, shade, Math.min(1, Math.hypot(x - light.x, y - light.y) / (scale * 3.2) + 0.25 * (grain(x, y) - 0.5)));
  return { coverage, colour };
}

function paint(width: number, height: number, texture: Texture): Raster {
  const raster = emptyRaster(width, height, 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = texture(x, y);
      const p = (y * width + x) * 3;
      raster.data[p] = r;
      raster.data[p + 1] = g;
      raster.data[p + 2] = b;
    }
  }
  return raster;
}

function composite(background: Raster, coverage: Float32Array, colour: Texture): Raster {
  const out: Raster = { ...background, data: background.data.slice() };
  for (let y = 0; y < background.height; y++) {
    for (let x = 0; x < background.width; x++) {
      const alpha = coverage[y * background.width + x]!;
      if (alpha === 0) continue;
      const [r, g, b] = colour(x, y);
      const p = (y * background.width + x) * 3;
      out.data[p] = out.data[p]! * (1 - alpha) + r * alpha;
      out.data[p + 1] = out.data[p + 1]! * (1 - alpha) + g * alpha;
      out.data[p + 2] = out.data[p + 2]! * (1 - alpha) + b * alpha;
    }
  }
  return out;
}

const KINDS = ['bokeh', 'grain', 'stripes', 'tiles', 'sky'];

export type CutOutKind = 'whole' | 'cut by the frame' | 'close in colour';

/**
 * `count` subjects on textured backgrounds, cycling through the background kinds: whole and
 * inside the picture, running on past its bottom edge (a portrait's), or of the background's
 * own hue (darker or more saturated, as a brown dog on a brown floor).
 */
export function cutOutCases(count: number, width = 256, height = 256, seed = 1, kind: CutOutKind = 'whole'): CutOutCase[] {
  return Array.from({ length: count }, (_, n) => {
    const random = seededRandom(seed * 1000 + n);
    const hue = kind === 'close in colour' ? random() * 360 : undefined;
    const background = paint(width, height, backgroundTexture(n, random, hue));
    const { coverage, colour } = drawSubject(width, height, random, kind === 'cut by the frame', hue === undefined ? undefined : hue + 25);
    return {
      name: `subject${kind === 'whole' ? '' : ` ${kind}`} on ${KINDS[n % KINDS.length]} #${n + 1}`,
      picture: composite(background, coverage, colour),
      subject: Uint8Array.from(coverage, (value) => (value >= 0.5 ? 1 : 0)),
      coverage,
      subjectPaint: paint(width, height, colour),
    };
  });
}

export type HardCutOutKind = 'hair' | 'cast shadow' | 'textured ground';

export interface HardCutOutCase extends CutOutCase {
  /**
   * The pixels that make the case hard, where the alpha is measured against the true coverage:
   * around the strands of hair (strands are subject, the background between them is not), the
   * shadow on the ground (background), the ground next to the subject's outline.
   */
  hard: Uint8Array;
}

/**
 * Photo-like hard cases with known answers, `count` of each asked kind in turn:
 * - **hair**: dark strands of hair, about a pixel wide, fly out from the subject's head over
 *   the background; the strands are subject (their coverage is the truth), the background
 *   between them is not;
 * - **cast shadow**: a soft shadow the subject casts on the ground beside it, darkening the
 *   background by up to a half; the shadow is background (a cut-out put on a new background
 *   takes no grey smear of the old ground with it: the decision documented with the engine);
 * - **textured ground**: the subject stands on gravel-like ground (coarse, contrasting grain)
 *   that fills the lower part of the picture, below a plain wall.
 */
export function hardCutOutCases(count: number, width = 320, height = 240, seed = 6, kinds: readonly HardCutOutKind[] = ['hair', 'cast shadow', 'textured ground']): HardCutOutCase[] {
  return Array.from({ length: count }, (_, n) => {
    const kind = kinds[n % kinds.length]!;
    const random = seededRandom(seed * 1000 + n);
    const horizon = Math.round(height * (0.55 + random() * 0.1));
    let background: Texture =
      kind === 'textured ground' ? groundTexture(random, horizon) : backgroundTexture(n % 2 === 0 ? 0 : 4, random);
    const subject = drawSubject(width, height, random);
    const { coverage } = subject;
    let colour = subject.colour;
    let hard = new Uint8Array(width * height);
    if (kind === 'hair') {
      const strands = hairStrands(width, height, coverage, random);
      const hair = hsl(20 + random() * 20, 0.5, 0.12 + random() * 0.1);
      const onHead = Uint8Array.from(strands, (value, i) => (value > coverage[i]! ? 1 : 0));
      colour = (x, y) => (onHead[y * width + x] ? hair : subject.colour(x, y));
      const body = Uint8Array.from(coverage, (value) => (value >= 1 ? 1 : 0));
      for (let i = 0; i < coverage.length; i++) coverage[i] = Math.max(coverage[i]!, strands[i]!);
      hard = growMask(Uint8Array.from(strands, (value) => (value > 0 ? 1 : 0)), width, height, 2).map((value, i) => (value && !body[i] ? 1 : 0));
    }
    if (kind === 'textured ground') {
      // The ground beside the subject's lower outline, and the outline itself.
      const outline = Uint8Array.from(coverage, (value) => (value > 0 && value < 1 ? 1 : 0));
      hard = growMask(outline, width, height, 4).map((value, i) => (value && Math.floor(i / width) >= horizon ? 1 : 0));
    }
    if (kind === 'cast shadow') {
      const shadow = castShadow(width, height, coverage, random);
      const ground = background;
      background = (x, y) => {
        const darkening = 1 - 0.5 * shadow[y * width + x]!;
        const [r, g, b] = ground(x, y);
        return [r * darkening, g * darkening, b * darkening];
      };
      for (let i = 0; i < coverage.length; i++) if (shadow[i]! >= 0.2 && coverage[i]! === 0) hard[i] = 1;
    }
    return {
      name: `subject with ${kind} #${n + 1}`,
      picture: composite(paint(width, height, background), coverage, colour),
      subject: Uint8Array.from(coverage, (value) => (value >= 0.5 ? 1 : 0)),
      coverage,
      subjectPaint: paint(width, height, colour),
      hard,
    };
  });
}

/** A plain wall above `horizon` and below it gravel: coarse grain of light and dark stones, smaller towards the horizon. */
function groundTexture(random: () => number, horizon: number): Texture {
  const hue = random() * 360;
  const wall = hsl((hue + 180) % 360, 0.2, 0.75);
  const dark = hsl(hue, 0.25, 0.25);
  const light = hsl((hue + 15) % 360, 0.2, 0.7);
  const stones = valueNoise(random, 2.2);
  const patches = valueNoise(random, 18);
  return (x, y) => {
    if (y < horizon) return mix(wall, hsl((hue + 180) % 360, 0.2, 0.68), y / horizon);
    // Nearer the horizon the stones are smaller (farther away).
    const depth = 0.5 + (y - horizon) / 80;
    const grain = stones(x / depth, y / depth);
    return mix(dark, light, Math.min(1, Math.max(0, (grain - 0.5) * 2.4 + 0.5 + 0.3 * (patches(x, y) - 0.5))));
  };
}

/** Strands of hair from the top half of the subject's outline: thin curved lines, their coverage antialiased. */
function hairStrands(width: number, height: number, subject: Float32Array, random: () => number): Float32Array {
  const strands = new Float32Array(width * height);
  let top = height;
  let centreX = 0;
  let count = 0;
  for (let i = 0; i < subject.length; i++) {
    if (subject[i]! < 0.5) continue;
    const y = Math.floor(i / width);
    if (y < top) top = y;
  }
  for (let x = 0; x < width; x++) {
    for (let y = top; y < Math.min(height, top + 6); y++) {
      if (subject[y * width + x]! >= 0.5) {
        centreX += x;
        count++;
      }
    }
  }
  centreX /= Math.max(1, count);
  const headRadius = Math.max(8, Math.min(width, height) * 0.1);
  const centreY = top + headRadius;
  for (let n = 0; n < 90; n++) {
    // Roots on the upper half of the head, strands flying up and out, bending as they go.
    const angle = Math.PI * (1.1 + random() * 0.8);
    let x = centreX + Math.cos(angle) * headRadius * 0.9;
    let y = centreY + Math.sin(angle) * headRadius * 0.9;
    let direction = angle + (random() - 0.5) * 0.6;
    const bend = (random() - 0.5) * 0.06;
    const length = headRadius * (0.6 + random() * 0.9);
    const halfWidth = 0.3 + random() * 0.4;
    for (let step = 0; step < length; step += 0.25) {
      x += Math.cos(direction) * 0.25;
      y += Math.sin(direction) * 0.25;
      direction += bend * 0.25;
      for (let v = Math.floor(y - 2); v <= Math.ceil(y + 2); v++) {
        for (let u = Math.floor(x - 2); u <= Math.ceil(x + 2); u++) {
          if (u < 0 || v < 0 || u >= width || v >= height) continue;
          const distance = Math.hypot(u + 0.5 - x, v + 0.5 - y);
          const value = Math.max(0, Math.min(1, halfWidth + 0.5 - distance));
          if (value > strands[v * width + u]!) strands[v * width + u] = value;
        }
      }
    }
  }
  return strands;
}

/** A soft shadow on the ground to one side of the subject's foot: its strength 0..1 per pixel. */
function castShadow(width: number, height: number, subject: Float32Array, random: () => number): Float32Array {
  let bottom = 0;
  let left = width;
  let right = 0;
  for (let i = 0; i < subject.length; i++) {
    if (subject[i]! < 0.5) continue;
    const x = i % width;
    bottom = Math.max(bottom, Math.floor(i / width));
    left = Math.min(left, x);
    right = Math.max(right, x);
  }
  const side = random() < 0.5 ? -1 : 1;
  const centre = { x: (left + right) / 2 + side * (right - left) * 0.7, y: Math.min(height - 1, bottom - (right - left) * 0.05) };
  const radii = { x: (right - left) * 0.9, y: Math.max(6, (right - left) * 0.18) };
  const shadow = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const distance = Math.hypot((x - centre.x) / radii.x, (y - centre.y) / radii.y);
      // Soft: full strength in the middle, fading to none over the outer half.
      shadow[y * width + x] = Math.max(0, Math.min(1, (1 - distance) * 2));
    }
  }
  return shadow;
}

/** `count` textured backgrounds with an object pasted over a known part of them. */
export function holeCases(count: number, width = 256, height = 256, seed = 2): HoleCase[] {
  return Array.from({ length: count }, (_, n) => {
    const random = seededRandom(seed * 1000 + n);
    const truth = paint(width, height, backgroundTexture(n, random));
    const object = drawSubject(Math.round(width * 0.55), Math.round(height * 0.55), random);
    const coverage = new Float32Array(width * height);
    const offsetX = Math.round(width * (0.1 + random() * 0.3));
    const offsetY = Math.round(height * (0.1 + random() * 0.3));
    const objectWidth = Math.round(width * 0.55);
    for (let y = 0; y < Math.round(height * 0.55); y++) {
      for (let x = 0; x < objectWidth; x++) coverage[(y + offsetY) * width + x + offsetX] = object.coverage[y * objectWidth + x]!;
    }
    const mask = Uint8Array.from(coverage, (value) => (value > 0 ? 1 : 0));
    return {
      name: `object on ${KINDS[n % KINDS.length]} #${n + 1}`,
      picture: composite(truth, coverage, (x, y) => object.colour(x - offsetX, y - offsetY)),
      mask: growMask(mask, width, height, 3),
      truth,
    };
  });
}

/**
 * Holes larger than the exemplar fill's working limit (60,000 pixels): an ellipse over half the
 * picture's width and height of a textured background (grain, stripes, tiles, bokeh in turn),
 * with a flat object pasted in it. The engine fills these at a reduced scale and carries the
 * fill up to full size; the detail in the hole over the truth's says whether it stayed sharp.
 */
export function largeHoleCases(count: number, width = 800, height = 600, seed = 4): HoleCase[] {
  const kinds = [1, 2, 3, 0];
  return Array.from({ length: count }, (_, n) => {
    const random = seededRandom(seed * 1000 + n);
    const kind = kinds[n % kinds.length]!;
    const truth = paint(width, height, backgroundTexture(kind, random));
    const mask = new Uint8Array(width * height);
    const picture: Raster = { ...truth, data: truth.data.slice() };
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (((x - width / 2) / (width / 4)) ** 2 + ((y - height / 2) / (height / 4)) ** 2 > 1) continue;
        mask[y * width + x] = 1;
        picture.data.set([220, 120, 40], (y * width + x) * 3);
      }
    }
    return { name: `large hole in ${KINDS[kind]} #${n + 1}`, picture, mask: growMask(mask, width, height, 3), truth };
  });
}

export interface TransparentHoleCase {
  name: string;
  /** RGBA: a subject on a transparent background (whose hidden colours are noise), an opaque object across its outline. */
  picture: Raster;
  /** White where the object is. */
  mask: Uint8Array;
  /** RGBA: the subject alone. */
  truth: Raster;
}

/**
 * Transparent sources (a cut-out subject, alpha 0 around it, the hidden colour channels of the
 * transparent pixels random as an editor may leave them) with an opaque disc across the
 * subject's outline to remove: the hole holds subject and transparency both, so its alpha has
 * to follow the outline on through it.
 */
export function transparentHoleCases(count: number, width = 256, height = 256, seed = 5): TransparentHoleCase[] {
  return Array.from({ length: count }, (_, n) => {
    const random = seededRandom(seed * 1000 + n);
    const { coverage, colour } = drawSubject(width, height, random);
    const truth = emptyRaster(width, height, 4);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const p = y * width + x;
        const [r, g, b] = coverage[p]! > 0 ? colour(x, y) : [random() * 255, random() * 255, random() * 255];
        truth.data.set([r, g, b, Math.round(coverage[p]! * 255)], p * 4);
      }
    }
    // The disc sits on the subject's right edge, halfway down its rows.
    let top = height;
    let bottom = 0;
    for (let p = 0; p < coverage.length; p++) {
      if (coverage[p]! < 0.5) continue;
      top = Math.min(top, Math.floor(p / width));
      bottom = Math.max(bottom, Math.floor(p / width));
    }
    const cy = Math.round((top + bottom) / 2 + (bottom - top) * 0.15);
    let cx = 0;
    for (let x = 0; x < width; x++) if (coverage[cy * width + x]! >= 0.5) cx = x;
    const radius = Math.round(Math.min(width, height) * 0.08);
    const picture: Raster = { ...truth, data: truth.data.slice() };
    const mask = new Uint8Array(width * height);
    for (let y = Math.max(0, cy - radius - 3); y <= Math.min(height - 1, cy + radius + 3); y++) {
      for (let x = Math.max(0, cx - radius - 3); x <= Math.min(width - 1, cx + radius + 3); x++) {
        const distance = Math.hypot(x - cx, y - cy);
        if (distance <= radius) picture.data.set([230, 110, 30, 255], (y * width + x) * 4);
        if (distance <= radius + 3) mask[y * width + x] = 1;
      }
    }
    return { name: `transparent subject #${n + 1}, a disc across its outline`, picture, mask, truth };
  });
}

/** `count` textures cropped in their middle, so that the true continuation of every margin is known. */
export function extendCases(count: number, width = 192, height = 160, margin = 32, seed = 3): ExtendCase[] {
  return Array.from({ length: count }, (_, n) => {
    const random = seededRandom(seed * 1000 + n);
    const truth = paint(width + 2 * margin, height + 2 * margin, backgroundTexture(n, random));
    return { name: `${KINDS[n % KINDS.length]} #${n + 1}`, picture: crop(truth, margin, margin, width, height), truth, margins: { left: margin, right: margin, top: margin, bottom: margin } };
  });
}

/**
 * A regular pattern whose cells are larger than a patch (a checkerboard of `cell`-pixel squares,
 * each pixel with its own grain, which does not repeat): the case where a patch fill that does
 * not keep the pattern's step breaks it. The grain of ±12 levels makes about 8 the error of a
 * fill that keeps the pattern exactly (two independent grains differ by 8 on average).
 */
export function patternPicture(width: number, height: number, cell: number, seed: number): Raster {
  const random = seededRandom(seed);
  const light: Rgb = [190, 200, 150];
  const dark: Rgb = [70, 110, 80];
  return paint(width, height, (x, y) => {
    const grain = (random() - 0.5) * 24;
    const [r, g, b] = (Math.floor(x / cell) + Math.floor(y / cell)) % 2 ? dark : light;
    return [r + grain, g + grain, b + grain];
  });
}

/** Regular patterns (cells of 16 to 32 pixels) with a 64×60 hole in the middle, and their truth. */
export function patternHoleCases(cells: readonly number[] = [16, 24, 32], width = 192, height = 160): HoleCase[] {
  return cells.map((cell) => {
    const truth = patternPicture(width, height, cell, cell);
    const mask = new Uint8Array(width * height);
    for (let y = Math.round(height / 2 - 30); y < Math.round(height / 2 + 30); y++) mask.fill(1, y * width + Math.round(width / 2 - 32), y * width + Math.round(width / 2 + 32));
    // The object: an orange box over the middle.
    const picture: Raster = { ...truth, data: truth.data.slice() };
    for (let i = 0; i < mask.length; i++) if (mask[i]) picture.data.set([200, 90, 60], i * 3);
    return { name: `checkerboard of ${cell} px cells`, picture, mask, truth };
  });
}

/** Regular patterns (cells of 16 to 32 pixels) cropped in their middle, to be extended by `margin` on each side. */
export function patternExtendCases(cells: readonly number[] = [16, 24, 32], width = 192, height = 160, margin = 32): ExtendCase[] {
  return cells.map((cell) => {
    const truth = patternPicture(width + 2 * margin, height + 2 * margin, cell, cell + 100);
    return { name: `checkerboard of ${cell} px cells`, picture: crop(truth, margin, margin, width, height), truth, margins: { left: margin, right: margin, top: margin, bottom: margin } };
  });
}

function growMask(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) continue;
      for (let dy = -radius; dy <= radius; dy++) {
        for (let dx = -radius; dx <= radius; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx >= 0 && ny >= 0 && nx < width && ny < height && dx * dx + dy * dy <= radius * radius) out[ny * width + nx] = 1;
        }
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Measures

/** Intersection over union of the alpha (≥ one half) with the true subject. */
export function intersectionOverUnion(alpha: Uint8Array | Float32Array, subject: Uint8Array, threshold = 0.5): number {
  let intersection = 0;
  let union = 0;
  for (let i = 0; i < subject.length; i++) {
    const chosen = alpha[i]! >= threshold;
    if (chosen && subject[i]) intersection++;
    if (chosen || subject[i]) union++;
  }
  return union === 0 ? 1 : intersection / union;
}

/**
 * The fringe of a cut-out: put on mid grey, how far (mean absolute difference per channel,
 * 0..255) its edge is from the true subject put on the same grey, over the pixels within two of
 * the subject's outline. Background colours left in the edge show here.
 */
export function fringeError(rgba: Uint8Array, testCase: CutOutCase): number {
  const { width, height } = testCase.picture;
  const outline = new Uint8Array(width * height);
  for (let i = 0; i < outline.length; i++) {
    const x = i % width;
    const inside = testCase.subject[i]!;
    if ((x + 1 < width && testCase.subject[i + 1] !== inside) || (i + width < outline.length && testCase.subject[i + width] !== inside)) outline[i] = 1;
  }
  const band = growMask(outline, width, height, 2);
  let sum = 0;
  let count = 0;
  for (let i = 0; i < band.length; i++) {
    if (!band[i]) continue;
    const alpha = rgba[i * 4 + 3]! / 255;
    const coverage = testCase.coverage[i]!;
    for (let c = 0; c < 3; c++) {
      const made = rgba[i * 4 + c]! * alpha + 128 * (1 - alpha);
      const truth = testCase.subjectPaint.data[i * 3 + c]! * coverage + 128 * (1 - coverage);
      sum += Math.abs(made - truth);
      count++;
    }
  }
  return count === 0 ? 0 : sum / count;
}

/** The mean absolute difference (0..1) between the alpha (0..255) and the true coverage over the pixels where `where` is 1. */
export function alphaError(alpha: Uint8Array, coverage: Float32Array, where: Uint8Array): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < where.length; i++) {
    if (!where[i]) continue;
    sum += Math.abs(alpha[i]! / 255 - coverage[i]!);
    count++;
  }
  return count === 0 ? 0 : sum / count;
}

/** Mean absolute difference per channel (0..255) over the pixels where `where` is 1. */
export function meanAbsoluteError(a: Raster, b: Raster, where: Uint8Array): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < where.length; i++) {
    if (!where[i]) continue;
    for (let c = 0; c < 3; c++) sum += Math.abs(a.data[i * 3 + c]! - b.data[i * 3 + c]!);
    count += 3;
  }
  return count === 0 ? 0 : sum / count;
}

/** The hole filled with the mean colour of the rest: the naive fill the engine must beat. */
export function meanColourFill(picture: Raster, hole: Uint8Array): Raster {
  const sums = [0, 0, 0];
  let count = 0;
  for (let i = 0; i < hole.length; i++) {
    if (hole[i]) continue;
    for (let c = 0; c < 3; c++) sums[c]! += picture.data[i * 3 + c]!;
    count++;
  }
  const out: Raster = { ...picture, data: picture.data.slice() };
  for (let i = 0; i < hole.length; i++) {
    if (hole[i]) for (let c = 0; c < 3; c++) out.data[i * 3 + c] = sums[c]! / count;
  }
  return out;
}

/** OpenCV's Telea inpainting (fast marching, smooth): the classical diffusion fill beside the engine's patch fill. */
export async function teleaFill(picture: Raster, hole: Uint8Array): Promise<Raster> {
  const { cv } = await loadOpenCv();
  const source = new cv.Mat(picture.height, picture.width, cv.CV_8UC3);
  const mask = new cv.Mat(picture.height, picture.width, cv.CV_8UC1);
  const destination = new cv.Mat();
  return withMats([source, mask, destination], () => {
    source.data.set(picture.data);
    mask.data.set(hole.map((value) => (value ? 255 : 0)));
    cv.inpaint(source, mask, destination, 5, cv.INPAINT_TELEA);
    return { ...picture, data: destination.data.slice() };
  });
}

function luminance(picture: Raster, i: number): number {
  return 0.299 * picture.data[i * 3]! + 0.587 * picture.data[i * 3 + 1]! + 0.114 * picture.data[i * 3 + 2]!;
}

/**
 * How much detail a region holds: the mean absolute difference of horizontally and vertically
 * neighbouring pixels, both inside `where`. A fill's detail over the truth's: 1 keeps the
 * texture, 0 is a flat smear.
 */
export function detail(picture: Raster, where: Uint8Array): number {
  let sum = 0;
  let count = 0;
  const { width, height } = picture;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!where[i]) continue;
      if (x + 1 < width && where[i + 1]) {
        sum += Math.abs(luminance(picture, i) - luminance(picture, i + 1));
        count++;
      }
      if (y + 1 < height && where[i + width]) {
        sum += Math.abs(luminance(picture, i) - luminance(picture, i + width));
        count++;
      }
    }
  }
  return count === 0 ? 0 : sum / count;
}

/**
 * The seam of an extended picture: the mean step across the original's border (pixel pairs
 * straddling it) over the mean step between neighbours inside the original, in the same
 * directions. About 1: no visible seam; well above: an edge where the picture was joined.
 */
export function seamRatio(extended: Raster, margins: ExtendCase['margins'], sourceWidth: number, sourceHeight: number): number {
  const { width } = extended;
  const at = (x: number, y: number) => luminance(extended, y * width + x);
  const left = margins.left;
  const top = margins.top;
  const right = left + sourceWidth - 1;
  const bottom = top + sourceHeight - 1;
  let across = 0;
  let acrossCount = 0;
  for (let y = top; y <= bottom; y++) {
    if (left > 0) {
      across += Math.abs(at(left, y) - at(left - 1, y));
      acrossCount++;
    }
    if (margins.right > 0) {
      across += Math.abs(at(right, y) - at(right + 1, y));
      acrossCount++;
    }
  }
  for (let x = left; x <= right; x++) {
    if (top > 0) {
      across += Math.abs(at(x, top) - at(x, top - 1));
      acrossCount++;
    }
    if (margins.bottom > 0) {
      across += Math.abs(at(x, bottom) - at(x, bottom + 1));
      acrossCount++;
    }
  }
  let inside = 0;
  let insideCount = 0;
  for (let y = top; y <= bottom; y++) {
    for (let x = left; x <= right; x++) {
      if (x < right) {
        inside += Math.abs(at(x, y) - at(x + 1, y));
        insideCount++;
      }
      if (y < bottom) {
        inside += Math.abs(at(x, y) - at(x, y + 1));
        insideCount++;
      }
    }
  }
  return across / acrossCount / Math.max(1e-6, inside / insideCount);
}

/** The margins as a mask of the extended picture. */
export function marginMask(width: number, height: number, margins: ExtendCase['margins'], sourceWidth: number, sourceHeight: number): Uint8Array {
  const mask = new Uint8Array(width * height).fill(1);
  for (let y = margins.top; y < margins.top + sourceHeight; y++) mask.fill(0, y * width + margins.left, y * width + margins.left + sourceWidth);
  return mask;
}

/** The margins filled by repeating the edge pixels outwards: the naive extension. */
export function edgeRepeat(picture: Raster, margins: ExtendCase['margins']): Raster {
  const width = picture.width + margins.left + margins.right;
  const height = picture.height + margins.top + margins.bottom;
  const out = emptyRaster(width, height, 3);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(picture.height - 1, Math.max(0, y - margins.top));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(picture.width - 1, Math.max(0, x - margins.left));
      for (let c = 0; c < 3; c++) out.data[(y * width + x) * 3 + c] = picture.data[(sy * picture.width + sx) * 3 + c]!;
    }
  }
  return out;
}

/**
 * Demo-catalogue pictures with their burnt-in caption as the object to remove: the same picture
 * drawn without the caption is the truth, and where the two differ (grown a little) is the mask.
 */
export async function demoCaptionCases(count: number, width = 640, height = 427): Promise<HoleCase[]> {
  const cases: HoleCase[] = [];
  for (let n = 0; n < count; n++) {
    const theme = THEMES[n % THEMES.length]!;
    const request = { seed: 4200 + n, width, height, title: theme.creativeTitles[n % theme.creativeTitles.length]!.replace('{city}', 'Lisbon').replace('{time}', 'dusk'), palette: [...theme.palettes[0]!] };
    const picture = await decodeRgb(await drawDemoImage(request));
    const truth = await decodeRgb(await drawDemoImage({ ...request, title: '' }));
    const differs = new Uint8Array(width * height);
    for (let i = 0; i < differs.length; i++) {
      const d = Math.abs(picture.data[i * 3]! - truth.data[i * 3]!) + Math.abs(picture.data[i * 3 + 1]! - truth.data[i * 3 + 1]!) + Math.abs(picture.data[i * 3 + 2]! - truth.data[i * 3 + 2]!);
      differs[i] = d > 24 ? 1 : 0;
    }
    cases.push({ name: `demo caption #${n + 1} (${theme.key})`, picture, mask: growMask(differs, width, height, 3), truth });
  }
  return cases;
}

/** A demo-catalogue picture to show the operations on. */
export async function demoPicture(n: number, width = 640, height = 427): Promise<Raster> {
  const theme = THEMES[(n + 1) % THEMES.length]!;
  return decodeRgb(await drawDemoImage({ seed: 5100 + n, width, height, title: '', palette: [...theme.palettes[0]!] }));
}
