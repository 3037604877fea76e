/**
 * Files made from video originals — the smaller download sizes and the preview clip — as jobs
 * of the node's job runner: one row per original and kind, claimed by one node at a time under
 * a lease it renews, so a job survives a restart and the job of a node that stopped runs
 * elsewhere. Each node runs one job at a time: a transcode keeps a core busy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { BlobStore } from '../../platform/blobs/blob-store.js';
import type { SqlDialect } from '../../platform/db/database.js';
import type { Tables } from '../../platform/db/tables.js';
import type { JobHandler, JobLease, JobRunner, JobSettings, RegisteredJobKind } from '../../platform/jobs/job-runner.js';
import { LeaseQueue, type LeaseTable } from '../../platform/jobs/lease-queue.js';
import { probeVideo } from './video-probe.js';
import { previewClip, transcodeToKind, withScratch } from './video-renders.js';
import { PREVIEW_CLIP, transcodedKindsFor, VIDEO_SIZE_KINDS } from './video-sizes.js';
import type { VideoTools } from './video-tools.js';

/** The kind of the preview clip; every other kind is a download size's name. */
export const PREVIEW_KIND = 'preview';
/** The name transcodes are registered under with the node's job runner. */
const VIDEO_TRANSCODE = 'video-transcode';

/** A transcode is a job: pending until a node claims it, running while the node holds it. */
export const TRANSCODE_QUEUE: LeaseTable<'video_transcodes'> = {
  table: 'video_transcodes',
  key: ['original_key', 'kind'],
  order: ['created_at', 'original_key', 'kind'],
  lease: { holder: 'claimed_by', until: 'lease_until' },
  status: { column: 'status', waiting: 'pending', held: 'running' },
  attempts: 'attempts',
  failures: { label: 'Video transcodes', status: 'failed', reason: 'failure', created: 'created_at', finished: 'finished_at', what: 'kind' },
};

export interface TranscodeRow {
  original_key: string;
  kind: string;
  status: string;
  output_key: string | null;
  failure: string | null;
  attempts: number;
  claimed_by: string | null;
  lease_until: string | null;
  created_at: string;
  finished_at: string | null;
}

/** Where a made file is kept: beside the original's other renditions and deliveries, one folder per original. */
export function madeFileKey(originalKey: string, kind: string): string {
  const folder = originalKey.replace(/_/g, '_-').replace(/\//g, '__');
  return kind === PREVIEW_KIND ? `renditions/${folder}/${PREVIEW_CLIP.file}` : `deliveries/${folder}/${kind.replace(/[^A-Za-z0-9_-]+/g, '_')}.mp4`;
}

export class TranscodeRepository {
  /** The transcodes as jobs any node may claim. */
  readonly queue: LeaseQueue<'video_transcodes'>;

  constructor(
    private readonly db: Kysely<Tables>,
    dialect: SqlDialect,
  ) {
    this.queue = new LeaseQueue(db, dialect, TRANSCODE_QUEUE);
  }

  find(originalKey: string, kind: string): Promise<TranscodeRow | undefined> {
    return this.db.selectFrom('video_transcodes').selectAll().where('original_key', '=', originalKey).where('kind', '=', kind).executeTakeFirst();
  }

  /** Queues the job unless it is already known (whatever its state). */
  async enqueue(originalKey: string, kind: string, now: Date): Promise<void> {
    await this.db
      .insertInto('video_transcodes')
      .values({ original_key: originalKey, kind, status: 'pending', created_at: now.toISOString() })
      .onConflict((conflict) => conflict.columns(['original_key', 'kind']).doNothing())
      .execute();
  }

  /** Queues a done job again (its file went missing from the store). */
  async redo(originalKey: string, kind: string): Promise<void> {
    await this.db
      .updateTable('video_transcodes')
      .set({ status: 'pending', output_key: null, claimed_by: null, lease_until: null, attempts: 0, finished_at: null })
      .where('original_key', '=', originalKey)
      .where('kind', '=', kind)
      .where('status', '=', 'done')
      .execute();
  }

  complete(row: TranscodeRow, node: string, outputKey: string | null, now: Date): Promise<boolean> {
    return this.queue.finish(row, node, { status: 'done', output_key: outputKey, finished_at: now.toISOString() });
  }

  async fail(row: TranscodeRow, node: string, reason: string, now: Date): Promise<void> {
    await this.queue.finish(row, node, { status: 'failed', failure: reason.slice(0, 2000), finished_at: now.toISOString() });
  }
}

export interface TranscodeJobsOptions {
  /** The node's job runner, which claims the jobs and hands them to this handler. */
  runner: JobRunner;
  repository: TranscodeRepository;
  blobs: BlobStore;
  tools: VideoTools;
  /** How this node runs transcodes: one at a time, or none (others may). */
  job: JobSettings & { concurrency: 0 | 1 };
  timeoutMs: number;
  log: Logger;
  now: () => Date;
}

/** The transcode jobs, as a handler of the node's job runner: one at a time on a node. */
export class TranscodeJobs implements JobHandler<'video_transcodes'> {
  readonly queue: LeaseQueue<'video_transcodes'>;
  private readonly kind: RegisteredJobKind;

  constructor(private readonly options: TranscodeJobsOptions) {
    this.queue = options.repository.queue;
    this.kind = options.runner.register(VIDEO_TRANSCODE, this, options.job);
  }

  /** Looks for work now (a job was just queued here). */
  wake(): void {
    this.kind.wake();
  }

  async run(job: TranscodeRow, lease: JobLease): Promise<void> {
    const outputKey = await this.make(job, lease.signal);
    if (lease.signal.aborted) return;
    if (!(await this.options.repository.complete(job, lease.node, outputKey, this.options.now()))) {
      this.options.log.warn({ original: job.original_key, kind: job.kind }, 'a transcode finished after another node took it over');
    }
  }

  async fail(job: TranscodeRow, error: unknown, lease: JobLease): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    this.options.log.warn({ original: job.original_key, kind: job.kind, reason }, 'video transcode failed');
    await this.options.repository.fail(job, lease.node, reason, this.options.now());
  }

  /** Makes the job's file and stores it; null when the original itself is that file (it is no larger). */
  private async make(job: TranscodeRow, signal: AbortSignal): Promise<string | null> {
    const { blobs, tools } = this.options;
    const kind = VIDEO_SIZE_KINDS.find((candidate) => candidate.name === job.kind);
    if (job.kind !== PREVIEW_KIND && kind === undefined) throw new Error(`unknown video size '${job.kind}'`);
    return withScratch(async (dir) => {
      const input = path.join(dir, `original${path.extname(job.original_key) || '.bin'}`);
      await copyBlobToFile(blobs, job.original_key, input);
      const facts = await probeVideo(tools, input);
      const output = path.join(dir, 'made.mp4');
      const run = { timeoutMs: this.options.timeoutMs, signal };
      if (kind === undefined) await previewClip(tools, input, output, facts, run);
      else if (!transcodedKindsFor(facts.width, facts.height).includes(kind)) return null;
      else await transcodeToKind(tools, input, output, facts, kind, run);
      const key = madeFileKey(job.original_key, job.kind);
      await blobs.putFile(key, output);
      return key;
    });
  }
}

/** Streams a stored file to a local one (ffmpeg reads files that it can seek in); never the whole file in memory. */
export async function copyBlobToFile(blobs: BlobStore, key: string, file: string): Promise<void> {
  const source = await blobs.stream(key);
  if (source === undefined) throw new Error(`the original ${key} is missing from the blob store`);
  await pipeline(source, fs.createWriteStream(file));
}
