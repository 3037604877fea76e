/**
 * Files made from video originals — the smaller download sizes and the preview clip — as jobs
 * in the store: one row per original and kind, claimed by one node at a time under a lease it
 * renews (FOR UPDATE SKIP LOCKED on PostgreSQL, so nodes claiming at once take different jobs),
 * so a job survives a restart and the job of a node that stopped runs elsewhere. Each node runs
 * one job at a time: a transcode keeps a core busy.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { sql, type Kysely, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { Logger } from 'pino';
import type { BlobStore } from '../../platform/blobs/blob-store.js';
import type { SqlDialect } from '../../platform/db/database.js';
import type { Tables } from '../../platform/db/tables.js';
import { probeVideo } from './video-probe.js';
import { previewClip, transcodeToKind, withScratch } from './video-renders.js';
import { PREVIEW_CLIP, transcodedKindsFor, VIDEO_SIZE_KINDS } from './video-sizes.js';
import type { VideoTools } from './video-tools.js';
import { isStoreUnavailable } from '../../platform/http/error-handler.js';

/** The kind of the preview clip; every other kind is a download size's name. */
export const PREVIEW_KIND = 'preview';
/** How many times a job is started before an interruption counts as its failure. */
const MAX_ATTEMPTS = 3;

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
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
  ) {}

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

  /** The oldest job that is pending or whose lease lapsed, now this node's; undefined when there is none. */
  async claim(node: string, now: Date, leaseUntil: Date): Promise<TranscodeRow | undefined> {
    const nowIso = now.toISOString();
    const lock = this.dialect === 'postgres' ? sql` for update skip locked` : sql``;
    const result = await sql<TranscodeRow>`
      update video_transcodes
         set status = 'running', claimed_by = ${node}, lease_until = ${leaseUntil.toISOString()}, attempts = attempts + 1
       where (original_key, kind) in (select original_key, kind from video_transcodes
                                        where status = 'pending' or (status = 'running' and lease_until < ${nowIso})
                                        order by created_at, original_key, kind
                                        limit 1${lock})
         and (status = 'pending' or (status = 'running' and lease_until < ${nowIso}))
      returning *`.execute(this.db);
    return result.rows[0];
  }

  async renew(row: TranscodeRow, node: string, leaseUntil: Date): Promise<boolean> {
    const result = await this.mine(this.db.updateTable('video_transcodes').set({ lease_until: leaseUntil.toISOString() }), row, node).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async complete(row: TranscodeRow, node: string, outputKey: string | null, now: Date): Promise<boolean> {
    const result = await this.mine(
      this.db.updateTable('video_transcodes').set({ status: 'done', output_key: outputKey, lease_until: null, finished_at: now.toISOString() }),
      row,
      node,
    ).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async fail(row: TranscodeRow, node: string, reason: string, now: Date): Promise<void> {
    await this.mine(
      this.db.updateTable('video_transcodes').set({ status: 'failed', failure: reason.slice(0, 2000), lease_until: null, finished_at: now.toISOString() }),
      row,
      node,
    ).execute();
  }

  /** Gives back this node's claims (it is stopping). */
  async release(node: string): Promise<void> {
    await this.db.updateTable('video_transcodes').set({ status: 'pending', claimed_by: null, lease_until: null }).where('claimed_by', '=', node).where('status', '=', 'running').execute();
  }

  /** On SQLite the one process is every runner there is: a job 'running' at its start was interrupted. */
  async releaseAll(): Promise<void> {
    await this.db.updateTable('video_transcodes').set({ status: 'pending', claimed_by: null, lease_until: null }).where('status', '=', 'running').execute();
  }

  /** The update narrowed to the job while it is this node's and running. */
  private mine(query: UpdateQueryBuilder<Tables, 'video_transcodes', 'video_transcodes', UpdateResult>, row: TranscodeRow, node: string) {
    return query.where('original_key', '=', row.original_key).where('kind', '=', row.kind).where('claimed_by', '=', node).where('status', '=', 'running');
  }
}

export interface TranscodeRunnerOptions {
  repository: TranscodeRepository;
  blobs: BlobStore;
  tools: VideoTools;
  /** Whether this node runs jobs at all (others may). */
  enabled: boolean;
  leaseMs: number;
  timeoutMs: number;
  /** How often an idle runner looks for jobs other nodes queued. */
  pollMs?: number;
  /** SQLite: this process is the only runner, so a job found running at start was interrupted. */
  soleRunner: boolean;
  log: Logger;
  now: () => Date;
}

/** Runs the transcode jobs on this node, one at a time. */
export class TranscodeRunner {
  readonly node = `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private working: Promise<void> | undefined;
  private current: AbortController | undefined;

  constructor(private readonly options: TranscodeRunnerOptions) {}

  async start(): Promise<void> {
    if (!this.options.enabled) return;
    if (this.options.soleRunner) await this.options.repository.releaseAll();
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.options.pollMs ?? 1000);
    this.timer.unref();
    this.wake();
  }

  /** Looks for work now (a job was just queued here). */
  wake(): void {
    if (this.stopped || this.working) return;
    this.working = this.drain()
      .catch((error: unknown) => this.options.log.error({ err: error }, 'claiming video transcode jobs failed'))
      .finally(() => {
        this.working = undefined;
      });
  }

  /** Stops claiming, stops the running ffmpeg, and gives this node's job back to the queue. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.current?.abort();
    await this.working;
    await this.options.repository.release(this.node).catch(() => undefined);
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      const now = this.options.now();
      const job = await this.options.repository.claim(this.node, now, new Date(now.getTime() + this.options.leaseMs));
      if (!job) return;
      await this.run(job);
    }
  }

  private async run(job: TranscodeRow): Promise<void> {
    const { repository, log } = this.options;
    const controller = new AbortController();
    this.current = controller;
    const renew = setInterval(() => {
      const now = this.options.now();
      repository.renew(job, this.node, new Date(now.getTime() + this.options.leaseMs)).then(
        (still) => {
          if (!still) controller.abort();
        },
        (error: unknown) => log.warn({ err: error, job: job.kind }, 'renewing a transcode lease failed'),
      );
    }, Math.max(50, Math.floor(this.options.leaseMs / 3)));
    try {
      if (job.attempts > MAX_ATTEMPTS) throw new Error(`the job was interrupted ${MAX_ATTEMPTS} times (its node stopped each time)`);
      const outputKey = await this.make(job, controller.signal);
      if (controller.signal.aborted) return;
      if (!(await repository.complete(job, this.node, outputKey, this.options.now()))) {
        log.warn({ original: job.original_key, kind: job.kind }, 'a transcode finished after another node took it over');
      }
    } catch (error) {
      // Stopping gives the job back to the queue rather than failing it.
      if (controller.signal.aborted && this.stopped) return;
      // The store went away (a PostgreSQL restart): not the file's fault; the lease lapses and it runs again.
      if (isStoreUnavailable(error)) {
        log.warn({ err: error, original: job.original_key, kind: job.kind }, 'the store could not be reached during a transcode; it will run again');
        return;
      }
      const reason = error instanceof Error ? error.message : String(error);
      log.warn({ original: job.original_key, kind: job.kind, reason }, 'video transcode failed');
      await repository.fail(job, this.node, reason, this.options.now());
    } finally {
      clearInterval(renew);
      this.current = undefined;
    }
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
