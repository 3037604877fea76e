/**
 * The facts of a video file, as ffprobe reads them: the ones the catalogue shows (clip length,
 * frame rate, frame size, aspect ratio, orientation, bytes, format, compression) and the ones
 * the stills and transcodes need (duration, rotation).
 */
import fsp from 'node:fs/promises';
import { QUICK_RUN_MS, VideoToolError, type VideoTools } from './video-tools.js';

export interface VideoFacts {
  /** Display width and height: after the rotation the file asks for, as a player shows it. */
  width: number;
  height: number;
  /** Frames per second, to two decimals (30000/1001 → 29.97). */
  frameRate: number;
  /** Seconds, as precise as the container says. */
  durationSeconds: number;
  /** `HH:MM:SS:FF`: whole seconds and the frames past them. */
  clipLength: string;
  /** `16:9`, `9:16`, `4:3`, … (the nearest common ratio within 1 %), else `<w/h to 2 decimals>:1`. */
  aspectRatio: string;
  orientation: 'horizontal' | 'vertical';
  bytes: number;
  /** The container, as a file extension: mp4, mov, webm, mkv, mxf, avi, ts, … */
  format: string;
  contentType: string;
  /** The video codec, named as people say it: H.264, Apple ProRes 422 HQ, … */
  compression: string;
  /** Bits per colour sample (8, 10, 12), when the file says. */
  bitDepth: number | null;
  interlaced: boolean;
  /** Degrees the picture is turned when shown (0, 90, 180, 270). */
  rotation: number;
  hasAudio: boolean;
}

/** The file is not a video ffprobe can read (the message says why, for the manifest line). */
export class NotAVideoError extends Error {
  override name = 'NotAVideoError';
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  profile?: string;
  width?: number;
  height?: number;
  r_frame_rate?: string;
  avg_frame_rate?: string;
  duration?: string;
  nb_frames?: string;
  display_aspect_ratio?: string;
  pix_fmt?: string;
  bits_per_raw_sample?: string;
  field_order?: string;
  tags?: Record<string, string>;
  side_data_list?: Array<{ rotation?: number }>;
  disposition?: { attached_pic?: number };
}

interface ProbeOutput {
  streams?: ProbeStream[];
  format?: { format_name?: string; duration?: string; tags?: Record<string, string> };
}

const COMMON_RATIOS: ReadonlyArray<readonly [number, number]> = [
  [16, 9], [9, 16], [4, 3], [3, 4], [4, 5], [5, 4], [2, 1], [1, 2], [17, 9], [9, 17], [1, 1], [21, 9], [3, 2], [2, 3],
];

/** Containers ffprobe names that hold a single picture rather than a moving one. */
const STILL_FORMATS = /^(image2|[a-z0-9]+_pipe|gif|apng|webp)$/;

const CODEC_NAMES: Readonly<Record<string, string>> = {
  h264: 'H.264',
  hevc: 'H.265',
  prores: 'Apple ProRes',
  mpeg2video: 'MPEG-2',
  mpeg4: 'MPEG-4 Part 2',
  vp8: 'VP8',
  vp9: 'VP9',
  av1: 'AV1',
  dnxhd: 'Avid DNxHD',
  mjpeg: 'Motion JPEG',
  dvvideo: 'DV',
};

/** ffprobe's ProRes profile → the name Apple gives the flavour. */
const PRORES_FLAVOURS: Readonly<Record<string, string>> = {
  Proxy: '422 Proxy',
  LT: '422 LT',
  Standard: '422',
  HQ: '422 HQ',
  '4444': '4444',
  XQ: '4444 XQ',
  '4444XQ': '4444 XQ',
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  mxf: 'application/mxf',
  avi: 'video/x-msvideo',
  ts: 'video/mp2t',
  mpg: 'video/mpeg',
};

/** Reads a video file's facts with ffprobe; NotAVideoError for a file that is not one (a still, text, a broken file). */
export async function probeVideo(tools: VideoTools, filePath: string): Promise<VideoFacts> {
  const stat = await fsp.stat(filePath);
  let output: ProbeOutput;
  try {
    const run = await tools.ffprobe(['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', filePath], { timeoutMs: QUICK_RUN_MS });
    output = JSON.parse(run.stdout.toString('utf8')) as ProbeOutput;
  } catch (error) {
    if (error instanceof VideoToolError && /failed/.test(error.message)) {
      // The reason without the (temporary) path ffprobe puts in front of it.
      const said = error.message.replace(/^ffprobe failed \([^)]*\):?\s*/, '').split(`${filePath}: `).join('');
      throw new NotAVideoError(`not a video ffprobe can read (${said || 'no reason given'})`);
    }
    throw error;
  }
  return factsFromProbe(output, stat.size);
}

/** The facts from ffprobe's JSON (-show_format -show_streams) and the file's size in bytes. */
export function factsFromProbe(output: ProbeOutput, bytes: number): VideoFacts {
  const formatName = output.format?.format_name ?? '';
  const streams = output.streams ?? [];
  const video = streams.find((stream) => stream.codec_type === 'video' && stream.disposition?.attached_pic !== 1);
  if (STILL_FORMATS.test(formatName)) throw new NotAVideoError(`a still picture (${formatName}), not a video`);
  if (video === undefined) throw new NotAVideoError(`no video stream in the file (${formatName || 'unknown format'})`);
  const codedWidth = video.width ?? 0;
  const codedHeight = video.height ?? 0;
  if (!(codedWidth > 0 && codedHeight > 0)) throw new NotAVideoError('the video stream has no frame size');
  const frameRate = rateOf(video.avg_frame_rate) ?? rateOf(video.r_frame_rate);
  if (frameRate === undefined) throw new NotAVideoError('the video stream has no frame rate');
  const durationSeconds = Number(video.duration ?? output.format?.duration ?? Number.NaN);
  if (!(durationSeconds > 0)) throw new NotAVideoError('the video has no duration (a single picture or a broken file)');
  const rotation = rotationOf(video);
  const turned = rotation === 90 || rotation === 270;
  const width = turned ? codedHeight : codedWidth;
  const height = turned ? codedWidth : codedHeight;
  const format = containerOf(formatName, output.format?.tags?.major_brand, video.codec_name);
  return {
    width,
    height,
    frameRate: Math.round(frameRate * 100) / 100,
    durationSeconds,
    clipLength: clipLengthOf(durationSeconds, frameRate),
    aspectRatio: aspectRatioOf(width, height, turned ? undefined : video.display_aspect_ratio),
    orientation: width >= height ? 'horizontal' : 'vertical',
    bytes,
    format,
    contentType: CONTENT_TYPES[format] ?? 'application/octet-stream',
    compression: compressionOf(video),
    bitDepth: bitDepthOf(video),
    interlaced: video.field_order !== undefined && !['progressive', 'unknown'].includes(video.field_order),
    rotation,
    hasAudio: streams.some((stream) => stream.codec_type === 'audio'),
  };
}

function rateOf(text: string | undefined): number | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(text ?? '');
  if (!match) return undefined;
  const rate = Number(match[1]) / Number(match[2]);
  return Number.isFinite(rate) && rate > 0 && rate <= 1000 ? rate : undefined;
}

/** `HH:MM:SS:FF`; the frame count past the whole seconds stays below 60 (the format allows no more). */
export function clipLengthOf(durationSeconds: number, frameRate: number): string {
  const whole = Math.floor(durationSeconds + 1e-6);
  const framesPerSecond = Math.min(60, Math.round(frameRate));
  const frames = Math.min(framesPerSecond - 1, Math.max(0, Math.floor((durationSeconds - whole) * frameRate + 1e-6)));
  const hours = Math.min(99, Math.floor(whole / 3600));
  const two = (value: number) => String(value).padStart(2, '0');
  return `${two(hours)}:${two(Math.floor(whole / 60) % 60)}:${two(whole % 60)}:${two(frames)}`;
}

function rotationOf(stream: ProbeStream): number {
  const fromSideData = stream.side_data_list?.find((entry) => typeof entry.rotation === 'number')?.rotation;
  const raw = fromSideData ?? Number(stream.tags?.rotate ?? 0);
  const normalized = ((Math.round(raw / 90) * 90) % 360 + 360) % 360;
  return Number.isFinite(normalized) ? normalized : 0;
}

export function aspectRatioOf(width: number, height: number, displayAspect?: string): string {
  const given = /^(\d+):(\d+)$/.exec(displayAspect ?? '');
  const ratio = given && Number(given[1]) > 0 && Number(given[2]) > 0 ? Number(given[1]) / Number(given[2]) : width / height;
  for (const [w, h] of COMMON_RATIOS) if (Math.abs(ratio / (w / h) - 1) <= 0.01) return `${w}:${h}`;
  return ratio >= 1 ? `${(Math.round(ratio * 100) / 100).toString()}:1` : `1:${(Math.round((1 / ratio) * 100) / 100).toString()}`;
}

function containerOf(formatName: string, majorBrand: string | undefined, codec: string | undefined): string {
  const names = formatName.split(',');
  if (names.includes('mov') || names.includes('mp4')) return majorBrand?.trim() === 'qt' ? 'mov' : 'mp4';
  if (names.includes('matroska') || names.includes('webm')) return codec === 'vp8' || codec === 'vp9' || codec === 'av1' ? 'webm' : 'mkv';
  if (names.includes('mpegts')) return 'ts';
  if (names.includes('mpeg')) return 'mpg';
  return names[0] || 'bin';
}

function compressionOf(stream: ProbeStream): string {
  const codec = stream.codec_name ?? 'unknown';
  const name = CODEC_NAMES[codec] ?? codec.toUpperCase();
  // ProRes names its flavour in the profile ("HQ", "4444"); that is what buyers ask for.
  if (codec === 'prores' && stream.profile) return `${name} ${PRORES_FLAVOURS[stream.profile] ?? stream.profile}`;
  return name;
}

function bitDepthOf(stream: ProbeStream): number | null {
  const raw = Number(stream.bits_per_raw_sample);
  if (Number.isInteger(raw) && raw > 0) return raw;
  const fromFormat = /p(9|10|12|14|16)(le|be)$/.exec(stream.pix_fmt ?? '');
  if (fromFormat) return Number(fromFormat[1]);
  return stream.pix_fmt ? 8 : null;
}
