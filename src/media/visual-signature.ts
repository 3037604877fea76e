import sharp from 'sharp';

/*
 * A visual signature: a short vector of floats describing how an image looks, so
 * that "images like this one" becomes "signatures nearest to this one".
 *
 * It is computed from a 64×64 thumbnail of the original (stretched to a square, so a
 * resized copy of any aspect ratio lands on the same grid) and has three parts:
 *
 *   colour   51 floats   a histogram of hue × chroma × value, L1-normalised: which
 *                        colours there are, in what share, wherever they are.
 *   layout   35 floats   the lowest frequencies of a 32×32 DCT of the grey image (the
 *                        triangle u + v ≤ 7 of its top-left 8×8, less the DC term):
 *                        where the image is light and dark, at the scale of whole
 *                        regions (sky above, a subject in the middle, a dark corner).
 *                        The idea behind perceptual hashes; kept as soft signs rather
 *                        than bits (see layoutPart).
 *   edges    32 floats   a 4×4 grid of cells, each with its amount of horizontal and of
 *                        vertical brightness change: where the detail is and which way
 *                        it runs (stripes, horizons, a textured patch).
 *
 * Distance between two signatures is the L1 (Manhattan) distance of the whole vector.
 * Each part is scaled so that its own L1 distance runs from 0 (same) to 2 (nothing in
 * common), then multiplied by its weight, so the whole distance is
 *
 *   WEIGHTS.colour × d_colour + WEIGHTS.layout × d_layout + WEIGHTS.edges × d_edges
 *
 * and runs from 0 to 2 × (sum of the weights) = 5. For a sense of the scale, measured on
 * demo-catalogue pictures: a copy resized, recompressed (JPEG 30–60) or blurred is
 * 0.01–0.05 away from its original; cropped by 5 % about 0.16; 15 % brighter about 0.3;
 * mirrored about 0.7; made grey about 1.1; two unrelated pictures about 2.35 (median;
 * one pair in ten under 1.6).
 *
 * The colour part comes first because, between unrelated images, it adds the most
 * distance per float (about twice what the other two do): an index that abandons a
 * distance once it exceeds its current k-th best (VisualIndex does) gives up sooner.
 */

/** The thumbnail every part is computed from: small enough to decode fast (JPEG shrinks on load). */
const GRID = 64;
/** The grey image the DCT runs on: the 64×64 thumbnail averaged 2×2. */
const DCT_SIZE = 32;
/** Frequencies looked at per axis: the top-left 8×8 of the DCT. */
const DCT_KEEP = 8;
/**
 * The frequencies (u down, v across) the layout part keeps, lowest first: u + v ≤ 7, the
 * half of the 8×8 block a JPEG zig-zag visits first, less the DC term (mean brightness,
 * which the colour part has). The other half, fine diagonal checks at the scale of a few
 * pixels, says little about layout, is the first to change under JPEG, and would cost
 * the index 28 more floats per signature to compare.
 */
const LAYOUT_FREQUENCIES: ReadonlyArray<readonly [u: number, v: number]> = (() => {
  const frequencies: Array<[number, number]> = [];
  for (let sum = 1; sum < DCT_KEEP; sum++) {
    for (let u = 0; u <= sum; u++) frequencies.push([u, sum - u]);
  }
  return frequencies;
})();
/** Cells per side of the edge grid. */
const EDGE_CELLS = 4;
const HUE_BINS = 8;
/** Chroma levels: achromatic (grey, black, white: no hue), muted, vivid. */
const CHROMA_KNOTS = [0.05, 0.25, 0.6] as const;
/** Value levels: dark, mid, bright. */
const VALUE_KNOTS = [0.2, 0.5, 0.8] as const;

const LAYOUT_LENGTH = LAYOUT_FREQUENCIES.length;
const EDGES_LENGTH = EDGE_CELLS * EDGE_CELLS * 2;
/** Achromatic × 3 values, then 8 hues × (muted, vivid) × 3 values. */
const COLOUR_LENGTH = VALUE_KNOTS.length + HUE_BINS * (CHROMA_KNOTS.length - 1) * VALUE_KNOTS.length;

/**
 * How much each part counts, chosen so that the parts a person notices first at
 * thumbnail size count most, and the part least stable under re-encoding counts least:
 *
 * - colour 1.0: the overall palette is the first thing anyone matches on ("the blue one
 *   with a bit of orange"), and a histogram barely moves when an image is resized,
 *   recompressed or cropped a little.
 * - layout 1.0: the arrangement of light and dark is what tells a beach at dusk from an
 *   orange wall; a 32×32 DCT's low frequencies survive resizing and JPEG almost intact.
 * - edges 0.5: orientation and placement of detail separate stripes from checks and a
 *   horizon from a portrait, but it is the part JPEG blocking, sharpening and scaling
 *   kernels disturb most, and it partly repeats the layout part, so it breaks ties
 *   rather than deciding.
 *
 * Between unrelated demo pictures the weighted parts then differ by about 1.2 (colour),
 * 0.75 (layout) and 0.35 (edges) at the median: colour leads, as intended, without
 * drowning the others; a near copy moves each by under 0.03.
 */
export const WEIGHTS = { colour: 1, layout: 1, edges: 0.5 } as const;

export interface SignaturePart {
  /** First float of the part in a signature. */
  offset: number;
  length: number;
  weight: number;
}

/** Where each part sits in a signature. */
export const SIGNATURE_PARTS: Readonly<Record<'colour' | 'layout' | 'edges', Readonly<SignaturePart>>> = {
  colour: { offset: 0, length: COLOUR_LENGTH, weight: WEIGHTS.colour },
  layout: { offset: COLOUR_LENGTH, length: LAYOUT_LENGTH, weight: WEIGHTS.layout },
  edges: { offset: COLOUR_LENGTH + LAYOUT_LENGTH, length: EDGES_LENGTH, weight: WEIGHTS.edges },
};

/** Floats in a signature (118). */
export const SIGNATURE_LENGTH = COLOUR_LENGTH + LAYOUT_LENGTH + EDGES_LENGTH;

/**
 * A grouping of some of the signature's floats into SUMMARY_LENGTH (17) groups, for a
 * cheap lower bound on distance: for any two vectors and any disjoint groups of floats,
 *
 *   Σ over groups |Σ a − Σ b|  ≤  Σ |a − b|
 *
 * so an index can compare 17 group sums before all 118 floats, and skip a candidate
 * whose bound already exceeds its k-th best without ever losing a true neighbour. The
 * groups keep most of what tells unrelated images apart:
 *
 * - colour: one group per hue (its 6 chroma × value bins) and one for the achromatic
 *   bins, 9 in all: the hue distribution;
 * - edges: per quadrant of the image, its vertical-edge cells and its horizontal-edge
 *   cells, 8 in all: which way detail runs, and roughly where.
 *
 * The layout part is in no group: its values are signed, and sums of them cancel out.
 * (VisualIndex bounds it from the signs of its saturated values instead.)
 * SUMMARY_GROUP_OF[i] is the group of float i, or −1.
 */
export const SUMMARY_GROUP_OF: readonly number[] = (() => {
  const groupOf = new Array<number>(SIGNATURE_LENGTH).fill(-1);
  const values = VALUE_KNOTS.length;
  const chromaLevels = CHROMA_KNOTS.length - 1;
  let group = 0;
  for (let bin = 0; bin < values; bin++) groupOf[SIGNATURE_PARTS.colour.offset + bin] = group;
  group++;
  for (let hue = 0; hue < HUE_BINS; hue++, group++) {
    for (let bin = 0; bin < chromaLevels * values; bin++) {
      groupOf[SIGNATURE_PARTS.colour.offset + values + hue * chromaLevels * values + bin] = group;
    }
  }
  const half = EDGE_CELLS / 2;
  for (let row = 0; row < EDGE_CELLS; row++) {
    for (let column = 0; column < EDGE_CELLS; column++) {
      const quadrant = Math.floor(row / half) * 2 + Math.floor(column / half);
      const at = SIGNATURE_PARTS.edges.offset + (row * EDGE_CELLS + column) * 2;
      groupOf[at] = group + quadrant * 2;
      groupOf[at + 1] = group + quadrant * 2 + 1;
    }
  }
  return Object.freeze(groupOf);
})();

/** How many groups SUMMARY_GROUP_OF has (17). */
export const SUMMARY_LENGTH = Math.max(...SUMMARY_GROUP_OF) + 1;

/**
 * Changes whenever the descriptor does (parts, sizes, weights, thresholds): signatures of
 * different versions must not be compared, so anything that stores signatures should
 * store this with them and recompute when it differs.
 */
export const SIGNATURE_VERSION = 1;

/**
 * The visual signature of an image (JPEG, PNG, WebP, TIFF, GIF: anything sharp reads),
 * EXIF orientation applied and transparency flattened onto white. The same bytes always
 * give the same signature. Rejects with "Unreadable image: …" when sharp cannot decode it.
 */
export async function computeVisualSignature(image: Buffer): Promise<Float32Array> {
  let pixels: Buffer;
  let channels: number;
  try {
    const { data, info } = await sharp(image, { failOn: 'truncated' })
      .autoOrient()
      .flatten({ background: '#ffffff' })
      .resize(GRID, GRID, { fit: 'fill' })
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    pixels = data;
    channels = info.channels;
    if (info.width !== GRID || info.height !== GRID || data.length !== GRID * GRID * channels) {
      throw new Error(`expected a ${GRID}×${GRID} thumbnail, got ${info.width}×${info.height}×${channels}`);
    }
  } catch (error) {
    throw new Error(`Unreadable image: ${error instanceof Error ? error.message : String(error)}`);
  }
  const rgb = toRgb(pixels, channels);
  const grey = greyOf(rgb);
  const signature = new Float32Array(SIGNATURE_LENGTH);
  colourPart(rgb, signature, SIGNATURE_PARTS.colour);
  layoutPart(grey, signature, SIGNATURE_PARTS.layout);
  edgesPart(grey, signature, SIGNATURE_PARTS.edges);
  return signature;
}

/** The L1 distance between two signatures: the weighted sum of the parts' distances. */
export function signatureDistance(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`signatures differ in length: ${a.length} and ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum;
}

/** A signature as text (little-endian float32s in base64), for storing it in JSON. */
export function signatureToBase64(signature: Float32Array): string {
  const bytes = Buffer.alloc(signature.length * 4);
  for (let i = 0; i < signature.length; i++) bytes.writeFloatLE(signature[i]!, i * 4);
  return bytes.toString('base64');
}

/**
 * Reads back what signatureToBase64 wrote. Throws a RangeError unless the text is
 * base64 of exactly SIGNATURE_LENGTH finite float32s, so a truncated value or one from a
 * descriptor of another size is caught here rather than compared as if it were valid.
 */
export function signatureFromBase64(text: string): Float32Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new RangeError('a visual signature must be base64 text');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== SIGNATURE_LENGTH * 4) {
    throw new RangeError(`a visual signature is ${SIGNATURE_LENGTH * 4} bytes, got ${bytes.length}`);
  }
  const signature = new Float32Array(SIGNATURE_LENGTH);
  for (let i = 0; i < SIGNATURE_LENGTH; i++) {
    const value = bytes.readFloatLE(i * 4);
    if (!Number.isFinite(value)) throw new RangeError(`a visual signature holds a non-finite number at ${i}`);
    signature[i] = value;
  }
  return signature;
}

// ---------------------------------------------------------------------------
// Pixels

/** Interleaved r, g, b in [0, 1] for the GRID×GRID thumbnail, whatever channels sharp gave. */
function toRgb(pixels: Buffer, channels: number): Float64Array {
  const count = GRID * GRID;
  const rgb = new Float64Array(count * 3);
  for (let p = 0; p < count; p++) {
    const at = p * channels;
    const r = pixels[at]!;
    // One or two channels (grey, grey + alpha) only if sharp kept the image grey.
    const g = channels >= 3 ? pixels[at + 1]! : r;
    const b = channels >= 3 ? pixels[at + 2]! : r;
    rgb[p * 3] = r / 255;
    rgb[p * 3 + 1] = g / 255;
    rgb[p * 3 + 2] = b / 255;
  }
  return rgb;
}

/** Luma (Rec. 601 weights on the sRGB values), GRID×GRID, in [0, 1]. */
function greyOf(rgb: Float64Array): Float64Array {
  const grey = new Float64Array(GRID * GRID);
  for (let p = 0; p < grey.length; p++) {
    grey[p] = 0.299 * rgb[p * 3]! + 0.587 * rgb[p * 3 + 1]! + 0.114 * rgb[p * 3 + 2]!;
  }
  return grey;
}

// ---------------------------------------------------------------------------
// Layout: low frequencies of a DCT

/** Orthonormal DCT-II basis, only the DCT_KEEP lowest rows: BASIS[k * DCT_SIZE + n]. */
const BASIS = (() => {
  const basis = new Float64Array(DCT_KEEP * DCT_SIZE);
  for (let k = 0; k < DCT_KEEP; k++) {
    const scale = Math.sqrt((k === 0 ? 1 : 2) / DCT_SIZE);
    for (let n = 0; n < DCT_SIZE; n++) basis[k * DCT_SIZE + n] = scale * Math.cos((Math.PI * (2 * n + 1) * k) / (2 * DCT_SIZE));
  }
  return basis;
})();

/**
 * A DCT coefficient whose size is under this (in units of brightness 0–1 summed over
 * the orthonormal basis; a full black-to-white split scores about 14) is treated as
 * "no structure" rather than a sign: it keeps flat and nearly flat images, whose
 * coefficients are all rounding and JPEG noise, at a neutral 0 instead of random ±1.
 */
const LAYOUT_FLOOR = 0.2;

/**
 * The 35 low-frequency DCT coefficients of the 32×32 grey image (LAYOUT_FREQUENCIES),
 * each squashed to [−1, 1] by clamp(c / τ), where τ is half their mean magnitude (at
 * least LAYOUT_FLOOR). Like a perceptual hash it keeps the sign pattern and is blind to
 * overall contrast; unlike one, a coefficient near zero, whose sign JPEG noise could
 * flip, gives a value near 0 rather than a whole bit. Scaled by weight / 35 so the part's
 * L1 distance runs from 0 to 2 × weight.
 */
function layoutPart(grey: Float64Array, out: Float32Array, part: SignaturePart): void {
  // 2×2 average down to DCT_SIZE.
  const small = new Float64Array(DCT_SIZE * DCT_SIZE);
  for (let y = 0; y < DCT_SIZE; y++) {
    for (let x = 0; x < DCT_SIZE; x++) {
      const at = 2 * y * GRID + 2 * x;
      small[y * DCT_SIZE + x] = (grey[at]! + grey[at + 1]! + grey[at + GRID]! + grey[at + GRID + 1]!) / 4;
    }
  }
  // Rows first: rows[y][v] = Σx small[y][x] · B[v][x]; then columns: c[u][v] = Σy B[u][y] · rows[y][v].
  const rows = new Float64Array(DCT_SIZE * DCT_KEEP);
  for (let y = 0; y < DCT_SIZE; y++) {
    for (let v = 0; v < DCT_KEEP; v++) {
      let sum = 0;
      for (let x = 0; x < DCT_SIZE; x++) sum += small[y * DCT_SIZE + x]! * BASIS[v * DCT_SIZE + x]!;
      rows[y * DCT_KEEP + v] = sum;
    }
  }
  const coefficients = LAYOUT_FREQUENCIES.map(([u, v]) => {
    let sum = 0;
    for (let y = 0; y < DCT_SIZE; y++) sum += BASIS[u * DCT_SIZE + y]! * rows[y * DCT_KEEP + v]!;
    return sum;
  });
  let meanMagnitude = 0;
  for (const c of coefficients) meanMagnitude += Math.abs(c);
  meanMagnitude /= LAYOUT_LENGTH;
  const tau = Math.max(meanMagnitude / 2, LAYOUT_FLOOR);
  const scale = part.weight / LAYOUT_LENGTH;
  for (let j = 0; j < LAYOUT_LENGTH; j++) {
    out[part.offset + j] = scale * Math.min(1, Math.max(-1, coefficients[j]! / tau));
  }
}

// ---------------------------------------------------------------------------
// Edges: where brightness changes, and which way

/**
 * Total gradient, as a mean per pixel and axis, below which an image counts as having
 * little detail: its edge part is scaled down towards zero instead of blowing faint
 * noise up into a full-strength pattern. 0.01 is a change of about 2.5 grey levels (of
 * 255) per pixel; a photograph typically has several times that.
 */
const EDGE_FLOOR = 0.01;

/**
 * For each of 4×4 cells, the summed |horizontal change| and |vertical change| of
 * brightness (central differences on the 64×64 grey image), divided by the whole
 * image's total (or by the floor, when that is larger). So the part says where the
 * detail is and which way it runs, not how strong it is: a faded copy matches its
 * original. Sums to at most 1, so its L1 distance runs from 0 to 2 × weight.
 *
 * Slot order per cell: [change along x (vertical edges), change along y (horizontal edges)].
 */
function edgesPart(grey: Float64Array, out: Float32Array, part: SignaturePart): void {
  const cells = new Float64Array(EDGES_LENGTH);
  const cellSize = GRID / EDGE_CELLS;
  let total = 0;
  for (let y = 0; y < GRID; y++) {
    const up = y === 0 ? 0 : y - 1;
    const down = y === GRID - 1 ? y : y + 1;
    for (let x = 0; x < GRID; x++) {
      const left = x === 0 ? 0 : x - 1;
      const right = x === GRID - 1 ? x : x + 1;
      const gx = Math.abs(grey[y * GRID + right]! - grey[y * GRID + left]!) / (right - left);
      const gy = Math.abs(grey[down * GRID + x]! - grey[up * GRID + x]!) / (down - up);
      const cell = (Math.floor(y / cellSize) * EDGE_CELLS + Math.floor(x / cellSize)) * 2;
      cells[cell] = cells[cell]! + gx;
      cells[cell + 1] = cells[cell + 1]! + gy;
      total += gx + gy;
    }
  }
  const scale = part.weight / Math.max(total, EDGE_FLOOR * GRID * GRID * 2);
  for (let j = 0; j < EDGES_LENGTH; j++) out[part.offset + j] = scale * cells[j]!;
}

// ---------------------------------------------------------------------------
// Colour: hue × chroma × value histogram

/**
 * Splits a value between the two neighbouring levels of a set of knots (linear
 * interpolation; clamped at the ends). Returns the lower level and the share of the
 * upper one. Soft binning: a colour on a bin edge does not jump from one bin to the
 * next when JPEG nudges it, and near colours (red, orange) share bins in part.
 */
function splitAt(knots: readonly number[], value: number): [level: number, upperShare: number] {
  const last = knots.length - 1;
  if (value <= knots[0]!) return [0, 0];
  if (value >= knots[last]!) return [last, 0];
  let level = 0;
  while (value > knots[level + 1]!) level++;
  return [level, (value - knots[level]!) / (knots[level + 1]! - knots[level]!)];
}

/**
 * A histogram over hue (8 bins, centred on red, orange, yellow, …, circular), chroma
 * (max − min of r, g, b: achromatic, muted, vivid) and value (max of r, g, b: dark,
 * mid, bright), every pixel spread linearly between neighbouring bins on each axis.
 *
 * Chroma rather than HSV saturation, because dark pixels have near-zero chroma but can
 * have full saturation, and their hue is noise. Achromatic pixels have no hue at all, so
 * that level has value bins only: 3 + 8 × 2 × 3 = 51 bins. L1-normalised (it sums to 1),
 * so images of any size compare and the L1 distance runs from 0 to 2 × weight.
 */
function colourPart(rgb: Float64Array, out: Float32Array, part: SignaturePart): void {
  const bins = new Float64Array(COLOUR_LENGTH);
  const values = VALUE_KNOTS.length;
  const add = (bin: number, amount: number) => {
    bins[bin] = bins[bin]! + amount;
  };
  const count = GRID * GRID;
  for (let p = 0; p < count; p++) {
    const r = rgb[p * 3]!;
    const g = rgb[p * 3 + 1]!;
    const b = rgb[p * 3 + 2]!;
    const max = Math.max(r, g, b);
    const chroma = max - Math.min(r, g, b);
    const [valueLevel, valueUp] = splitAt(VALUE_KNOTS, max);
    const valueShares = [
      [valueLevel, 1 - valueUp],
      [valueLevel + 1, valueUp],
    ] as const;
    const [chromaLevel, chromaUp] = splitAt(CHROMA_KNOTS, chroma);
    const chromaShares = [
      [chromaLevel, 1 - chromaUp],
      [chromaLevel + 1, chromaUp],
    ] as const;
    // Hue in sixths of the circle (0 = red), then in bins of 45° centred on 0°, 45°, …
    let hueBin = 0;
    let hueUp = 0;
    if (chroma > 0) {
      let sixths: number;
      if (max === r) sixths = ((g - b) / chroma + 6) % 6;
      else if (max === g) sixths = (b - r) / chroma + 2;
      else sixths = (r - g) / chroma + 4;
      const position = (sixths * HUE_BINS) / 6;
      hueBin = Math.floor(position) % HUE_BINS;
      hueUp = position - Math.floor(position);
    }
    for (const [chromaAt, chromaShare] of chromaShares) {
      if (chromaShare === 0) continue;
      for (const [valueAt, valueShare] of valueShares) {
        if (valueShare === 0) continue;
        const share = chromaShare * valueShare;
        if (chromaAt === 0) {
          add(valueAt, share);
          continue;
        }
        const level = chromaAt - 1;
        const lower = values + (hueBin * 2 + level) * values + valueAt;
        const upper = values + (((hueBin + 1) % HUE_BINS) * 2 + level) * values + valueAt;
        add(lower, share * (1 - hueUp));
        add(upper, share * hueUp);
      }
    }
  }
  const scale = part.weight / count;
  for (let j = 0; j < COLOUR_LENGTH; j++) out[part.offset + j] = scale * bins[j]!;
}

/** A signature as the store keeps it: "v<SIGNATURE_VERSION>:<base64>". */
export function encodeStoredSignature(signature: Float32Array): string {
  return `v${SIGNATURE_VERSION}:${signatureToBase64(signature)}`;
}

/**
 * Reads a stored signature back; undefined when it was made by another version of the
 * descriptor (it must then be recomputed from the original, not compared).
 */
export function decodeStoredSignature(text: string): Float32Array | undefined {
  const separator = text.indexOf(':');
  if (separator < 0 || text.slice(0, separator) !== `v${SIGNATURE_VERSION}`) return undefined;
  return signatureFromBase64(text.slice(separator + 1));
}
