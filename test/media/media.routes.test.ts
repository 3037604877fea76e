import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mediaRoutes } from '../../src/media/media.routes.js';
import { MediaService } from '../../src/media/media.service.js';
import { UrlSigner } from '../../src/media/url-signer.js';
import { ApiError } from '../../src/platform/http/errors.js';
import { makeJpeg, temporaryBlobStore } from './media-fixtures.js';

const ASSET = { id: 'harbour-7', width: 1200, height: 800, hasOriginal: true };
const TTL_SECONDS = 7200;
/** 2024-03-10T08:00:00Z: the start of an hour, so a URL signed now expires in TTL + 1 hour. */
const SIGNED_AT_MS = Date.UTC(2024, 2, 10, 8, 0, 0);

/** The path and query of a signed URI, as a browser would request it from our host. */
function requestTarget(uri: string): string {
  const url = new URL(uri);
  return `${url.pathname}${url.search}`;
}

describe('GET /display/:assetId/:file', () => {
  let app: FastifyInstance;
  let media: MediaService;
  let clock: { nowMs: number };
  let cleanUp: () => void;

  beforeEach(async () => {
    const store = temporaryBlobStore();
    cleanUp = store.cleanUp;
    await store.blobs.put('originals/harbour.jpg', await makeJpeg(ASSET.width, ASSET.height));
    clock = { nowMs: SIGNED_AT_MS };
    const signer = new UrlSigner('route-secret', 'https://stock.example.test', TTL_SECONDS, () => clock.nowMs);
    media = new MediaService({
      blobs: store.blobs,
      signer,
      findOriginal: async (assetId) => (assetId === ASSET.id ? { originalKey: 'originals/harbour.jpg' } : undefined),
    });
    app = Fastify();
    // The lead's handler does the same: an ApiError becomes { message, code } with its status.
    app.setErrorHandler((error, _request, reply) => {
      if (error instanceof ApiError) return reply.code(error.statusCode).send({ message: error.message, code: error.code });
      return reply.send(error);
    });
    await app.register(swagger, { openapi: { info: { title: 'test', version: '3' } } });
    await app.register(mediaRoutes, { media, signer });
    await app.ready();
  });

  afterEach(async () => {
    await app.close();
    cleanUp();
  });

  function signedUri(name: string): { uri: string; width: number; height: number } {
    const [size] = media.displaySizes(ASSET, [name]);
    if (!size) throw new Error(`no display size ${name}`);
    return size;
  }

  it('a valid signed URL gives the image, with no headers at all', async () => {
    const comp = signedUri('comp');
    const response = await app.inject({ method: 'GET', url: requestTarget(comp.uri) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/jpeg');
    const metadata = await sharp(response.rawPayload).metadata();
    expect([metadata.format, metadata.width, metadata.height]).toEqual(['jpeg', comp.width, comp.height]);
  });

  it('serves WebP renditions as image/webp', async () => {
    const response = await app.inject({ method: 'GET', url: requestTarget(signedUri('mid_res_comp_webp').uri) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/webp');
  });

  it('may be cached publicly until the URL expires, capped at a day, with an ETag', async () => {
    const url = requestTarget(signedUri('thumb').uri);
    // Signed at the top of the hour: valid for TTL + 1 hour; 15 minutes later that much less remains.
    clock.nowMs = SIGNED_AT_MS + 15 * 60 * 1000;
    const response = await app.inject({ method: 'GET', url });
    expect(response.headers['cache-control']).toBe(`public, max-age=${TTL_SECONDS + 3600 - 15 * 60}`);
    expect(response.headers.etag).toMatch(/^"[\w-]+"$/);

    const longLived = new UrlSigner('route-secret', 'https://stock.example.test', 30 * 86_400, () => clock.nowMs);
    const farUrl = requestTarget(longLived.sign(`/display/${ASSET.id}/thumb.jpg`));
    const far = await app.inject({ method: 'GET', url: farUrl });
    expect(far.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('answers 304 when If-None-Match holds the ETag', async () => {
    const url = requestTarget(signedUri('thumb').uri);
    const first = await app.inject({ method: 'GET', url });
    const etag = String(first.headers.etag);
    const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': `W/"other", ${etag}` } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });

  it('a tampered signature is refused with 403 InvalidSignature', async () => {
    const url = new URL(signedUri('comp').uri);
    const signature = url.searchParams.get('signature') ?? '';
    url.searchParams.set('signature', `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`);
    const response = await app.inject({ method: 'GET', url: requestTarget(url.href) });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ message: 'Invalid or tampered display URL', code: 'InvalidSignature' });
  });

  it('a signature moved to another file or asset is refused with 403', async () => {
    const { search } = new URL(signedUri('comp').uri);
    for (const path of [`/display/${ASSET.id}/high_res_comp.jpg`, `/display/other-asset/comp.jpg`]) {
      const response = await app.inject({ method: 'GET', url: `${path}${search}` });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'InvalidSignature' });
    }
  });

  it('a URL without signature or expiry is refused with 403', async () => {
    for (const url of [`/display/${ASSET.id}/comp.jpg`, `/display/${ASSET.id}/comp.jpg?expires=9999999999`]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'InvalidSignature' });
    }
  });

  it('an expired URL is refused with 403 DisplayUrlExpired', async () => {
    const url = requestTarget(signedUri('comp').uri);
    clock.nowMs = SIGNED_AT_MS + (TTL_SECONDS + 3600) * 1000;
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ message: 'Display URL expired', code: 'DisplayUrlExpired' });
  });

  it('a validly signed URL for an unknown asset or file is 404 ImageNotFound', async () => {
    const signer = new UrlSigner('route-secret', 'https://stock.example.test', TTL_SECONDS, () => clock.nowMs);
    for (const path of ['/display/no-such-image/comp.jpg', `/display/${ASSET.id}/poster.png`]) {
      const response = await app.inject({ method: 'GET', url: requestTarget(signer.sign(path)) });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'ImageNotFound' });
    }
  });

  it('appears in the OpenAPI document under the media tag, without API-key security', () => {
    const document = app.swagger() as { paths: Record<string, Record<string, { tags?: string[]; security?: unknown[] }>> };
    const operation = document.paths['/display/{assetId}/{file}']?.get;
    expect(operation?.tags).toEqual(['media']);
    expect(operation?.security).toEqual([]);
  });
});
