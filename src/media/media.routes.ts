import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assetFileNotFound } from '../catalog/catalog.errors.js';
import { deliveryPath, ifRangeAllows, parseByteRange, parseDeliveryFileName } from './delivery.js';
import type { DeliveredFile } from './delivery.js';
import { displayPath, VIDEO_PREVIEW_FILE, type MediaService } from './media.service.js';
import type { UrlSigner } from './url-signer.js';
import { displayUrlExpired, downloadUrlExpired, invalidSignature, rangeNotSatisfiable, videoBeingPrepared, videoTranscodeFailed } from './media.errors.js';
import { VideoPreparingError, VideoTranscodeFailedError } from './video/video-media.js';

export interface MediaRoutesOptions {
  media: MediaService;
  signer: UrlSigner;
}

/** Browsers and shared caches may keep a file at most a day, however long its URL lives. */
const MAX_CACHE_SECONDS = 86_400;

// Loose on purpose: a malformed id or file name must get the same 403/404 as any
// other unsigned or unknown URL, not a 400 that reveals which part was wrong.
const DisplayParams = Type.Object({
  assetId: Type.String({ maxLength: 200, description: 'Image id' }),
  file: Type.String({ maxLength: 64, description: 'Rendition file, e.g. comp.jpg or mid_res_comp.webp' }),
});

// Both optional so that a URL missing them is refused as tampered (403), not as malformed (400).
const DisplayQuery = Type.Object({
  expires: Type.Optional(Type.String({ maxLength: 20, description: 'Unix time the URL stops working' })),
  signature: Type.Optional(Type.String({ maxLength: 100, description: 'HMAC of the path and expiry' })),
});

const ErrorBody = Type.Object(
  { message: Type.String(), code: Type.String() },
  { additionalProperties: true },
);

const binaryImage = { schema: { type: 'string', format: 'binary' } };

/** A video file made on first request (the preview clip, a smaller download size) that is not ready within the wait. */
const PREPARING_RESPONSE = { ...ErrorBody, description: 'The video file is being made; ask again after Retry-After seconds' };

// Loose like the display parameters: anything malformed is simply not a signed URL (403).
const DeliveryParams = Type.Object({
  downloadId: Type.String({ maxLength: 20, description: 'Download id' }),
  assetId: Type.String({ maxLength: 200, description: 'Image or video id' }),
  fileName: Type.String({ maxLength: 255, description: 'File name; the real one is in Content-Disposition' }),
});

/** Headers a page fetching a download may read (type and length are always readable). */
const DELIVERY_EXPOSED_HEADERS = 'content-disposition, content-range, accept-ranges, etag';

/**
 * Serves display renditions at `GET /display/:assetId/:file`. No API key: these
 * URLs end up in `<img src>`, which sends no headers. The signed, expiring query
 * string is the authorization instead.
 */
/** What every signed URL may answer besides its file: not modified, a malformed URL, a bad signature. */
const SIGNED_URL_ANSWERS = {
  304: { description: 'Not modified (If-None-Match matched the ETag)', type: 'null' },
  400: { ...ErrorBody, description: 'A path segment or query value longer than any signed URL has' },
  403: { ...ErrorBody, description: 'Signature invalid, missing or expired' },
} as const;

export async function mediaRoutes(app: FastifyInstance, options: MediaRoutesOptions): Promise<void> {
  const { media, signer } = options;
  // A video download answers 307 (the spec), and a client following it repeats its POST, body
  // and all, at the delivery URL: whatever that body is, it is not read here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_request, _body, done) => done(null, undefined));

  app.get<{ Params: Static<typeof DisplayParams>; Querystring: Static<typeof DisplayQuery> }>(
    '/display/:assetId/:file',
    {
      schema: {
        tags: ['media'],
        summary: 'A display image (thumb, comp, preview, …) from a signed display_sizes URI',
        description:
          'Use the uri of a display_size exactly as returned; its format may change. No API key is needed: the URL carries its own signature and expiry.',
        // No Api-Key here, whatever the document's default security says.
        security: [],
        params: DisplayParams,
        querystring: DisplayQuery,
        response: {
          200: {
            description: 'The image, or a video\'s preview clip (video/mp4, byte ranges supported)',
            content: { 'image/jpeg': binaryImage, 'image/webp': binaryImage, 'video/mp4': binaryImage },
          },
          206: { description: 'The requested byte range of a preview clip (Content-Range)', content: { 'video/mp4': binaryImage } },
          ...SIGNED_URL_ANSWERS,
          404: { ...ErrorBody, description: 'No such image or display file' },
          416: { ...ErrorBody, description: 'The range lies past the end of the preview clip (Content-Range: bytes */size)' },
          500: { ...ErrorBody, description: 'The preview clip could not be made from the video (VideoTranscodeFailed)' },
          503: PREPARING_RESPONSE,
        },
      },
    },
    async (request, reply) => {
      const { assetId, file } = request.params;
      const { expires, signature } = request.query;
      const verdict = signer.verify(displayPath(assetId, file), { expires, signature });
      if (verdict === 'invalid') throw invalidSignature('display');
      if (verdict === 'expired') throw displayUrlExpired();

      if (file === VIDEO_PREVIEW_FILE) {
        const clip = await videoFile(() => media.displayVideo(assetId));
        if (clip === undefined) throw assetFileNotFound('video', `Video ${assetId} has no preview clip`);
        const maxAge = Math.min(signer.secondsUntilExpiry(expires ?? ''), MAX_CACHE_SECONDS);
        // Shown inline in a <video>, unlike a download.
        return sendFile(request, reply, clip, { 'cache-control': `public, max-age=${maxAge}` }, 'inline');
      }

      const image = await media.render(assetId, file);
      if (image === undefined) throw assetFileNotFound('image', `Image ${assetId} has no display file ${file}`);

      // A verified URL always has a numeric expires; a cache must not outlive it.
      const maxAge = Math.min(signer.secondsUntilExpiry(expires ?? ''), MAX_CACHE_SECONDS);
      const etag = `"${createHash('sha256').update(image.body).digest('base64url').slice(0, 27)}"`;
      void reply
        .header('cache-control', `public, max-age=${maxAge}`)
        .header('etag', etag)
        .header('x-content-type-options', 'nosniff');
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.type(image.contentType).send(image.body);
    },
  );

  app.route<{ Params: Static<typeof DeliveryParams>; Querystring: Static<typeof DisplayQuery> }>({
    // POST: where a 307 from POST /v3/downloads/videos/{id} sends the client (see above).
    method: ['GET', 'HEAD', 'POST'],
    url: '/delivery/:downloadId/:assetId/:fileName',
    schema: {
      tags: ['media'],
      summary: 'The file of a licensed download, from the uri that POST /v3/downloads/... returned',
      description:
        'Use the download uri exactly as returned; its format may change. No API key is needed: the URL carries its own ' +
        'signature and expiry (24 hours by default). File name, size and type are in the Content-Disposition, ' +
        'Content-Length and Content-Type headers. Single byte ranges are supported (Accept-Ranges: bytes).',
      security: [],
      params: DeliveryParams,
      querystring: DisplayQuery,
      response: {
        200: {
          description: 'The file',
          content: { 'image/jpeg': binaryImage, 'application/postscript': binaryImage, 'application/octet-stream': binaryImage },
        },
        206: { description: 'The requested byte range of the file (Content-Range)', content: { 'application/octet-stream': binaryImage } },
        ...SIGNED_URL_ANSWERS,
        404: {
          ...ErrorBody,
          description:
            'No such image or video, or its file is missing (ImageNotFound, VideoNotFound); GeneratedFileNotFound: the prepared file of a generated ' +
            'image is no longer stored (PUT …/download again prepares it anew)',
        },
        416: { ...ErrorBody, description: 'The range lies past the end of the file (Content-Range: bytes */size)' },
        500: { ...ErrorBody, description: 'The licensed video size could not be made from the original (VideoTranscodeFailed)' },
        503: PREPARING_RESPONSE,
      },
    },
    handler: async (request, reply) => {
      const { downloadId, assetId, fileName } = request.params;
      const { expires, signature } = request.query;
      const verdict = media.verifyDeliveryUrl(deliveryPath(downloadId, assetId, fileName), { expires, signature });
      if (verdict === 'invalid') throw invalidSignature('download');
      if (verdict === 'expired') throw downloadUrlExpired();

      const target = parseDeliveryFileName(assetId, fileName);
      const file = target === undefined ? undefined : await videoFile(() => media.deliver(assetId, target));
      if (file === undefined) {
        // Image names end in .jpg; video names hold no dot.
        const isVideo = target === undefined ? !fileName.includes('.') : target.kind === 'video';
        throw isVideo ? assetFileNotFound('video', `Video ${assetId} has no file to deliver`) : assetFileNotFound('image', `Image ${assetId} has no file to deliver`);
      }

      // A verified URL always has a numeric expires; no cache may keep the file longer, nor share it.
      return sendFile(request, reply, file, { 'cache-control': `private, max-age=${media.deliveryUrlSecondsLeft(expires ?? '')}` }, 'attachment');
    },
  });
}

/** A video file made on request: while it is being made 503 with Retry-After; when it could not be made 500 saying why. */
async function videoFile<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof VideoPreparingError) {
      throw videoBeingPrepared(error.message, error.retryAfterSeconds);
    }
    if (error instanceof VideoTranscodeFailedError) throw videoTranscodeFailed(error.message);
    throw error;
  }
}

/** Sends a file whole or one byte range of it (RFC 9110 §14), with its ETag; HEAD sends the headers only. */
async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: DeliveredFile,
  headers: Record<string, string>,
  disposition: 'attachment' | 'inline',
): Promise<FastifyReply> {
  const common = {
    'accept-ranges': 'bytes',
    ...headers,
    etag: file.etag,
    'access-control-expose-headers': DELIVERY_EXPOSED_HEADERS,
  };
  if (matchesEtag(request.headers['if-none-match'], file.etag)) return reply.code(304).headers(common).send();

  // Range applies to GET only (RFC 9110 §14.2), and only while If-Range still names this file.
  const isHead = request.method === 'HEAD';
  const range = isHead || !ifRangeAllows(request.headers['if-range'], file.etag) ? undefined : parseByteRange(request.headers.range, file.size);
  if (range === 'unsatisfiable') {
    throw rangeNotSatisfiable(file.size);
  }
  const { start, end } = range ?? { start: 0, end: file.size - 1 };
  void reply
    .headers(common)
    .header('content-disposition', `${disposition}; filename="${file.fileName}"`)
    .header('x-content-type-options', 'nosniff')
    .header('content-length', String(end - start + 1))
    .type(file.contentType);
  if (range !== undefined) void reply.code(206).header('content-range', `bytes ${start}-${end}/${file.size}`);
  // HEAD sends the headers only, without reading (or rendering more than once) the bytes.
  if (isHead) return reply.send();
  return reply.send(await file.read(start, end));
}

/** If-None-Match may list several tags, weak or strong, or `*`; a weak match is enough for GET (RFC 9110 §13.1.2). */
function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}
