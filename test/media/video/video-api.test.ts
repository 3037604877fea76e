import fs from 'node:fs';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestService, type IngestReport } from '../../../src/catalog/ingest/ingest.service.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { insertUser } from '../../licensing/licensing-fixtures.js';
import { ffprobeBytes, makeClip, scratchDir } from './video-fixtures.js';

const CREATIVE = {
  asset_family: 'creative',
  license_model: 'royaltyfree',
  product_types: ['premiumaccess'],
  partner_collection: 'essentials',
};

interface Size {
  name: string;
  width: number;
  height: number;
  is_watermarked: boolean;
  uri: string;
}

/** The path and query of a signed URI, as a client would request it from our host. */
function target(uri: string): string {
  const url = new URL(uri);
  return `${url.pathname}${url.search}`;
}

describe('real video: ingest, display, download and search', () => {
  let t: TestApp;
  let dir: string;
  let report: IngestReport;
  let wideBytes: Buffer;
  let token: string;

  const call = (options: InjectOptions) => t.app.inject(options);
  const api = (url: string, method: InjectOptions['method'] = 'GET') =>
    call({ method, url, headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    t = await createTestApp({ env: { STOCKROOM_VIDEO_TRANSCODE_WAIT_MS: '120000' } });
    dir = scratchDir();
    const media = path.join(dir, 'media');
    fs.mkdirSync(media);
    const wide = await makeClip(media, 'wide.mp4', { width: 1280, height: 720, seconds: 3.6, scenes: 3, audio: true });
    wideBytes = fs.readFileSync(wide);
    await makeClip(media, 'small.mov', { width: 320, height: 180, seconds: 2, rate: '30000/1001' });
    fs.writeFileSync(path.join(media, 'notes.mp4'), 'this is not a video\n'.repeat(40));
    fs.writeFileSync(path.join(media, 'cut.mp4'), wideBytes.subarray(0, 4096));
    fs.writeFileSync(path.join(media, 'poster.jpg'), await sharp({ create: { width: 640, height: 360, channels: 3, background: '#336699' } }).jpeg().toBuffer());
    const lines = [
      { asset_type: 'video', id: 'clip-wide', file: 'wide.mp4', title: 'Harbour crane at dusk', ...CREATIVE },
      { asset_type: 'video', id: 'clip-small', file: 'small.mov', title: 'Harbour crane small', ...CREATIVE },
      { asset_type: 'video', id: 'clip-text', file: 'notes.mp4', title: 'Not a video', ...CREATIVE },
      { asset_type: 'video', id: 'clip-cut', file: 'cut.mp4', title: 'Cut off', ...CREATIVE },
      { asset_type: 'video', id: 'clip-told', file: 'wide.mp4', title: 'Told its length', clip_length: '00:00:09:00', ...CREATIVE },
      { asset_type: 'video', id: 'clip-poster', file: 'poster.jpg', title: 'Harbour crane poster only', ...CREATIVE },
      { asset_type: 'image', id: 'image-video', file: 'wide.mp4', title: 'An image that is a video', ...CREATIVE },
    ];
    const manifest = path.join(dir, 'manifest.jsonl');
    fs.writeFileSync(manifest, lines.map((line) => JSON.stringify(line)).join('\n'));
    report = await new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs, videoTools: t.services.videoTools }).ingestFile(manifest, { mediaDir: media });
    const userId = await insertUser(t.services.database.db);
    await t.services.products.grant({ userId, type: 'premiumaccess' });
    ({ token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 }));
    await t.services.changeFeed.poll();
    await t.services.search.settled();
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores the video lines and refuses bad files and told facts on their lines', () => {
    expect(report.inserted).toBe(3);
    expect(report.failed.map((failure) => failure.line)).toEqual([3, 4, 5, 7]);
    const reasons = Object.fromEntries(report.failed.map((failure) => [failure.line, failure.reason]));
    expect(reasons[3]).toMatch(/file 'notes\.mp4': not a video ffprobe can read/);
    expect(reasons[4]).toMatch(/file 'cut\.mp4': not a video ffprobe can read/);
    expect(reasons[5]).toBe('clip_length must not be given with a video file: it is read from the file');
    expect(reasons[7]).toMatch(/file 'wide\.mp4'/);
  });

  it('shows every fact read from the file', async () => {
    const response = await api('/v3/videos/clip-wide?fields=clip_length,aspect_ratio,orientation,download_sizes,max_dimensions');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ clip_length: '00:00:03:15', aspect_ratio: '16:9', orientation: 'horizontal' });
    expect(body.download_sizes.map((size: Record<string, unknown>) => [size.name, size.width, size.height, size.format, size.compression, size.frame_rate, size.frame_size])).toEqual([
      ['HD 720p', 1280, 720, 'mp4', 'H.264', 25, '1280x720'],
      ['HD Web', 1280, 720, 'mp4', 'H.264', 25, '1280x720'],
      ['SD', 640, 360, 'mp4', 'H.264', 25, '640x360'],
    ]);
    expect(body.download_sizes[0]).toMatchObject({ bytes: wideBytes.length, content_type: 'video/mp4', bit_depth: '8', interlaced: false });
    const small = (await api('/v3/videos/clip-small?fields=clip_length,aspect_ratio,download_sizes')).json();
    expect(small).toMatchObject({ clip_length: '00:00:02:00', aspect_ratio: '16:9' });
    expect(small.download_sizes).toEqual([expect.objectContaining({ name: 'SD', format: 'mov', content_type: 'video/quicktime', frame_rate: 29.97, frame_size: '320x180' })]);
  });

  it('serves a watermarked H.264 preview clip of a few hundred kbit/s, with byte ranges, from its signed URL', async () => {
    const body = (await api('/v3/videos/clip-wide?fields=display_set')).json();
    const sizes = body.display_sizes as Size[];
    const preview = sizes.find((size) => size.name === 'preview')!;
    expect(preview).toMatchObject({ width: 640, height: 360, is_watermarked: true });
    expect(new URL(preview.uri).pathname).toBe('/display/clip-wide/preview.mp4');
    const whole = await call({ method: 'GET', url: target(preview.uri) });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('video/mp4');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-disposition']).toBe('inline; filename="stockroom-clip-wide-preview.mp4"');
    const probed = await ffprobeBytes(dir, whole.rawPayload);
    expect(probed).toMatchObject({ codec: 'h264', width: 640, height: 360 });
    expect(probed.duration).toBeCloseTo(3.6, 1);
    expect(probed.bitRate).toBeLessThan(700_000);
    // +faststart: the index (moov) comes before the media data, so a browser starts playing at once.
    expect(whole.rawPayload.indexOf('moov')).toBeLessThan(whole.rawPayload.indexOf('mdat'));
    const part = await call({ method: 'GET', url: target(preview.uri), headers: { range: 'bytes=100-1099' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-1099/${whole.rawPayload.length}`);
    expect(part.rawPayload.equals(whole.rawPayload.subarray(100, 1100))).toBe(true);
    const tampered = await call({ method: 'GET', url: target(preview.uri).replace('clip-wide', 'clip-small') });
    expect(tampered.statusCode).toBe(403);
  });

  it('gives affiliates the preview clip as the motion preview of a real video, and none for a poster-only one', async () => {
    const response = await api('/v3/affiliates/search/videos?phrase=crane');
    expect(response.statusCode, response.body).toBe(200);
    const byId = new Map(response.json<{ videos: Array<{ id: string; preview_urls: Record<string, string | null> }> }>().videos.map((video) => [video.id, video.preview_urls]));
    const wide = byId.get('clip-wide')!;
    expect(new URL(wide.small_motion!).pathname).toBe('/display/clip-wide/preview.mp4');
    expect(wide.large_motion).toBe(wide.small_motion);
    expect(byId.get('clip-poster')).toMatchObject({ small_motion: null, large_motion: null });
  });

  it('draws thumb and comp from the poster still, and key frames at the scene changes', async () => {
    const body = (await api('/v3/videos/clip-wide?fields=display_set')).json();
    const byName = new Map((body.display_sizes as Size[]).map((size) => [size.name, size]));
    for (const name of ['thumb', 'comp']) {
      const size = byName.get(name)!;
      const response = await call({ method: 'GET', url: target(size.uri) });
      expect(response.statusCode, name).toBe(200);
      expect(response.headers['content-type']).toBe('image/jpeg');
      expect(await sharp(response.rawPayload).metadata()).toMatchObject({ width: size.width, height: size.height });
    }
    const keyFrames = body.key_frames as Size[];
    // Three scenes: a test pattern, colour bars and a flat colour.
    expect(keyFrames.map((frame) => frame.name)).toEqual(['key_frame_1', 'key_frame_2', 'key_frame_3']);
    const stills: Buffer[] = [];
    for (const frame of keyFrames) {
      expect(frame).toMatchObject({ width: 612, height: 344, is_watermarked: true });
      const response = await call({ method: 'GET', url: target(frame.uri) });
      expect(response.statusCode).toBe(200);
      expect(await sharp(response.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 612, height: 344 });
      stills.push(response.rawPayload);
    }
    // The flat blue scene is mostly blue; the test pattern is not.
    const blue = await sharp(stills[2]).stats();
    expect(blue.channels[2]!.mean).toBeGreaterThan(blue.channels[0]!.mean + 60);
    // A poster-only video keeps its still as its preview, and has no key frames.
    const poster = (await api('/v3/videos/clip-poster?fields=display_set')).json();
    expect(new URL((poster.display_sizes as Size[]).find((size) => size.name === 'preview')!.uri).pathname).toBe('/display/clip-poster/comp.jpg');
    expect(poster.key_frames).toEqual([]);
  });

  it('delivers a licensed video as a real file of the size licensed, made on first request and kept', async () => {
    const sizes = ['SD', 'HD Web', 'HD 720p'];
    const files = new Map<string, Buffer>();
    for (const size of sizes) {
      const download = await api(`/v3/downloads/videos/clip-wide?size=${encodeURIComponent(size)}&auto_download=false`, 'POST');
      expect(download.statusCode, size).toBe(200);
      const uri = download.json().uri as string;
      // The licensed size is queued as the download answers, before the client asks for the file.
      const queued = async () => t.services.database.db.selectFrom('video_transcodes').select('kind').where('kind', '=', size).executeTakeFirst();
      for (let tries = 0; tries < 50 && (await queued()) === undefined; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await queued(), size).toBeDefined();
      const file = await call({ method: 'GET', url: target(uri) });
      expect(file.statusCode, size).toBe(200);
      expect(file.headers['content-type']).toBe('video/mp4');
      expect(file.headers['content-disposition']).toBe(`attachment; filename="stockroom-clip-wide-${size.replace(' ', '_')}.mp4"`);
      files.set(size, file.rawPayload);
      // Ranges work on the made file as on the original.
      const part = await call({ method: 'GET', url: target(uri), headers: { range: 'bytes=-500' } });
      expect(part.statusCode).toBe(206);
      expect(part.rawPayload.equals(file.rawPayload.subarray(-500))).toBe(true);
    }
    const sd = await ffprobeBytes(dir, files.get('SD')!);
    expect(sd).toMatchObject({ codec: 'h264', width: 640, height: 360 });
    expect(sd.duration).toBeCloseTo(3.6, 1);
    const web = await ffprobeBytes(dir, files.get('HD Web')!);
    expect(web).toMatchObject({ codec: 'h264', width: 1280, height: 720 });
    // The original's own size is the original file, byte for byte.
    expect(files.get('HD 720p')!.equals(wideBytes)).toBe(true);
    const jobs = await t.services.database.db.selectFrom('video_transcodes').select(['kind', 'status', 'output_key']).orderBy('kind').execute();
    // The job for the original's own size found nothing to make: the original serves.
    expect(jobs.filter((job) => job.kind !== 'preview')).toEqual([
      { kind: 'HD 720p', status: 'done', output_key: null },
      { kind: 'HD Web', status: 'done', output_key: expect.stringMatching(/^deliveries\/.+\/HD_Web\.mp4$/) },
      { kind: 'SD', status: 'done', output_key: expect.stringMatching(/^deliveries\/.+\/SD\.mp4$/) },
    ]);
  });

  it('filters searches on the facts read from the files', async () => {
    const ids = async (query: string) => {
      const response = await api(`/v3/search/videos?phrase=harbour&fields=id&${query}`);
      expect(response.statusCode, query).toBe(200);
      return (response.json().videos as Array<{ id: string }>).map((video) => video.id).sort();
    };
    expect(await ids('')).toEqual(['clip-poster', 'clip-small', 'clip-wide']);
    expect(await ids('format_available=hd')).toEqual(['clip-wide']);
    expect(await ids('format_available=hd_web')).toEqual(['clip-wide']);
    expect(await ids('format_available=sd')).toEqual(['clip-small', 'clip-wide']);
    expect(await ids('format_available=4k')).toEqual([]);
    expect(await ids('min_clip_length=3')).toEqual(['clip-wide']);
    expect(await ids('max_clip_length=2')).toEqual(['clip-small']);
    expect(await ids('frame_rates=29.97')).toEqual(['clip-small']);
    expect(await ids('frame_rates=25')).toEqual(['clip-wide']);
  });
});
