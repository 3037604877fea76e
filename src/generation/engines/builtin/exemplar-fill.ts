/*
 * Exemplar-based inpainting after Criminisi, Pérez and Toyama, "Region filling and object
 * removal by exemplar-based image inpainting" (IEEE TIP 2004), written here from the paper:
 * the hole is filled patch by patch from its edge inwards, most confident and most structured
 * edge first (so lines run on into the hole), each patch copied from the best-matching whole
 * patch of the known picture. Matches are searched on a sampled grid, refined around the best,
 * and beside them the shifted sources of already-filled neighbours (PatchMatch's propagation,
 * Barnes et al. 2009), which keeps a texture continuous.
 */
import { patternOffsets } from './pattern-offsets.js';
import type { Raster } from './raster.js';
import { clipPatch, pixelsOf, voteFromSources, type PatchOffsets } from './source-vote.js';

export interface FillOptions {
  /** Patches are (2r+1)² pixels. */
  patchRadius: number;
  /** Different values give different, equally plausible fills. */
  random: () => number;
  /** How many sampled candidates a patch is compared with before the local refinement. */
  candidateBudget?: number;
  /**
   * A rough fill of the hole (the same picture filled at a coarser scale, enlarged): a patch's
   * unknown pixels are matched against it too, at half weight, so that the large structure
   * found there (a hill's outline running on) steers the choice of detail here.
   */
  guide?: Raster | undefined;
  /**
   * Pixels no patch may be copied from (1): the patches earlier fills of the same hole copied, so
   * that this fill is a different one (object removal answers several), not the same patches again.
   */
  avoid?: Uint8Array | undefined;
}

/**
 * Fills the pixels of `image` (RGB) where `hole` is 1, in place. Returns where each pixel was
 * copied from (its own index where it was known): the nearest-neighbour field a finer scale
 * starts from.
 */
export function exemplarFill(image: Raster, hole: Uint8Array, { patchRadius: r, random, candidateBudget = 1200, guide, avoid }: FillOptions): Int32Array {
  const { width, height, data } = image;
  // Written through a clamped view: a shifted copy past 0 or 255 stops there rather than wrapping round.
  const clamped = new Uint8ClampedArray(data.buffer, data.byteOffset, data.length);
  const size = width * height;
  const filled = new Uint8Array(size);
  const confidence = new Float32Array(size);
  const sourceOf = new Int32Array(size).fill(-1);
  const shiftOf = new Int16Array(size * 3);
  let remaining = 0;
  for (let i = 0; i < size; i++) {
    if (hole[i]) remaining++;
    else {
      filled[i] = 1;
      confidence[i] = 1;
      sourceOf[i] = i;
    }
  }
  if (remaining === 0) return sourceOf;
  if (remaining === size) throw new RangeError('nothing to fill from: the whole picture is masked');

  const rough = guide?.data;
  const grey = new Float32Array(size);
  for (let i = 0, p = 0; i < size; i++, p += 3) grey[i] = 0.299 * data[p]! + 0.587 * data[p + 1]! + 0.114 * data[p + 2]!;

  const sources = sourceCentres(hole, width, height, r);
  if (sources.length === 0) throw new RangeError('no whole patch of known picture to copy from: the mask covers too much');
  const isSource = new Uint8Array(size);
  for (const centre of sources) isSource[centre] = 1;
  const stride = Math.max(1, Math.ceil(Math.sqrt(sources.length / candidateBudget)));
  // Where the picture repeats itself (tiles, bricks), the patch one or a few repeats away is a candidate for every target.
  const repeats = patternOffsets(image, hole);
  // A coarse scale cannot hold a repeat that is not a whole number of its pixels: its rough fill is a weaker guide then.
  const guideWeight = repeats.length > 0 ? GUIDE_WEIGHT_IN_PATTERNS : GUIDE_WEIGHT;

  // Reused by the patch loops below, each its own, so that no comparison allocates.
  const copiedPatch: PatchOffsets = { top: 0, bottom: 0, left: 0, right: 0 };
  const shiftedPatch: PatchOffsets = { top: 0, bottom: 0, left: 0, right: 0 };
  const comparedPatch: PatchOffsets = { top: 0, bottom: 0, left: 0, right: 0 };

  const onFront = new Uint8Array(size);
  const front: number[] = [];
  const priority = new Float32Array(size);
  const addToFront = (at: number) => {
    if (onFront[at] || filled[at]) return;
    const x = at % width;
    const y = (at - x) / width;
    if ((x > 0 && filled[at - 1]) || (x < width - 1 && filled[at + 1]) || (y > 0 && filled[at - width]) || (y < height - 1 && filled[at + width])) {
      onFront[at] = 1;
      front.push(at);
      priority[at] = priorityOf(at);
    }
  };

  function priorityOf(at: number): number {
    const cx = at % width;
    const cy = (at - cx) / width;
    let sum = 0;
    let strongest = 0;
    let isoX = 0;
    let isoY = 0;
    for (let y = Math.max(0, cy - r); y <= Math.min(height - 1, cy + r); y++) {
      for (let x = Math.max(0, cx - r); x <= Math.min(width - 1, cx + r); x++) {
        const i = y * width + x;
        if (!filled[i]) continue;
        sum += confidence[i]!;
        if (x > 0 && x < width - 1 && y > 0 && y < height - 1 && filled[i - 1] && filled[i + 1] && filled[i - width] && filled[i + width]) {
          const gx = (grey[i + 1]! - grey[i - 1]!) / 2;
          const gy = (grey[i + width]! - grey[i - width]!) / 2;
          const magnitude = gx * gx + gy * gy;
          if (magnitude > strongest) {
            strongest = magnitude;
            isoX = -gy;
            isoY = gx;
          }
        }
      }
    }
    const known = (x: number, y: number) => (x >= 0 && y >= 0 && x < width && y < height && filled[y * width + x] ? 1 : 0);
    let normalX = known(cx + 1, cy) - known(cx - 1, cy);
    let normalY = known(cx, cy + 1) - known(cx, cy - 1);
    const length = Math.hypot(normalX, normalY);
    if (length > 0) {
      normalX /= length;
      normalY /= length;
    }
    const dataTerm = Math.abs(isoX * normalX + isoY * normalY) / 255 + 0.001;
    return (sum / (2 * r + 1) ** 2) * dataTerm;
  }

  for (let i = 0; i < size; i++) if (hole[i]) addToFront(i);

  while (remaining > 0) {
    let best = -1;
    let bestPriority = -1;
    let write = 0;
    for (let n = 0; n < front.length; n++) {
      const at = front[n]!;
      if (filled[at]) {
        onFront[at] = 0;
        continue;
      }
      front[write++] = at;
      if (priority[at]! > bestPriority) {
        bestPriority = priority[at]!;
        best = at;
      }
    }
    front.length = write;
    if (best < 0) {
      // Unreachable from the known picture through 4-neighbours cannot happen; kept as a guard against an endless loop.
      throw new RangeError('the fill front ran out before the hole was filled');
    }

    const tx = best % width;
    const ty = (best - tx) / width;
    const { source, matchError } = bestSource(tx, ty);
    const patchConfidence = priority[best]! > 0 ? confidenceOf(tx, ty) : 0;
    // Only a close match is shifted: a patch of other structure (a hill's edge for sky) would be smeared by it.
    const shift = matchError <= MAX_SHIFTED_ERROR ? colourShift(tx, ty, source) : NO_SHIFT;
    const patch = clipPatch(tx, ty, r, width, height, copiedPatch);
    for (let dy = patch.top; dy <= patch.bottom; dy++) {
      const y = ty + dy;
      for (let dx = patch.left; dx <= patch.right; dx++) {
        const x = tx + dx;
        const i = y * width + x;
        if (filled[i]) continue;
        const from = source + dy * width + dx;
        for (let c = 0; c < 3; c++) {
          clamped[i * 3 + c] = data[from * 3 + c]! + shift[c]!;
          shiftOf[i * 3 + c] = shift[c]!;
        }
        grey[i] = 0.299 * data[i * 3]! + 0.587 * data[i * 3 + 1]! + 0.114 * data[i * 3 + 2]!;
        filled[i] = 1;
        confidence[i] = patchConfidence;
        sourceOf[i] = from;
        remaining--;
      }
    }
    // The front moved: pixels next to the patch join it, and those near it see new neighbours.
    for (let y = Math.max(0, ty - 2 * r - 1); y <= Math.min(height - 1, ty + 2 * r + 1); y++) {
      for (let x = Math.max(0, tx - 2 * r - 1); x <= Math.min(width - 1, tx + 2 * r + 1); x++) {
        const i = y * width + x;
        if (filled[i]) continue;
        if (onFront[i]) priority[i] = priorityOf(i);
        else addToFront(i);
      }
    }
  }

  blendSeams(image, hole, sourceOf, shiftOf, SEAM_VOTE_RADIUS);
  return sourceOf;

  function confidenceOf(cx: number, cy: number): number {
    let sum = 0;
    for (let y = Math.max(0, cy - r); y <= Math.min(height - 1, cy + r); y++) {
      for (let x = Math.max(0, cx - r); x <= Math.min(width - 1, cx + r); x++) {
        const i = y * width + x;
        if (filled[i]) sum += confidence[i]!;
      }
    }
    return sum / (2 * r + 1) ** 2;
  }

  function knownIn(cx: number, cy: number): number {
    let count = 0;
    for (let y = Math.max(0, cy - r); y <= Math.min(height - 1, cy + r); y++) {
      for (let x = Math.max(0, cx - r); x <= Math.min(width - 1, cx + r); x++) count += filled[y * width + x]!;
    }
    return count;
  }

  /**
   * How much lighter or darker (per channel) the target's known pixels are than the source's:
   * the copy is shifted by it, so a patch from a brighter part of a gradient sky joins without
   * a step. Bounded, so that a poor match cannot turn into a false colour.
   */
  function colourShift(tx: number, ty: number, source: number): [number, number, number] {
    const sums = [0, 0, 0];
    let count = 0;
    const patch = clipPatch(tx, ty, r, width, height, shiftedPatch);
    for (let dy = patch.top; dy <= patch.bottom; dy++) {
      const y = ty + dy;
      for (let dx = patch.left; dx <= patch.right; dx++) {
        const x = tx + dx;
        if (!filled[y * width + x]) continue;
        const t = (y * width + x) * 3;
        const s = (source + dy * width + dx) * 3;
        for (let c = 0; c < 3; c++) sums[c]! += data[t + c]! - data[s + c]!;
        count++;
      }
    }
    const bound = (value: number) => Math.max(-MAX_SHIFT, Math.min(MAX_SHIFT, Math.round(value / Math.max(1, count))));
    return [bound(sums[0]!), bound(sums[1]!), bound(sums[2]!)];
  }

  /** The sum of squared differences over the target's known pixels, given up once above `limit`. */
  function distance(tx: number, ty: number, source: number, limit: number): number {
    let sum = 0;
    const patch = clipPatch(tx, ty, r, width, height, comparedPatch);
    for (let dy = patch.top; dy <= patch.bottom; dy++) {
      const y = ty + dy;
      for (let dx = patch.left; dx <= patch.right; dx++) {
        const x = tx + dx;
        const i = y * width + x;
        const t = i * 3;
        const s = (source + dy * width + dx) * 3;
        if (filled[i]) {
          const d0 = data[t]! - data[s]!;
          const d1 = data[t + 1]! - data[s + 1]!;
          const d2 = data[t + 2]! - data[s + 2]!;
          sum += d0 * d0 + d1 * d1 + d2 * d2;
        } else if (rough) {
          const d0 = rough[t]! - data[s]!;
          const d1 = rough[t + 1]! - data[s + 1]!;
          const d2 = rough[t + 2]! - data[s + 2]!;
          sum += (d0 * d0 + d1 * d1 + d2 * d2) * guideWeight;
        }
      }
      if (sum >= limit) return sum;
    }
    return sum;
  }

  /** The best source patch's centre and its mean squared difference per channel over the known pixels. */
  function bestSource(tx: number, ty: number): { source: number; matchError: number } {
    let best = -1;
    let bestDistance = Infinity;
    let bestRaw = Infinity;
    const consider = (candidate: number, coherence = 1) => {
      if (avoid?.[candidate]) return;
      const cx = candidate % width;
      const cy = (candidate - cx) / width;
      const weight = coherence * (1 + NEARNESS * (Math.abs(cx - tx) + Math.abs(cy - ty)) / (width + height));
      const raw = distance(tx, ty, candidate, bestDistance / weight);
      const d = raw * weight;
      if (d < bestDistance) {
        bestDistance = d;
        bestRaw = raw;
        best = candidate;
      }
    };
    // Neighbours' sources, shifted: continuing what was copied next door.
    for (const [dx, dy] of PROPAGATION_OFFSETS) {
      const x = tx + dx * r;
      const y = ty + dy * r;
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      const from = sourceOf[y * width + x]!;
      if (from < 0) continue;
      const candidateX = (from % width) - dx * r;
      const candidateY = Math.floor(from / width) - dy * r;
      if (candidateX < 0 || candidateY < 0 || candidateX >= width || candidateY >= height) continue;
      const candidate = candidateY * width + candidateX;
      if (isSource[candidate]) consider(candidate, COHERENCE);
    }
    for (const { dx, dy } of repeats) {
      for (let k = -MOST_REPEATS; k <= MOST_REPEATS; k++) {
        const x = tx + k * dx;
        const y = ty + k * dy;
        if (k === 0 || x < 0 || y < 0 || x >= width || y >= height) continue;
        const candidate = y * width + x;
        if (isSource[candidate]) consider(candidate, IN_STEP);
      }
    }
    const offset = Math.floor(random() * stride * stride);
    for (let n = offset % stride; n < sources.length; n += stride) {
      const candidate = sources[n]!;
      if (stride > 1 && Math.floor(candidate / width) % stride !== Math.floor(offset / stride) % stride) continue;
      consider(candidate);
    }
    if (stride > 1 && best >= 0) {
      const bx = best % width;
      const by = (best - bx) / width;
      for (let y = by - stride; y <= by + stride; y++) {
        for (let x = bx - stride; x <= bx + stride; x++) {
          if (x < 0 || y < 0 || x >= width || y >= height) continue;
          const candidate = y * width + x;
          if (isSource[candidate]) consider(candidate);
        }
      }
    }
    if (best < 0) return { source: sources[Math.floor(random() * sources.length)]!, matchError: Infinity };
    return { source: best, matchError: bestRaw / (3 * Math.max(1, knownIn(tx, ty))) };
  }
}

/**
 * A continuation of a neighbour's source counts as this much closer than its distance: among
 * near-equal matches, the one that keeps a regular pattern (tiles, stripes) in step wins.
 */
const COHERENCE = 0.7;

/**
 * A patch a whole number of repeats away counts as this much closer than its distance: inside
 * one plain cell of a pattern every patch of that cell's colour matches about as well, and only
 * the one in step with the pattern keeps the next cell's edge where it belongs.
 */
const IN_STEP = 0.35;

/** A target looks this many repeats of the pattern away, each way, for a known patch. */
const MOST_REPEATS = 4;

/**
 * A candidate across the whole picture counts as this much farther than its distance (a
 * neighbour's not at all): among near-equal matches the nearer wins, as the true background of
 * a hole is more like its surroundings than like the far side of the picture.
 */
const NEARNESS = 3;

/** Mean squared difference per channel (a 12-level typical difference) above which a match is not shifted. */
const MAX_SHIFTED_ERROR = 144;
const NO_SHIFT: [number, number, number] = [0, 0, 0];

/** How much a guided (not yet filled) pixel counts in a match beside a known one. */
const GUIDE_WEIGHT = 0.5;
const GUIDE_WEIGHT_IN_PATTERNS = 0.15;

/** Neighbours within this many pixels vote on a filled pixel (a 5×5 window). */
const SEAM_VOTE_RADIUS = 2;

/** The largest brightness shift (per channel, of 255) a copied patch takes. */
const MAX_SHIFT = 24;

const PROPAGATION_OFFSETS: readonly (readonly [number, number])[] = [
  [-1, 0], [1, 0], [0, -1], [0, 1], [-1, -1], [1, -1], [-1, 1], [1, 1],
];

/**
 * Softens the lines where two copied patches meet: each filled pixel takes the mean of what its
 * filled neighbours' sources, shifted to it (with their colour shift), say it should be.
 */
function blendSeams(image: Raster, hole: Uint8Array, sourceOf: Int32Array, shiftOf: Int16Array, radius: number): void {
  if (radius <= 0) return;
  const { width, height, data } = image;
  const clamped = new Uint8ClampedArray(data.buffer, data.byteOffset, data.length);
  voteFromSources({ width, height, hole, sources: sourceOf }, pixelsOf(hole), radius, data.slice(), clamped, shiftOf);
}

/** Centres of the patches lying wholly inside the picture and wholly outside the hole, in reading order. */
export function sourceCentres(hole: Uint8Array, width: number, height: number, r: number): number[] {
  // Rows of an integral image of the hole, so each window's hole count costs four reads.
  const integral = new Int32Array((width + 1) * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      row += hole[y * width + x]!;
      integral[(y + 1) * (width + 1) + x + 1] = integral[y * (width + 1) + x + 1]! + row;
    }
  }
  const centres: number[] = [];
  for (let y = r; y < height - r; y++) {
    for (let x = r; x < width - r; x++) {
      const top = y - r;
      const left = x - r;
      const bottom = y + r + 1;
      const right = x + r + 1;
      const count = integral[bottom * (width + 1) + right]! - integral[top * (width + 1) + right]! - integral[bottom * (width + 1) + left]! + integral[top * (width + 1) + left]!;
      if (count === 0) centres.push(y * width + x);
    }
  }
  return centres;
}
