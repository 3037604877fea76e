import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '../platform/http/parameters.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redirect } from '../platform/http/openapi.js';
import { malformedRequest } from '../platform/http/errors.js';
import type { DownloadsService } from './downloads.service.js';
import {
  AssetDownloadHistory,
  AssetHistoryQuery,
  AssetIdParams,
  DownloadBody,
  DownloadsResult,
  DownloadUri,
  errors,
  HistoryQuery,
  orderNotesOf,
  ImageDownloadQuery,
  PreviousAssetPurchases,
  PreviousPurchases,
  PurchasesQuery,
  VideoDownloadQuery,
} from './licensing.schemas.js';
import type { AssetKind } from './licensing-policy.js';

export interface DownloadsRoutesOptions {
  downloads: DownloadsService;
}

/** What a download route reads, as its schemas type it: images and videos differ in a few query fields. */
interface DownloadInput {
  params: Static<typeof AssetIdParams>;
  query: Partial<Static<typeof ImageDownloadQuery> & Static<typeof VideoDownloadQuery>>;
  body?: Static<typeof DownloadBody> | null;
}

/**
 * The redirect of auto_download=true. Images: 303 (the contract). Videos: 307, as the spec says
 * (2022-03-29: "video download URLs answer 307"); the contract's 303 loses to the spec.
 */
const REDIRECT_STATUS: Readonly<Record<AssetKind, 303 | 307>> = { image: 303, video: 307 };
/** auto_download without a value: true for images, false for videos (the contract's defaults). */
const AUTO_DOWNLOAD_DEFAULT: Readonly<Record<AssetKind, boolean>> = { image: true, video: false };

const security = [{ ApiKey: [], Bearer: [] }];

/**
 * The download endpoints (POST /downloads/images/{id}, its two earlier forms, POST
 * /downloads/videos/{id}), the history (GET /downloads, the assets' downloadhistory) and the
 * purchases (GET /purchased-images, /purchased-assets).
 */
export async function downloadsRoutes(app: FastifyInstance, options: DownloadsRoutesOptions): Promise<void> {
  // Every route here needs a token: its 401 comes before any complaint about the query or body.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'OPTIONS') await request.requireBearer();
  });

  // A real client posts an empty body with a JSON content type, another the literal null: both mean "no body".
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, null);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(malformedRequest('The request body is not valid JSON'), undefined);
    }
  });

  await app.register(downloadRoutes, options);
  await app.register(downloadHistoryRoutes, options);
  await app.register(purchaseRoutes, options);
}

/** Downloading an image (in its three forms) or a video: the product chosen, its payment taken, the file’s signed URL. */
async function downloadRoutes(fastify: FastifyInstance, { downloads }: DownloadsRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  async function download(request: FastifyRequest & DownloadInput, reply: FastifyReply, assetType: AssetKind) {
    const { id } = request.params;
    const { query } = request;
    const body = request.body ?? null;
    const header = request.headers['idempotency-key'];
    const grant = await request.requireBearer();
    const result = await downloads.download({
      grant,
      assetType,
      assetId: id,
      productType: query.product_type,
      productId: query.product_id,
      height: query.height,
      size: query.size,
      fileType: query.file_type,
      useTeamCredits: query.use_team_credits ?? false,
      downloadNotes: body?.download_notes,
      projectCode: body?.project_code,
      order: body === null ? undefined : orderNotesOf(body),
      idempotencyKey: Array.isArray(header) ? header[0] : header,
    });
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    if (query.auto_download ?? AUTO_DOWNLOAD_DEFAULT[assetType]) {
      return reply.redirect(result.uri, REDIRECT_STATUS[assetType]);
    }
    return { uri: result.uri };
  }

  const imageDownload = {
    schema: {
      tags: ['downloads'],
      summary: 'Download an image',
      description:
        'Needs a token of a signed-in user issued in the last 30 days. Chooses a product (product_id, product_type, ' +
        'or the first that licenses the image and can pay), takes its payment and answers with the signed URL of the ' +
        'file: 303 to it (auto_download=true, the default) or 200 `{"uri"}`. Downloading an image already licensed ' +
        'under the same product again is free. An `Idempotency-Key` header makes a retry answer the same without paying twice. ' +
        'An image in the catalogue without a file (or without download sizes) answers 409 AssetFileNotAvailable ' +
        '(NoDownloadableSize) before any payment.',
      security,
      params: AssetIdParams,
      querystring: ImageDownloadQuery,
      body: DownloadBody,
      response: {
        200: DownloadUri,
        303: Redirect('See Other: Location is the file'),
        409: errors[400],
        422: errors[400],
        ...errors,
      },
    },
  };
  app.post('/downloads/images/:id', imageDownload, (request, reply) => download(request, reply, 'image'));
  app.post('/downloads/images/:id/post', { schema: { ...imageDownload.schema, summary: 'Download an image (alternative form)' } }, (request, reply) =>
    download(request, reply, 'image'),
  );
  app.post('/downloads/:id', { schema: { ...imageDownload.schema, summary: 'Download an image (earlier form)' } }, (request, reply) =>
    download(request, reply, 'image'),
  );

  app.post(
    '/downloads/videos/:id',
    {
      schema: {
        tags: ['downloads'],
        summary: 'Download a video',
        description:
          'As for images, with `size` naming the download size. auto_download=true answers 307 to the file (the spec; ' +
          'the contract says 303), false (the default) 200 `{"uri"}`.',
        security,
        params: AssetIdParams,
        querystring: VideoDownloadQuery,
        body: DownloadBody,
        response: {
          200: DownloadUri,
          307: Redirect('Temporary Redirect: Location is the file'),
          409: errors[400],
          422: errors[400],
          ...errors,
        },
      },
    },
    (request, reply) => download(request, reply, 'video'),
  );
}

/** The history: the customer’s (or the team’s) earlier downloads, and those of one asset. */
async function downloadHistoryRoutes(fastify: FastifyInstance, { downloads }: DownloadsRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/downloads',
    {
      schema: {
        tags: ['downloads'],
        summary: 'Earlier downloads of the customer (or of the team)',
        security,
        querystring: HistoryQuery,
        response: { 200: DownloadsResult, ...errors },
      },
    },
    async (request) => {
      const { query } = request;
      return downloads.history(await request.requireBearer(), {
        dateFrom: query.date_from,
        dateTo: query.date_to,
        useTime: query.use_time ?? false,
        page: query.page,
        pageSize: query.page_size ?? query.pageSize,
        productType: query.product_type,
        companyDownloads: query.company_downloads ?? false,
      });
    },
  );

  for (const assetType of ['image', 'video'] as const) {
    app.get(
      `/${assetType}s/:id/downloadhistory`,
      {
        schema: {
          tags: ['downloads'],
          summary: `Earlier downloads of one ${assetType}`,
          security,
          params: AssetIdParams,
          querystring: AssetHistoryQuery,
          response: { 200: AssetDownloadHistory, ...errors },
        },
      },
      async (request) => {
        const grant = await request.requireBearer();
        return downloads.assetHistory(grant, assetType, request.params.id, request.query.company_downloads ?? false);
      },
    );
  }
}

/** The purchases: the images, or the images and videos, the customer licensed by downloading them. */
async function purchaseRoutes(fastify: FastifyInstance, { downloads }: DownloadsRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const purchases = (assetType: AssetKind | undefined) => async (request: FastifyRequest<{ Querystring: Static<typeof PurchasesQuery> }>) => {
    const { query } = request;
    return downloads.purchases(await request.requireBearer(), assetType, {
      dateFrom: query.date_from,
      dateTo: query.date_to,
      page: query.page,
      pageSize: query.page_size,
      companyPurchases: query.company_purchases ?? false,
    });
  };
  const purchasesDescription = 'A purchase is a download that licensed its asset; downloading it again is free and buys nothing.';
  app.get(
    '/purchased-images',
    {
      schema: {
        tags: ['downloads'],
        summary: 'Images the customer has purchased',
        description: purchasesDescription,
        security,
        querystring: PurchasesQuery,
        response: { 200: PreviousPurchases, ...errors },
      },
    },
    purchases('image'),
  );
  app.get(
    '/purchased-assets',
    {
      schema: {
        tags: ['downloads'],
        summary: 'Images and videos the customer has purchased',
        description: purchasesDescription,
        security,
        querystring: PurchasesQuery,
        response: { 200: PreviousAssetPurchases, ...errors },
      },
    },
    purchases(undefined),
  );
}
