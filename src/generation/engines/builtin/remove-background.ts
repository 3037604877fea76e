import { boxMean, connectedRegions, guidedFilter } from './filters.js';
import { loadOpenCv, withMats } from './opencv.js';
import { emptyRaster, resize, type Raster } from './raster.js';

/** GrabCut runs at this longest side at most: about a second on one core. */
export const SEGMENTATION_SIDE = 512;
const GRABCUT_ITERATIONS = 5;
const BORDER_CLUSTERS = 8;
/** A border colour this close (RGB distance) to one of the other sides' is background. */
const SIDE_MATCH = 40;
/** A side with more of its border than this unlike the other sides is where the subject runs off the picture. */
const TOUCHED_SIDE = 0.05;

/**
 * The subject's opacity, 0..1 per pixel of `source`: a saliency-seeded GrabCut at ≤ 512 px and
 * its outline refined at full size by a guided filter on the full picture.
 */
export async function subjectAlpha(source: Raster): Promise<Float32Array> {
  const scale = Math.min(1, SEGMENTATION_SIDE / Math.max(source.width, source.height));
  const small = scale < 1 ? await resize(source, Math.max(1, Math.round(source.width * scale)), Math.max(1, Math.round(source.height * scale))) : source;
  const subject = await segmentSubject(small);
  keepLargeRegions(subject, small.width);

  const coarse = emptyRaster(small.width, small.height, 1);
  for (let i = 0; i < subject.length; i++) coarse.data[i] = subject[i] ? 255 : 0;
  const full = scale < 1 ? await resize(coarse, source.width, source.height, 'cubic') : coarse;
  const input = new Float32Array(full.data.length);
  for (let i = 0; i < input.length; i++) input[i] = full.data[i]! / 255;
  const guide = new Float32Array(source.width * source.height);
  for (let i = 0, p = 0; i < guide.length; i++, p += 3) {
    guide[i] = (0.299 * source.data[p]! + 0.587 * source.data[p + 1]! + 0.114 * source.data[p + 2]!) / 255;
  }
  // The window spans a couple of coarse pixels, so the blocky upscaled outline snaps to the edge under it.
  const radius = Math.max(2, Math.round(2 / scale));
  const alpha = guidedFilter(guide, input, source.width, source.height, radius, 1e-3);
  for (let i = 0; i < alpha.length; i++) {
    // A steeper ramp around one half: the filter leaves a soft halo; a cut-out wants a crisp edge with a little antialiasing.
    const value = (alpha[i]! - 0.5) * 2 + 0.5;
    alpha[i] = value < 0 ? 0 : value > 1 ? 1 : value;
  }
  clearBackgroundBetweenStrands(source, alpha);
  return alpha;
}

/** Colours of subject and background nearer (RGB distance) than this are not told apart by colour. */
const DISTINCT_COLOURS = 60;

/**
 * Where the cut-out is surely background (alpha under 0.02) and surely subject (over 0.98), and
 * the share of each within `radius` of every pixel: the local colour models of the matting steps.
 */
function sureRegions(alpha: Float32Array, width: number, height: number, radius: number) {
  const size = width * height;
  const isBackground = new Float32Array(size);
  const isSubject = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    isBackground[i] = alpha[i]! < 0.02 ? 1 : 0;
    isSubject[i] = alpha[i]! > 0.98 ? 1 : 0;
  }
  return { isBackground, isSubject, backgroundShare: boxMean(isBackground, width, height, radius), subjectShare: boxMean(isSubject, width, height, radius) };
}

/** One colour channel kept where `mask` is 1, box-averaged over `radius` (`scratch` is reused between calls). */
function maskedChannelMean(source: Raster, c: number, mask: Float32Array, scratch: Float32Array, radius: number): Float32Array {
  const { width, height, data } = source;
  for (let i = 0; i < scratch.length; i++) scratch[i] = data[i * 3 + c]! * mask[i]!;
  return boxMean(scratch, width, height, radius);
}

/**
 * Near the outline, background seen between fine strands (hair, fur, twigs) is taken in with
 * them by a segmentation at 512 px. Each such pixel is put on the line between the nearby
 * background's mean colour B and the nearby subject's F (I = αF + (1−α)B, the colour-line model
 * of matting): its alpha is where it falls on that line. Only lowered, only where B and F are
 * distinct colours and the pixel is nearer B: the subject's own shading is never made clear.
 */
function clearBackgroundBetweenStrands(source: Raster, alpha: Float32Array): void {
  const { width, height, data } = source;
  const size = width * height;
  const radius = Math.max(10, Math.round(Math.max(width, height) / 16));
  const { isBackground, isSubject, backgroundShare, subjectShare } = sureRegions(alpha, width, height, radius);
  const background = new Float32Array(size * 3);
  const subject = new Float32Array(size * 3);
  const channel = new Float32Array(size);
  for (let c = 0; c < 3; c++) {
    const backgroundSum = maskedChannelMean(source, c, isBackground, channel, radius);
    const subjectSum = maskedChannelMean(source, c, isSubject, channel, radius);
    for (let i = 0; i < size; i++) {
      background[i * 3 + c] = backgroundSum[i]! / Math.max(1e-6, backgroundShare[i]!);
      subject[i * 3 + c] = subjectSum[i]! / Math.max(1e-6, subjectShare[i]!);
    }
  }
  for (let i = 0; i < size; i++) {
    if (alpha[i]! < 0.02 || backgroundShare[i]! < 0.05 || subjectShare[i]! < 0.05) continue;
    let along = 0;
    let lengthSquared = 0;
    let toBackground = 0;
    for (let c = 0; c < 3; c++) {
      const d = subject[i * 3 + c]! - background[i * 3 + c]!;
      const fromBackground = data[i * 3 + c]! - background[i * 3 + c]!;
      along += fromBackground * d;
      lengthSquared += d * d;
      toBackground += fromBackground * fromBackground;
    }
    if (lengthSquared < DISTINCT_COLOURS * DISTINCT_COLOURS) continue;
    const onLine = Math.max(0, Math.min(1, along / lengthSquared));
    // Nearer the background than halfway to the subject, in colour, and lower than it is now.
    if (onLine < 0.5 && toBackground < 0.25 * lengthSquared && onLine < alpha[i]!) alpha[i] = onLine;
  }
}

/**
 * The subject's own colours where it is partly transparent: a pixel of its edge mixes the
 * subject with the background behind it (I = αF + (1−α)B), and put on another background it
 * would bring a fringe of the old one. With B the mean of the nearby background, F = (I −
 * (1−α)B)/α; where α is too small for that to be steady, the mean of the nearby subject.
 */
export function subjectColours(source: Raster, alpha: Float32Array): Uint8ClampedArray {
  const { width, height, data } = source;
  const size = width * height;
  const colours = new Uint8ClampedArray(data);
  const radius = Math.max(3, Math.round(Math.max(width, height) / 256));
  const { isBackground, isSubject, backgroundShare, subjectShare } = sureRegions(alpha, width, height, radius);
  const channel = new Float32Array(size);
  for (let c = 0; c < 3; c++) {
    const background = maskedChannelMean(source, c, isBackground, channel, radius);
    const subject = maskedChannelMean(source, c, isSubject, channel, radius);
    for (let i = 0; i < size; i++) {
      const a = alpha[i]!;
      if (a < 0.02 || a > 0.98) continue;
      if (a >= 0.25 && backgroundShare[i]! > 0) {
        colours[i * 3 + c] = (data[i * 3 + c]! - (1 - a) * (background[i]! / backgroundShare[i]!)) / a;
      } else if (subjectShare[i]! > 0) {
        colours[i * 3 + c] = subject[i]! / subjectShare[i]!;
      }
    }
  }
  return colours;
}

/** The subject as 1 and background as 0 at the raster's size. */
async function segmentSubject(image: Raster): Promise<Uint8Array> {
  const { cv } = await loadOpenCv();
  const { width, height } = image;
  const seeds = seedLabels(image, { background: cv.GC_BGD, probableBackground: cv.GC_PR_BGD, probableForeground: cv.GC_PR_FGD });
  const picture = new cv.Mat(height, width, cv.CV_8UC3);
  const labels = new cv.Mat(height, width, cv.CV_8UC1);
  const backgroundModel = new cv.Mat();
  const foregroundModel = new cv.Mat();
  return withMats([picture, labels, backgroundModel, foregroundModel], () => {
    picture.data.set(image.data);
    labels.data.set(seeds);
    cv.grabCut(picture, labels, new cv.Rect(0, 0, width, height), backgroundModel, foregroundModel, GRABCUT_ITERATIONS, cv.GC_INIT_WITH_MASK);
    const subject = new Uint8Array(width * height);
    for (let i = 0; i < subject.length; i++) subject[i] = labels.data[i] === cv.GC_FGD || labels.data[i] === cv.GC_PR_FGD ? 1 : 0;
    return subject;
  });
}

/**
 * GrabCut's starting labels without a rectangle from a person: the picture's border is taken as
 * background, pixels far in colour from every border colour as the probable subject, the rest
 * as probable background. Where the subject runs off the picture (a person cut at the waist) the
 * border is not background: a border pixel counts as background only when its colour is found
 * along the other sides of the picture too, and on a side where many are not, none is certain.
 */
export function seedLabels(image: Raster, label: { background: number; probableBackground: number; probableForeground: number }): Uint8Array {
  const { width, height, data } = image;
  const band = Math.max(2, Math.round(0.02 * Math.min(width, height)));
  const sides: number[][] = [[], [], [], []];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * width + x;
      if (x < band) sides[0]!.push(at);
      if (x >= width - band) sides[1]!.push(at);
      if (y < band) sides[2]!.push(at);
      if (y >= height - band) sides[3]!.push(at);
    }
  }
  const background = new Set<number>();
  for (const [n, side] of sides.entries()) {
    const ownPixels = new Set(side);
    const others = sides.filter((_, m) => m !== n).flat().filter((at) => !ownPixels.has(at));
    const centres = kMeans(data, others, BORDER_CLUSTERS).filter((centre) => centre.share > 0);
    const matching = side.filter((at) => nearestDistance(data, at, centres) <= SIDE_MATCH);
    // A side the subject runs off is background nowhere for certain: its subject may share some colours with the rest.
    if (matching.length >= side.length * (1 - TOUCHED_SIDE)) for (const at of matching) background.add(at);
  }
  const backgroundPixels = [...background];
  // No side shares its colours with another (a close-up filling the frame): all of the border is the best guess.
  const centres = kMeans(data, backgroundPixels.length > 0 ? backgroundPixels : sides.flat(), BORDER_CLUSTERS).filter((centre) => centre.share > 0);
  const distances = new Float32Array(width * height);
  for (let i = 0; i < distances.length; i++) distances[i] = nearestDistance(data, i, centres);
  const threshold = Math.max(otsuThreshold(distances), 20);
  const seeds = new Uint8Array(width * height);
  for (let i = 0; i < seeds.length; i++) seeds[i] = distances[i]! > threshold ? label.probableForeground : label.probableBackground;
  for (const i of backgroundPixels) {
    if (distances[i]! <= threshold) seeds[i] = label.background;
  }
  return seeds;
}

interface Centre {
  rgb: [number, number, number];
  /** The part of the samples nearest to it. */
  share: number;
}

function nearestDistance(data: Uint8Array, pixel: number, centres: readonly Centre[]): number {
  const p = pixel * 3;
  let best = Infinity;
  for (const { rgb } of centres) {
    const dr = data[p]! - rgb[0];
    const dg = data[p + 1]! - rgb[1];
    const db = data[p + 2]! - rgb[2];
    const distance = dr * dr + dg * dg + db * db;
    if (distance < best) best = distance;
  }
  return Math.sqrt(best);
}

/** A few rounds of k-means over the colours of `pixels`, started from evenly spaced samples (deterministic). */
function kMeans(data: Uint8Array, pixels: readonly number[], k: number): Centre[] {
  const centres: Centre[] = Array.from({ length: k }, (_, n) => {
    const p = pixels[Math.floor(((n + 0.5) * pixels.length) / k)]! * 3;
    return { rgb: [data[p]!, data[p + 1]!, data[p + 2]!], share: 0 };
  });
  const sums = new Float64Array(k * 4);
  for (let round = 0; round < 8; round++) {
    sums.fill(0);
    for (const pixel of pixels) {
      const p = pixel * 3;
      let best = 0;
      let bestDistance = Infinity;
      for (let c = 0; c < k; c++) {
        const rgb = centres[c]!.rgb;
        const distance = (data[p]! - rgb[0]) ** 2 + (data[p + 1]! - rgb[1]) ** 2 + (data[p + 2]! - rgb[2]) ** 2;
        if (distance < bestDistance) {
          bestDistance = distance;
          best = c;
        }
      }
      sums[best * 4]! += data[p]!;
      sums[best * 4 + 1]! += data[p + 1]!;
      sums[best * 4 + 2]! += data[p + 2]!;
      sums[best * 4 + 3]! += 1;
    }
    for (let c = 0; c < k; c++) {
      const count = sums[c * 4 + 3]!;
      centres[c]!.share = count / pixels.length;
      if (count > 0) centres[c]!.rgb = [sums[c * 4]! / count, sums[c * 4 + 1]! / count, sums[c * 4 + 2]! / count];
    }
  }
  return centres;
}

/** The threshold that best splits `values` in two (Otsu), over a 256-bin histogram. */
function otsuThreshold(values: Float32Array): number {
  let max = 0;
  for (const value of values) if (value > max) max = value;
  if (max === 0) return 0;
  const histogram = new Float64Array(256);
  for (const value of values) histogram[Math.min(255, Math.floor((value / max) * 255))]! += 1;
  let total = 0;
  for (let bin = 0; bin < 256; bin++) total += bin * histogram[bin]!;
  let weightBelow = 0;
  let sumBelow = 0;
  let best = 0;
  let bestVariance = -1;
  for (let bin = 0; bin < 256; bin++) {
    weightBelow += histogram[bin]!;
    if (weightBelow === 0) continue;
    const weightAbove = values.length - weightBelow;
    if (weightAbove === 0) break;
    sumBelow += bin * histogram[bin]!;
    const meanBelow = sumBelow / weightBelow;
    const meanAbove = (total - sumBelow) / weightAbove;
    const variance = weightBelow * weightAbove * (meanBelow - meanAbove) ** 2;
    if (variance > bestVariance) {
      bestVariance = variance;
      best = bin;
    }
  }
  return ((best + 0.5) / 255) * max;
}

/** Drops specks: regions of the subject under 2% of its largest region. */
function keepLargeRegions(subject: Uint8Array, width: number): void {
  const { labels, sizes } = connectedRegions(subject, width);
  const largest = sizes.reduce((most, size) => Math.max(most, size), 0);
  for (let i = 0; i < subject.length; i++) {
    if (subject[i] && sizes[labels[i]!]! < largest * 0.02) subject[i] = 0;
  }
}
