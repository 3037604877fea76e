import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config/config.js';
import type { Database } from './platform/db/database.js';
import type { ChangeFeed } from './platform/db/change-log.js';
import type { BlobStore } from './platform/blobs/blob-store.js';
import type { Throttle } from './platform/throttle/throttle.js';
import { openPlatform, type Platform, type PlatformOverrides } from './platform/platform.js';
import type { StockroomModule } from './platform/module.js';
import { registerErrorHandler } from './platform/http/error-handler.js';
import { connectionOptions, registerProtocolRules } from './platform/http/protocol.js';
import { registerNumberForms } from './platform/http/number-forms.js';
import { registerWellFormedText } from './platform/http/well-formed-text.js';
import { registerStorageFullReports } from './platform/http/storage-full.js';
import { registerParameterReading } from './platform/http/parameters.js';
import { validatorsByPart } from './platform/http/validators.js';
import { redactedUrl } from './platform/http/redacted-url.js';
import { registerOpenCors } from './platform/http/cors.js';
import { registerApiAuth } from './platform/http/api-auth.js';
import { docsRedirectUri, registerDocsPage, registerOpenApi, registerOpenApiDocument } from './platform/http/openapi.js';
import { apiIndexRoutes } from './platform/http/api-index.js';
import { healthRoutes, metricsRoute, type Readiness } from './platform/http/health.js';
import type { Metrics } from './platform/metrics/metrics.js';
import type { JobRunner } from './platform/jobs/job-runner.js';
import { mediaModule, type MediaExports } from './media/media.module.js';
import { deliveryFileName, parseDeliveryFileName } from './media/delivery.js';
import { oauthModule, type OAuthExports } from './oauth/oauth.module.js';
import { catalogModule, type CatalogExports } from './catalog/catalog.module.js';
import { licensingModule, type LicensingExports } from './licensing/licensing.module.js';
import { searchModule, type SearchExports } from './search/search.module.js';
import { assetManagementModule, type AssetManagementExports } from './asset-management/asset-management.module.js';
import { boardsModule, type BoardsExports } from './boards/boards.module.js';
import { assetChangesModule, type AssetChangesExports } from './asset-changes/asset-changes.module.js';
import { reportingModule, type ReportingExports } from './reporting/reporting.module.js';
import { generationModule, type GenerationExports } from './generation/generation.module.js';
import { webModule, type WebExports } from './web/web.module.js';
import { backOfficeModule, type BackOfficeExports } from './back-office/back-office.module.js';
import { assetUploadsModule, type AssetUploadsExports, type StaffGate } from './asset-uploads/asset-uploads.module.js';
import { contentSecurityPolicy, pageHeaders } from './web/web-page-policy.js';
import { embedModule, type EmbedExports } from './embed/embed.module.js';
import type { ConfiguredEngines } from './generation/engine-router.js';
import type { DeliveryUri } from './licensing/downloads.service.js';

/**
 * Everything a running Stockroom is made of: the platform and the public services of every
 * module. Commands and tests reach the services here.
 */
export interface Services extends MediaExports, OAuthExports, CatalogExports, LicensingExports, SearchExports, AssetManagementExports, BoardsExports, ReportingExports, AssetChangesExports, GenerationExports, EmbedExports, BackOfficeExports, AssetUploadsExports {
  config: Config;
  database: Database;
  blobs: BlobStore;
  redis: Redis | undefined;
  throttle: Throttle;
  changeFeed: ChangeFeed;
  metrics: Metrics;
  readiness: Readiness;
  close(): Promise<void>;
}

export interface ServiceOverrides extends PlatformOverrides {
  /** The signed URL of a licensed file (tests); default: the media module's. */
  deliveryUri?: DeliveryUri;
  /** The generation engines to use instead of the configured ones (tests, benchmarks). */
  generationEngines?: ConfiguredEngines;
}

interface Stockroom {
  services: Services;
  /** In dependency order: each module's needs are built before it. */
  modules: readonly StockroomModule[];
  /** The jobs every module registered, run by a serving node. */
  jobs: JobRunner;
}

/**
 * Opens the platform and builds every module in dependency order (a new domain: its folder and
 * module, its line here, and its tables and migration; see docs/design.md, "Adding a domain").
 * Four needs run against the order: media reads where an original is (catalogue, generation);
 * the catalogue shows a customer's download links and partner licenses (licensing) and
 * `uri_oembed` (embed). They are ports that reach the later module when called, never while
 * building.
 */
async function composeStockroom(config: Config, overrides: ServiceOverrides): Promise<Stockroom> {
  const platform = await openPlatform(config, overrides);
  const built: StockroomModule[] = [];
  try {
    const media = await mediaModule(platform, {
      originals: {
        // A prepared download of a generated image is delivered as catalogue originals are.
        findOriginal: async (assetId) => (await generation.exports.generationDownloads.preparedFile(assetId)) ?? catalog.exports.catalog.findOriginal(assetId),
        findEpsOriginal: (assetId) => catalog.exports.catalog.findEpsOriginal(assetId),
      },
    });
    built.push(media);
    const oauth = oauthModule(platform);
    built.push(oauth);
    const catalog = catalogModule(platform, {
      displaySizes: media.exports.media,
      downloadLinks: { forCustomer: (userId) => licensing.exports.downloads.downloadLinksFor(userId) },
      oembedUris: { oembedUri: (record) => embed.exports.embeds.oembedUri(record) },
      partnerLicenses: { partnerLicensesOf: (record) => licensing.exports.downloads.partnerLicensesOf(record) },
      videoTools: media.exports.videoTools,
      displayFiles: media.exports.media,
    });
    built.push(catalog);
    const licensing = licensingModule(platform, {
      customers: oauth.exports.users,
      catalog: catalog.exports.catalog,
      deliveryUri: overrides.deliveryUri ?? ((spec) => media.exports.media.deliveryUri(spec)),
      clients: oauth.exports.clients,
    });
    built.push(licensing);
    const search = await searchModule(platform, { catalog: catalog.exports.catalog, products: licensing.exports.products });
    built.push(search);
    const assetManagement = assetManagementModule(platform);
    built.push(assetManagement);
    const boards = await boardsModule(platform, {
      catalog: catalog.exports.catalog,
      displaySizes: media.exports.media,
      people: oauth.exports.users,
      sends: assetManagement.exports.assetSends,
    });
    built.push(boards);
    const assetChanges = assetChangesModule(platform, { catalog: catalog.exports.catalog });
    built.push(assetChanges);
    const reporting = reportingModule(platform, { clients: oauth.exports.clients, catalog: catalog.exports.catalog, downloads: licensing.exports.downloads });
    built.push(reporting);
    const generation = generationModule(platform, {
      catalog: catalog.exports.catalog,
      products: licensing.exports.products,
      aiLicensing: licensing.exports.aiLicensing,
      uploads: search.exports.uploads,
      signer: media.exports.signer,
      deliveryUri: overrides.deliveryUri ?? ((spec) => media.exports.media.deliveryUri(spec)),
      engines: overrides.generationEngines,
    });
    built.push(generation);
    const web = await webModule(platform, {
      assetSearch: search.exports.assetSearch,
      catalog: catalog.exports.catalog,
      products: licensing.exports.products,
      downloads: licensing.exports.downloads,
      boards: boards.exports.boards,
      clients: oauth.exports.clients,
      oauth: oauth.exports.oauth,
      tokens: oauth.exports.tokens,
      people: oauth.exports.users,
      gridPicture: (assetId, width, height) => media.exports.media.gridPicture(assetId, width, height),
      // A licensed size's file as its delivery URL would serve it (the URL's download id plays no part in the file).
      licensedFile: async ({ assetId, assetType, width, height, sizeName }) => {
        const fileName = deliveryFileName({ downloadId: 1, assetId, assetType, sizeName, ...(width !== null && height !== null ? { width, height } : {}) });
        const target = parseDeliveryFileName(assetId, fileName);
        return target === undefined ? undefined : media.exports.media.deliver(assetId, target);
      },
    });
    built.push(web);
    const embed = embedModule(platform, { catalog: catalog.exports.catalog, displaySizes: media.exports.media, signer: media.exports.signer });
    built.push(embed);
    const backOffice = backOfficeModule(platform, {
      browserSessions: web.exports.browserSessions,
      users: oauth.exports.users,
      catalogEditing: catalog.exports.catalogEditing,
      clients: oauth.exports.clients,
      products: licensing.exports.products,
      // Staff see drafts and withdrawn assets: the original is found in any state, and the picture made as media makes every display file.
      assetPictures: {
        async pictureOf(assetId, file) {
          const original = await catalog.exports.catalog.findOriginalInAnyState(assetId);
          return original === undefined ? undefined : media.exports.media.renderFromOriginal(original.originalKey, file);
        },
      },
      usageReports: reporting.exports.usage,
    });
    built.push(backOffice);
    const assetUploads = assetUploadsModule(platform, {
      catalog: catalog.exports.catalog,
      displayFiles: media.exports.media,
      videoTools: media.exports.videoTools,
      gate: staffGate(web.exports.browserSessions, oauth.exports.users),
      pageHeaders: pageHeaders(contentSecurityPolicy(config.publicUrl)),
      staffPages: backOffice.exports.staffPages,
    });
    built.push(assetUploads);
    measureGenerationQueue(platform.metrics, generation.exports.generationJobs);
    await platform.followChanges();
    const services: Services = {
      ...platformServices(platform),
      ...media.exports,
      ...oauth.exports,
      ...catalog.exports,
      ...licensing.exports,
      ...search.exports,
      ...assetManagement.exports,
      ...boards.exports,
      ...assetChanges.exports,
      ...reporting.exports,
      ...generation.exports,
      ...embed.exports,
      ...backOffice.exports,
      ...assetUploads.exports,
      close: () => closeStockroom(platform, built),
    };
    return { services, modules: built, jobs: platform.jobs };
  } catch (error) {
    await closeStockroom(platform, built);
    throw error;
  }
}

/**
 * Who is signed in to the back office, for its uploads: the catalogue browser's session (the
 * one sign-in of this server) and the account's role as the store has it now.
 */
function staffGate(sessions: WebExports['browserSessions'], users: OAuthExports['users']): StaffGate {
  return {
    async sessionOf(request) {
      const session = await sessions.of(request);
      const account = session?.userId === undefined ? undefined : await users.account(session.userId);
      if (!session || !account || account.disabledAt !== null) return undefined;
      return { uploader: { userId: account.id, role: account.role }, username: account.username, csrfToken: session.csrfToken };
    },
    signInPath: (returnTo) => sessions.signInPath(returnTo),
    // The catalogue pages' edit page of an asset.
    editPath: '/admin/catalogue/assets/{id}',
  };
}

/**
 * The docs page's own OAuth client, prefilled in its Authorize dialog: public, held to the page's
 * redirect exactly. Undefined (the dialog asks for a client_id) when the public URL may have no
 * redirect (neither https nor local).
 */
async function docsClientId(services: Services, log: FastifyBaseLogger): Promise<string | undefined> {
  try {
    return await services.firstPartyClients.keyOf({ name: 'Stockroom API docs', redirectUri: docsRedirectUri(services.config.publicUrl) }, 'docs_client');
  } catch (error) {
    log.warn({ err: error }, 'the docs page has no OAuth client of its own: STOCKROOM_PUBLIC_URL is neither https nor local');
    return undefined;
  }
}

function platformServices(platform: Platform) {
  const { config, database, blobs, redis, throttle, changeFeed, metrics, readiness } = platform;
  return { config, database, blobs, redis, throttle, changeFeed, metrics, readiness };
}

/** The generation queue, which every node shares, read through the module's exports when scraped. */
function measureGenerationQueue(metrics: Metrics, jobs: GenerationExports['generationJobs']): void {
  // One read of the queue serves the gauges of one scrape.
  let reading: { at: number; stats: ReturnType<typeof jobs.queueStats> } | undefined;
  const stats = () => {
    if (!reading || Date.now() - reading.at > 500) reading = { at: Date.now(), stats: jobs.queueStats() };
    return reading.stats;
  };
  metrics.gauge('generation_jobs', 'Generation jobs in the shared queue, by status (pending or running)', async () => {
    const { pending, running } = await stats();
    return [
      { labels: { status: 'pending' }, value: pending },
      { labels: { status: 'running' }, value: running },
    ];
  }, ['status']);
  metrics.gauge('generation_jobs_oldest_age_seconds', 'Age of the oldest generation job of each status (0 when there is none)', async () => {
    const { oldestPendingSeconds, oldestRunningSeconds } = await stats();
    return [
      { labels: { status: 'pending' }, value: oldestPendingSeconds },
      { labels: { status: 'running' }, value: oldestRunningSeconds },
    ];
  }, ['status']);
  metrics.gauge('generation_jobs_running_here', 'Generation jobs this node is running', async () => (await stats()).runningHere);
}

/** The jobs stop first (they use the modules' services), then modules close in reverse order of building, then the platform under them. */
async function closeStockroom(platform: Platform, modules: readonly StockroomModule[]): Promise<void> {
  platform.stopFollowingChanges();
  await platform.jobs.close();
  for (const module of [...modules].reverse()) await module.close?.();
  await platform.close();
}

/** Opens the store (migrating it), the blob store and Redis, and builds every service (commands and tests). */
export async function createServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  return (await composeStockroom(config, overrides)).services;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;


/** Fastify's form of the trusted proxies: a hop count is "the nearest N hops" (as proxy-addr reads a number). */
function trustedProxies(trust: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

/** The HTTP application on top of the services. The caller listens (serve) or injects (tests). */
export async function buildApp(
  config: Config,
  overrides: ServiceOverrides & { logger?: FastifyServerOptions['logger'] } = {},
): Promise<{ app: FastifyInstance; services: Services }> {
  const { services, modules, jobs } = await composeStockroom(config, overrides);
  try {
    for (const module of modules) await module.start?.();
    await jobs.start();
  } catch (error) {
    await services.close();
    throw error;
  }
  const app = Fastify({
    logger: overrides.logger ?? { level: config.logLevel },
    // Fastify's two lines per request give way to our one (the onResponse hook below).
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    // The caller's X-Request-Id is kept when it is a plain token; otherwise a new one is made.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } },
    // Query strings and paths are text, coerced to their schema's types; JSON bodies are typed as sent.
    schemaController: { compilersFactory: { buildValidator: validatorsByPart() } },
    // Long ids must reach the routes (and their 404), not the router's 414.
    routerOptions: { maxParamLength: 1000 },
    // Errors the router raises before any route (an undecodable URL) answer in the API's own shape.
    frameworkErrors: (error, request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 400;
      void (reply as unknown as FastifyReply)
        .code(status)
        .header('x-request-id', request.id)
        .send({ message: status === 414 ? 'The request URL is too long' : 'The request URL cannot be decoded', code: 'MalformedRequest' });
    },
    // Forwarded headers count only from the configured proxies (none by default).
    trustProxy: trustedProxies(config.trustProxy),
    // A client that stalls in its headers or body, or idles on a kept-alive connection, is let go.
    ...connectionOptions(config),
    // A node that is shutting down still answers a request that reaches it on a connection it
    // already had (and closes the connection after it) rather than a 503: a proxy in front
    // would pass the 503 on, or count it against a node that is merely leaving.
    return503OnClosing: false,
  });
  app.addHook('onClose', () => services.close());

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  const requestDurations = services.metrics.requests;
  app.addHook('onResponse', async (request, reply) => {
    // The route's pattern, never the URL: one series per route, not one per asset id.
    requestDurations.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    request.log.info(
      {
        method: request.method,
        url: redactedUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
        client: request.apiClient?.id,
      },
      'request',
    );
  });
  registerErrorHandler(app);
  registerProtocolRules(app);
  registerNumberForms(app);
  // Before any surface: a NUL or a lone surrogate in any request text is a 400 on every route.
  registerWellFormedText(app);
  // A write that meets a full disk (507) is reported by /health and /readyz.
  registerStorageFullReports(app, services.readiness);
  registerParameterReading(app);

  await registerOpenApi(app, { publicUrl: config.publicUrl });

  const exposedHeaders = [
    'x-request-id',
    'x-error-detail',
    'x-ratelimit-limit-second',
    'x-ratelimit-remaining-second',
    'x-ratelimit-limit-day',
    'x-ratelimit-remaining-day',
    'x-ratelimit-reset',
    'retry-after',
    'www-authenticate',
    'idempotent-replayed',
  ];

  // The API under /v3, and the spec's beta endpoints under /beta: CORS, then the key and
  // throttle checks, then the routes of every module for that surface.
  const keyedSurface = (routesOf: (module: StockroomModule) => FastifyPluginAsync | undefined) => async (surface: FastifyInstance) => {
    registerOpenCors(surface, { exposedHeaders, allowedHeaders: ['Api-Key', 'Authorization', 'Accept-Language', 'Content-Type', 'X-Request-Id', 'Country-Code', 'Idempotency-Key'] });
    registerApiAuth(surface, {
      authenticateKey: (key) => services.clients.authenticate(key),
      verifyToken: (token, clientId) => services.tokens.verify(token, clientId),
      throttle: services.throttle,
      defaultLimits: config.throttle,
    });
    for (const module of modules) {
      const routes = routesOf(module);
      if (routes) await surface.register(routes);
    }
  };
  await app.register(keyedSurface((module) => module.routes?.api), { prefix: '/v3' });
  await app.register(keyedSurface((module) => module.routes?.beta), { prefix: '/beta' });

  // Open to every origin without a key: display files (so that <img src> works; the URL's
  // signature is the check), the index at /v3 (the first thing a newcomer opens), /health, and
  // the API description (so that browser tools can read it).
  await app.register(async (open) => {
    registerOpenCors(open);
    for (const module of modules) if (module.routes?.open) await open.register(module.routes.open);
    await open.register(apiIndexRoutes, { publicUrl: config.publicUrl, authUrl: config.authUrl });
    await open.register(healthRoutes, { readiness: services.readiness });
    await registerOpenApiDocument(app, open);
  });
  // At the root, each in a context of its own: the OAuth token and authorization endpoints take
  // no Api-Key (real clients do not send one there), no CORS, and answer in RFC 6749's shapes.
  for (const module of modules) if (module.routes?.root) await app.register(module.routes.root);
  // Behind a token only: without STOCKROOM_METRICS_TOKEN there is no /metrics on the API's port.
  if (config.metricsToken) await app.register(metricsRoute, { metrics: services.metrics, token: config.metricsToken });
  // The API's docs stay at /docs; `/` is the catalogue browser (the web module's root routes).
  await registerDocsPage(app, { publicUrl: config.publicUrl, authUrl: config.authUrl, oauthClientId: await docsClientId(services, app.log) });

  return { app, services };
}
