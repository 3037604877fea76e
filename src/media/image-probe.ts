import sharp from 'sharp';
import { fitWithinLongEdge } from './display-sizes.js';

export interface ProbedImage {
  /** Pixel size as displayed, i.e. after applying any EXIF orientation. */
  width: number;
  height: number;
  dpi: number;
  media_type: string;
  bytes: number;
}

export type Orientation = 'Horizontal' | 'PanoramicHorizontal' | 'PanoramicVertical' | 'Square' | 'Vertical';

export interface DownloadSize {
  name: string;
  width: number;
  height: number;
  dpi: number;
  bytes: number;
  media_type: string;
}

/** The formats an original may be stored in; anything else (SVG, GIF, HEIF, …) is refused at the door. */
const MEDIA_TYPES_BY_FORMAT: Readonly<Record<string, string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  tiff: 'image/tiff',
};

/** Screen resolution, assumed when a file records no density. */
const DEFAULT_DPI = 72;

/**
 * How strict a check decode is: as strict as the renderer, which opens originals with
 * sharp's default (`warning`). `truncated` alone would let through a file with corrupt
 * data mid-stream that the renderer then refuses, which is the failure this check exists to
 * move from render time to ingest.
 */
export const DECODE_FAIL_ON: sharp.FailOnOptions = 'warning';

/** The box a check decode shrinks into: JPEG and WebP shrink on load, so it costs a fraction of a full decode. */
const CHECK_DECODE_EDGE = 64;

/**
 * Reads size, resolution and type of an uploaded original, then decodes its pixels
 * (shrunk, so cheaply) to make sure the whole file is readable: a header that parses says
 * nothing of a file cut short or corrupt further on, which only fails once rendered.
 */
export async function probeImage(buffer: Buffer): Promise<ProbedImage> {
  let metadata: sharp.Metadata;
  try {
    metadata = await sharp(buffer).metadata();
  } catch (error) {
    throw new Error(`Unreadable image: ${messageOf(error)}`);
  }
  const mediaType = metadata.format === undefined ? undefined : MEDIA_TYPES_BY_FORMAT[metadata.format];
  if (mediaType === undefined) {
    throw new Error(
      `Unsupported image format '${metadata.format ?? 'unknown'}'; expected one of ${Object.keys(MEDIA_TYPES_BY_FORMAT).join(', ')}`,
    );
  }
  // autoOrient holds the size after EXIF rotation, which is what viewers and renditions show.
  const { width, height } = metadata.autoOrient;
  if (!(width > 0 && height > 0)) throw new Error('Unreadable image: it has no pixel dimensions');
  await verifyImageDecodes(buffer);
  const dpi = metadata.density !== undefined && metadata.density > 0 ? Math.round(metadata.density) : DEFAULT_DPI;
  return { width, height, dpi, media_type: mediaType, bytes: buffer.length };
}

/**
 * Decodes every pixel of an image, shrunk into a small box, and throws "Unreadable image: …"
 * when it cannot be: truncated, corrupt, or over sharp's pixel limit (which the renderer has too).
 */
export async function verifyImageDecodes(buffer: Buffer): Promise<void> {
  try {
    await sharp(buffer, { failOn: DECODE_FAIL_ON })
      .resize(CHECK_DECODE_EDGE, CHECK_DECODE_EDGE, { fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer();
  } catch (error) {
    throw new Error(`Unreadable image: its pixels do not decode (${messageOf(error)})`);
  }
}

/** libvips messages can run over several lines; a reason is one. */
function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).trim().replace(/\s*\n\s*/g, '; ');
}

/** Width-to-height ratio from which an image counts as panoramic. */
const PANORAMIC_RATIO = 2;

export function orientationOf(width: number, height: number): Orientation {
  if (!(width > 0 && height > 0)) throw new RangeError(`dimensions must be positive, got ${width}x${height}`);
  if (width === height) return 'Square';
  if (width > height) return width / height >= PANORAMIC_RATIO ? 'PanoramicHorizontal' : 'Horizontal';
  return height / width >= PANORAMIC_RATIO ? 'PanoramicVertical' : 'Vertical';
}

/** The licensable sizes below the original, smallest first; the original itself is always `x-large`. */
const DERIVED_DOWNLOAD_SIZES: ReadonlyArray<{ name: string; longEdge: number; dpi: number }> = [
  { name: 'x-small', longEdge: 594, dpi: 72 },
  { name: 'small', longEdge: 1024, dpi: 72 },
  { name: 'medium', longEdge: 2048, dpi: 300 },
  { name: 'large', longEdge: 3500, dpi: 300 },
];

/**
 * The sizes a customer can license, smallest first: each standard size that is
 * strictly smaller than the original, then the original as `x-large` with its
 * real bytes and dpi. Derived sizes are delivered as JPEG; their byte counts are
 * estimates from the original's bytes per pixel, since they are produced on demand.
 */
export function downloadSizesFor(original: {
  width: number;
  height: number;
  dpi: number;
  bytes: number;
  media_type: string;
}): DownloadSize[] {
  const originalLongEdge = Math.max(original.width, original.height);
  const bytesPerPixel = original.bytes / (original.width * original.height);
  const derived = DERIVED_DOWNLOAD_SIZES.filter((size) => size.longEdge < originalLongEdge).map((size) => {
    const { width, height } = fitWithinLongEdge(original.width, original.height, size.longEdge);
    return {
      name: size.name,
      width,
      height,
      dpi: size.dpi,
      bytes: Math.max(1, Math.round(bytesPerPixel * width * height)),
      media_type: 'image/jpeg',
    };
  });
  return [
    ...derived,
    {
      name: 'x-large',
      width: original.width,
      height: original.height,
      dpi: original.dpi,
      bytes: original.bytes,
      media_type: original.media_type,
    },
  ];
}
