import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import type { ProductsService } from '../licensing/products.service.js';
import type { AiGenerationLicensing } from '../licensing/ai-generation.service.js';
import type { UrlSigner } from '../media/url-signer.js';
import type { DeliverySpec } from '../media/delivery.js';
import { DownloadPreparations } from './download-preparations.js';
import { GenerationDownloads } from './generation-downloads.js';
import { GenerationDownloadsRepository } from './generation-downloads.repository.js';
import { EngineRouter, type ConfiguredEngines } from './engine-router.js';
import { configuredEngines } from './configured-engines.js';
import { GenerationRepository } from './generation.repository.js';
import { GenerationJobs } from './generation-jobs.js';
import { GenerationService, type GenerationCatalog, type UploadedFiles } from './generation.service.js';
import { FileRegistrations } from './file-registrations.js';
import { PromptPolicy } from './prompt-policy.js';
import { betaGenerationRoutes, generationPreviewRoutes, generationRoutes } from './generation.routes.js';

export interface GenerationExports {
  /** The generative operations, their jobs and history. */
  generation: GenerationService;
  /** Generation jobs, run by the node's job runner. */
  generationJobs: GenerationJobs;
  /** Downloads of generated images, and the prepared files media's delivery URLs name. */
  generationDownloads: GenerationDownloads;
}

export interface GenerationNeeds {
  /** Catalogue images an edit starts from. */
  catalog: GenerationCatalog;
  /** Who the customer is (licensing's products). */
  products: ProductsService;
  /** The AI product a request uses and its allowance (licensing). */
  aiLicensing: AiGenerationLicensing;
  /** Masks and reference files uploaded with PUT /v3/search/by-image/uploads (search). */
  uploads: UploadedFiles;
  /** Signs the preview URLs (media's display signer). */
  signer: UrlSigner;
  /** The signed delivery URL of a download's file (media). */
  deliveryUri: (spec: DeliverySpec) => string;
  /** The engines to use instead of the configured ones (tests, benchmarks). */
  engines?: ConfiguredEngines | undefined;
}

/** How often a serving node deletes the file registrations past their retention. */
const REGISTRATION_SWEEP_MS = 60 * 60 * 1000;

/** Generative images (§3.22, §3.23): requests queued as jobs in the store, run by engines the configuration picks. */
export function generationModule(platform: Platform, needs: GenerationNeeds): StockroomModule<GenerationExports> {
  const { config, database, blobs, clock, log } = platform;
  const settings = config.generation;
  const repository = new GenerationRepository(database.db, database.dialect);
  const engines = needs.engines ?? configuredEngines(settings);
  const router = new EngineRouter(engines, settings.server);
  // Generation jobs and the preparations of their downloads run side by side, each kind as many at once.
  const job = { concurrency: settings.concurrency, leaseMs: settings.leaseSeconds * 1000 };
  const jobs = new GenerationJobs({
    runner: platform.jobs,
    repository,
    router,
    blobs,
    job,
    timeoutMs: settings.timeoutSeconds * 1000,
    refund: (requestId) => needs.aiLicensing.refund(requestId),
    log,
    now: clock,
  });
  const files = new GenerationDownloadsRepository(database.db, database.dialect);
  const preparations = new DownloadPreparations({
    runner: platform.jobs,
    repository,
    files,
    router,
    blobs,
    job,
    timeoutMs: settings.timeoutSeconds * 1000,
    log,
  });
  const downloads = new GenerationDownloads({
    repository,
    files,
    preparations,
    blobs,
    products: needs.products,
    licensing: needs.aiLicensing,
    deliveryUri: needs.deliveryUri,
    waitMs: settings.waitMs,
    log,
    now: clock,
  });
  const signPath = (path: string) => needs.signer.sign(path);
  const registrations = new FileRegistrations({
    repository,
    blobs,
    products: needs.products,
    licensing: needs.aiLicensing,
    uploads: needs.uploads,
    signPath,
    quotas: { perKey: config.storedFiles.registrationsPerKey, perUser: config.storedFiles.registrationsPerUser },
    retentionDays: config.storedFiles.registrationRetentionDays,
    decodes: platform.imageDecodes,
    now: clock,
  });
  let sweeping: NodeJS.Timeout | undefined;
  const generation = new GenerationService({
    repository,
    jobs,
    router,
    blobs,
    products: needs.products,
    licensing: needs.aiLicensing,
    catalog: needs.catalog,
    uploads: needs.uploads,
    registrations,
    policy: new PromptPolicy(settings.blockedTerms),
    signPath,
    waitMs: settings.waitMs,
    maxPerUser: settings.maxPerUser,
    retentionDays: settings.retentionDays,
    decodes: platform.imageDecodes,
    now: clock,
  });
  return {
    name: 'generation',
    exports: { generation, generationJobs: jobs, generationDownloads: downloads },
    routes: {
      async api(api) {
        await api.register(generationRoutes, { generation, registrations, downloads });
      },
      async beta(beta) {
        await beta.register(betaGenerationRoutes, { generation, registrations, downloads });
      },
      async open(open) {
        await open.register(generationPreviewRoutes, { signer: needs.signer, blobs, repository, registrations });
      },
    },
    // The jobs run on the platform's runner, which starts once every module has.
    start: async () => {
      // Registrations past the retention also leave when nobody registers (a registration sweeps too).
      sweeping = setInterval(() => void registrations.purgeExpired().catch((error: unknown) => log.warn({ err: error }, 'sweeping expired file registrations failed')), REGISTRATION_SWEEP_MS);
      sweeping.unref();
    },
    close: async () => {
      clearInterval(sweeping);
      // Engines a test or benchmark hands in are closed by whoever made them.
      if (!needs.engines) for (const engine of [engines.server, engines.builtin]) await engine?.close?.();
    },
  };
}
