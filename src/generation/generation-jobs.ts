import sharp from 'sharp';
import type { Logger } from 'pino';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import { JobInterruptedError, type JobHandler, type JobLease, type JobRunner, type JobSettings, type RegisteredJobKind } from '../platform/jobs/job-runner.js';
import type { LeaseQueue } from '../platform/jobs/lease-queue.js';
import { applyWatermark } from '../media/watermark.js';
import { EngineFailedError, EngineUnavailableError, type EngineImage, type EngineOperation, type EngineRequest } from './engines/engine.js';
import type { EngineRouter } from './engine-router.js';
import type { GenerationRepository, GenerationRow, NewResultRow } from './generation.repository.js';

/** What a job asks its engine, as stored: the operation, its parameters, and its pictures by blob key. */
export interface JobSpec {
  operation: EngineOperation;
  params: Record<string, unknown>;
  pictures: Partial<Record<'source' | 'mask' | 'reference', string>>;
}

/** The long side of the watermarked previews (preview_urls). */
export const PREVIEW_LONG_SIDE = 612;
/** The name generation jobs are registered under with the node's job runner. */
const GENERATION = 'generation';

export interface GenerationJobsOptions {
  /** The node's job runner, which claims the jobs and hands them to this handler. */
  runner: JobRunner;
  repository: GenerationRepository;
  router: EngineRouter;
  blobs: BlobStore;
  /** How this node runs the jobs: how many at once (0: none; another node does), the lease. */
  job: JobSettings;
  timeoutMs: number;
  /** Gives back a failed job's charge (licensing). */
  refund: (requestId: string) => Promise<void>;
  log: Logger;
  now: () => Date;
}

/**
 * Generation jobs, as a handler of the node's job runner: runs a claimed job's engine and
 * stores the results — or the reason it failed, giving back the charge. A job whose node
 * stopped is claimed again once its lease lapses, and is charged nothing more.
 */
export class GenerationJobs implements JobHandler<'generation_requests'> {
  readonly queue: LeaseQueue<'generation_requests'>;
  private readonly kind: RegisteredJobKind;

  constructor(private readonly options: GenerationJobsOptions) {
    this.queue = options.repository.queue;
    this.kind = options.runner.register(GENERATION, this, options.job);
  }

  /**
   * The queue as every node shares it: jobs waiting and running, and how long the oldest of each
   * has existed (seconds); plus how many run on this node. Read-only, for the metrics.
   */
  async queueStats(): Promise<{ pending: number; running: number; oldestPendingSeconds: number; oldestRunningSeconds: number; runningHere: number }> {
    const rows = await this.options.repository.queueStats();
    const now = this.options.now().getTime();
    const of = (status: string) => rows.find((row) => row.status === status);
    const age = (status: string) => {
      const oldest = of(status)?.oldest;
      return oldest ? Math.max(0, (now - Date.parse(oldest)) / 1000) : 0;
    };
    return {
      pending: of('pending')?.jobs ?? 0,
      running: of('running')?.jobs ?? 0,
      oldestPendingSeconds: age('pending'),
      oldestRunningSeconds: age('running'),
      runningHere: this.kind.runningHere(),
    };
  }

  /** Looks for work now (a request was just queued here). */
  wake(): void {
    this.kind.wake();
  }

  /** Charges of failed jobs a stopped node did not give back. */
  async onStart(): Promise<void> {
    for (const id of await this.options.repository.unrefunded(100)) await this.giveBack(id);
  }

  async run(job: GenerationRow, lease: JobLease): Promise<void> {
    const { repository, log } = this.options;
    const spec = JSON.parse(job.job) as JobSpec;
    const engine = this.options.router.engineFor(spec.operation);
    const request = await this.engineRequest(spec);
    const signal = AbortSignal.any([lease.signal, AbortSignal.timeout(this.options.timeoutMs)]);
    const result = await engine.run(request, signal);
    if (lease.signal.aborted) return;
    if (result.pictures.length === 0) throw new EngineFailedError(`the ${engine.name} engine returned no pictures`);
    const rows: NewResultRow[] = [];
    for (const [index, picture] of result.pictures.entries()) rows.push(await this.storeResult(job.id, index, picture.data, picture.seed));
    if (!(await repository.complete(job, lease.node, engine.name, rows, this.options.now()))) {
      log.warn({ job: job.id }, 'a generation job finished after another node took it over; its results were dropped');
    }
  }

  async fail(job: GenerationRow, error: unknown, lease: JobLease): Promise<void> {
    const reason = failureReason(error);
    this.options.log.warn({ job: job.id, reason }, 'generation job failed');
    if (await this.options.repository.fail(job, lease.node, reason, this.engineNameOf(job, error), this.options.now())) await this.giveBack(job.id);
  }

  /** The engine the job went to; null when it failed before reaching one. */
  private engineNameOf(job: GenerationRow, error: unknown): string | null {
    if (error instanceof JobInterruptedError) return null;
    try {
      return this.options.router.engineFor((JSON.parse(job.job) as JobSpec).operation).name;
    } catch {
      return null;
    }
  }

  private async engineRequest(spec: JobSpec): Promise<EngineRequest> {
    const request: Record<string, unknown> = { operation: spec.operation, ...spec.params };
    for (const [role, key] of Object.entries(spec.pictures)) {
      const data = await this.options.blobs.get(key);
      if (!data) throw new EngineFailedError(`the ${role} picture of the job is no longer stored`);
      request[role] = { data, mediaType: 'image/png' } satisfies EngineImage;
    }
    return request as unknown as EngineRequest;
  }

  private async storeResult(requestId: string, index: number, data: Buffer, seed: number): Promise<NewResultRow> {
    let metadata: sharp.Metadata;
    try {
      metadata = await sharp(data).metadata();
    } catch (error) {
      throw new EngineFailedError(`the engine returned a picture that does not decode (${error instanceof Error ? error.message : String(error)})`);
    }
    const width = metadata.width;
    const height = metadata.height;
    const scale = Math.min(1, PREVIEW_LONG_SIDE / Math.max(width, height));
    const previewWidth = Math.max(1, Math.round(width * scale));
    const previewHeight = Math.max(1, Math.round(height * scale));
    // Transparent results (a removed background) show on white, as the catalogue's comps do.
    const preview = await applyWatermark(
      sharp(data).resize(previewWidth, previewHeight, { fit: 'fill' }).flatten({ background: '#ffffff' }),
      previewWidth,
      previewHeight,
    )
      .jpeg({ quality: 82 })
      .toBuffer();
    const imageKey = `generation/results/${requestId}/${index}.png`;
    const previewKey = `generation/results/${requestId}/${index}-preview.jpg`;
    await this.options.blobs.put(imageKey, data);
    await this.options.blobs.put(previewKey, preview);
    return {
      request_id: requestId,
      result_index: index,
      is_blocked: 0,
      seed,
      image_key: imageKey,
      preview_key: previewKey,
      width,
      height,
      preview_width: previewWidth,
      preview_height: previewHeight,
    };
  }

  private async giveBack(requestId: string): Promise<void> {
    await this.options.refund(requestId);
    await this.options.repository.markRefunded(requestId);
  }
}

function failureReason(error: unknown): string {
  if (error instanceof EngineFailedError || error instanceof EngineUnavailableError || error instanceof JobInterruptedError) return error.message;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'the engine took longer than STOCKROOM_GENERATION_TIMEOUT allows';
  return `the engine failed: ${error instanceof Error ? error.message : String(error)}`;
}
