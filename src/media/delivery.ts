/**
 * Delivery of licensed downloads: the signed `/delivery/...` URL of one download, the
 * file behind it (an image resized to the licensed size, or a stored original as it
 * is), and the byte ranges of that file.
 *
 * Everything needed to produce the file is in the signed path, so serving it needs no
 * lookup of the download record:
 *
 *   /delivery/<downloadId>/<assetId>/stockroom-<assetId>-<width>x<height>.jpg   (image, resized or the original)
 *   /delivery/<downloadId>/<assetId>/stockroom-<assetId>-<sizeName>             (video: the stored original)
 *   /delivery/<downloadId>/<assetId>/stockroom-<assetId>-vector.eps             (image: its EPS original, as stored)
 *
 * An image name always ends in `.jpg` or `.eps`; a video name never holds a dot (its extension is
 * added to the Content-Disposition name once the stored file's type is known), so the
 * two can never be mistaken for each other. The URL is opaque to clients; they take the
 * name, size and type from the response headers.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';

export interface DeliverySpec {
  /** the download record this URL delivers (appears in the URL, so each download has its own) */
  downloadId: number;
  assetId: string;
  assetType: 'image' | 'video';
  /** images: the pixel height to deliver, at most the original's (the original itself when equal); videos: ignored */
  height?: number;
  /**
   * images, required: the pixel width of the licensed size, as listed in download_sizes.
   * With the height it names the file and fixes its exact size: the width that follows
   * from the height alone may differ by a pixel from the listed one (1200×800 at height
   * 683 rounds to 1025 wide, while download_sizes lists 1024×683). Videos: ignored.
   */
  width?: number;
  /** the licensed size's name as listed in download_sizes (e.g. "high_res", "1080p"); goes into the file name */
  sizeName: string;
  /** images: 'jpg' (a JPEG of the licensed size), or 'eps' (the image's EPS original; width and height unused) */
  fileType?: 'jpg' | 'eps';
}

/** What a delivery URL's file name asks for, read back from the (signed) name. */
export type DeliveryTarget =
  | { kind: 'image'; width: number; height: number; fileName: string }
  | { kind: 'eps'; fileName: string }
  | { kind: 'video'; baseName: string };

/** One file ready to be sent, whole or in part. */
export interface DeliveredFile {
  /** The name for Content-Disposition: letters, digits, '.', '_' and '-' only. */
  fileName: string;
  contentType: string;
  /** Bytes in the whole file. */
  size: number;
  /** A strong ETag, quoted. */
  etag: string;
  /** The bytes from start to end, both included; empty when end < start. */
  read(start: number, end: number): Promise<Buffer | Readable>;
}

/** An inclusive byte range within a file. */
export interface ByteRange {
  start: number;
  end: number;
}

/** The end of the name of an image's EPS delivery. */
const EPS_FILE_PART = 'vector.eps';
/** Brand-neutral prefix of every delivered file's name. */
const NAME_PREFIX = 'stockroom';
/** The longest asset id or size name kept in a file name. */
const MAX_NAME_PART = 64;
/** JPEG cannot hold a larger edge. */
const MAX_EDGE = 65_535;

export const DELIVERY_JPEG_QUALITY = 90;
/** Every JPEG produced for a download says 300 dpi, the print resolution. */
export const DELIVERY_DPI = 300;
/** Transparent originals are flattened onto white, as for the comps. */
const JPEG_BACKGROUND = '#ffffff';

/** The URL path of a delivery, the exact string the signature covers. */
export function deliveryPath(downloadId: number | string, assetId: string, fileName: string): string {
  return `/delivery/${encodeURIComponent(String(downloadId))}/${encodeURIComponent(assetId)}/${encodeURIComponent(fileName)}`;
}

/** Letters, digits, '_' and '-' only: any other run becomes one '_'; capped in length. */
export function namePart(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, MAX_NAME_PART);
}

function isEdge(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_EDGE;
}

/**
 * The file name a delivery URL ends in: `stockroom-<assetId>-<width>x<height>.jpg` for an
 * image, `stockroom-<assetId>-<sizeName>` for a video. Throws a RangeError for a spec that
 * cannot be delivered (an image without whole-pixel width and height, another file type).
 */
export function deliveryFileName(spec: DeliverySpec): string {
  const base = `${NAME_PREFIX}-${namePart(spec.assetId)}-`;
  if (spec.assetType === 'video') return `${base}${namePart(spec.sizeName) || 'video'}`;
  if (spec.assetType !== 'image') throw new RangeError(`assetType must be 'image' or 'video', got '${String(spec.assetType)}'`);
  if (spec.fileType === 'eps') return `${base}${EPS_FILE_PART}`;
  if (spec.fileType !== undefined && spec.fileType !== 'jpg') {
    throw new RangeError(`only jpg and eps files are delivered for images, got '${String(spec.fileType)}'`);
  }
  if (!isEdge(spec.height) || !isEdge(spec.width)) {
    throw new RangeError(
      `an image delivery needs the licensed size's width and height in whole pixels (from download_sizes), got ${String(spec.width)}x${String(spec.height)}`,
    );
  }
  return `${base}${spec.width}x${spec.height}.jpg`;
}

/** Reads back what deliveryFileName wrote for this asset id; undefined for any other name. */
export function parseDeliveryFileName(assetId: string, fileName: string): DeliveryTarget | undefined {
  const base = `${NAME_PREFIX}-${namePart(assetId)}-`;
  if (!fileName.startsWith(base)) return undefined;
  const rest = fileName.slice(base.length);
  if (rest === EPS_FILE_PART) return { kind: 'eps', fileName };
  const image = /^([1-9]\d{0,4})x([1-9]\d{0,4})\.jpg$/.exec(rest);
  if (image) {
    const width = Number(image[1]);
    const height = Number(image[2]);
    return isEdge(width) && isEdge(height) ? { kind: 'image', width, height, fileName } : undefined;
  }
  if (new RegExp(`^[A-Za-z0-9_-]{1,${MAX_NAME_PART}}$`).test(rest)) return { kind: 'video', baseName: fileName };
  return undefined;
}

/**
 * Where a delivered image of one size is cached: one folder per original, named after its
 * key with the escaping renditionBlobKey uses ('_' → '_-', then '/' → '__'), so distinct
 * originals never share a folder.
 */
export function deliveryBlobKey(originalKey: string, width: number, height: number): string {
  const folder = originalKey.replace(/_/g, '_-').replace(/\//g, '__');
  return `deliveries/${folder}/${width}x${height}.jpg`;
}

/**
 * The JPEG to deliver for an image original at width × height, or 'original' when the
 * original itself is that file: a JPEG asked for at its full height (or more; nothing is
 * ever enlarged).
 *
 * Below full height the original is resized to exactly width × height when that matches its
 * aspect ratio to the pixel (the sizes download_sizes lists do), or else fitted inside that
 * box without distortion. At full height, a PNG, WebP or TIFF original is converted to JPEG
 * at its own size. Produced files are JPEG at quality 90 marked 300 dpi, keeping the
 * original's EXIF/IPTC/XMP (credit, copyright) with the orientation applied to the pixels.
 */
export async function renderDelivery(original: Buffer, width: number, height: number): Promise<Buffer | 'original'> {
  const metadata = await sharp(original).metadata();
  const { width: originalWidth, height: originalHeight } = metadata.autoOrient;
  let image = sharp(original).autoOrient();
  if (height >= originalHeight) {
    if (metadata.format === 'jpeg') return 'original';
  } else {
    const matchesAspect =
      Math.abs((originalWidth * height) / originalHeight - width) <= 1 ||
      Math.abs((originalHeight * width) / originalWidth - height) <= 1;
    image = matchesAspect
      ? image.resize(width, height, { fit: 'fill' })
      : image.resize(width, height, { fit: 'inside', withoutEnlargement: true });
  }
  return image
    .flatten({ background: JPEG_BACKGROUND })
    .withMetadata({ density: DELIVERY_DPI })
    .jpeg({ quality: DELIVERY_JPEG_QUALITY })
    .toBuffer();
}

/** A quoted strong ETag from some identifying text or bytes. */
export function etagOf(data: Buffer | string): string {
  return `"${createHash('sha256').update(data).digest('base64url').slice(0, 27)}"`;
}

/** A file held in memory. */
export function fileFromBuffer(body: Buffer, contentType: string, fileName: string): DeliveredFile {
  return {
    fileName,
    contentType,
    size: body.length,
    etag: etagOf(body),
    read: async (start, end) => body.subarray(start, Math.max(start, end + 1)),
  };
}

/** A stored file, streamed: only the asked part is read from the store (a ranged read) and reaches the client. */
export function fileFromStream(
  open: (range: { start: number; end: number }) => Promise<Readable | undefined>,
  details: { size: number; contentType: string; fileName: string; etag: string },
): DeliveredFile {
  return {
    ...details,
    async read(start, end) {
      if (end < start) return Buffer.alloc(0);
      const source = await open({ start, end });
      if (source === undefined) throw new Error('the stored file went away while being delivered');
      // The store already starts at `start`; slicing again still fails a file that shrank under its Content-Length.
      return sliceOf(source, 0, end - start);
    },
  };
}

/**
 * The bytes start..end (inclusive) of a stream. Reading stops, and the source is closed, once
 * the end is reached; a source that runs out before it fails the stream, so a file that shrank
 * under its advertised Content-Length breaks the response instead of cutting it short silently.
 */
export function sliceOf(source: Readable, start: number, end: number): Readable {
  async function* bytes(): AsyncGenerator<Buffer> {
    let position = 0;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        const chunkStart = position;
        position += chunk.length;
        if (position <= start) continue;
        yield chunk.subarray(Math.max(0, start - chunkStart), Math.min(chunk.length, end + 1 - chunkStart));
        if (position > end) return;
      }
      throw new Error(`the stored file ended at byte ${position}, before byte ${end}`);
    } finally {
      source.destroy();
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}

/**
 * The one byte range a `Range` header asks for (RFC 9110 §14), given the file's size:
 * undefined when the whole file is to be sent (no header, another unit, a malformed or a
 * multi-range request: answering those with the whole file is allowed), 'unsatisfiable'
 * when the range lies wholly past the end (416).
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    // A suffix: the last n bytes, or the whole file when it is shorter.
    const length = Number(last);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  // last-pos below first-pos makes the range invalid, so the header is ignored (§14.1.1).
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

/** Whether an If-Range precondition lets the Range through: only an exact, strong ETag match does (we send no Last-Modified). */
export function ifRangeAllows(ifRange: string | readonly string[] | undefined, etag: string): boolean {
  if (ifRange === undefined) return true;
  return typeof ifRange === 'string' && ifRange.trim() === etag;
}

export interface MediaTypeInfo {
  contentType: string;
  extension: string;
}

const TYPES_BY_EXTENSION: Readonly<Record<string, MediaTypeInfo>> = {
  jpg: { contentType: 'image/jpeg', extension: 'jpg' },
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  png: { contentType: 'image/png', extension: 'png' },
  webp: { contentType: 'image/webp', extension: 'webp' },
  tif: { contentType: 'image/tiff', extension: 'tif' },
  tiff: { contentType: 'image/tiff', extension: 'tif' },
  mp4: { contentType: 'video/mp4', extension: 'mp4' },
  m4v: { contentType: 'video/mp4', extension: 'mp4' },
  mov: { contentType: 'video/quicktime', extension: 'mov' },
  webm: { contentType: 'video/webm', extension: 'webm' },
  mxf: { contentType: 'application/mxf', extension: 'mxf' },
  eps: { contentType: 'application/postscript', extension: 'eps' },
};

const UNKNOWN_TYPE: MediaTypeInfo = { contentType: 'application/octet-stream', extension: 'bin' };

/** The type of a stored file by its key's extension (ingest names originals `<sha256>.<ext>`); undefined when unknown. */
export function mediaTypeByExtension(key: string): MediaTypeInfo | undefined {
  const extension = /\.([A-Za-z0-9]{1,5})$/.exec(key)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : TYPES_BY_EXTENSION[extension];
}

/** The bytes a sniff needs from the start of a file. */
export const SNIFF_BYTES = 16;

/** The type of a file by its first bytes; application/octet-stream when none is recognised. */
export function sniffMediaType(head: Buffer): MediaTypeInfo {
  const ascii = (from: number, to: number) => head.subarray(from, to).toString('latin1');
  const pick = (extension: string) => TYPES_BY_EXTENSION[extension] ?? UNKNOWN_TYPE;
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return pick('jpg');
  if (ascii(0, 8) === '\x89PNG\r\n\x1a\n') return pick('png');
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return pick('webp');
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') return pick('tif');
  if (ascii(4, 8) === 'ftyp') return ascii(8, 12) === 'qt  ' ? pick('mov') : pick('mp4');
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return pick('webm');
  return UNKNOWN_TYPE;
}
