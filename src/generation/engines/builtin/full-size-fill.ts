/*
 * Carries a fill made at a reduced scale up to the picture's full size, so a large hole gets the
 * picture's own sharp detail rather than an enlarged, soft fill. The coarse-to-fine scheme of
 * Wexler, Shechtman and Irani ("Space-time completion of video", 2007) with the nearest-neighbour
 * field of PatchMatch (Barnes et al., 2009): at each level, twice the size of the one before,
 *
 *   1. the field (where each hole pixel copies from) is enlarged from the level below, each
 *      offset scaled with it, so every block of pixels copies a block of the same source;
 *   2. the level below's fill, enlarged, gives the hole its broad shapes and shading; the
 *      detail (the picture less its own enlarged small copy) comes from the field's sources;
 *   3. two PatchMatch passes refine the field on that detail (a neighbour's source carried
 *      over, then a random search around the current one, ever closer), so the copied detail
 *      joins its neighbours' and the known picture's;
 *   4. each hole pixel takes the mean of the detail its neighbours' sources give it.
 *
 * The work at each level is a fixed number of patch comparisons per hole pixel (no search over
 * the whole picture), so the time grows with the hole's size and nothing more.
 */
import { sourceCentres } from './exemplar-fill.js';
import { maskRaster, resize, type Raster } from './raster.js';
import { clipPatch, voteFromSources, type PatchOffsets } from './source-vote.js';

/** Patches of 5×5 pixels compare detail at each finer level (of 7×7, twice the time for the same figures). */
const PATCH_RADIUS = 2;
/** Each hole pixel takes the mean of the detail of the neighbours' sources within this many pixels. */
const VOTE_RADIUS = 2;
const REFINE_PASSES = 2;

/**
 * `picture` (RGB, full size) with the pixels where `hole` is 1 filled, starting from `coarse`
 * (the same picture, smaller, its hole filled) and `coarseSources` (for each pixel of `coarse`,
 * the pixel it was copied from). Returns a new raster, and where each of its pixels was copied
 * from (its own index where it was known).
 */
export async function carryFillToFullSize(picture: Raster, hole: Uint8Array, coarse: Raster, coarseSources: Int32Array, random: () => number): Promise<{ filled: Raster; sources: Int32Array }> {
  const sizes = [{ width: picture.width, height: picture.height }];
  for (let width = Math.round(picture.width / 2), height = Math.round(picture.height / 2); width > coarse.width && height > coarse.height; width = Math.round(width / 2), height = Math.round(height / 2)) {
    sizes.unshift({ width, height });
  }
  let below = coarse;
  let belowSources = coarseSources;
  for (const { width, height } of sizes) {
    const full = width === picture.width && height === picture.height;
    const levelPicture = full ? picture : await resize(picture, width, height, 'cubic');
    // Any trace of the hole at this scale is hole: none of the object may be copied back in.
    const levelHole = full ? hole : (await resize(maskRaster(hole, picture.width, picture.height), width, height, 'cubic')).data.map((value) => (value > 0 ? 1 : 0));
    const level = await fillLevel(levelPicture, levelHole, below, belowSources, random);
    below = level.filled;
    belowSources = level.sources;
  }
  return { filled: below, sources: belowSources };
}

async function fillLevel(picture: Raster, hole: Uint8Array, below: Raster, belowSources: Int32Array, random: () => number): Promise<{ filled: Raster; sources: Int32Array }> {
  const { width, height } = picture;
  const size = width * height;
  const r = PATCH_RADIUS;
  // The broad shapes and shading of the hole: the level below's fill, enlarged.
  const broad = await resize(below, width, height, 'cubic');
  const estimate: Raster = { ...picture, data: picture.data.slice() };
  for (let i = 0; i < size; i++) if (hole[i]) estimate.data.set(broad.data.subarray(i * 3, i * 3 + 3), i * 3);
  // The detail: the picture less what its copy at the level below's size keeps of it.
  const blurred = await resize(await resize(estimate, below.width, below.height, 'cubic'), width, height, 'cubic');
  const detail = new Float32Array(size * 3);
  for (let i = 0; i < size * 3; i++) detail[i] = estimate.data[i]! - blurred.data[i]!;
  const detailGrey = new Float32Array(size);
  for (let i = 0; i < size; i++) detailGrey[i] = 0.299 * detail[i * 3]! + 0.587 * detail[i * 3 + 1]! + 0.114 * detail[i * 3 + 2]!;

  const centres = sourceCentres(hole, width, height, r);
  if (centres.length === 0) throw new RangeError('no whole patch of known picture to copy from at full size: the mask covers too much');
  const isSource = new Uint8Array(size);
  for (const centre of centres) isSource[centre] = 1;
  const randomSource = () => centres[Math.floor(random() * centres.length)]!;

  // 1. The field enlarged from the level below, each offset scaled with it.
  const sources = new Int32Array(size);
  const holePixels: number[] = [];
  const scaleX = below.width / width;
  const scaleY = below.height / height;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      if (!hole[p]) {
        sources[p] = p;
        continue;
      }
      holePixels.push(p);
      const bx = Math.min(below.width - 1, Math.floor(x * scaleX));
      const by = Math.min(below.height - 1, Math.floor(y * scaleY));
      const from = belowSources[by * below.width + bx]!;
      const sx = x + Math.round(((from % below.width) - bx) / scaleX);
      const sy = y + Math.round((Math.floor(from / below.width) - by) / scaleY);
      sources[p] = nearestSource(sx, sy) ?? randomSource();
    }
  }

  /** The valid source nearest (sx, sy) within a few pixels, if any: the scaled offset may land a little inside the hole or off the picture. */
  function nearestSource(sx: number, sy: number): number | undefined {
    for (let reach = 0; reach <= 2 * r; reach++) {
      for (let y = sy - reach; y <= sy + reach; y++) {
        for (let x = sx - reach; x <= sx + reach; x++) {
          if (Math.max(Math.abs(x - sx), Math.abs(y - sy)) !== reach || x < 0 || y < 0 || x >= width || y >= height) continue;
          if (isSource[y * width + x]) return y * width + x;
        }
      }
    }
    return undefined;
  }

  // 4. (and the start of 3) The hole's detail: the mean of what the neighbours' sources give each pixel.
  const holeDetail = new Float32Array(size * 3);
  const field = { width, height, hole, sources };
  const vote = () => {
    voteFromSources(field, holePixels, VOTE_RADIUS, detail, holeDetail);
    for (const p of holePixels) detailGrey[p] = 0.299 * holeDetail[p * 3]! + 0.587 * holeDetail[p * 3 + 1]! + 0.114 * holeDetail[p * 3 + 2]!;
  };
  vote();

  const comparedPatch: PatchOffsets = { top: 0, bottom: 0, left: 0, right: 0 };
  /** The sum of squared differences of detail between the patch at `target` and the one at `source`, given up past `limit`. */
  const distance = (target: number, source: number, limit: number) => {
    const tx = target % width;
    const ty = (target - tx) / width;
    let sum = 0;
    const patch = clipPatch(tx, ty, r, width, height, comparedPatch);
    for (let dy = patch.top; dy <= patch.bottom; dy++) {
      const row = target + dy * width;
      const sourceRow = source + dy * width;
      for (let dx = patch.left; dx <= patch.right; dx++) {
        const d = detailGrey[row + dx]! - detailGrey[sourceRow + dx]!;
        sum += d * d;
      }
      if (sum >= limit) return sum;
    }
    return sum;
  };

  // 3. PatchMatch passes, alternately forwards and backwards through the hole.
  const searchReach = Math.max(4, Math.round(2 / Math.min(scaleX, scaleY)));
  for (let pass = 0; pass < REFINE_PASSES; pass++) {
    const step = pass % 2 === 0 ? 1 : -1;
    for (let n = step > 0 ? 0 : holePixels.length - 1; n >= 0 && n < holePixels.length; n += step) {
      const p = holePixels[n]!;
      const x = p % width;
      const y = (p - x) / width;
      let best = sources[p]!;
      let bestDistance = distance(p, best, Infinity);
      const consider = (candidate: number) => {
        if (candidate === best || candidate < 0 || candidate >= size || !isSource[candidate]) return;
        const d = distance(p, candidate, bestDistance);
        if (d < bestDistance) {
          bestDistance = d;
          best = candidate;
        }
      };
      // A neighbour's source, shifted to this pixel (the neighbour already visited in this pass's direction).
      if (x - step >= 0 && x - step < width && hole[p - step]) {
        const from = sources[p - step]!;
        if (Math.floor((from + step) / width) === Math.floor(from / width)) consider(from + step);
      }
      if (y - step >= 0 && y - step < height && hole[p - step * width]) consider(sources[p - step * width]! + step * width);
      for (let reach = searchReach; reach >= 1; reach = Math.floor(reach / 2)) {
        const bx = best % width;
        const by = (best - bx) / width;
        const cx = bx + Math.round((random() * 2 - 1) * reach);
        const cy = by + Math.round((random() * 2 - 1) * reach);
        if (cx >= 0 && cy >= 0 && cx < width && cy < height) consider(cy * width + cx);
      }
      sources[p] = best;
    }
    vote();
  }

  const filled: Raster = { ...estimate, data: estimate.data.slice() };
  const clamped = new Uint8ClampedArray(filled.data.buffer, filled.data.byteOffset, filled.data.length);
  for (const p of holePixels) {
    for (let c = 0; c < 3; c++) clamped[p * 3 + c] = Math.round(broad.data[p * 3 + c]! + holeDetail[p * 3 + c]!);
  }
  return { filled, sources };
}
