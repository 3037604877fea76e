/*
 * The offsets at which a picture repeats itself, after He and Sun, "Statistics of patch offsets
 * for image completion" (ECCV 2012): in a regular pattern (tiles, bricks, windows) the known
 * picture matches itself shifted by a few dominant offsets, and a hole filled by copying from
 * those offsets keeps the pattern in step even where its cells are much larger than a patch.
 * Here the offsets are found as the deep local minima of the picture's mean squared difference
 * with itself shifted (its known pixels only), on a small copy, then refined at full size.
 */
import type { Raster } from './raster.js';

export interface PatternOffset {
  dx: number;
  dy: number;
}

/** The small copy the offsets are first looked for on: at most this long side. */
const SEARCH_SIDE = 96;
/** Offsets up to this share of the small copy's side are tried. */
const LARGEST_SHARE = 0.45;
/**
 * An offset is a repeat of the pattern when the picture shifted by it differs from itself by at
 * most this share of what it differs by at a typical offset (the median over all tried): a
 * strong repeat.
 */
const REPEAT_DIFFERENCE = 0.15;
/** Shorter offsets than this (small-copy pixels) are a smooth picture's closeness to itself, not a repeat. */
const SHORTEST = 2;
/** At most this many offsets (each also taken backwards) are kept. */
const MOST_OFFSETS = 6;

/**
 * The dominant offsets of the known part of `image` (RGB; `hole` 1 where unknown), strongest
 * first, each given once (its opposite repeats equally). Empty when the picture does not repeat.
 */
export function patternOffsets(image: Raster, hole: Uint8Array): PatternOffset[] {
  const { width, height } = image;
  const factor = Math.max(1, Math.ceil(Math.max(width, height) / SEARCH_SIDE));
  const small = shrinkKnown(image, hole, factor);
  const variance = knownVariance(small.grey, small.known);
  if (variance < 4) return [];
  const smallEdges = edges(small.grey, small.known, small.width, small.height);
  const largestX = Math.floor(small.width * LARGEST_SHARE);
  const largestY = Math.floor(small.height * LARGEST_SHARE);
  const spanX = 2 * largestX + 1;
  // Half the plane: an offset and its opposite give the same difference.
  const difference = new Float32Array(spanX * (largestY + 1)).fill(Infinity);
  for (let dy = 0; dy <= largestY; dy++) {
    for (let dx = -largestX; dx <= largestX; dx++) {
      if (dy === 0 && dx <= 0) continue;
      difference[dy * spanX + dx + largestX] = meanSquaredShift(small.grey, small.known, smallEdges, small.width, small.height, dx, dy, 1);
    }
  }
  // What the picture differs from itself by at a typical offset: a repeat is far below it.
  const typical = median(difference.filter((value) => Number.isFinite(value)));
  const found: { dx: number; dy: number; value: number }[] = [];
  for (let dy = 0; dy <= largestY; dy++) {
    for (let dx = -largestX; dx <= largestX; dx++) {
      const value = difference[dy * spanX + dx + largestX]!;
      if (!(value <= REPEAT_DIFFERENCE * typical) || Math.hypot(dx, dy) < SHORTEST) continue;
      let lowest = true;
      for (let ny = dy - 1; ny <= dy + 1 && lowest; ny++) {
        for (let nx = dx - 1; nx <= dx + 1; nx++) {
          if ((nx === dx && ny === dy) || nx < -largestX || nx > largestX || ny > largestY) continue;
          // Below the half plane, the opposite offset stands for it.
          const [ox, oy] = ny < 0 ? [-nx, -ny] : [nx, ny];
          const other = difference[oy * spanX + ox + largestX]!;
          if (other < value || (other === value && (oy < dy || (oy === dy && ox < dx)))) {
            lowest = false;
            break;
          }
        }
      }
      if (lowest) found.push({ dx, dy, value });
    }
  }
  // Shortest first, and a multiple of one kept already is left out: the fill tries each offset's
  // multiples itself, and the shortest repeat is the one whose copies stay nearest.
  found.sort((a, b) => Math.hypot(a.dx, a.dy) - Math.hypot(b.dx, b.dy));
  const kept: { dx: number; dy: number }[] = [];
  for (const candidate of found) {
    if (kept.length === MOST_OFFSETS) break;
    if (kept.some((offset) => isMultiple(candidate, offset))) continue;
    kept.push(candidate);
  }
  const offsets: PatternOffset[] = [];
  for (const { dx, dy } of kept) {
    const refined = factor > 1 ? refine(image, hole, dx * factor, dy * factor, factor) : { dx, dy };
    if (!offsets.some((offset) => Math.abs(offset.dx) === Math.abs(refined.dx) && Math.abs(offset.dy) === Math.abs(refined.dy) && offset.dx * offset.dy === refined.dx * refined.dy)) offsets.push(refined);
  }
  return offsets;
}

/** Whether `long` is within a pixel of a whole multiple (2, 3, …) of `short`, either way. */
function isMultiple(long: PatternOffset, short: PatternOffset): boolean {
  const times = Math.round((long.dx * short.dx + long.dy * short.dy) / (short.dx * short.dx + short.dy * short.dy));
  return Math.abs(times) >= 2 && Math.abs(long.dx - times * short.dx) <= 1 && Math.abs(long.dy - times * short.dy) <= 1;
}

/** The offset near (dx, dy), within `reach` pixels, at which the full-size picture differs least from itself. */
function refine(image: Raster, hole: Uint8Array, dx: number, dy: number, reach: number): PatternOffset {
  const { width, height, data } = image;
  const grey = new Float32Array(width * height);
  const known = new Uint8Array(width * height);
  for (let i = 0; i < grey.length; i++) {
    grey[i] = 0.299 * data[i * 3]! + 0.587 * data[i * 3 + 1]! + 0.114 * data[i * 3 + 2]!;
    known[i] = hole[i] ? 0 : 1;
  }
  const fullEdges = edges(grey, known, width, height);
  // Every few rows and columns are enough to place the minimum; they keep a large picture quick.
  const step = Math.max(1, Math.floor(reach / 2));
  let best = { dx, dy };
  let bestValue = Infinity;
  for (let y = dy - reach; y <= dy + reach; y++) {
    for (let x = dx - reach; x <= dx + reach; x++) {
      if (Math.hypot(x, y) < SHORTEST) continue;
      const value = meanSquaredShift(grey, known, fullEdges, width, height, x, y, step);
      if (value < bestValue) {
        bestValue = value;
        best = { dx: x, dy: y };
      }
    }
  }
  return best;
}

/**
 * The mean squared difference between the known pixels and the known pixels `dx`, `dy` away, on
 * every `step`th row and column, over the pairs of which one at least is on an edge: a plain
 * area matches itself at every offset, and a picture that is mostly plain (a subject on an even
 * background) would otherwise seem to repeat wherever the subject is shifted off itself.
 */
function meanSquaredShift(grey: Float32Array, known: Uint8Array, edge: Uint8Array, width: number, height: number, dx: number, dy: number, step: number): number {
  let sum = 0;
  let count = 0;
  for (let y = Math.max(0, -dy); y < Math.min(height, height - dy); y += step) {
    const row = y * width;
    const shifted = (y + dy) * width + dx;
    for (let x = Math.max(0, -dx); x < Math.min(width, width - dx); x += step) {
      if (!known[row + x] || !known[shifted + x] || !(edge[row + x] || edge[shifted + x])) continue;
      const d = grey[row + x]! - grey[shifted + x]!;
      sum += d * d;
      count++;
    }
  }
  // Too few pairs to say: an offset almost as long as the picture is not trusted.
  return count < 64 ? Infinity : sum / count;
}

/** 1 where a known pixel's gradient (central differences) is above the known picture's mean gradient. */
function edges(grey: Float32Array, known: Uint8Array, width: number, height: number): Uint8Array {
  const magnitude = new Float32Array(width * height);
  let sum = 0;
  let count = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      if (!known[i] || !known[i - 1] || !known[i + 1] || !known[i - width] || !known[i + width]) continue;
      magnitude[i] = Math.abs(grey[i + 1]! - grey[i - 1]!) + Math.abs(grey[i + width]! - grey[i - width]!);
      sum += magnitude[i]!;
      count++;
    }
  }
  const mean = count === 0 ? 0 : sum / count;
  return Uint8Array.from(magnitude, (value) => (value > mean && value > 1 ? 1 : 0));
}

function median(values: Float32Array): number {
  if (values.length === 0) return 0;
  const sorted = Float32Array.from(values).sort();
  return sorted[Math.floor(sorted.length / 2)]!;
}

function knownVariance(grey: Float32Array, known: Uint8Array): number {
  let sum = 0;
  let squares = 0;
  let count = 0;
  for (let i = 0; i < grey.length; i++) {
    if (!known[i]) continue;
    sum += grey[i]!;
    squares += grey[i]! * grey[i]!;
    count++;
  }
  if (count === 0) return 0;
  const mean = sum / count;
  return squares / count - mean * mean;
}

/** A grey copy `factor` times smaller, each pixel the mean of the known pixels of its block; known when most of the block is. */
function shrinkKnown(image: Raster, hole: Uint8Array, factor: number): { grey: Float32Array; known: Uint8Array; width: number; height: number } {
  const { width, height, data } = image;
  const smallWidth = Math.floor(width / factor);
  const smallHeight = Math.floor(height / factor);
  const grey = new Float32Array(smallWidth * smallHeight);
  const known = new Uint8Array(smallWidth * smallHeight);
  for (let sy = 0; sy < smallHeight; sy++) {
    for (let sx = 0; sx < smallWidth; sx++) {
      let sum = 0;
      let count = 0;
      for (let y = sy * factor; y < (sy + 1) * factor; y++) {
        for (let x = sx * factor; x < (sx + 1) * factor; x++) {
          const i = y * width + x;
          if (hole[i]) continue;
          sum += 0.299 * data[i * 3]! + 0.587 * data[i * 3 + 1]! + 0.114 * data[i * 3 + 2]!;
          count++;
        }
      }
      if (count * 2 > factor * factor) {
        grey[sy * smallWidth + sx] = sum / count;
        known[sy * smallWidth + sx] = 1;
      }
    }
  }
  return { grey, known, width: smallWidth, height: smallHeight };
}
