import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config/config.js';
import { migrateToLatest, openDatabase, type Database } from './platform/db/database.js';
import { ChangeFeed, latestChangeSeq, readChangesAfter } from './platform/db/change-log.js';
import { pino } from 'pino';
import { getOrCreateSetting } from './platform/db/settings.js';
import { randomSecret } from './platform/crypto/secrets.js';
import type { BlobStore } from './platform/blobs/blob-store.js';
import { FilesystemBlobStore } from './platform/blobs/filesystem-blob-store.js';
import { registerErrorHandler } from './platform/http/error-handler.js';
import { redactedUrl } from './platform/http/redacted-url.js';
import { registerOpenCors } from './platform/http/cors.js';
import { registerApiAuth } from './platform/http/api-auth.js';
import { registerDocsPage, registerOpenApi, registerOpenApiDocument } from './platform/http/openapi.js';
import { createThrottle, type Throttle } from './platform/throttle/throttle.js';
import { CatalogRepository } from './catalog/catalog.repository.js';
import { CatalogService } from './catalog/catalog.service.js';
import { SearchService } from './search/search.service.js';
import { searchRoutes } from './search/search.routes.js';
import { visualSearchRoutes } from './search/visual-search.routes.js';
import { artistsRoutes } from './search/artists.routes.js';
import { affiliatesRoutes } from './search/affiliates.routes.js';
import { UploadsRepository } from './search/uploads/uploads.repository.js';
import { UploadsService } from './search/uploads/uploads.service.js';
import { uploadsRoutes } from './search/uploads/uploads.routes.js';
import { imagesRoutes } from './catalog/images.routes.js';
import { videosRoutes } from './catalog/videos.routes.js';
import { eventsRoutes } from './catalog/events.routes.js';
import { collectionsRoutes } from './catalog/collections.routes.js';
import { countriesRoutes } from './catalog/countries.routes.js';
import { MediaService } from './media/media.service.js';
import { UrlSigner } from './media/url-signer.js';
import { mediaRoutes } from './media/media.routes.js';
import { oauthRoutes } from './oauth/oauth.routes.js';
import { ClientsRepository } from './oauth/clients.repository.js';
import { ClientsService } from './oauth/clients.service.js';
import { TokensService } from './oauth/tokens.service.js';
import { UsersRepository } from './oauth/users.repository.js';
import { UsersService } from './oauth/users.service.js';
import { OAuthStore } from './oauth/oauth.store.js';
import { OAuthService } from './oauth/oauth.service.js';
import { SignInGuard } from './oauth/sign-in-guard.js';
import { ProductsRepository } from './licensing/products.repository.js';
import { ProductsService } from './licensing/products.service.js';
import { productsRoutes } from './licensing/products.routes.js';
import { DownloadsRepository } from './licensing/downloads.repository.js';
import { DownloadsService, type DeliveryUri } from './licensing/downloads.service.js';
import { downloadsRoutes } from './licensing/downloads.routes.js';
import { AssetLicensingRepository } from './licensing/asset-licensing.repository.js';
import { AssetLicensingService } from './licensing/asset-licensing.service.js';
import { assetLicensingRoutes } from './licensing/asset-licensing.routes.js';

/** Everything a running Stockroom is made of; commands and tests reach the services here. */
export interface Services {
  config: Config;
  database: Database;
  blobs: BlobStore;
  redis: Redis | undefined;
  throttle: Throttle;
  changeFeed: ChangeFeed;
  catalog: CatalogService;
  /** Built by the HTTP app (buildApp), not by one-off commands. */
  search: SearchService;
  /** Files uploaded for search by image, per API key. */
  uploads: UploadsService;
  media: MediaService;
  signer: UrlSigner;
  clients: ClientsService;
  tokens: TokensService;
  users: UsersService;
  /** The rules of the OAuth endpoints (token, authorization, sign-in). */
  oauth: OAuthService;
  /** The products customers hold (search limits a customer's results to them). */
  products: ProductsService;
  /** Downloads: entitlements, payment and ledger, history, purchases, download links. */
  downloads: DownloadsService;
  /** Extended licenses bought with credits. */
  assetLicensing: AssetLicensingService;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  /** An open, migrated store to use instead of the configured one (tests). */
  database?: Database;
  blobs?: BlobStore;
  /** How often to read the change log for writes of other processes. */
  changeFeedIntervalMs?: number;
  /** The signed URL of a licensed file (tests); default: the media module's. */
  deliveryUri?: DeliveryUri;
}

/** Opens the store (migrating it), the blob store and Redis, and builds every service. */
export async function createServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  const database = overrides.database ?? (await openConfiguredStore(config));
  const { db } = database;
  const blobs = overrides.blobs ?? new FilesystemBlobStore(path.join(config.dataDir, 'blobs'));
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const throttle = createThrottle(redis ? { redis } : {});

  // Every node signs and checks display URLs with the same key, kept in the store.
  const signingSecret = await getOrCreateSetting(db, 'display_url_secret', () => randomSecret());
  const signer = new UrlSigner(signingSecret, config.publicUrl, config.displayUrlTtlSeconds);

  // The catalogue shows media's display URIs and media finds originals through the catalogue;
  // each reaches the other through a small interface, wired here.
  const catalog: CatalogService = new CatalogService(
    new CatalogRepository(db, database.dialect),
    { displaySizes: (asset, names) => media.displaySizes(asset, names) },
    { forCustomer: (userId) => downloads.downloadLinksFor(userId) },
    config.recordCacheSize,
  );
  // Download (delivery) URLs are signed with a key of their own: a display signature never opens a licensed file.
  const deliverySecret = await getOrCreateSetting(db, 'delivery_url_secret', () => randomSecret());
  const deliverySigner = new UrlSigner(deliverySecret, config.publicUrl, config.deliveryUrlTtlSeconds);
  const media = new MediaService({ blobs, signer, deliverySigner, findOriginal: (assetId) => catalog.findOriginal(assetId) });

  // A node's search snapshot belongs to one store: the store's id travels in it.
  const storeId = await getOrCreateSetting(db, 'store_id', () => randomUUID());
  const log = pino({ level: config.logLevel });
  const search = new SearchService({
    catalog,
    changes: { after: (seq, limit) => readChangesAfter(db, seq, limit), latest: () => latestChangeSeq(db) },
    snapshot: config.searchSnapshot ? { file: path.join(config.dataDir, 'search', 'index.snapshot'), storeId } : undefined,
    log: (message) => log.info(message),
  });
  const changeFeed = new ChangeFeed(db);
  changeFeed.subscribe((changes) => catalog.applyChanges(changes));
  await changeFeed.start(overrides.changeFeedIntervalMs ?? 1000);

  const clients = new ClientsService(new ClientsRepository(db));
  const oauthStore = new OAuthStore(db);
  const tokens = new TokensService(oauthStore);
  const users = new UsersService(new UsersRepository(db), { revokeTokensOf: (userId) => tokens.revokeAllForUser(userId) });
  const oauth = new OAuthService({
    clients,
    tokens,
    store: oauthStore,
    guard: new SignInGuard({ accounts: users, redis }),
    lifetimes: config,
  });
  const products = new ProductsService(new ProductsRepository(db), users);
  const downloads: DownloadsService = new DownloadsService({
    repository: new DownloadsRepository(db),
    products,
    catalog,
    deliveryUri: overrides.deliveryUri ?? ((spec) => media.deliveryUri(spec)),
    publicUrl: config.publicUrl,
    deliveryUriLifetimeMs: config.deliveryUrlTtlSeconds * 1000,
  });
  const assetLicensing = new AssetLicensingService({ repository: new AssetLicensingRepository(db), products, catalog });
  const uploads = new UploadsService({ repository: new UploadsRepository(db, database.dialect), blobs, publicUrl: config.publicUrl });

  return {
    config,
    database,
    blobs,
    redis,
    throttle,
    changeFeed,
    catalog,
    search,
    uploads,
    media,
    signer,
    clients,
    tokens,
    users,
    oauth,
    products,
    downloads,
    assetLicensing,
    async close() {
      changeFeed.stop();
      // The snapshot reflects every change read so far, so the next boot replays less.
      await search.close();
      await throttle.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await database.close();
    },
  };
}

/** The configured store, reachable and migrated; a failure names the setting to look at. */
async function openConfiguredStore(config: Config): Promise<Database> {
  const setting = config.databaseUrl ? 'DATABASE_URL' : 'STOCKROOM_DATA_DIR';
  const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));
  if (!config.databaseUrl) {
    try {
      fs.mkdirSync(config.dataDir, { recursive: true });
      fs.accessSync(config.dataDir, fs.constants.W_OK);
    } catch (error) {
      throw new Error(`STOCKROOM_DATA_DIR: cannot use ${config.dataDir} (${reason(error)})`);
    }
  }
  let database: Database;
  try {
    database = await openDatabase({ url: config.databaseUrl, sqliteFile: path.join(config.dataDir, 'stockroom.sqlite') });
    await sql`select 1`.execute(database.db);
  } catch (error) {
    throw new Error(`${setting}: cannot open the store (${reason(error)})`);
  }
  await migrateToLatest(database);
  return database;
}

/**
 * Redis for shared throttle counters. A stalled command gives up after a short time so the
 * throttle's in-memory fallback answers instead; an unreachable Redis at boot stops the boot.
 */
async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 200,
    connectTimeout: 5000,
    enableAutoPipelining: true,
  });
  // A Redis that goes away later is reported by its own reconnect loop; requests carry on in memory.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`REDIS_URL: cannot reach Redis (${error instanceof Error ? error.message : String(error)})`);
  }
  return redis;
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
  const services = await createServices(config, overrides);
  // The search index follows the change log from before it is built, so no write falls between.
  services.changeFeed.subscribe((changes) => services.search.applyChanges(changes));
  await services.search.build();
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
  });
  app.addHook('onClose', () => services.close());

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
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

  // The API: CORS, then the key and throttle checks, then the routes of every module.
  await app.register(
    async (api) => {
      registerOpenCors(api, { exposedHeaders, allowedHeaders: ['Api-Key', 'Authorization', 'Accept-Language', 'Content-Type', 'X-Request-Id', 'Country-Code', 'Idempotency-Key'] });
      registerApiAuth(api, {
        authenticateKey: (key) => services.clients.authenticate(key),
        verifyToken: (token, clientId) => services.tokens.verify(token, clientId),
        throttle: services.throttle,
        defaultLimits: config.throttle,
      });
      const deps = { catalog: services.catalog };
      await api.register(imagesRoutes, deps);
      await api.register(videosRoutes, deps);
      await api.register(eventsRoutes, deps);
      await api.register(collectionsRoutes, deps);
      await api.register(countriesRoutes);
      await api.register(productsRoutes, { products: services.products });
      await api.register(downloadsRoutes, { downloads: services.downloads });
      await api.register(assetLicensingRoutes, { assetLicensing: services.assetLicensing });
      await api.register(searchRoutes, {
        search: services.search,
        catalog: services.catalog,
        products: services.products,
        publicUrl: config.publicUrl,
      });
      await api.register(artistsRoutes, { search: services.search, catalog: services.catalog, products: services.products });
      await api.register(affiliatesRoutes, { search: services.search, catalog: services.catalog });
      await api.register(uploadsRoutes, { uploads: services.uploads });
      await api.register(visualSearchRoutes, {
        search: services.search,
        catalog: services.catalog,
        resolveImageUrl: (clientId: number, imageUrl: string) => services.uploads.resolveImageUrl(clientId, imageUrl),
        products: services.products,
      });
    },
    { prefix: '/v3' },
  );

  // Open to every origin without a key: display files (so that <img src> works; the URL's
  // signature is the check) and the API description (so that browser tools can read it).
  await app.register(async (open) => {
    registerOpenCors(open);
    await open.register(mediaRoutes, { media: services.media, signer: services.signer });
    await registerOpenApiDocument(app, open);
  });
  // The OAuth token and authorization endpoints: no Api-Key (real clients do not send one there),
  // no CORS, answers in RFC 6749's shapes; a context of their own.
  await app.register(oauthRoutes, { oauth: services.oauth, publicUrl: config.publicUrl, authUrl: config.authUrl });
  await registerDocsPage(app);
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/docs'));

  return { app, services };
}
