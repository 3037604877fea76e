import type { Sharp } from 'sharp';

const WATERMARK_TEXT = 'STOCKROOM';
/** Tilt of the text rows; diagonal marks are the hardest to crop or clone away. */
const ANGLE_DEGREES = -30;
/** Font size as a share of the long edge, bounded so thumbnails still show a mark and big comps are not one giant word. */
const FONT_SIZE_SHARE = 1 / 16;
const MIN_FONT_SIZE = 5;
const MAX_FONT_SIZE = 110;
/** Spacing in font sizes: the bold word is about 7 wide, so 10 leaves a gap; rows alternate by half a step like brickwork. */
const WORD_STEP_EM = 10;
const ROW_STEP_EM = 3.5;
/** The light mark's font size as a share of the shorter edge. */
const LIGHT_FONT_SHARE = 1 / 18;

/**
 * An SVG of exactly width × height holding the watermark: the word repeated in
 * staggered diagonal rows, white at partial opacity with a faint dark outline,
 * so it shows over light and dark pictures alike without hiding them.
 *
 * The words are laid out as plain <text> elements rather than an SVG <pattern>:
 * librsvg renders a rotated pattern several times slower at comp sizes.
 */
export function watermarkSvg(width: number, height: number): string {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`watermark size must be positive whole pixels, got ${width}x${height}`);
  }
  const fontSize = Math.min(MAX_FONT_SIZE, Math.max(MIN_FONT_SIZE, Math.round(Math.max(width, height) * FONT_SIZE_SHARE)));
  const wordStep = fontSize * WORD_STEP_EM;
  const rowStep = fontSize * ROW_STEP_EM;
  // Rows are laid out around the centre in a rotated frame; covering a square of the
  // image's diagonal guarantees the rotated rows reach every corner.
  const reach = Math.hypot(width, height) / 2 + wordStep;
  const words: string[] = [];
  for (let row = 0, y = -reach; y <= reach; row += 1, y += rowStep) {
    const stagger = row % 2 === 0 ? 0 : wordStep / 2;
    for (let x = -reach + stagger; x <= reach; x += wordStep) {
      words.push(`<text x="${round(x)}" y="${round(y)}">${WATERMARK_TEXT}</text>`);
    }
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<g transform="translate(${round(width / 2)} ${round(height / 2)}) rotate(${ANGLE_DEGREES})"`,
    ` font-family="DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif" font-weight="bold" font-size="${fontSize}"`,
    ' text-anchor="middle" dominant-baseline="central" fill="#ffffff" fill-opacity="0.38"',
    ` stroke="#000000" stroke-opacity="0.2" stroke-width="${round(Math.max(0.4, fontSize / 30))}">`,
    ...words,
    '</g>',
    '</svg>',
  ].join('');
}

/**
 * The light mark of a results grid: the word once, small, in the bottom-right corner, so a
 * picture editor sees the whole composition and the source is still named.
 */
export function lightWatermarkSvg(width: number, height: number): string {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`watermark size must be positive whole pixels, got ${width}x${height}`);
  }
  const fontSize = Math.max(MIN_FONT_SIZE, Math.round(Math.min(width, height) * LIGHT_FONT_SHARE));
  const margin = Math.round(fontSize * 0.6);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<text x="${width - margin}" y="${height - margin}" text-anchor="end" font-family="DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"`,
    ` font-weight="bold" font-size="${fontSize}" fill="#ffffff" fill-opacity="0.55" stroke="#000000" stroke-opacity="0.25" stroke-width="${round(Math.max(0.4, fontSize / 30))}">`,
    `${WATERMARK_TEXT}</text>`,
    '</svg>',
  ].join('');
}

/**
 * Adds the watermark to a sharp pipeline whose output is width × height (the light corner
 * mark when asked). sharp composites after resizing, so pass the rendition's final size.
 */
export function applyWatermark(image: Sharp, width: number, height: number, light = false): Sharp {
  const svg = light ? lightWatermarkSvg(width, height) : watermarkSvg(width, height);
  return image.composite([{ input: Buffer.from(svg), top: 0, left: 0 }]);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
