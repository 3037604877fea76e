/**
 * The display renditions ("comps") the API offers for an image, as data.
 *
 * Each display-size name maps to a rendition file. Several names may share one
 * file: since the spec's 2024-08-12 change, `preview` is the same file as `comp`,
 * so both resolve to `comp.jpg` and therefore to the same signed URL path.
 */

export const DISPLAY_SIZE_NAMES = [
  'thumb',
  'preview',
  'comp',
  'mid_res_comp',
  'high_res_comp',
  'comp_webp',
  'mid_res_comp_webp',
  'high_res_comp_webp',
] as const;

export type DisplaySizeName = (typeof DISPLAY_SIZE_NAMES)[number];

export type RenditionFormat = 'jpeg' | 'webp';

/** One stored rendition file: how big, which encoding, whether it carries the watermark. */
export interface Rendition {
  /** The file name in the display URL, e.g. `comp.jpg`; also the cache file name. */
  readonly file: string;
  /** Longest edge in pixels; the other edge follows the original's aspect ratio. */
  readonly longEdge: number;
  readonly format: RenditionFormat;
  readonly watermarked: boolean;
  /** The small corner mark instead of the diagonal rows: for pictures shown many to a page, where the full mark hides them. */
  readonly lightMark?: boolean;
  readonly contentType: string;
}

function rendition(file: string, longEdge: number, format: RenditionFormat, watermarked: boolean, lightMark = false): Rendition {
  return Object.freeze({
    file,
    longEdge,
    format,
    watermarked,
    ...(lightMark ? { lightMark } : {}),
    contentType: format === 'jpeg' ? 'image/jpeg' : 'image/webp',
  });
}

const THUMB = rendition('thumb.jpg', 170, 'jpeg', false);
const COMP = rendition('comp.jpg', 612, 'jpeg', true);
const MID_RES_COMP = rendition('mid_res_comp.jpg', 1024, 'jpeg', true);
const HIGH_RES_COMP = rendition('high_res_comp.jpg', 2048, 'jpeg', true);
const COMP_WEBP = rendition('comp.webp', 612, 'webp', true);
const MID_RES_COMP_WEBP = rendition('mid_res_comp.webp', 1024, 'webp', true);
const HIGH_RES_COMP_WEBP = rendition('high_res_comp.webp', 2048, 'webp', true);

/**
 * The catalogue browser's result grid: big enough for a justified row on a high-density screen,
 * marked lightly in a corner as the large sites mark their grids. Not a display size of the API
 * (its names are the spec's); comp and preview keep the full watermark.
 */
export const GRID_RENDITION = rendition('grid.jpg', 480, 'jpeg', true, true);

/** Display-size name → the rendition file it is served from. */
export const DISPLAY_SIZES: Readonly<Record<DisplaySizeName, Rendition>> = Object.freeze({
  thumb: THUMB,
  preview: COMP,
  comp: COMP,
  mid_res_comp: MID_RES_COMP,
  high_res_comp: HIGH_RES_COMP,
  comp_webp: COMP_WEBP,
  mid_res_comp_webp: MID_RES_COMP_WEBP,
  high_res_comp_webp: HIGH_RES_COMP_WEBP,
});

const RENDITIONS_BY_FILE: ReadonlyMap<string, Rendition> = new Map(
  [...Object.values(DISPLAY_SIZES), GRID_RENDITION].map((entry) => [entry.file, entry]),
);

export function isDisplaySizeName(name: string): name is DisplaySizeName {
  return Object.hasOwn(DISPLAY_SIZES, name);
}

/** The rendition behind a display URL's file name (`comp.jpg`, `mid_res_comp.webp`, …), or undefined. */
export function renditionForFile(file: string): Rendition | undefined {
  return RENDITIONS_BY_FILE.get(file);
}

/**
 * Scales width × height so the longer edge is at most `longEdge`, keeping the
 * aspect ratio and never enlarging. Both results are whole pixels, at least 1.
 */
export function fitWithinLongEdge(width: number, height: number, longEdge: number): { width: number; height: number } {
  if (!(width > 0 && height > 0 && longEdge > 0)) {
    throw new RangeError(`dimensions must be positive, got ${width}x${height} within ${longEdge}`);
  }
  const scale = Math.min(1, longEdge / Math.max(width, height));
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}

/** The pixel size of a display rendition for an original of the given size. */
export function renditionDimensions(
  name: DisplaySizeName,
  originalWidth: number,
  originalHeight: number,
): { width: number; height: number } {
  return fitWithinLongEdge(originalWidth, originalHeight, DISPLAY_SIZES[name].longEdge);
}
