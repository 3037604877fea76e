/**
 * Short demo clips, made at seed time from drawn pictures (nothing is committed): each picture
 * is a scene the camera pans across, and the scenes follow each other with a cut, so a clip has
 * movement, a scene change for its key frames, and the look of the demo's stills.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { VideoTools } from './video-tools.js';

/** How much larger than the frame a scene picture is drawn, so the pan has room to move. */
export const PAN_MARGIN = 1.25;

export interface DemoClipRequest {
  /** JPEG pictures, each at least PAN_MARGIN times the frame size; one scene each. */
  scenes: readonly Buffer[];
  width: number;
  height: number;
  seconds: number;
  /** Frames per second as ffmpeg reads it: '25', '30000/1001', … */
  rate: string;
}

/** The ffmpeg frame rate for a nominal one (29.97 → 30000/1001). */
export function ffmpegRate(frameRate: number): string {
  const whole = Math.round(frameRate);
  return Math.abs(frameRate - whole) < 0.005 ? String(whole) : `${whole * 1000}/1001`;
}

function rateValue(rate: string): number {
  const [numerator, denominator = '1'] = rate.split('/');
  return Number(numerator) / Number(denominator);
}

/** Writes the clip, H.264 in MP4, to `output` (in a folder it may also write its scene pictures to). */
export async function makeDemoClip(tools: VideoTools, request: DemoClipRequest, output: string): Promise<void> {
  const { scenes, width, height, seconds, rate } = request;
  const sceneSeconds = seconds / scenes.length;
  const args = ['-v', 'error', '-y'];
  for (const [index, scene] of scenes.entries()) {
    const file = path.join(path.dirname(output), `scene-${index}.jpg`);
    await fsp.writeFile(file, scene);
    args.push('-i', file);
  }
  // Each picture is decoded once and repeated (the loop filter), not read again for every frame;
  // each scene pans left to right (the next one right to left) across its picture.
  const frames = Math.max(1, Math.round(sceneSeconds * rateValue(rate)));
  const pans = scenes.map((_, index) => {
    const x = index % 2 === 0 ? `(iw-${width})*n/${frames}` : `(iw-${width})*(1-n/${frames})`;
    return `[${index}:v]loop=loop=${frames - 1}:size=1:start=0,setpts=N/(${rate})/TB,crop=${width}:${height}:'${x}':'(ih-${height})/2',setsar=1,format=yuv420p[s${index}]`;
  });
  const concat = `${scenes.map((_, index) => `[s${index}]`).join('')}concat=n=${scenes.length}:v=1:a=0[clip]`;
  args.push(
    '-filter_complex', [...pans, concat].join(';'), '-map', '[clip]',
    // ultrafast: a demo clip is made at every seed, and its quality only has to look like the stills.
    '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '23', '-pix_fmt', 'yuv420p', '-r', rate, '-movflags', '+faststart', output,
  );
  await tools.ffmpeg(args, { timeoutMs: 120_000 });
}
