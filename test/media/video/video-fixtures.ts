import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VideoTools } from '../../../src/media/video/video-tools.js';

export const tools = VideoTools.fromEnvironment();

export interface ClipOptions {
  width: number;
  height: number;
  /** ffmpeg's frame rate text: 25, 30000/1001, … */
  rate?: string;
  seconds: number;
  /** Scenes of equal length that differ wholly (a test pattern, colour bars, a flat colour), so scene changes are found. */
  scenes?: 1 | 2 | 3;
  audio?: boolean;
  /** H.264 in MP4 (default) or ProRes in MOV. */
  codec?: 'h264' | 'prores';
  /** A rotation the file asks players for (a phone held upright). */
  rotate?: number;
}

/** Makes a clip with ffmpeg from its own drawn sources (no file is committed); returns its path. */
export async function makeClip(dir: string, name: string, options: ClipOptions): Promise<string> {
  const { width, height, seconds } = options;
  const rate = options.rate ?? '25';
  const scenes = options.scenes ?? 1;
  const part = seconds / scenes;
  const size = `s=${width}x${height}:r=${rate}:d=${part}`;
  const sources = [`testsrc2=${size}`, `smptebars=${size}`, `color=c=0x2050c0:${size}`].slice(0, scenes);
  const args = ['-v', 'error', '-y'];
  for (const source of sources) args.push('-f', 'lavfi', '-i', source);
  if (options.audio) args.push('-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`);
  const filter = `${sources.map((_, index) => `[${index}:v]`).join('')}concat=n=${scenes}:v=1:a=0[v]`;
  args.push('-filter_complex', filter, '-map', '[v]');
  if (options.audio) args.push('-map', `${scenes}:a`, '-c:a', 'aac', '-shortest');
  if (options.codec === 'prores') args.push('-c:v', 'prores_ks', '-profile:v', '3', '-pix_fmt', 'yuv422p10le');
  else args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p');
  const file = path.join(dir, name);
  const encoded = options.rotate === undefined ? file : path.join(dir, `unrotated-${name}`);
  args.push(encoded);
  await tools.ffmpeg(args, { timeoutMs: 120_000 });
  // The rotation goes in on a copy of the streams: this ffmpeg writes it only when remuxing.
  if (options.rotate !== undefined) {
    await tools.ffmpeg(['-v', 'error', '-y', '-i', encoded, '-c', 'copy', '-metadata:s:v:0', `rotate=${options.rotate}`, file], { timeoutMs: 60_000 });
    fs.rmSync(encoded);
  }
  return file;
}

export interface ProbedFile {
  codec: string;
  width: number;
  height: number;
  duration: number;
  bitRate: number;
  formatName: string;
}

/** What ffprobe says of a file's first video stream. */
export async function ffprobeFile(file: string): Promise<ProbedFile> {
  const run = await tools.ffprobe(['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-select_streams', 'v:0', file], { timeoutMs: 30_000 });
  const output = JSON.parse(run.stdout.toString('utf8')) as {
    streams: Array<{ codec_name: string; width: number; height: number }>;
    format: { duration: string; bit_rate: string; format_name: string };
  };
  const stream = output.streams[0]!;
  return {
    codec: stream.codec_name,
    width: stream.width,
    height: stream.height,
    duration: Number(output.format.duration),
    bitRate: Number(output.format.bit_rate),
    formatName: output.format.format_name,
  };
}

/** Bytes written to a temporary file, probed, and the file removed. */
export async function ffprobeBytes(dir: string, bytes: Buffer): Promise<ProbedFile> {
  const file = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.bin`);
  fs.writeFileSync(file, bytes);
  try {
    return await ffprobeFile(file);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

export function scratchDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-video-test-'));
}
