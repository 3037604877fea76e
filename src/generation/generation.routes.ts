import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { invalidSignature } from '../media/media.errors.js';
import { previewNotFound, previewUrlExpired } from './generation.errors.js';
import { ErrorBody } from '../platform/http/schema-types.js';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import type { UrlSigner } from '../media/url-signer.js';
import type { GenerationAnswer, GenerationService } from './generation.service.js';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import type { FileRegistrations, RegistrationBody } from './file-registrations.js';
import type { GenerationRepository } from './generation.repository.js';
import type { DownloadAnswer, DownloadBody, GenerationDownloads, RedownloadBody } from './generation-downloads.js';
import {
  BackgroundGenerationRequest,
  BackgroundRemovalRequest,
  STRICT_BODIES,
  DownloadResponse,
  DownloadSizesResponse,
  ExtendRequest,
  FileRegistrationResponse,
  GenerationHistoryItem,
  GenerationHistoryResponse,
  GetFileRegistrationResponse,
  HistoryQuery,
  ImageGenerationsRequest,
  ImageVariationRequest,
  InfluenceColorByImageRequest,
  InfluenceCompositionByImageRequest,
  RefineRequest,
  RegistrationParams,
  RemoveObjectRequest,
  RequestIdParams,
  ResultParams,
  errors,
  generationAnswers,
} from './generation.schemas.js';

export interface GenerationRoutesOptions {
  generation: GenerationService;
  registrations: FileRegistrations;
  downloads: GenerationDownloads;
}

const security = [{ ApiKey: [], Bearer: [] }];
const tags = ['ai generation'];
const ANSWERS = 'Answers 200 with the results when they are ready within a short wait, else 202 with the generation_request_id to poll.';

/** The contract takes the bodies as application/json, text/json and application/*+json alike. */
function acceptJsonVariants(app: FastifyInstance): void {
  const parser = app.getDefaultJsonParser('error', 'ignore');
  app.addContentTypeParser('text/json', { parseAs: 'string' }, parser);
  app.addContentTypeParser(/^application\/[\w.-]+\+json$/i, { parseAs: 'string' }, parser);
}

function reply(answer: GenerationAnswer, response: FastifyReply) {
  return response.code(answer.status).send(answer.body);
}

function replyDownload(answer: DownloadAnswer, response: FastifyReply) {
  return answer.status === 202 ? response.code(202).send() : response.code(200).send(answer.body);
}

const downloadAnswers = {
  200: DownloadResponse,
  202: { description: 'The file is being prepared (no body): poll GET …/download', type: 'null' },
  ...errors,
  404: {
    ...ErrorBody,
    description:
      'GenerationRequestIdNotFound or GenerationResultNotFound (no such request, or no result at that index), DownloadNotFound (GET before any PUT …/download), ' +
      'GeneratedAssetNotFound (a redownload of what this user never downloaded), or GeneratedFileNotFound: the result’s picture is no longer in the blob store',
  },
  409: ErrorBody,
  410: ErrorBody,
  502: { ...ErrorBody, description: 'DownloadPreparationFailed: the file could not be made; ask again to retry' },
} as const;

interface PostOperation<Body extends TSchema> {
  url: string;
  body: Body;
  summary: string;
  description: string;
}

/** The generative operations of §3.22, by the GenerationType each makes; each body validates with the schema it documents. */
const OPERATIONS = {
  text_to_image: { url: '/ai/image-generations', body: ImageGenerationsRequest, summary: 'Generate images from a text prompt', description: 'Needs a model server (STOCKROOM_GENERATION_SERVER); otherwise 503.' },
  refine: { url: '/ai/image-generations/refine', body: RefineRequest, summary: 'Regenerate the white area of a mask per the prompt', description: 'Exactly one reference; the mask is an upload of the user’s own (sent with the same key and the user’s token).' },
  extend: { url: '/ai/image-generations/extend', body: ExtendRequest, summary: 'Add content beyond the borders', description: 'Exactly one reference; at least one percentage above 0.' },
  background_removal: { url: '/ai/image-generations/background-removal', body: BackgroundRemovalRequest, summary: 'Remove the background', description: 'Exactly one reference: a licensed creative image or an earlier result.' },
  object_removal: { url: '/ai/image-generations/object-removal', body: RemoveObjectRequest, summary: 'Remove what the mask covers', description: 'Exactly one reference; mask_url required.' },
  influence_color_by_image: { url: '/ai/image-generations/influence-color-by-image', body: InfluenceColorByImageRequest, summary: 'New images with the colours of a reference', description: 'Exactly one reference (asset, generation or registered ImageReference file); prompt and noise_level required.' },
  influence_composition_by_image: { url: '/ai/image-generations/influence-composition-by-image', body: InfluenceCompositionByImageRequest, summary: 'New images with the composition of a reference', description: 'Exactly one reference; prompt and influence_level required.' },
  /** Beta only (§3.23). */
  background_generation: { url: '/ai/image-generations/background-generations', body: BackgroundGenerationRequest, summary: 'Generate a background around a product shot', description: 'A registered file of category CustomerProduct; the paddings place it on the canvas.' },
} as const;

function operationSchema<Body extends TSchema>(operation: PostOperation<Body>) {
  return { schema: { tags, summary: operation.summary, description: `${operation.description} ${ANSWERS}`, security, body: operation.body, response: generationAnswers } };
}

/** Who asks: the user's token (required) and the API key's client. */
async function callerOf(request: FastifyRequest) {
  return { grant: await request.requireBearer(), clientId: request.apiClient.id };
}

// Each handler is written out, so that the body its route validated goes to the service with the GenerationType it belongs to, typed.
function registerOperations(fastify: FastifyInstance, generation: GenerationService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { text_to_image, refine, extend, background_removal, object_removal, influence_color_by_image, influence_composition_by_image } = OPERATIONS;
  app.post(text_to_image.url, operationSchema(text_to_image), async (request, response) =>
    reply(await generation.generate({ ...(await callerOf(request)), type: 'text_to_image', body: request.body }), response),
  );
  app.post(refine.url, operationSchema(refine), async (request, response) =>
    reply(await generation.generate({ ...(await callerOf(request)), type: 'refine', body: request.body }), response),
  );
  app.post(extend.url, operationSchema(extend), async (request, response) =>
    reply(await generation.generate({ ...(await callerOf(request)), type: 'extend', body: request.body }), response),
  );
  app.post(background_removal.url, operationSchema(background_removal), async (request, response) =>
    reply(await generation.generate({ ...(await callerOf(request)), type: 'background_removal', body: request.body }), response),
  );
  app.post(object_removal.url, operationSchema(object_removal), async (request, response) =>
    reply(await generation.generate({ ...(await callerOf(request)), type: 'object_removal', body: request.body }), response),
  );
  app.post(influence_color_by_image.url, operationSchema(influence_color_by_image), async (request, response) =>
    reply(await generation.generate({ ...(await callerOf(request)), type: 'influence_color_by_image', body: request.body }), response),
  );
  app.post(influence_composition_by_image.url, operationSchema(influence_composition_by_image), async (request, response) =>
    reply(await generation.generate({ ...(await callerOf(request)), type: 'influence_composition_by_image', body: request.body }), response),
  );
}

function registerBetaOnlyOperations(fastify: FastifyInstance, generation: GenerationService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { background_generation } = OPERATIONS;
  app.post(background_generation.url, operationSchema(background_generation), async (request, response) =>
    reply(await generation.generate({ ...(await callerOf(request)), type: 'background_generation', body: request.body }), response),
  );
}

/** §3.22 under /v3. */
export async function generationRoutes(app: FastifyInstance, options: GenerationRoutesOptions): Promise<void> {
  const { generation, downloads } = options;
  acceptJsonVariants(app);
  registerOperations(app, generation);

  app.get<{ Params: Static<typeof RequestIdParams> }>(
    '/ai/image-generations/:generationRequestId',
    {
      schema: {
        tags,
        summary: 'Poll a generation request',
        description: '200 with the results when done, 202 while pending; 410 once its results are no longer kept; 502 GenerationFailed says why a failed one failed.',
        security,
        params: RequestIdParams,
        response: generationAnswers,
      },
    },
    async (request, response) => reply(await generation.poll(await request.requireBearer(), request.params.generationRequestId), response),
  );

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/ai/image-generations/:generationRequestId/images/:index/variations',
    {
      schema: { tags, summary: 'Variations of an earlier result', description: ANSWERS, security, params: ResultParams, body: ImageVariationRequest, response: generationAnswers },
    },
    async (request, response) =>
      reply(
        await generation.generate({
          ...(await callerOf(request)),
          type: 'variation',
          body: request.body,
          variationOf: { requestId: request.params.generationRequestId, index: request.params.index },
        }),
        response,
      ),
  );

  app.get<{ Params: Static<typeof ResultParams> }>(
    '/ai/image-generations/:generationRequestId/images/:index/download-sizes',
    {
      schema: {
        tags,
        summary: 'The sizes a result downloads at',
        description: '1k and 4k: the longest side 1024 and 4096 pixels, the aspect kept. 404 while the generation is pending, or for an index it has no result at.',
        security,
        params: ResultParams,
        response: { 200: DownloadSizesResponse, ...errors, 410: ErrorBody },
      },
    },
    async (request) => downloads.sizes(await request.requireBearer(), request.params.generationRequestId, request.params.index),
  );

  app.put<{ Params: Static<typeof ResultParams> }>(
    '/ai/image-generations/:generationRequestId/images/:index/download',
    {
      schema: {
        tags,
        summary: 'Download a result at a size',
        description:
          'Uses the generation’s AI product (its notes and project-code rules apply). The result of an edit of a catalogue image needs a product with ' +
          'download access to the original and a download of it first (403 OriginalNotLicensed). 200 with the URL when the file is ready within a ' +
          'short wait, else 202 (it is being prepared: an upscale runs as a job) and GET …/download; 409 DownloadInProgress while one is prepared for the same result.',
        security,
        params: ResultParams,
        body: STRICT_BODIES.ImageDownloadRequest,
        response: downloadAnswers,
      },
    },
    async (request, response) =>
      replyDownload(
        await downloads.download(await request.requireBearer(), request.apiClient.id, request.params.generationRequestId, request.params.index, (request.body ?? {}) as DownloadBody),
        response,
      ),
  );

  app.get<{ Params: Static<typeof ResultParams> }>(
    '/ai/image-generations/:generationRequestId/images/:index/download',
    {
      schema: {
        tags,
        summary: 'The state of the latest download of a result',
        description: '200 with the URL when its file is ready, 202 while it is prepared; 404 DownloadNotFound before any PUT …/download.',
        security,
        params: ResultParams,
        response: downloadAnswers,
      },
    },
    async (request, response) => replyDownload(await downloads.status(await request.requireBearer(), request.params.generationRequestId, request.params.index), response),
  );

  app.post(
    '/ai/redownloads',
    {
      schema: {
        tags,
        summary: 'Download a generated image again',
        description: 'A generated_asset_id of an earlier download of the user (GET /v3/downloads), under the AI product named. Answers as PUT …/download does.',
        security,
        body: STRICT_BODIES.ReDownloadRequest,
        response: downloadAnswers,
      },
    },
    async (request, response) => replyDownload(await downloads.redownload(await request.requireBearer(), request.apiClient.id, (request.body ?? {}) as RedownloadBody), response),
  );

  app.get<{ Querystring: Static<typeof HistoryQuery> }>(
    '/ai/generation-history',
    {
      schema: {
        tags,
        summary: 'The history of generation requests',
        description: 'Newest first; with company_generations, those of every user of the team.',
        security,
        querystring: HistoryQuery,
        response: { 200: GenerationHistoryResponse, ...errors },
      },
    },
    async (request) => {
      const query = request.query;
      return generation.history(await request.requireBearer(), {
        dateStart: query.date_start,
        dateEnd: query.date_end,
        mediaType: query.media_type,
        page: query.page,
        pageSize: query.page_size,
        productIds: query.product_ids,
        companyGenerations: query.company_generations,
      });
    },
  );

  app.get<{ Params: Static<typeof RequestIdParams> }>(
    '/ai/generation-history/:generationRequestId',
    {
      schema: { tags, summary: 'One generation request of the history', security, params: RequestIdParams, response: { 200: GenerationHistoryItem, ...errors } },
    },
    async (request) => generation.historyItem(await request.requireBearer(), request.params.generationRequestId),
  );
}

/**
 * §3.23 under /beta, and every §3.22 operation there too, served by the same handlers: the spec
 * says the beta versions of the operations that moved to v3 remain supported during the move
 * (text to image among them), and a request made under /beta is polled, varied and downloaded
 * under /beta.
 */
export async function betaGenerationRoutes(app: FastifyInstance, options: GenerationRoutesOptions): Promise<void> {
  const { generation, registrations } = options;
  await generationRoutes(app, options);
  registerBetaOnlyOperations(app, generation);

  app.post(
    '/ai/file-registrations',
    {
      schema: {
        tags,
        summary: 'Register an uploaded file as a reference',
        description: 'The url of an upload of the user’s own (sent with the same key and the user’s token); rights_claimed must be true. Kept STOCKROOM_REGISTRATION_RETENTION_DAYS; 429 RegistrationQuotaExceeded past the quotas of the key or the user.',
        security,
        body: STRICT_BODIES.FileRegistrationRequest,
        response: { 200: FileRegistrationResponse, ...errors, 429: ErrorBody, 503: { ...ErrorBody, description: 'ImageDecodersBusy: the server decodes as many pictures as it may; retry after Retry-After' } },
      },
    },
    async (request) => registrations.register(await request.requireBearer(), request.apiClient.id, (request.body ?? {}) as RegistrationBody),
  );

  app.get<{ Params: Static<typeof RegistrationParams> }>(
    '/ai/file-registrations/:fileRegistrationId',
    {
      schema: { tags, summary: 'A registered file', security, params: RegistrationParams, response: { 200: GetFileRegistrationResponse, ...errors, 429: ErrorBody } },
    },
    async (request) => registrations.describe(await request.requireBearer(), request.params.fileRegistrationId),
  );
}

const PreviewParams = Type.Object({ owner: Type.String({ maxLength: 100 }), file: Type.String({ maxLength: 100 }) });
const PreviewQuery = Type.Object({ expires: Type.Optional(Type.String({ maxLength: 20 })), signature: Type.Optional(Type.String({ maxLength: 100 })) });
const binaryImage = { schema: { type: 'string', format: 'binary' } };

/** The watermarked previews behind preview_urls: signed URLs, no key (an <img src> sends none). */
export async function generationPreviewRoutes(
  app: FastifyInstance,
  options: { signer: UrlSigner; blobs: BlobStore; repository: GenerationRepository; registrations: FileRegistrations },
): Promise<void> {
  const { signer, blobs, repository, registrations } = options;
  app.get<{ Params: Static<typeof PreviewParams>; Querystring: Static<typeof PreviewQuery> }>(
    '/generated/:owner/:file',
    {
      schema: {
        tags: ['media'],
        summary: 'A watermarked preview of a generated image or registered file, from a signed preview_urls URL',
        security: [],
        params: PreviewParams,
        querystring: PreviewQuery,
        response: {
          200: { description: 'The preview', content: { 'image/jpeg': binaryImage } },
          400: { ...ErrorBody, description: 'A path segment or query value longer than any signed URL has' },
          403: { ...ErrorBody, description: 'Signature invalid, missing or expired' },
          404: { ...ErrorBody, description: 'No such preview' },
        },
      },
    },
    async (request, response) => {
      const { owner, file } = request.params;
      const path = `/generated/${owner}/${file}`;
      const verdict = signer.verify(path, request.query);
      if (verdict === 'invalid') throw invalidSignature('preview');
      if (verdict === 'expired') throw previewUrlExpired();
      const match = /^(\d{1,9}|fr_[0-9a-f]{32})\.jpg$/.exec(file);
      let key: string | null | undefined;
      if (owner === 'registrations' && match?.[1]?.startsWith('fr_')) key = await registrations.previewKey(match[1]);
      else if (match && /^\d+$/.test(match[1]!)) {
        const request = await repository.find(owner);
        if (request && Date.parse(request.expires_at) > Date.now()) key = (await repository.result(owner, Number(match[1])))?.preview_key;
      }
      const data = key ? await blobs.get(key) : undefined;
      if (!data) throw previewNotFound();
      return response.header('cache-control', 'private, max-age=3600').header('x-content-type-options', 'nosniff').type('image/jpeg').send(data);
    },
  );
}
