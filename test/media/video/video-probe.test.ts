import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clipLengthOf, aspectRatioOf, NotAVideoError, probeVideo } from '../../../src/media/video/video-probe.js';
import { keyFrames, MAX_KEY_FRAMES, posterStill, spread } from '../../../src/media/video/video-renders.js';
import { kindDimensions, kindForNamePart, originalSizeName, transcodedKindsFor, VIDEO_SIZE_KINDS, videoDownloadSizes } from '../../../src/media/video/video-sizes.js';
import { runProgram, VideoToolError, VideoTools } from '../../../src/media/video/video-tools.js';
import { makeClip, scratchDir, tools } from './video-fixtures.js';

describe('reading a video file (ffprobe)', () => {
  let dir: string;
  beforeAll(() => {
    dir = scratchDir();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads every fact of an H.264 MP4 with sound', async () => {
    const file = await makeClip(dir, 'wide.mp4', { width: 640, height: 360, seconds: 4, audio: true });
    const facts = await probeVideo(tools, file);
    expect(facts).toMatchObject({
      width: 640,
      height: 360,
      frameRate: 25,
      clipLength: '00:00:04:00',
      aspectRatio: '16:9',
      orientation: 'horizontal',
      bytes: fs.statSync(file).size,
      format: 'mp4',
      contentType: 'video/mp4',
      compression: 'H.264',
      bitDepth: 8,
      interlaced: false,
      rotation: 0,
      hasAudio: true,
    });
    expect(facts.durationSeconds).toBeCloseTo(4, 2);
  });

  it('reads a vertical ProRes MOV at 29.97 frames a second, frames past the last whole second counted', async () => {
    const file = await makeClip(dir, 'tall.mov', { width: 270, height: 480, seconds: 2.5, rate: '30000/1001', codec: 'prores' });
    const facts = await probeVideo(tools, file);
    expect(facts).toMatchObject({
      width: 270,
      height: 480,
      frameRate: 29.97,
      aspectRatio: '9:16',
      orientation: 'vertical',
      format: 'mov',
      contentType: 'video/quicktime',
      compression: 'Apple ProRes 422 HQ',
      bitDepth: 10,
      hasAudio: false,
    });
    // 75 frames at 30000/1001: 2.5025 s, so 2 whole seconds and 15 frames.
    expect(facts.clipLength).toBe('00:00:02:15');
  });

  it('turns the frame size when the file asks to be shown rotated', async () => {
    const file = await makeClip(dir, 'phone.mp4', { width: 320, height: 180, seconds: 1, rotate: 90 });
    const facts = await probeVideo(tools, file);
    expect(facts).toMatchObject({ width: 180, height: 320, rotation: 90, orientation: 'vertical', aspectRatio: '9:16' });
  });

  it('refuses what is not a video: text, a still picture, a cut-off file, an empty file', async () => {
    const text = path.join(dir, 'notes.mp4');
    fs.writeFileSync(text, 'not a video at all\n'.repeat(50));
    const still = path.join(dir, 'still.png');
    fs.writeFileSync(still, await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } }).png().toBuffer());
    const whole = fs.readFileSync(await makeClip(dir, 'whole.mp4', { width: 320, height: 180, seconds: 2 }));
    const cut = path.join(dir, 'cut.mp4');
    // The start of an MP4 whose index (at the end) never arrives.
    fs.writeFileSync(cut, whole.subarray(0, 2000));
    const empty = path.join(dir, 'empty.mp4');
    fs.writeFileSync(empty, '');
    for (const file of [text, still, cut, empty]) {
      const error = await probeVideo(tools, file).catch((caught: unknown) => caught);
      expect(error, file).toBeInstanceOf(NotAVideoError);
      // The reason never names the file's (temporary) path.
      expect((error as Error).message).not.toContain(dir);
    }
    await expect(probeVideo(tools, still)).rejects.toThrow(/still picture/);
  });

  it('names a missing program and the setting that points at one', async () => {
    const missing = new VideoTools(path.join(dir, 'no-ffmpeg'), path.join(dir, 'no-ffprobe'));
    await expect(missing.ffprobe(['-version'], { timeoutMs: 5000 })).rejects.toThrow(/ffprobe could not be started: there is no program at/);
    await expect(runProgram(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { timeoutMs: 200 })).rejects.toThrow(/took longer than 0 s and was stopped/);
    const failing = await runProgram(process.execPath, ['-e', 'console.error("first\\nthe reason"); process.exit(3)'], { timeoutMs: 10_000 }).catch((error: unknown) => error);
    expect(failing).toBeInstanceOf(VideoToolError);
    expect((failing as Error).message).toMatch(/failed \(exit code 3\): first \| the reason/);
  });

  it('takes a poster still and key frames at the scene changes, no more than the bound', async () => {
    const file = await makeClip(dir, 'scenes.mp4', { width: 640, height: 360, seconds: 3.6, scenes: 3 });
    const facts = await probeVideo(tools, file);
    const poster = await sharp(await posterStill(tools, file, facts)).metadata();
    expect(poster).toMatchObject({ format: 'jpeg', width: 640, height: 360 });
    const frames = await keyFrames(tools, file, facts, 60_000);
    // The first frame, then the colour bars at 1.2 s and the flat colour at 2.4 s.
    expect(frames.map((frame) => Math.round(frame.seconds * 10) / 10)).toEqual([0, 1.2, 2.4]);
    for (const frame of frames) expect(await sharp(frame.jpeg).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 360 });
    expect(spread(40, MAX_KEY_FRAMES)).toHaveLength(MAX_KEY_FRAMES);
    expect(spread(40, 8)[0]).toBe(0);
    expect(spread(40, 8).at(-1)).toBe(39);
    expect(spread(3, 8)).toEqual([0, 1, 2]);
  });
});

describe('video sizes', () => {
  it('names the original by its shorter edge and offers the smaller kinds of the contract', () => {
    expect(originalSizeName(3840, 2160)).toBe('4K');
    expect(originalSizeName(1080, 1920)).toBe('HD 1080p');
    expect(originalSizeName(1280, 720)).toBe('HD 720p');
    expect(originalSizeName(640, 360)).toBe('SD');
    expect(transcodedKindsFor(3840, 2160).map((kind) => kind.name)).toEqual(['HD 1080p', 'HD 720p', 'HD Web', 'SD']);
    expect(transcodedKindsFor(1920, 1080).map((kind) => kind.name)).toEqual(['HD 720p', 'HD Web', 'SD']);
    expect(transcodedKindsFor(1280, 720).map((kind) => kind.name)).toEqual(['HD Web', 'SD']);
    expect(transcodedKindsFor(640, 360)).toEqual([]);
    expect(kindDimensions(VIDEO_SIZE_KINDS[3]!, 1080, 1920)).toEqual({ width: 360, height: 640 });
    // Odd sizes round to even numbers, as H.264 wants.
    expect(kindDimensions(VIDEO_SIZE_KINDS[1]!, 1998, 1080)).toEqual({ width: 1332, height: 720 });
    expect(kindForNamePart('HD_720p')?.name).toBe('HD 720p');
    expect(kindForNamePart('4K')).toBeUndefined();
  });

  it('lists the original first with its read facts, then each smaller kind as H.264 MP4', () => {
    const sizes = videoDownloadSizes({
      width: 1920, height: 1080, frameRate: 23.98, durationSeconds: 10, clipLength: '00:00:10:00', aspectRatio: '16:9', orientation: 'horizontal',
      bytes: 12_345_678, format: 'mov', contentType: 'video/quicktime', compression: 'Apple ProRes 422', bitDepth: 10, interlaced: false, rotation: 0, hasAudio: true,
    });
    expect(sizes[0]).toMatchObject({ name: 'HD 1080p', width: 1920, height: 1080, bytes: 12_345_678, format: 'mov', compression: 'Apple ProRes 422', frame_rate: 23.98, frame_size: '1920x1080', bit_depth: '10' });
    expect(sizes.slice(1).map((size) => [size.name, size.frame_size, size.format, size.compression])).toEqual([
      ['HD 720p', '1280x720', 'mp4', 'H.264'],
      ['HD Web', '1280x720', 'mp4', 'H.264'],
      ['SD', '640x360', 'mp4', 'H.264'],
    ]);
  });

  it('writes clip lengths and aspect ratios in the catalogue’s forms', () => {
    expect(clipLengthOf(3725.5, 25)).toBe('01:02:05:12');
    expect(clipLengthOf(1.999, 120)).toBe('00:00:01:59');
    expect(aspectRatioOf(1920, 1080)).toBe('16:9');
    expect(aspectRatioOf(720, 576, '16:9')).toBe('16:9');
    expect(aspectRatioOf(2048, 858)).toBe('2.39:1');
  });
});
