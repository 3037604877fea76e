/**
 * The sizes a video is sold in: the original file as it is, and the smaller kinds of the
 * contract (HD 1080p, HD 720p, HD Web, SD), each an H.264 MP4 made from the original on first
 * request. As data, so that ingest (download_sizes), delivery (which file a name asks for) and
 * the transcode jobs agree.
 */
import type { VideoFacts } from './video-probe.js';

export interface VideoSizeKind {
  /** The name in download_sizes, e.g. "HD 720p". */
  name: string;
  /** The shorter edge in pixels (1080 for a 1920×1080 or a 1080×1920 clip). */
  shortEdge: number;
  /** Target video data rate in kbit/s of the H.264 file. */
  videoKbps: number;
  /** Lightweight HD file (format_available=hd_web). */
  web: boolean;
}

/** The transcoded kinds, largest first. */
export const VIDEO_SIZE_KINDS: readonly VideoSizeKind[] = [
  { name: 'HD 1080p', shortEdge: 1080, videoKbps: 8000, web: false },
  { name: 'HD 720p', shortEdge: 720, videoKbps: 5000, web: false },
  { name: 'HD Web', shortEdge: 720, videoKbps: 2000, web: true },
  { name: 'SD', shortEdge: 360, videoKbps: 1000, web: false },
];

/** The watermarked preview clip shown in display_sizes: small, a few hundred kbit/s, plays in a browser. */
export const PREVIEW_CLIP = { file: 'preview.mp4', longEdge: 640, videoKbps: 400 } as const;

/** The name download_sizes gives the original file, by its shorter edge. */
export function originalSizeName(width: number, height: number): string {
  const short = Math.min(width, height);
  if (short >= 2160) return '4K';
  if (short >= 1080) return 'HD 1080p';
  if (short >= 720) return 'HD 720p';
  return 'SD';
}

/**
 * The transcoded kinds offered for an original: those strictly smaller than it (HD Web too at
 * the original's own 720 lines: it is the lighter file of that size). The original's own kind
 * is the original itself.
 */
export function transcodedKindsFor(width: number, height: number): VideoSizeKind[] {
  const short = Math.min(width, height);
  const ownName = originalSizeName(width, height);
  return VIDEO_SIZE_KINDS.filter((kind) => kind.name !== ownName && (kind.shortEdge < short || (kind.web && kind.shortEdge <= short)));
}

/** Width × height of a kind for an original, keeping its aspect ratio; even numbers, as H.264 wants. */
export function kindDimensions(kind: Pick<VideoSizeKind, 'shortEdge'>, width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, kind.shortEdge / Math.min(width, height));
  return { width: even(width * scale), height: even(height * scale) };
}

/** Fits within a long edge, keeping the aspect ratio; even numbers. */
export function fitEven(width: number, height: number, longEdge: number): { width: number; height: number } {
  const scale = Math.min(1, longEdge / Math.max(width, height));
  return { width: even(width * scale), height: even(height * scale) };
}

function even(value: number): number {
  return Math.max(2, 2 * Math.round(value / 2));
}

/** The kind a delivered file's name part (`HD_720p`, as delivery.ts writes names) asks for; undefined: the original. */
export function kindForNamePart(namePart: string): VideoSizeKind | undefined {
  return VIDEO_SIZE_KINDS.find((kind) => kind.name.replace(/[^A-Za-z0-9_-]+/g, '_') === namePart);
}

/** The download_sizes of a video file: the original first, then the kinds made from it. */
export function videoDownloadSizes(facts: VideoFacts): Array<Record<string, unknown>> {
  const original = {
    name: originalSizeName(facts.width, facts.height),
    width: facts.width,
    height: facts.height,
    bytes: facts.bytes,
    bit_depth: facts.bitDepth === null ? null : String(facts.bitDepth),
    compression: facts.compression,
    content_type: facts.contentType,
    format: facts.format,
    frame_rate: facts.frameRate,
    frame_size: `${facts.width}x${facts.height}`,
    interlaced: facts.interlaced,
    description: `${originalSizeName(facts.width, facts.height)} ${facts.width}x${facts.height} ${facts.frameRate}${facts.interlaced ? 'i' : 'p'} ${facts.compression} (original)`,
  };
  const made = transcodedKindsFor(facts.width, facts.height).map((kind) => {
    const { width, height } = kindDimensions(kind, facts.width, facts.height);
    return {
      name: kind.name,
      width,
      height,
      // Made on first request; its size is known once made, so this is the data rate's estimate.
      bytes: Math.round(((kind.videoKbps + (facts.hasAudio ? 128 : 0)) * 1000 * facts.durationSeconds) / 8),
      bit_depth: '8',
      compression: 'H.264',
      content_type: 'video/mp4',
      format: 'mp4',
      frame_rate: facts.frameRate,
      frame_size: `${width}x${height}`,
      interlaced: false,
      description: `${kind.name} ${width}x${height} ${facts.frameRate}p H.264`,
    };
  });
  return [original, ...made];
}
