import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance } from 'fastify';
import { READING, type TypeBoxTypeProvider } from '../../platform/http/parameters.js';
import { ErrorBody } from '../../platform/http/schema-types.js';
import { FILE_NAME, MAX_UPLOAD_BYTES, UPLOAD_MEDIA_TYPES, fileTooLarge, unsupportedContentType, type UploadsService } from './uploads.service.js';

/** The contract's {file-name}: its name in messages, as the route cannot spell it. */
const UploadParams = Type.Object({
  fileName: Type.String({
    pattern: FILE_NAME.source,
    description: 'The file-name: 1–200 letters, digits, dots, underscores or hyphens, not starting with a dot',
    [READING]: { name: 'file-name', expected: 'a file name: 1 to 200 characters among letters, digits, dot, underscore and hyphen, not starting with a dot' },
  }),
});

const UploadReceipt = Type.Object({
  url: Type.String({ description: 'Pass this URL as image_url to a by-image search (same user, or the same API key without a token)' }),
  expires: Type.String({ format: 'date-time', description: 'When the upload stops being usable: 24 h after it arrived' }),
});

// No type or format on purpose: the validator would check them against the parsed Buffer.
// The schema is there so that the API description lists the body's media types.
const rawFile = { schema: { description: 'The raw bytes of the file (binary)' } };

/** `PUT /search/by-image/uploads/:fileName`: a JPEG or PNG stored for search by image. */
export async function uploadsRoutes(fastify: FastifyInstance, options: { uploads: UploadsService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { uploads } = options;

  // This plugin's routes take raw image bytes and nothing else (not the inherited JSON and
  // text parsers): any other Content-Type fails before the handler, mapped below.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser([...UPLOAD_MEDIA_TYPES], { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_request, body, done) => {
    done(null, body);
  });

  // The framework's 413 and 415 become the contract's 400 InvalidParameterValue (the
  // upload's only listed client error); everything else goes on to the app's error handler.
  app.setErrorHandler((error: FastifyError, request) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') throw fileTooLarge();
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') throw unsupportedContentType(request.headers['content-type']);
    throw error;
  });

  app.put(
    '/search/by-image/uploads/:fileName',
    {
      bodyLimit: MAX_UPLOAD_BYTES,
      schema: {
        tags: ['search'],
        summary: 'Upload a JPEG or PNG for search by image',
        description:
          'Stores the file under the name given, for whoever sends it: the user whose token comes with the request, or the API key alone without one. ' +
          'A second upload of the same sender to the same name replaces the first; nobody else can read, use or replace it. ' +
          'At most 10 MB; the file expires 24 h after upload. Pass the returned url as image_url to a by-image search (or as a mask or registration url) sent the same way. ' +
          '429 UploadQuotaExceeded past the files or bytes a key or a user may keep; 503 ImageDecodersBusy when the server decodes as many pictures as it may.',
        params: UploadParams,
        body: { content: { 'image/jpeg': rawFile, 'image/png': rawFile } },
        response: { 200: UploadReceipt, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
    },
    async (request) =>
      uploads.upload({ clientId: request.apiClient.id, userId: (await request.optionalBearer())?.userId ?? null }, request.params.fileName, {
        contentType: request.headers['content-type'],
        bytes: Buffer.isBuffer(request.body) ? request.body : undefined,
      }),
  );
}
