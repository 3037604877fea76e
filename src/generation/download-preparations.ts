import sharp from 'sharp';
import type { Logger } from 'pino';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import type { JobHandler, JobLease, JobRunner, JobSettings, RegisteredJobKind } from '../platform/jobs/job-runner.js';
import type { LeaseQueue } from '../platform/jobs/lease-queue.js';
import type { EngineRouter } from './engine-router.js';
import type { GenerationRepository } from './generation.repository.js';
import type { GenerationDownloadsRepository, PreparedDownloadRow } from './generation-downloads.repository.js';
import { GENERATED_DOWNLOAD_SIZES, type GeneratedSizeName } from './generation-downloads.js';

/** The name download preparations are registered under with the node's job runner. */
const DOWNLOAD_PREPARATION = 'generated-download';

export interface DownloadPreparationsOptions {
  /** The node's job runner, which claims the files to prepare and hands them to this handler. */
  runner: JobRunner;
  repository: GenerationRepository;
  files: GenerationDownloadsRepository;
  router: EngineRouter;
  blobs: BlobStore;
  /** How this node prepares files: how many at once (0: none; another node does), the lease. */
  job: JobSettings;
  timeoutMs: number;
  log: Logger;
}

/**
 * The file of a download of a generated image, made once as a job of the node's job runner: a
 * resize, or an upscale by the engine that upscales. A preparation a stopped process left is
 * taken back by the runner (at once on SQLite: a restart would otherwise leave the download
 * answering 202 for a whole lease).
 */
export class DownloadPreparations implements JobHandler<'generation_downloads'> {
  readonly queue: LeaseQueue<'generation_downloads'>;
  private readonly kind: RegisteredJobKind;

  constructor(private readonly options: DownloadPreparationsOptions) {
    this.queue = options.files.queue;
    this.kind = options.runner.register(DOWNLOAD_PREPARATION, this, options.job);
  }

  /** Looks for work now (a file was just queued here). */
  wake(): void {
    this.kind.wake();
  }

  async run(file: PreparedDownloadRow, lease: JobLease): Promise<void> {
    const { repository, files, blobs } = this.options;
    const result = await repository.result(file.request_id, file.result_index);
    const source = result?.image_key ? await blobs.get(result.image_key) : undefined;
    if (!result || !source) throw new Error('the result is no longer stored');
    const longestSide = GENERATED_DOWNLOAD_SIZES[file.size_name as GeneratedSizeName];
    const data = await this.resized(source, longestSide, lease.signal);
    const { width = 0, height = 0 } = await sharp(data).metadata();
    const key = `generation/downloads/${file.generated_asset_id}-${file.size_name}.png`;
    await blobs.put(key, data);
    await files.finish(file, lease.node, { key, width, height });
  }

  async fail(file: PreparedDownloadRow, error: unknown, lease: JobLease): Promise<void> {
    this.options.log.warn({ err: error, file: file.id }, 'preparing a generated download failed');
    await this.options.files.finish(file, lease.node, 'failed');
  }

  /** Smaller: resampled here. Larger: upscaled by the engine that upscales (a model server's upscaler, else the built-in Lanczos). */
  private async resized(source: Buffer, longestSide: number, stop: AbortSignal): Promise<Buffer> {
    const { width = 0, height = 0 } = await sharp(source).metadata();
    if (Math.max(width, height) >= longestSide) {
      return sharp(source).resize({ ...(width >= height ? { width: longestSide } : { height: longestSide }), kernel: 'lanczos3' }).png().toBuffer();
    }
    const engine = this.options.router.engineFor('upscale');
    const signal = AbortSignal.any([stop, AbortSignal.timeout(this.options.timeoutMs)]);
    const { pictures } = await engine.run({ operation: 'upscale', source: { data: source, mediaType: 'image/png' }, longestSide }, signal);
    const picture = pictures[0];
    if (!picture) throw new Error(`the ${engine.name} engine returned no upscaled picture`);
    return picture.data;
  }
}
