/**
 * A video record with a real video file: its facts come from the file (ffprobe), and its stills
 * — the poster the comps and thumb are drawn from, the key frames at scene changes — are made
 * and stored at ingest. The file itself is streamed into the blob store under its content's
 * hash, never held whole in memory.
 *
 * A video line whose file is a still picture is a poster-only video (the catalogue's older
 * form) and goes the image way in ingest.service.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from '../../platform/blobs/blob-store.js';
import { sniffMediaType, SNIFF_BYTES } from '../../media/delivery.js';
import { computeMediaFacts, type MediaFacts, type NudityScorer } from '../../media/media-facts.js';
import { computeVisualSignature, encodeStoredSignature } from '../../media/visual-signature.js';
import { isVideoOriginal, keyFrameKey, posterKey } from '../../media/video/video-media.js';
import { NotAVideoError, probeVideo, type VideoFacts } from '../../media/video/video-probe.js';
import { keyFrames, posterStill, withScratch } from '../../media/video/video-renders.js';
import { videoDownloadSizes } from '../../media/video/video-sizes.js';
import { copyBlobToFile } from '../../media/video/video-transcodes.js';
import { VideoToolError, type VideoTools } from '../../media/video/video-tools.js';
import type { AssetInput } from '../catalog.records.js';
import type { VideoManifestRecord } from './ingest.schemas.js';

/** A video file on local disk, read where it lies. */
export interface VideoFile {
  videoPath: string;
  /** Set for the stored original of an asset re-ingested without a file: the key it stays under. */
  storedKey?: string;
}

/** How long finding the key frames of one clip may take (it decodes the whole clip). */
const KEY_FRAMES_TIMEOUT_MS = 10 * 60_000;

/** The manifest fields a video file decides; giving one with a file is an error on its line. */
export const VIDEO_FACT_FIELDS = ['clip_length', 'aspect_ratio', 'orientation', 'download_sizes', 'max_dimensions'] as const;

export function isVideoFile(value: unknown): value is VideoFile {
  return typeof value === 'object' && value !== null && typeof (value as VideoFile).videoPath === 'string';
}

/** Whether a file's first bytes are a still picture (JPEG, PNG, WebP, TIFF): then a video line's file is its poster. */
export function isStillPicture(head: Buffer): boolean {
  return sniffMediaType(head).contentType.startsWith('image/');
}

/** The first bytes of a local file, enough to tell a still from a video. */
export async function headOfFile(file: string): Promise<Buffer> {
  const handle = await fsp.open(file, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Runs `work` with a video given as bytes (the demo, tests) written to a temporary file. */
export async function withVideoBytes<T>(data: Buffer, work: (file: VideoFile) => Promise<T>): Promise<T> {
  return withScratch(async (dir) => {
    const videoPath = path.join(dir, 'given-video');
    await fsp.writeFile(videoPath, data);
    return work({ videoPath });
  });
}

/** Runs `work` with the stored video original of an asset copied to a temporary file; undefined when its original is no video. */
export async function withStoredVideo<T>(blobs: BlobStore, originalKey: string, work: (file: VideoFile) => Promise<T>): Promise<T | undefined> {
  if (!isVideoOriginal(originalKey)) return undefined;
  return withScratch(async (dir) => {
    const videoPath = path.join(dir, `original${path.extname(originalKey)}`);
    await copyBlobToFile(blobs, originalKey, videoPath);
    return work({ videoPath, storedKey: originalKey });
  });
}

/**
 * The AssetInput of a video record whose file is a video: clip_length, aspect_ratio,
 * orientation, max_dimensions and download_sizes (the original and the smaller kinds, each
 * with its frame rate, frame size, format and compression) from the file; the file stored as
 * `originals/<sha256>.<format>`; the poster and key frames stored beside it; the visual
 * signature and media facts computed from the poster. `fail` makes the line's error; it is given the cause when the file itself cannot be read.
 */
export async function buildVideoInput(
  record: VideoManifestRecord,
  file: VideoFile,
  deps: { blobs: BlobStore; tools: VideoTools; classifier?: NudityScorer | undefined },
  fail: (message: string, cause?: unknown) => Error,
): Promise<AssetInput> {
  const { asset_type: assetType, id, file: fileName, nudity_scores: givenNudity, ...given } = record;
  const what = file.storedKey !== undefined ? `stored original of asset '${id}'` : `file '${fileName ?? '(given)'}'`;
  for (const field of VIDEO_FACT_FIELDS) {
    if ((given as Record<string, unknown>)[field] !== undefined) {
      throw fail(
        file.storedKey !== undefined
          ? `${field} must not be given: asset '${id}' keeps its stored video, from which it is read (give a new file to replace it)`
          : `${field} must not be given with a video file: it is read from the file`,
      );
    }
  }
  let facts: VideoFacts;
  try {
    facts = await probeVideo(deps.tools, file.videoPath);
  } catch (error) {
    if (error instanceof NotAVideoError || error instanceof VideoToolError) throw fail(`${what}: ${error.message}`, error);
    throw error;
  }
  let poster: Buffer;
  let frames: Awaited<ReturnType<typeof keyFrames>>;
  try {
    poster = await posterStill(deps.tools, file.videoPath, facts);
    frames = await keyFrames(deps.tools, file.videoPath, facts, KEY_FRAMES_TIMEOUT_MS);
  } catch (error) {
    throw fail(`${what}: its stills could not be taken (${error instanceof Error ? error.message : String(error)})`, error);
  }
  const key = file.storedKey ?? `originals/${await sha256OfFile(file.videoPath)}.${facts.format}`;
  // Content-addressed: the same bytes already stored need not be written again.
  if (file.storedKey === undefined && (await deps.blobs.size(key)) !== facts.bytes) await deps.blobs.putFile(key, file.videoPath);
  await deps.blobs.put(posterKey(key), poster);
  for (const [index, frame] of frames.entries()) await deps.blobs.put(keyFrameKey(key, index + 1), frame.jpeg);
  let visualSignature: string;
  let mediaFacts: MediaFacts;
  try {
    visualSignature = encodeStoredSignature(await computeVisualSignature(poster));
    // Scores the record gives stand for the classifier's: it is not run.
    mediaFacts = await computeMediaFacts(poster, givenNudity === undefined ? deps.classifier : undefined);
    if (givenNudity !== undefined) mediaFacts = { ...mediaFacts, nudity: { ...givenNudity } };
  } catch (error) {
    throw fail(`${what}: its poster could not be described (${error instanceof Error ? error.message : String(error)})`);
  }
  const fields: Record<string, unknown> = {
    ...given,
    clip_length: facts.clipLength,
    aspect_ratio: facts.aspectRatio,
    orientation: facts.orientation,
    max_dimensions: { height: facts.height, width: facts.width },
    download_sizes: videoDownloadSizes(facts),
    key_frame_count: frames.length,
  };
  return {
    asset_type: assetType,
    id,
    fields,
    original: { key, media_type: facts.contentType, width: facts.width, height: facts.height, dpi: 72, bytes: facts.bytes },
    visual_signature: visualSignature,
    media_facts: mediaFacts,
  };
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}
