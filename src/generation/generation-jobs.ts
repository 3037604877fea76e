import { randomBytes } from 'node:crypto';
import os from 'node:os';
import sharp from 'sharp';
import type { Logger } from 'pino';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import { isStoreUnavailable } from '../platform/http/error-handler.js';
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
/** How many times a job is started before an interruption counts as its failure. */
const MAX_ATTEMPTS = 3;

export interface GenerationJobsOptions {
  repository: GenerationRepository;
  router: EngineRouter;
  blobs: BlobStore;
  /** Jobs this node runs at once (0: none). */
  concurrency: number;
  /** How long a claim holds without being renewed: a node that stopped loses its jobs after this. */
  leaseMs?: number;
  /** How often an idle runner looks for work another node queued. */
  pollMs?: number;
  timeoutMs: number;
  /** Gives back a failed job's charge (licensing). */
  refund: (requestId: string) => Promise<void>;
  /** SQLite: this process is the only runner, so a job found running at start was interrupted. */
  soleRunner: boolean;
  log: Logger;
  now: () => Date;
}

/**
 * The runner of generation jobs on this node: claims jobs from the store (any node may run
 * any job), at most `concurrency` at once, renews each claim while its engine works, and
 * stores the results — or the reason it failed, giving back the charge. A job whose node
 * stopped is claimed again once its lease lapses, and is charged nothing more.
 */
export class GenerationJobs {
  readonly node = `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly running = new Map<string, AbortController>();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private filling: Promise<void> | undefined;

  constructor(private readonly options: GenerationJobsOptions) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollMs = options.pollMs ?? 500;
  }

  async start(): Promise<void> {
    if (this.options.concurrency === 0) return;
    if (this.options.soleRunner) await this.options.repository.releaseAll();
    this.stopped = false;
    await this.giveBackCharges();
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
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
    return { pending: of('pending')?.jobs ?? 0, running: of('running')?.jobs ?? 0, oldestPendingSeconds: age('pending'), oldestRunningSeconds: age('running'), runningHere: this.running.size };
  }

  /** Looks for work now (a request was just queued here). */
  wake(): void {
    if (this.stopped || this.filling) return;
    this.filling = this.fill()
      .catch((error: unknown) => this.options.log.error({ err: error }, 'claiming generation jobs failed'))
      .finally(() => {
        this.filling = undefined;
      });
  }

  /** Stops claiming, stops waiting for engines, and gives this node's jobs back to the queue. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const controller of this.running.values()) controller.abort();
    await this.filling;
    await this.options.repository.release(this.node).catch(() => undefined);
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.running.size < this.options.concurrency) {
      const now = this.options.now();
      const job = await this.options.repository.claim(this.node, now, new Date(now.getTime() + this.leaseMs));
      if (!job) return;
      const controller = new AbortController();
      this.running.set(job.id, controller);
      // run() handles its own failures; this catch only keeps a bug there from ending the process.
      void this.run(job, controller)
        .catch((error: unknown) => this.options.log.error({ err: error, job: job.id }, 'a generation job ended with an unexpected error'))
        .finally(() => {
          this.running.delete(job.id);
          this.wake();
        });
    }
  }

  private async run(job: GenerationRow, controller: AbortController): Promise<void> {
    const { repository, log } = this.options;
    const renew = setInterval(() => {
      const now = this.options.now();
      repository.renew(job.id, this.node, new Date(now.getTime() + this.leaseMs)).then(
        (still) => {
          if (!still) controller.abort();
        },
        (error: unknown) => log.warn({ err: error, job: job.id }, 'renewing a generation lease failed'),
      );
    }, Math.max(50, Math.floor(this.leaseMs / 3)));
    let engineName: string | null = null;
    try {
      if (job.attempts > MAX_ATTEMPTS) throw new EngineFailedError(`the job was interrupted ${MAX_ATTEMPTS} times (its node stopped each time)`);
      const spec = JSON.parse(job.job) as JobSpec;
      const engine = this.options.router.engineFor(spec.operation);
      engineName = engine.name;
      const request = await this.engineRequest(spec);
      const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(this.options.timeoutMs)]);
      const result = await engine.run(request, signal);
      if (controller.signal.aborted) return;
      if (result.pictures.length === 0) throw new EngineFailedError(`the ${engine.name} engine returned no pictures`);
      const rows: NewResultRow[] = [];
      for (const [index, picture] of result.pictures.entries()) rows.push(await this.storeResult(job.id, index, picture.data, picture.seed));
      if (!(await repository.complete(job.id, this.node, engine.name, rows, this.options.now()))) {
        log.warn({ job: job.id }, 'a generation job finished after another node took it over; its results were dropped');
      }
    } catch (error) {
      // Stopping (close) gives the job back to the queue rather than failing it.
      if (controller.signal.aborted && this.stopped) return;
      // The store went away (a PostgreSQL restart): the job is not at fault. Its lease lapses and a
      // node runs it again once the store is back; the ledger's one row per request keeps it charged once.
      if (isStoreUnavailable(error)) {
        log.warn({ err: error, job: job.id }, 'the store could not be reached while running a generation job; it will run again');
        return;
      }
      const reason = failureReason(error);
      log.warn({ job: job.id, reason }, 'generation job failed');
      try {
        if (await repository.fail(job.id, this.node, reason, engineName, this.options.now())) await this.giveBack(job.id);
      } catch (recordError) {
        log.warn({ err: recordError, job: job.id }, 'a failed generation job could not be recorded; its lease will lapse and it will run again');
      }
    } finally {
      clearInterval(renew);
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

  /** Charges of failed jobs a stopped node did not give back. */
  private async giveBackCharges(): Promise<void> {
    for (const id of await this.options.repository.unrefunded(100)) await this.giveBack(id);
  }
}

function failureReason(error: unknown): string {
  if (error instanceof EngineFailedError || error instanceof EngineUnavailableError) return error.message;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'the engine took longer than STOCKROOM_GENERATION_TIMEOUT allows';
  return `the engine failed: ${error instanceof Error ? error.message : String(error)}`;
}
