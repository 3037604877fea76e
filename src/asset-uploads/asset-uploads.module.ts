import type { StaffPages } from '../back-office/back-office.pages.js';
import type { CatalogService } from '../catalog/catalog.service.js';
import { IngestService } from '../catalog/ingest/ingest.service.js';
import { NudityClassifier } from '../media/nudity-classifier.js';
import type { VideoTools } from '../media/video/video-tools.js';
import type { StockroomModule } from '../platform/module.js';
import type { Platform } from '../platform/platform.js';
import { AssetUploadsRepository } from './asset-uploads.repository.js';
import { assetUploadsRoutes, UPLOADS_SECTION, type StaffGate } from './asset-uploads.routes.js';
import { AssetUploadsService } from './asset-uploads.service.js';
import { UploadEndpoint } from './upload-endpoint.js';
import { UploadIngests } from './upload-ingests.js';
import { stagingFor } from './upload-staging.js';

export type { StaffGate, StaffSession } from './asset-uploads.routes.js';

export interface AssetUploadsNeeds {
  catalog: CatalogService;
  /** Media's display files, made as each original is stored (as `stockroom ingest` does). */
  displayFiles: { prepareDisplayFiles(originalKey: string): Promise<unknown> };
  videoTools: VideoTools;
  /** Who is signed in to the back office, and where they sign in. */
  gate: StaffGate;
  /** The back office's page policy (Content-Security-Policy and the other page headers). */
  pageHeaders: Record<string, string>;
  /** The back office's frame for the upload page, and its link in the header. */
  staffPages: StaffPages;
}

export interface AssetUploadsExports {
  assetUploads: AssetUploadsService;
}

/** How often a serving node looks for abandoned uploads, at most. */
const SWEEP_EVERY_MS = 15 * 60_000;

/**
 * The back office's resumable uploads (tus 1.0) at /admin/uploads: the bytes staged beside the
 * blob store, each finished file ingested as `stockroom ingest` ingests a file of a folder, as
 * a job any node runs, and abandoned uploads swept away.
 */
export function assetUploadsModule(platform: Platform, needs: AssetUploadsNeeds): StockroomModule<AssetUploadsExports> {
  const { config, database, blobs, jobs, log, clock } = platform;
  const staging = stagingFor(blobs);
  const repository = new AssetUploadsRepository(database.db, database.dialect);
  const classifier = config.mediaFacts.classifyNudity ? new NudityClassifier() : undefined;
  const ingest = new IngestService({ catalog: needs.catalog, blobs, classifier, videoTools: needs.videoTools, displayFiles: needs.displayFiles });
  const ingests = new UploadIngests({ runner: jobs, repository, staging, ingest, job: { concurrency: config.assetUploads.runIngests ? 1 : 0, pollMs: 2000 }, log, now: clock });
  const service = new AssetUploadsService({
    repository,
    staging,
    clock,
    log,
    maxBytes: config.assetUploads.maxBytes,
    idleMs: config.assetUploads.idleMs,
    wakeIngests: () => ingests.wake(),
  });
  const endpoint = new UploadEndpoint(service, staging, log);
  needs.staffPages.addSection(UPLOADS_SECTION);
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => {
    service.sweepIdle().then(
      (removed) => {
        if (removed > 0) log.info({ removed }, 'removed abandoned uploads');
      },
      (error: unknown) => log.warn({ err: error }, 'sweeping abandoned uploads failed'),
    );
  };
  return {
    name: 'asset-uploads',
    exports: { assetUploads: service },
    routes: {
      async root(root) {
        await root.register(assetUploadsRoutes, { service, endpoint, gate: needs.gate, pageHeaders: needs.pageHeaders, staffPages: needs.staffPages });
      },
    },
    async start() {
      log.info({ staging: staging.description }, 'uploads are staged here until they are ingested');
      sweep();
      sweeper = setInterval(sweep, Math.min(SWEEP_EVERY_MS, config.assetUploads.idleMs / 4));
      sweeper.unref();
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      await classifier?.close();
    },
  };
}
