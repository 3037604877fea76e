/**
 * What ffmpeg makes from a video: the poster still, the key frames (stills at scene changes),
 * the watermarked preview clip and the smaller download files. Every function reads a local
 * file and writes local files; callers move them in and out of the blob store.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { watermarkSvg } from '../watermark.js';
import type { VideoFacts } from './video-probe.js';
import { fitEven, kindDimensions, PREVIEW_CLIP, type VideoSizeKind } from './video-sizes.js';
import { QUICK_RUN_MS, type VideoTools } from './video-tools.js';

/** The poster is a still of the full picture, at most this long edge (the largest comp is 2048). */
const POSTER_LONG_EDGE = 2048;
/** Key frames are shown at comp size. */
export const KEY_FRAME_LONG_EDGE = 640;
/** At most this many key frames are kept, spread over the clip. */
export const MAX_KEY_FRAMES = 8;
/** Scene changes considered before spreading them out (each is a small JPEG in a temporary folder). */
const MAX_SCENE_CANDIDATES = 64;
/** A frame differing from the one before by more than this (0..1, ffmpeg's scene score) starts a new scene. */
const SCENE_THRESHOLD = 0.3;

export interface KeyFrame {
  /** Seconds from the start. */
  seconds: number;
  /** A JPEG of at most KEY_FRAME_LONG_EDGE. */
  jpeg: Buffer;
}

/** A temporary folder, removed after `work` whatever happens. */
export async function withScratch<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'stockroom-video-'));
  try {
    return await work(dir);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** The moment the poster is taken: a second in, or a third of a shorter clip (the very first frame is often black). */
export function posterSeconds(durationSeconds: number): number {
  return Math.min(1, durationSeconds / 3);
}

/** A JPEG still of the frame at `seconds`, the whole picture within POSTER_LONG_EDGE. */
export async function posterStill(tools: VideoTools, input: string, facts: VideoFacts): Promise<Buffer> {
  const { width, height } = fitEven(facts.width, facts.height, POSTER_LONG_EDGE);
  const run = await tools.ffmpeg(
    ['-v', 'error', '-ss', posterSeconds(facts.durationSeconds).toFixed(3), '-i', input, '-frames:v', '1', '-vf', `scale=${width}:${height}`, '-f', 'image2pipe', '-c:v', 'png', 'pipe:1'],
    { timeoutMs: QUICK_RUN_MS },
  );
  if (run.stdout.length === 0) throw new Error('ffmpeg gave no poster frame');
  // PNG out of ffmpeg, JPEG by sharp: the same encoder and quality as every other still.
  return sharp(run.stdout).jpeg({ quality: 90 }).toBuffer();
}

/**
 * Stills at scene changes (the first frame always counts as one), at most MAX_KEY_FRAMES,
 * spread evenly over the changes found when there are more.
 */
export async function keyFrames(tools: VideoTools, input: string, facts: VideoFacts, timeoutMs: number): Promise<KeyFrame[]> {
  const { width, height } = fitEven(facts.width, facts.height, KEY_FRAME_LONG_EDGE);
  return withScratch(async (dir) => {
    const run = await tools.ffmpeg(
      [
        '-v', 'info', '-i', input, '-an',
        // Scaled first: the scene score is as good on small frames, and far cheaper.
        '-vf', `scale=${width}:${height}:flags=fast_bilinear,select='eq(n\\,0)+gt(scene\\,${SCENE_THRESHOLD})',showinfo`,
        '-vsync', 'vfr', '-frames:v', String(MAX_SCENE_CANDIDATES), '-q:v', '3', path.join(dir, 'frame-%03d.jpg'),
      ],
      { timeoutMs },
    );
    const times = [...run.stderr.matchAll(/pts_time:\s*([0-9.]+)/g)].map((match) => Number(match[1]));
    const files = (await fsp.readdir(dir)).filter((name) => name.endsWith('.jpg')).sort();
    const picked = spread(files.length, MAX_KEY_FRAMES);
    const frames: KeyFrame[] = [];
    for (const index of picked) {
      frames.push({ seconds: times[index] ?? 0, jpeg: await fsp.readFile(path.join(dir, files[index]!)) });
    }
    return frames;
  });
}

/** `count` indexes spread evenly over 0..total-1 (all of them when total ≤ count), first and last included. */
export function spread(total: number, count: number): number[] {
  if (total <= count) return Array.from({ length: total }, (_, index) => index);
  if (count === 1) return [0];
  return Array.from({ length: count }, (_, index) => Math.round((index * (total - 1)) / (count - 1)));
}

/** H.264 settings a browser plays and a download keeps: yuv420p, the moov atom first (+faststart) so playing starts before the end arrives. */
function h264Arguments(videoKbps: number): string[] {
  return [
    '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'high', '-pix_fmt', 'yuv420p',
    '-b:v', `${videoKbps}k`, '-maxrate', `${Math.round(videoKbps * 1.5)}k`, '-bufsize', `${videoKbps * 2}k`,
    '-movflags', '+faststart',
  ];
}

/** A smaller download file of one kind: H.264 MP4 with the original's sound as AAC. */
export async function transcodeToKind(tools: VideoTools, input: string, output: string, facts: VideoFacts, kind: VideoSizeKind, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
  const { width, height } = kindDimensions(kind, facts.width, facts.height);
  await tools.ffmpeg(
    [
      '-v', 'error', '-y', '-i', input, '-map', '0:v:0', '-map', '0:a:0?',
      '-vf', `scale=${width}:${height},setsar=1`,
      ...h264Arguments(kind.videoKbps),
      '-c:a', 'aac', '-b:a', '128k', '-f', 'mp4', output,
    ],
    options,
  );
}

/** The watermarked preview clip: small, without sound, the watermark of the comps drawn over every frame. */
export async function previewClip(tools: VideoTools, input: string, output: string, facts: VideoFacts, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
  const { width, height } = fitEven(facts.width, facts.height, PREVIEW_CLIP.longEdge);
  const watermark = path.join(path.dirname(output), 'watermark.png');
  await fsp.writeFile(watermark, await sharp(Buffer.from(watermarkSvg(width, height))).png().toBuffer());
  await tools.ffmpeg(
    [
      '-v', 'error', '-y', '-i', input, '-i', watermark, '-an',
      '-filter_complex', `[0:v:0]scale=${width}:${height},setsar=1[picture];[picture][1:v]overlay=0:0[marked]`, '-map', '[marked]',
      ...h264Arguments(PREVIEW_CLIP.videoKbps),
      '-f', 'mp4', output,
    ],
    options,
  );
}

/** The preview clip's frame size for an original (what display_sizes advertises). */
export function previewDimensions(width: number, height: number): { width: number; height: number } {
  return fitEven(width, height, PREVIEW_CLIP.longEdge);
}
