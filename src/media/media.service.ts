import sharp from 'sharp';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import {
  DISPLAY_SIZES,
  fitWithinLongEdge,
  isDisplaySizeName,
  renditionForFile,
  GRID_RENDITION,
  type Rendition,
} from './display-sizes.js';
import {
  deliveryBlobKey,
  deliveryFileName,
  deliveryPath,
  fileFromBuffer,
  fileFromStream,
  etagOf,
  mediaTypeByExtension,
  namePart,
  renderDelivery,
  sniffMediaType,
  SNIFF_BYTES,
  type DeliveredFile,
  type DeliverySpec,
  type DeliveryTarget,
  type MediaTypeInfo,
} from './delivery.js';
import type { SignatureVerdict, UrlSigner } from './url-signer.js';
import { applyWatermark } from './watermark.js';
import { previewDimensions } from './video/video-renders.js';
import { kindForNamePart, PREVIEW_CLIP } from './video/video-sizes.js';
import { isVideoOriginal, keyFrameKey, posterKey, VideoTranscodeFailedError, type VideoMedia } from './video/video-media.js';

export interface DisplaySize {
  name: string;
  width: number;
  height: number;
  is_watermarked: boolean;
  uri: string;
}

export interface RenderedImage {
  body: Buffer;
  contentType: string;
}

export interface MediaServiceDeps {
  blobs: BlobStore;
  signer: UrlSigner;
  /** Where the asset's original file sits in the blob store; undefined for an unknown asset. */
  findOriginal: (assetId: string) => Promise<{ originalKey: string } | undefined>;
  /** Where an image's EPS (vector) original sits in the blob store; undefined when it has none. */
  findEpsOriginal?: ((assetId: string) => Promise<{ key: string } | undefined>) | undefined;
  /**
   * Signs and checks the download (delivery) URLs, with their own lifetime. Without it
   * deliveryUri throws and every /delivery URL is refused as invalid.
   */
  deliverySigner?: UrlSigner | undefined;
  /**
   * The files made from video originals (preview clip, smaller download sizes), by transcode
   * jobs. Without it a video's preview clip is not offered and every download size of a video
   * delivers its original.
   */
  video?: VideoMedia | undefined;
}

/**
 * The display files made ahead of their first request (at ingest): the catalogue browser's grid
 * picture and the API's thumb and comp, the ones every results page shows. Made on request
 * (about half a second each on a busy server), a cold server's first page waited for 30 of them.
 */
export const PREPARED_DISPLAY_FILES: readonly string[] = [GRID_RENDITION.file, DISPLAY_SIZES.thumb.file, DISPLAY_SIZES.comp.file];

/** A display file of a video that is a stream with byte ranges (the preview clip), not a still. */
export const VIDEO_PREVIEW_FILE = PREVIEW_CLIP.file;
const KEY_FRAME_FILE = /^key_frame_([1-9]\d?)\.jpg$/;

const JPEG_QUALITY = 82;
const WEBP_QUALITY = 80;
/** Comps are shown on white pages, so transparent originals are flattened onto white for JPEG. */
const JPEG_BACKGROUND = '#ffffff';

/** The URL path of a display rendition, the exact string the signature covers. */
export function displayPath(assetId: string, file: string): string {
  return `/display/${encodeURIComponent(assetId)}/${encodeURIComponent(file)}`;
}

/**
 * Where a rendition is cached: one folder per original, named after its key.
 * Escaping '_' before turning '/' into '__' keeps distinct keys distinct
 * ('a/b' → 'a__b', 'a_b' → 'a_-b'), so one asset can never be served another's comp.
 */
export function renditionBlobKey(originalKey: string, file: string): string {
  const folder = originalKey.replace(/_/g, '_-').replace(/\//g, '__');
  return `renditions/${folder}/${file}`;
}

/**
 * Display renditions of image originals: signed URLs for `display_sizes`, and
 * the rendered, watermarked, cached files behind them. And the files of licensed
 * downloads: signed, expiring delivery URLs and the files behind them (delivery.ts).
 */
export class MediaService {
  private readonly blobs: BlobStore;
  private readonly signer: UrlSigner;
  private readonly findOriginal: MediaServiceDeps['findOriginal'];
  private readonly findEpsOriginal: MediaServiceDeps['findEpsOriginal'];
  private readonly deliverySigner: UrlSigner | undefined;
  private readonly video: VideoMedia | undefined;
  /** Renders under way, by cache key, so simultaneous first requests share one render. */
  private readonly inFlight = new Map<string, Promise<RenderedImage | undefined>>();

  constructor(deps: MediaServiceDeps) {
    this.blobs = deps.blobs;
    this.signer = deps.signer;
    this.findOriginal = deps.findOriginal;
    this.findEpsOriginal = deps.findEpsOriginal;
    this.deliverySigner = deps.deliverySigner;
    this.video = deps.video;
  }

  /**
   * The `display_sizes` entries for the requested names, in the order asked,
   * skipping unknown names and repeats. No I/O: sizes follow from the original's
   * dimensions and the URL is signed in memory. Empty when there is no original.
   */
  displaySizes(
    asset: { id: string; width: number | null; height: number | null; hasOriginal: boolean; originalMediaType?: string | null | undefined },
    names: readonly string[],
  ): DisplaySize[] {
    const { id, width, height, hasOriginal } = asset;
    if (!hasOriginal || width === null || height === null || !(width > 0 && height > 0)) return [];
    // A real video (not a poster still alone) previews as a watermarked clip.
    const clip = this.video !== undefined && asset.originalMediaType?.startsWith('video/') === true;
    const seen = new Set<string>();
    const sizes: DisplaySize[] = [];
    for (const name of names) {
      if (seen.has(name) || !isDisplaySizeName(name)) continue;
      seen.add(name);
      if (clip && name === 'preview') {
        sizes.push({ name, ...previewDimensions(width, height), is_watermarked: true, uri: this.signer.sign(displayPath(id, VIDEO_PREVIEW_FILE)) });
        continue;
      }
      const rendition = DISPLAY_SIZES[name];
      sizes.push({
        name,
        ...fitWithinLongEdge(width, height, rendition.longEdge),
        is_watermarked: rendition.watermarked,
        uri: this.signer.sign(displayPath(id, rendition.file)),
      });
    }
    return sizes;
  }

  /**
   * The catalogue browser's grid picture of an asset (lightly marked, see GRID_RENDITION): its
   * signed URL and size, for an original of width × height; undefined without an original.
   */
  gridPicture(assetId: string, width: number, height: number): DisplaySize | undefined {
    if (!(width > 0 && height > 0)) return undefined;
    return {
      name: 'grid',
      ...fitWithinLongEdge(width, height, GRID_RENDITION.longEdge),
      is_watermarked: true,
      uri: this.signer.sign(displayPath(assetId, GRID_RENDITION.file)),
    };
  }

  /**
   * The key_frames of a video: watermarked stills at its scene changes, at comp size, signed
   * like display_sizes. `count` is how many ingest kept (fields.key_frame_count); none for a
   * video without its file.
   */
  keyFrames(asset: { id: string; width: number | null; height: number | null; hasOriginal: boolean }, count: number): DisplaySize[] {
    const { id, width, height, hasOriginal } = asset;
    if (!hasOriginal || width === null || height === null || !(width > 0 && height > 0)) return [];
    const size = fitWithinLongEdge(width, height, DISPLAY_SIZES.comp.longEdge);
    return Array.from({ length: Math.max(0, Math.min(99, Math.floor(count))) }, (_, index) => ({
      name: `key_frame_${index + 1}`,
      ...size,
      is_watermarked: true,
      uri: this.signer.sign(displayPath(id, `key_frame_${index + 1}.jpg`)),
    }));
  }

  /**
   * The bytes of one display file (`comp.jpg`, `thumb.jpg`, `key_frame_2.jpg`, …) of an asset,
   * from the rendition cache or freshly rendered from the original (for a video, from the
   * poster still or key frame ingest kept). Undefined for an unknown file name, an unknown
   * asset, or an original missing from the store.
   */
  async render(assetId: string, fileName: string): Promise<RenderedImage | undefined> {
    if (!KEY_FRAME_FILE.test(fileName) && renditionForFile(fileName) === undefined) return undefined;
    const original = await this.findOriginal(assetId);
    return original === undefined ? undefined : this.renderFromOriginal(original.originalKey, fileName);
  }

  /**
   * The bytes of one display file of the original stored under `originalKey`, as render() makes
   * them (the same cache). For a caller that found the original itself: the back office shows
   * staff a draft or a withdrawn asset, which render()'s published-only lookup does not find.
   */
  async renderFromOriginal(originalKey: string, fileName: string): Promise<RenderedImage | undefined> {
    const keyFrame = KEY_FRAME_FILE.exec(fileName);
    const rendition = keyFrame ? { ...DISPLAY_SIZES.comp, file: fileName } : renditionForFile(fileName);
    if (rendition === undefined) return undefined;
    const video = isVideoOriginal(originalKey);
    if (keyFrame && !video) return undefined;
    const sourceKey = !video ? originalKey : keyFrame ? keyFrameKey(originalKey, Number(keyFrame[1])) : posterKey(originalKey);
    const cacheKey = renditionBlobKey(originalKey, rendition.file);
    // The cache read happens inside the shared promise too: a request arriving just
    // after a render finished then finds the stored file instead of rendering again.
    let pending = this.inFlight.get(cacheKey);
    if (pending === undefined) {
      pending = this.loadOrRender(sourceKey, rendition, cacheKey).finally(() => {
        this.inFlight.delete(cacheKey);
      });
      this.inFlight.set(cacheKey, pending);
    }
    return pending;
  }

  /**
   * Makes the display files of PREPARED_DISPLAY_FILES for one stored original (a video's from its
   * poster still) and keeps them where render() looks first, skipping those already stored (by
   * another node, an earlier ingest or a request). Returns how many it made; none when the source
   * is not in the store.
   */
  async prepareDisplayFiles(originalKey: string): Promise<number> {
    const sourceKey = isVideoOriginal(originalKey) ? posterKey(originalKey) : originalKey;
    let source: Buffer | undefined;
    let made = 0;
    for (const file of PREPARED_DISPLAY_FILES) {
      const rendition = renditionForFile(file);
      const cacheKey = renditionBlobKey(originalKey, file);
      if (rendition === undefined || (await this.blobs.size(cacheKey)) !== undefined) continue;
      source ??= await this.blobs.get(sourceKey);
      if (source === undefined) return made;
      await this.blobs.put(cacheKey, await renderRendition(source, rendition));
      made += 1;
    }
    return made;
  }

  /**
   * The absolute, signed, expiring URL of one licensed download's file:
   * `${publicUrl}/delivery/<downloadId>/<assetId>/<file name>?expires=…&signature=…`.
   * No I/O. Throws a RangeError for a spec that cannot be delivered (see deliveryFileName:
   * an image needs the licensed size's width and height), and an Error when no delivery
   * signer was configured.
   */
  deliveryUri(spec: DeliverySpec): string {
    if (this.deliverySigner === undefined) throw new Error('MediaService: no deliverySigner was given, so no download URL can be made');
    if (!(Number.isSafeInteger(spec.downloadId) && spec.downloadId > 0)) {
      throw new RangeError(`downloadId must be a positive whole number, got ${String(spec.downloadId)}`);
    }
    if (typeof spec.assetId !== 'string' || spec.assetId === '') throw new RangeError('assetId must be a non-empty string');
    const uri = this.deliverySigner.sign(deliveryPath(spec.downloadId, spec.assetId, deliveryFileName(spec)));
    // A smaller video size is queued now, so it is being made while the client follows the URL.
    if (spec.assetType === 'video') void this.queueVideoSize(spec.assetId, spec.sizeName).catch(() => undefined);
    return uri;
  }

  /** Queues the making of a video's licensed size, when it is one that is made (see deliverVideo). */
  private async queueVideoSize(assetId: string, sizeName: string): Promise<void> {
    const kind = kindForNamePart(namePart(sizeName));
    if (kind === undefined || this.video === undefined) return;
    const original = await this.findOriginal(assetId);
    if (original !== undefined && isVideoOriginal(original.originalKey)) await this.video.queue(original.originalKey, kind.name);
  }

  /** Checks a delivery URL's path (as deliveryPath builds it) and query; 'invalid' for all when no delivery signer was given. */
  verifyDeliveryUrl(path: string, query: { expires?: string | undefined; signature?: string | undefined }): SignatureVerdict {
    return this.deliverySigner?.verify(path, query) ?? 'invalid';
  }

  /** Whole seconds before a delivery URL with this `expires` lapses. */
  deliveryUrlSecondsLeft(expires: string): number {
    return this.deliverySigner?.secondsUntilExpiry(expires) ?? 0;
  }

  /**
   * The file of a delivery: for an image, the original resized to the named size (cached in
   * the blob store, so it is rendered once) or, at full height, the original JPEG as it is;
   * for a video, the stored original as it is, streamed; for an image's EPS, its EPS original as
   * it is, streamed. Undefined for an unknown asset or an original missing from the store.
   */
  async deliver(assetId: string, target: DeliveryTarget): Promise<DeliveredFile | undefined> {
    if (target.kind === 'eps') {
      const eps = await this.findEpsOriginal?.(assetId);
      // The key ends in .eps: the name gets that extension back, and the type application/postscript.
      return eps === undefined ? undefined : this.storedFile(eps.key, target.fileName.replace(/\.eps$/, ''));
    }
    const original = await this.findOriginal(assetId);
    if (original === undefined) return undefined;
    if (target.kind === 'video') return this.deliverVideo(assetId, original.originalKey, target.baseName);
    const cacheKey = deliveryBlobKey(original.originalKey, target.width, target.height);
    let pending = this.inFlight.get(cacheKey);
    if (pending === undefined) {
      pending = this.loadOrRenderDelivery(original.originalKey, target.width, target.height, cacheKey).finally(() => {
        this.inFlight.delete(cacheKey);
      });
      this.inFlight.set(cacheKey, pending);
    }
    const image = await pending;
    return image === undefined ? undefined : fileFromBuffer(image.body, image.contentType, target.fileName);
  }

  /**
   * The watermarked preview clip of a video, streamed with byte ranges; made by a job on first
   * request (VideoPreparingError while it takes longer than a request waits). Undefined for an
   * unknown asset or one whose original is not a video.
   */
  async displayVideo(assetId: string): Promise<DeliveredFile | undefined> {
    if (this.video === undefined) return undefined;
    const original = await this.findOriginal(assetId);
    if (original === undefined || !isVideoOriginal(original.originalKey)) return undefined;
    const key = await this.video.previewKey(original.originalKey);
    const file = await this.storedFile(key, `stockroom-${assetId}-preview`);
    if (file === undefined) throw new VideoTranscodeFailedError('the preview clip went missing from the store');
    return file;
  }

  /**
   * A video download: the stored original, or — when the licensed size is one of the smaller
   * kinds (HD 1080p, HD 720p, HD Web, SD) and the original is larger — that file, made by a job
   * on first request and kept. A poster-only video (its file a still) delivers that file.
   */
  private async deliverVideo(assetId: string, originalKey: string, baseName: string): Promise<DeliveredFile | undefined> {
    const kind = kindForNamePart(baseName.slice(`stockroom-${namePart(assetId)}-`.length));
    if (kind === undefined || this.video === undefined || !isVideoOriginal(originalKey)) return this.storedFile(originalKey, baseName);
    const made = await this.video.madeFile(originalKey, kind.name);
    return this.storedFile(made ?? originalKey, baseName);
  }

  private async loadOrRenderDelivery(
    originalKey: string,
    width: number,
    height: number,
    cacheKey: string,
  ): Promise<RenderedImage | undefined> {
    const cached = await this.blobs.get(cacheKey);
    if (cached !== undefined) return { body: cached, contentType: 'image/jpeg' };
    const originalBytes = await this.blobs.get(originalKey);
    if (originalBytes === undefined) return undefined;
    const rendered = await renderDelivery(originalBytes, width, height);
    // The original itself is not copied into the cache: it is already stored.
    if (rendered === 'original') return { body: originalBytes, contentType: 'image/jpeg' };
    await this.blobs.put(cacheKey, rendered);
    return { body: rendered, contentType: 'image/jpeg' };
  }

  /** A stored original as it is, named `<baseName>.<extension of its type>`; its type by the key's extension, else by its first bytes. */
  private async storedFile(key: string, baseName: string): Promise<DeliveredFile | undefined> {
    const size = await this.blobs.size(key);
    if (size === undefined) return undefined;
    const type: MediaTypeInfo = mediaTypeByExtension(key) ?? sniffMediaType(await this.headOf(key, size));
    return fileFromStream((range) => this.blobs.stream(key, range), {
      size,
      contentType: type.contentType,
      fileName: `${baseName}.${type.extension}`,
      // Originals are stored under their content's hash, so key and size identify the bytes.
      etag: etagOf(`${key}\n${size}`),
    });
  }

  private async headOf(key: string, size: number): Promise<Buffer> {
    if (size === 0) return Buffer.alloc(0);
    // Only the first bytes are read: on a bucket a whole GET of a video would be opened for them.
    const stream = await this.blobs.stream(key, { start: 0, end: Math.min(SNIFF_BYTES, size) - 1 });
    if (stream === undefined) return Buffer.alloc(0);
    const chunks: Buffer[] = [];
    let length = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        length += chunk.length;
        if (length >= Math.min(SNIFF_BYTES, size)) break;
      }
    } finally {
      stream.destroy();
    }
    return Buffer.concat(chunks).subarray(0, SNIFF_BYTES);
  }

  private async loadOrRender(sourceKey: string, rendition: Rendition, cacheKey: string): Promise<RenderedImage | undefined> {
    const cached = await this.blobs.get(cacheKey);
    if (cached !== undefined) return { body: cached, contentType: rendition.contentType };
    const originalBytes = await this.blobs.get(sourceKey);
    if (originalBytes === undefined) return undefined;
    const body = await renderRendition(originalBytes, rendition);
    await this.blobs.put(cacheKey, body);
    return { body, contentType: rendition.contentType };
  }
}

/**
 * Resizes an original into a rendition. The target size is computed with the same
 * rule `displaySizes` advertises and applied exactly (fit 'fill' on an already
 * aspect-correct size), so the file always matches the width and height in the API.
 */
async function renderRendition(original: Buffer, rendition: Rendition): Promise<Buffer> {
  const metadata = await sharp(original).metadata();
  const { width, height } = fitWithinLongEdge(metadata.autoOrient.width, metadata.autoOrient.height, rendition.longEdge);
  let image = sharp(original).autoOrient().resize(width, height, { fit: 'fill' });
  if (rendition.format === 'jpeg') image = image.flatten({ background: JPEG_BACKGROUND });
  if (rendition.watermarked) image = applyWatermark(image, width, height, rendition.lightMark === true);
  return rendition.format === 'jpeg'
    ? image.jpeg({ quality: JPEG_QUALITY, progressive: true }).toBuffer()
    : image.webp({ quality: WEBP_QUALITY }).toBuffer();
}
