import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import {
  deliveryBlobKey,
  deliveryFileName,
  parseByteRange,
  parseDeliveryFileName,
  renderDelivery,
  sniffMediaType,
  type DeliverySpec,
} from '../../src/media/delivery.js';
import type { DownloadSize } from '../../src/media/image-probe.js';
import { mediaRoutes } from '../../src/media/media.routes.js';
import { MediaService } from '../../src/media/media.service.js';
import { UrlSigner } from '../../src/media/url-signer.js';
import { registerErrorHandler } from '../../src/platform/http/error-handler.js';
import { addImage } from '../helpers/catalog-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { makeJpeg, RecordingBlobStore } from './media-fixtures.js';

const PUBLIC_URL = 'http://stockroom.test';
const TTL_SECONDS = 86_400;
/** 2024-03-10T08:00:00Z: the start of an hour, so a URL signed now expires in TTL + 1 hour. */
const SIGNED_AT_MS = Date.UTC(2024, 2, 10, 8, 0, 0);

const IMAGE_ID = 'harbour-7';
const POSTER_VIDEO_ID = 'clip-1';
const MP4_VIDEO_ID = 'clip-mp4';
const MP4_KEY = 'originals/clip-real.mp4';
/** A "real" video: an ftyp box, then enough bytes that the file store reads it in several chunks (64 KiB each). */
const MP4_BYTES = Buffer.concat([Buffer.from('000000186674797069736f6d0000020069736f6d', 'hex'), randomBytes(300_000)]);


/** The path and query of a signed URI, as a client would request it from our host. */
function requestTarget(uri: string): string {
  const url = new URL(uri);
  return `${url.pathname}${url.search}`;
}

describe('delivery of licensed downloads', () => {
  let testApp: TestApp;
  let originalKey: string;
  let originalBytes: Buffer;
  let downloadSizes: DownloadSize[];
  let posterKey: string;
  let posterBytes: Buffer;

  let app: FastifyInstance;
  let media: MediaService;
  let blobs: RecordingBlobStore;
  let clock: { nowMs: number };

  beforeAll(async () => {
    testApp = await createTestApp();
    const { services } = testApp;
    await addImage(services, IMAGE_ID, { width: 1200, height: 800 });
    const [record] = (await services.catalog.findAssets('image', [IMAGE_ID])).found;
    downloadSizes = record?.fields.download_sizes as DownloadSize[];
    originalKey = (await services.catalog.findOriginal(IMAGE_ID))?.originalKey ?? '';
    originalBytes = (await services.blobs.get(originalKey)) ?? Buffer.alloc(0);

    // A video as the catalogue holds it today: its file is a poster still, here a PNG.
    const poster = await sharp({ create: { width: 640, height: 360, channels: 3, background: '#204060' } })
      .composite([{ input: Buffer.from(randomBytes(64 * 64 * 3)), raw: { width: 64, height: 64, channels: 3 }, tile: true }])
      .png()
      .toBuffer();
    await new IngestService({ catalog: services.catalog, blobs: services.blobs }).ingestRecord(
      { asset_type: 'video', id: POSTER_VIDEO_ID, file: 'poster.png', title: 'Harbour at dawn' },
      poster,
    );
    posterKey = (await services.catalog.findOriginal(POSTER_VIDEO_ID))?.originalKey ?? '';
    posterBytes = (await services.blobs.get(posterKey)) ?? Buffer.alloc(0);

    // And one whose original is a real movie file.
    await services.blobs.put(MP4_KEY, MP4_BYTES);
    await services.catalog.upsertAsset({
      asset_type: 'video',
      id: MP4_VIDEO_ID,
      fields: { title: 'Real clip' },
      original: { key: MP4_KEY, media_type: 'video/mp4', width: 1920, height: 1080, dpi: 72, bytes: MP4_BYTES.length },
    });
  });

  afterAll(async () => {
    await testApp.close();
  });

  beforeEach(async () => {
    const { services } = testApp;
    clock = { nowMs: SIGNED_AT_MS };
    blobs = new RecordingBlobStore(services.blobs);
    media = new MediaService({
      blobs,
      signer: services.signer,
      deliverySigner: new UrlSigner('delivery-secret', PUBLIC_URL, TTL_SECONDS, () => clock.nowMs),
      findOriginal: (assetId) => services.catalog.findOriginal(assetId),
    });
    // The way app.ts serves media: an open context, the application's error handler, no Api-Key.
    app = Fastify({ logger: false });
    registerErrorHandler(app);
    await app.register(swagger, { openapi: { info: { title: 'test', version: '3' } } });
    await app.register(mediaRoutes, { media, signer: services.signer });
    await app.ready();
  });

  afterEach(async () => {
    await app.close();
  });

  function size(name: string): DownloadSize {
    const found = downloadSizes.find((entry) => entry.name === name);
    if (!found) throw new Error(`no download size ${name}`);
    return found;
  }

  function imageUri(sizeName: string, downloadId = 41): string {
    const { width, height } = size(sizeName);
    return media.deliveryUri({ downloadId, assetId: IMAGE_ID, assetType: 'image', height, width, sizeName, fileType: 'jpg' });
  }

  function videoUri(assetId = POSTER_VIDEO_ID, sizeName = '1080p', downloadId = 52): string {
    return media.deliveryUri({ downloadId, assetId, assetType: 'video', sizeName });
  }

  describe('deliveryUri', () => {
    it('is an absolute, signed URL on the public URL, one per download, named after the size delivered', () => {
      const uri = imageUri('small');
      expect(uri).toMatch(
        /^http:\/\/stockroom\.test\/delivery\/41\/harbour-7\/stockroom-harbour-7-1024x683\.jpg\?expires=\d+&signature=[\w-]{43}$/,
      );
      // Valid at least the configured TTL (the signer rounds expiry up to whole hours).
      expect(Number(new URL(uri).searchParams.get('expires'))).toBe(SIGNED_AT_MS / 1000 + TTL_SECONDS + 3600);
      expect(new URL(imageUri('small', 42)).pathname).toBe('/delivery/42/harbour-7/stockroom-harbour-7-1024x683.jpg');
      expect(new URL(videoUri()).pathname).toBe('/delivery/52/clip-1/stockroom-clip-1-1080p');
    });

    it('keeps file names to letters, digits, ".", "_" and "-"', () => {
      const name = deliveryFileName({ downloadId: 1, assetId: 'a b/c', assetType: 'video', sizeName: 'HD 1080p (ProRes 422)' });
      expect(name).toBe('stockroom-a_b_c-HD_1080p_ProRes_422_');
      expect(parseDeliveryFileName('a b/c', name)).toEqual({ kind: 'video', baseName: name });
      expect(deliveryFileName({ downloadId: 1, assetId: 'v', assetType: 'video', sizeName: '' })).toBe('stockroom-v-video');
      // A video size that looks like an image size still reads back as a video: only image names carry ".jpg".
      expect(parseDeliveryFileName('v', deliveryFileName({ downloadId: 1, assetId: 'v', assetType: 'video', sizeName: '1920x1080' }))).toMatchObject({
        kind: 'video',
      });
      expect(parseDeliveryFileName('v', 'stockroom-v-1920x1080.jpg')).toEqual({
        kind: 'image',
        width: 1920,
        height: 1080,
        fileName: 'stockroom-v-1920x1080.jpg',
      });
      for (const bad of ['stockroom-w-10x10.jpg', 'stockroom-v-0x10.jpg', 'stockroom-v-10x10.png', 'stockroom-v-a.b', 'other-v-10x10.jpg']) {
        expect(parseDeliveryFileName('v', bad)).toBeUndefined();
      }
    });

    it('refuses what cannot be delivered', () => {
      const image: DeliverySpec = { downloadId: 1, assetId: IMAGE_ID, assetType: 'image', height: 683, width: 1024, sizeName: 'small' };
      expect(() => media.deliveryUri({ ...image, width: undefined })).toThrow(/needs the licensed size's width and height/);
      expect(() => media.deliveryUri({ ...image, height: undefined })).toThrow(RangeError);
      expect(() => media.deliveryUri({ ...image, height: 68.5 })).toThrow(RangeError);
      expect(() => media.deliveryUri({ ...image, fileType: 'png' as 'jpg' })).toThrow(/only jpg and eps/);
      expect(() => media.deliveryUri({ ...image, downloadId: 0 })).toThrow(/downloadId/);
      expect(() => media.deliveryUri({ ...image, assetId: '' })).toThrow(/assetId/);
      const unsigned = new MediaService({ blobs, signer: testApp.services.signer, findOriginal: async () => undefined });
      expect(() => unsigned.deliveryUri(image)).toThrow(/no deliverySigner/);
    });
  });

  describe('images', () => {
    it('delivers the original resized to the licensed size, JPEG at 300 dpi, with name, type and length in the headers', async () => {
      const response = await app.inject({ method: 'GET', url: requestTarget(imageUri('small')) });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('image/jpeg');
      expect(response.headers['content-disposition']).toBe('attachment; filename="stockroom-harbour-7-1024x683.jpg"');
      expect(response.headers['content-length']).toBe(String(response.rawPayload.length));
      expect(response.headers['accept-ranges']).toBe('bytes');
      expect(response.headers.etag).toMatch(/^"[\w-]{27}"$/);
      // Signed at the top of the hour: valid for TTL + 1 hour, private to the one who downloads it.
      expect(response.headers['cache-control']).toBe(`private, max-age=${TTL_SECONDS + 3600}`);
      const metadata = await sharp(response.rawPayload).metadata();
      expect(metadata).toMatchObject({ format: 'jpeg', width: 1024, height: 683, density: 300 });
    });

    it('delivers the exact size download_sizes lists, not the one rounding from the height alone would give', async () => {
      // 1200 × 683/800 = 1024.5: resizing by height alone makes the file 1025 wide.
      expect(size('small')).toMatchObject({ width: 1024, height: 683 });
      const response = await app.inject({ method: 'GET', url: requestTarget(imageUri('small')) });
      const metadata = await sharp(response.rawPayload).metadata();
      expect([metadata.width, metadata.height]).toEqual([1024, 683]);
    });

    it('delivers the original as it is at full height, still with every header', async () => {
      const response = await app.inject({ method: 'GET', url: requestTarget(imageUri('x-large')) });
      expect(response.statusCode).toBe(200);
      expect(response.rawPayload.equals(originalBytes)).toBe(true);
      expect(response.headers['content-type']).toBe('image/jpeg');
      expect(response.headers['content-length']).toBe(String(originalBytes.length));
      expect(response.headers['content-disposition']).toBe('attachment; filename="stockroom-harbour-7-1200x800.jpg"');
      // The original is not copied into the delivery cache.
      expect(blobs.puts).toEqual([]);
    });

    it('renders a size once: the second request is served from the blob cache without reading the original', async () => {
      const { width, height } = size('x-small');
      const cacheKey = deliveryBlobKey(originalKey, width, height);
      await testApp.services.blobs.delete(cacheKey);

      const first = await app.inject({ method: 'GET', url: requestTarget(imageUri('x-small', 7)) });
      expect(first.statusCode).toBe(200);
      expect(blobs.puts).toEqual([cacheKey]);
      expect(blobs.gets).toContain(originalKey);

      blobs.puts.length = 0;
      blobs.gets.length = 0;
      // Another download of the same size shares the cached file.
      const second = await app.inject({ method: 'GET', url: requestTarget(imageUri('x-small', 8)) });
      expect(second.statusCode).toBe(200);
      expect(blobs.puts).toEqual([]);
      expect(blobs.gets).toEqual([cacheKey]);
      expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
      expect(second.headers.etag).toBe(first.headers.etag);
    });

    it('renders simultaneous first requests for a size once', async () => {
      const cacheKey = deliveryBlobKey(originalKey, 600, 400);
      await testApp.services.blobs.delete(cacheKey);
      const uri = media.deliveryUri({ downloadId: 9, assetId: IMAGE_ID, assetType: 'image', height: 400, width: 600, sizeName: 'custom' });
      const responses = await Promise.all([1, 2, 3].map(() => app.inject({ method: 'GET', url: requestTarget(uri) })));
      expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
      expect(blobs.puts).toEqual([cacheKey]);
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const url = requestTarget(imageUri('small'));
      const get = await app.inject({ method: 'GET', url });
      const head = await app.inject({ method: 'HEAD', url });
      expect(head.statusCode).toBe(200);
      expect(head.rawPayload.length).toBe(0);
      for (const name of ['content-type', 'content-length', 'content-disposition', 'etag', 'accept-ranges']) {
        expect(head.headers[name], name).toBe(get.headers[name]);
      }
    });

    it('serves byte ranges of images too', async () => {
      const response = await app.inject({ method: 'GET', url: requestTarget(imageUri('x-large')), headers: { range: 'bytes=0-2' } });
      expect(response.statusCode).toBe(206);
      expect(response.headers['content-range']).toBe(`bytes 0-2/${originalBytes.length}`);
      expect([...response.rawPayload]).toEqual([0xff, 0xd8, 0xff]);
    });

    it('answers 304 when If-None-Match holds the ETag', async () => {
      const url = requestTarget(imageUri('small'));
      const first = await app.inject({ method: 'GET', url });
      const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': `W/"other", ${String(first.headers.etag)}` } });
      expect(again.statusCode).toBe(304);
      expect(again.rawPayload.length).toBe(0);
      expect(again.headers.etag).toBe(first.headers.etag);
    });
  });

  describe('renderDelivery', () => {
    it('applies the EXIF orientation to the pixels and leaves no rotation behind', async () => {
      const turned = await sharp(await makeJpeg(120, 80)).withMetadata({ orientation: 6 }).jpeg().toBuffer();
      const rendered = await renderDelivery(turned, 40, 60);
      expect(rendered).not.toBe('original');
      const metadata = await sharp(rendered as Buffer).metadata();
      expect([metadata.width, metadata.height, metadata.orientation ?? 1, metadata.density]).toEqual([40, 60, 1, 300]);
    });

    it('converts a PNG original to JPEG at full height, flattened onto white', async () => {
      const png = await sharp({ create: { width: 50, height: 30, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
      const rendered = await renderDelivery(png, 50, 30);
      const metadata = await sharp(rendered as Buffer).metadata();
      expect(metadata).toMatchObject({ format: 'jpeg', width: 50, height: 30, density: 300, hasAlpha: false });
      const { data } = await sharp(rendered as Buffer).raw().toBuffer({ resolveWithObject: true });
      expect(data[0]).toBeGreaterThan(250);
    });

    it('never enlarges nor distorts: a size above the original gives the original, another shape fits inside', async () => {
      const jpeg = await makeJpeg(300, 200);
      expect(await renderDelivery(jpeg, 600, 400)).toBe('original');
      const fitted = await sharp((await renderDelivery(jpeg, 100, 100)) as Buffer).metadata();
      expect([fitted.width, fitted.height]).toEqual([100, 67]);
    });
  });

  describe('videos', () => {
    it('delivers the stored original as it is, typed and named by its file', async () => {
      const response = await app.inject({ method: 'GET', url: requestTarget(videoUri()) });
      expect(response.statusCode).toBe(200);
      expect(response.rawPayload.equals(posterBytes)).toBe(true);
      expect(response.headers['content-type']).toBe('image/png');
      expect(response.headers['content-length']).toBe(String(posterBytes.length));
      expect(response.headers['content-disposition']).toBe('attachment; filename="stockroom-clip-1-1080p.png"');
      expect(response.headers['accept-ranges']).toBe('bytes');
      expect(response.headers['cache-control']).toBe(`private, max-age=${TTL_SECONDS + 3600}`);
      expect(response.headers.etag).toMatch(/^"[\w-]{27}"$/);
    });

    it('answers a byte range with 206 and Content-Range', async () => {
      const url = requestTarget(videoUri());
      const total = posterBytes.length;
      const cases: Array<[string, number, number]> = [
        ['bytes=0-99', 0, 99],
        ['bytes=100-', 100, total - 1],
        ['bytes=-50', total - 50, total - 1],
        [`bytes=${total - 10}-${total + 1000}`, total - 10, total - 1],
        [`bytes=-${total + 1000}`, 0, total - 1],
      ];
      for (const [range, start, end] of cases) {
        const response = await app.inject({ method: 'GET', url, headers: { range } });
        expect(response.statusCode, range).toBe(206);
        expect(response.headers['content-range'], range).toBe(`bytes ${start}-${end}/${total}`);
        expect(response.headers['content-length'], range).toBe(String(end - start + 1));
        expect(response.rawPayload.equals(posterBytes.subarray(start, end + 1)), range).toBe(true);
        expect(response.headers['content-disposition']).toBe('attachment; filename="stockroom-clip-1-1080p.png"');
      }
    });

    it('answers a range past the end with 416 and Content-Range: bytes */size', async () => {
      const url = requestTarget(videoUri());
      for (const range of [`bytes=${posterBytes.length}-`, `bytes=${posterBytes.length + 5}-${posterBytes.length + 9}`, 'bytes=-0']) {
        const response = await app.inject({ method: 'GET', url, headers: { range } });
        expect(response.statusCode, range).toBe(416);
        expect(response.headers['content-range'], range).toBe(`bytes */${posterBytes.length}`);
        expect(response.json()).toMatchObject({ code: 'RangeNotSatisfiable' });
      }
    });

    it('sends the whole file for several ranges, another unit, a malformed range or a stale If-Range', async () => {
      const url = requestTarget(videoUri());
      const headerSets: Array<Record<string, string>> = [
        { range: 'bytes=0-9,20-29' },
        { range: 'items=0-9' },
        { range: 'bytes=9-0' },
        { range: 'bytes=0-9', 'if-range': '"some-older-file"' },
      ];
      for (const headers of headerSets) {
        const response = await app.inject({ method: 'GET', url, headers });
        expect(response.statusCode, JSON.stringify(headers)).toBe(200);
        expect(response.rawPayload.equals(posterBytes)).toBe(true);
      }
      const { headers } = await app.inject({ method: 'HEAD', url });
      const current = await app.inject({ method: 'GET', url, headers: { range: 'bytes=0-9', 'if-range': String(headers.etag) } });
      expect(current.statusCode).toBe(206);
    });

    it('streams a real movie file, typed by its extension, ranges across read chunks included', async () => {
      const url = requestTarget(videoUri(MP4_VIDEO_ID, '4K'));
      const whole = await app.inject({ method: 'GET', url });
      expect(whole.statusCode).toBe(200);
      expect(whole.headers['content-type']).toBe('video/mp4');
      expect(whole.headers['content-disposition']).toBe('attachment; filename="stockroom-clip-mp4-4K.mp4"');
      expect(whole.rawPayload.equals(MP4_BYTES)).toBe(true);

      const part = await app.inject({ method: 'GET', url, headers: { range: 'bytes=65000-140000' } });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 65000-140000/${MP4_BYTES.length}`);
      expect(part.rawPayload.equals(MP4_BYTES.subarray(65000, 140001))).toBe(true);
    });

    it('types a stored file without a known extension by its first bytes', async () => {
      await testApp.services.blobs.put('originals/clip-without-extension', MP4_BYTES);
      await testApp.services.catalog.upsertAsset({
        asset_type: 'video',
        id: 'clip-sniffed',
        fields: { title: 'Sniffed clip' },
        original: { key: 'originals/clip-without-extension', media_type: 'video/mp4', width: 1920, height: 1080, dpi: 72, bytes: MP4_BYTES.length },
      });
      const response = await app.inject({ method: 'HEAD', url: requestTarget(videoUri('clip-sniffed', 'HD')) });
      expect(response.headers['content-type']).toBe('video/mp4');
      expect(response.headers['content-disposition']).toBe('attachment; filename="stockroom-clip-sniffed-HD.mp4"');
    });

    it('answers HEAD with the whole file\'s headers and no body, a Range notwithstanding', async () => {
      const response = await app.inject({ method: 'HEAD', url: requestTarget(videoUri()), headers: { range: 'bytes=0-9' } });
      expect(response.statusCode).toBe(200);
      expect(response.rawPayload.length).toBe(0);
      expect(response.headers['content-length']).toBe(String(posterBytes.length));
      expect(response.headers['content-type']).toBe('image/png');
      expect(response.headers['content-disposition']).toBe('attachment; filename="stockroom-clip-1-1080p.png"');
    });
  });

  describe('signature', () => {
    it('refuses a tampered signature or expiry with 403 InvalidSignature', async () => {
      const url = new URL(imageUri('small'));
      const signature = url.searchParams.get('signature') ?? '';
      const expires = url.searchParams.get('expires') ?? '';
      const tampered = [
        new URL(url.href),
        new URL(url.href),
      ];
      tampered[0]?.searchParams.set('signature', `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`);
      tampered[1]?.searchParams.set('expires', String(Number(expires) + 3600));
      for (const target of tampered) {
        const response = await app.inject({ method: 'GET', url: requestTarget(target.href) });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual({ message: 'Invalid or tampered download URL', code: 'InvalidSignature' });
      }
    });

    it('refuses the signature of one download moved to another download, size, asset or file', async () => {
      const { search } = new URL(imageUri('small', 41));
      for (const path of [
        '/delivery/42/harbour-7/stockroom-harbour-7-1024x683.jpg',
        '/delivery/041/harbour-7/stockroom-harbour-7-1024x683.jpg',
        '/delivery/41/harbour-7/stockroom-harbour-7-1200x800.jpg',
        '/delivery/41/clip-1/stockroom-harbour-7-1024x683.jpg',
        '/delivery/41/clip-1/stockroom-clip-1-1080p',
      ]) {
        const response = await app.inject({ method: 'GET', url: `${path}${search}` });
        expect(response.statusCode, path).toBe(403);
        expect(response.json()).toMatchObject({ code: 'InvalidSignature' });
      }
    });

    it('refuses a URL without signature or expiry, and one signed with another key (a display URL\'s)', async () => {
      const path = '/delivery/41/harbour-7/stockroom-harbour-7-1024x683.jpg';
      const displaySigned = testApp.services.signer.sign(path);
      for (const url of [path, `${path}?expires=9999999999`, requestTarget(displaySigned)]) {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(403);
        expect(response.json()).toMatchObject({ code: 'InvalidSignature' });
      }
    });

    it('refuses an expired URL with 403 DownloadUrlExpired, as /display does', async () => {
      const url = requestTarget(videoUri());
      clock.nowMs = SIGNED_AT_MS + (TTL_SECONDS + 3600 - 1) * 1000;
      const lastSecond = await app.inject({ method: 'GET', url });
      expect(lastSecond.statusCode).toBe(200);
      expect(lastSecond.headers['cache-control']).toBe('private, max-age=1');
      clock.nowMs = SIGNED_AT_MS + (TTL_SECONDS + 3600) * 1000;
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ message: 'Download URL expired', code: 'DownloadUrlExpired' });
    });

    it('refuses every URL when no delivery signer is configured', async () => {
      const unsigned = new MediaService({ blobs, signer: testApp.services.signer, findOriginal: async () => undefined });
      expect(unsigned.verifyDeliveryUrl('/delivery/1/a/b', { expires: '9999999999', signature: 'x'.repeat(43) })).toBe('invalid');
    });
  });

  describe('not found', () => {
    it('answers a validly signed URL for an unknown asset with 404 ImageNotFound or VideoNotFound', async () => {
      const image = await app.inject({
        method: 'GET',
        url: requestTarget(media.deliveryUri({ downloadId: 1, assetId: 'no-such', assetType: 'image', height: 10, width: 10, sizeName: 'small' })),
      });
      expect(image.statusCode).toBe(404);
      expect(image.json()).toMatchObject({ code: 'ImageNotFound' });
      const video = await app.inject({ method: 'GET', url: requestTarget(videoUri('no-such')) });
      expect(video.statusCode).toBe(404);
      expect(video.json()).toMatchObject({ code: 'VideoNotFound' });
    });

    it('answers 404 when the original is missing from the blob store', async () => {
      await testApp.services.catalog.upsertAsset({
        asset_type: 'video',
        id: 'lost-clip',
        fields: { title: 'Lost' },
        original: { key: 'originals/lost.mp4', media_type: 'video/mp4', width: 1920, height: 1080, dpi: 72, bytes: 10 },
      });
      const response = await app.inject({ method: 'GET', url: requestTarget(videoUri('lost-clip')) });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'VideoNotFound' });
    });
  });

  it('appears in the OpenAPI document under the media tag, without API-key security', () => {
    const document = app.swagger() as { paths: Record<string, Record<string, { tags?: string[]; security?: unknown[] }>> };
    const operation = document.paths['/delivery/{downloadId}/{assetId}/{fileName}']?.get;
    expect(operation?.tags).toEqual(['media']);
    expect(operation?.security).toEqual([]);
  });
});

describe('parseByteRange', () => {
  it.each([
    [undefined, 100, undefined],
    ['bytes=0-0', 100, { start: 0, end: 0 }],
    ['bytes=10-19', 100, { start: 10, end: 19 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=90-500', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-500', 100, { start: 0, end: 99 }],
    ['BYTES = 1 - 2', 100, { start: 1, end: 2 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=-5', 0, 'unsatisfiable'],
    ['bytes=5-1', 100, undefined],
    ['bytes=-', 100, undefined],
    ['bytes=0-1,5-6', 100, undefined],
    ['bytes=a-b', 100, undefined],
    ['pages=1-2', 100, undefined],
  ] as const)('%s of %i bytes → %j', (header, size, expected) => {
    expect(parseByteRange(header, size)).toEqual(expected);
  });
});

describe('sniffMediaType', () => {
  it('knows images and movies by their first bytes', () => {
    expect(sniffMediaType(Buffer.from('ffd8ffe000104a464946', 'hex')).contentType).toBe('image/jpeg');
    expect(sniffMediaType(Buffer.from('89504e470d0a1a0a0000', 'hex')).contentType).toBe('image/png');
    expect(sniffMediaType(Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1')).contentType).toBe('image/webp');
    expect(sniffMediaType(Buffer.from('\0\0\0\x18ftypisom', 'latin1'))).toEqual({ contentType: 'video/mp4', extension: 'mp4' });
    expect(sniffMediaType(Buffer.from('\0\0\0\x14ftypqt  ', 'latin1'))).toEqual({ contentType: 'video/quicktime', extension: 'mov' });
    expect(sniffMediaType(Buffer.from('1a45dfa3', 'hex')).contentType).toBe('video/webm');
    expect(sniffMediaType(Buffer.from('hello'))).toEqual({ contentType: 'application/octet-stream', extension: 'bin' });
  });
});
