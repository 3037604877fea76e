import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { getOrCreateSetting } from '../platform/db/settings.js';
import { randomSecret } from '../platform/crypto/secrets.js';
import { MediaService } from './media.service.js';
import { UrlSigner } from './url-signer.js';
import { mediaRoutes } from './media.routes.js';
import { VideoMedia } from './video/video-media.js';
import { VideoTools } from './video/video-tools.js';
import { TranscodeJobs, TranscodeRepository } from './video/video-transcodes.js';

export interface MediaExports {
  media: MediaService;
  /** Signs and checks display URLs. */
  signer: UrlSigner;
  /** ffmpeg and ffprobe as configured (ingest reads video files with them). */
  videoTools: VideoTools;
}

export interface MediaNeeds {
  /** Where an asset's original file is kept (the catalogue knows). */
  originals: {
    findOriginal(assetId: string): Promise<{ originalKey: string } | undefined>;
    /** An image's EPS (vector) original, if it has one. */
    findEpsOriginal(assetId: string): Promise<{ key: string } | undefined>;
  };
}

/** Display renditions and licensed files behind signed, expiring URLs (`/display/…`, `/delivery/…`). */
export async function mediaModule(platform: Platform, needs: MediaNeeds): Promise<StockroomModule<MediaExports>> {
  const { config, database, blobs } = platform;
  // Every node signs and checks display URLs with the same key, kept in the store.
  const displaySecret = await getOrCreateSetting(database.db, 'display_url_secret', () => randomSecret());
  const signer = new UrlSigner(displaySecret, config.publicUrl, config.displayUrlTtlSeconds);
  // Download (delivery) URLs are signed with a key of their own: a display signature never opens a licensed file.
  const deliverySecret = await getOrCreateSetting(database.db, 'delivery_url_secret', () => randomSecret());
  const deliverySigner = new UrlSigner(deliverySecret, config.publicUrl, config.deliveryUrlTtlSeconds);
  const videoTools = VideoTools.from(config.video);
  const transcodes = new TranscodeRepository(database.db, database.dialect);
  // Only a serving node runs the jobs (the platform's runner starts with serving); commands queue none.
  const jobs = new TranscodeJobs({
    runner: platform.jobs,
    repository: transcodes,
    blobs,
    tools: videoTools,
    job: { concurrency: config.video.runTranscodes ? 1 : 0, leaseMs: config.video.transcodeLeaseSeconds * 1000, pollMs: 1000 },
    timeoutMs: config.video.transcodeTimeoutSeconds * 1000,
    log: platform.log,
    now: platform.clock,
  });
  const video = new VideoMedia({ blobs, repository: transcodes, jobs, waitMs: config.video.transcodeWaitMs, now: platform.clock });
  const media = new MediaService({
    blobs,
    signer,
    deliverySigner,
    video,
    findOriginal: (assetId) => needs.originals.findOriginal(assetId),
    findEpsOriginal: (assetId) => needs.originals.findEpsOriginal(assetId),
  });
  return {
    name: 'media',
    exports: { media, signer, videoTools },
    routes: {
      async open(open) {
        await open.register(mediaRoutes, { media, signer });
      },
    },
  };
}
