import { timingSafeEqual, createHash } from 'node:crypto';
import fs from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import type { Database } from '../db/database.js';
import type { ChangeFeed } from '../db/change-log.js';
import type { BlobStore } from '../blobs/blob-store.js';
import type { Metrics } from '../metrics/metrics.js';
import { STOCKROOM_VERSION } from '../version.js';

/** How long a check may wait for the store, Redis or the blob store before it counts as failing. */
const CHECK_TIMEOUT_MS = 2000;
/**
 * How long one readiness answer is reused: a load balancer's probes from many workers, or a
 * caller hammering /readyz, cost the store one query a second at most.
 */
const READINESS_REUSE_MS = 1000;
/** A local folder with less free space than this (or 1% of its file system, when that is less) counts as full. */
const MIN_FREE_BYTES = 64 * 1024 * 1024;
/**
 * How long a write that met a full disk keeps the storage check failing where no free space can
 * be measured here (PostgreSQL's disk is on its own server).
 */
const STORAGE_FULL_REMEMBERED_MS = 60_000;

/** The blob the readiness check looks for; written once, so that a vanished mount or bucket is noticed. */
const BLOB_MARKER = 'readiness/marker';

export type CheckStatus = 'ok' | 'failing' | 'not configured';

/** A check resolves when the part is fine and throws (or rejects) with the reason when it is not. */
export type ReadinessCheck = () => unknown;

async function passes(check: ReadinessCheck): Promise<{ status: 'ok' | 'failing'; reason?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return { status: 'ok' };
  } catch (error) {
    return { status: 'failing', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckStatus>;
  /** Why each failing check fails, in a few words. */
  failures: Record<string, string>;
}

export interface ReadinessOptions {
  database: Database;
  redis: Redis | undefined;
  blobs: BlobStore;
  changeFeed: ChangeFeed;
  /** How often the change feed reads the log: it is behind when it has not read for several of these. */
  changeFeedIntervalMs: number;
  /** Local folders writes go to (the SQLite store's, the blob folder): the storage check measures their free space. */
  storagePaths?: readonly string[];
}

/**
 * Whether this node can serve. The platform's parts (store, Redis, blob store, change feed) are
 * checked here; a module adds what it needs before serving (search: its index is loaded).
 */
export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();
  /** Checks that are reported but do not make the node unready (Redis: the throttle falls back to local counters). */
  private readonly advisory = new Set<string>();
  private draining = false;
  private lastReport: { at: number; report: Promise<ReadinessReport> } | undefined;
  private markerWritten = false;
  private storageFull: { at: number; reason: string } | undefined;

  constructor(private readonly options: ReadinessOptions) {
    const { database, redis, blobs, changeFeed, changeFeedIntervalMs } = options;
    this.checks.set('store', () => sql`select 1`.execute(database.db));
    if (redis) {
      // Without Redis a node still serves, counting throttle limits on its own (fail open to
      // local limits): every node of a cluster would otherwise leave the balancer at once.
      this.checks.set('redis', () => redis.ping());
      this.advisory.add('redis');
    }
    this.checks.set('blobs', async () => {
      if (!this.markerWritten) {
        await blobs.put(BLOB_MARKER, Buffer.from('stockroom readiness marker\n'));
        this.markerWritten = true;
      }
      if ((await blobs.size(BLOB_MARKER)) === undefined) throw new Error('the blob store lost its marker: is it the same store?');
    });
    this.checks.set('storage', () => this.checkStorage());
    // Every node writes to the same store and blobs: a full disk is reported, but taking the
    // nodes out of the balancer would stop the reads that still work, and help no write.
    this.advisory.add('storage');
    const behindAfterMs = Math.max(5000, 5 * changeFeedIntervalMs);
    this.checks.set('change_feed', () => {
      const readAt = changeFeed.lastReadAt;
      if (readAt === undefined) throw new Error('not following the change log yet');
      const since = Date.now() - readAt;
      if (since > behindAfterMs) throw new Error(`the change log was last read ${Math.round(since / 1000)} s ago`);
    });
  }

  /** A write met a full disk (the error handler's hook tells): the storage check fails for a while where it cannot measure. */
  noteStorageFull(reason: string): void {
    this.storageFull = { at: Date.now(), reason };
    this.lastReport = undefined;
  }

  /**
   * Room to write: every local folder has free space, and no write met a full disk lately on a
   * store whose disk is not measured here. A full disk fails every write while reads still work.
   */
  private checkStorage(): void {
    for (const folder of this.options.storagePaths ?? []) {
      let stats: fs.StatsFs;
      try {
        stats = fs.statfsSync(folder);
      } catch {
        continue;
      }
      const free = stats.bavail * stats.bsize;
      const needed = Math.min(MIN_FREE_BYTES, (stats.blocks * stats.bsize) / 100);
      if (free < needed) throw new Error(`${folder} has ${(free / 1_048_576).toFixed(1)} MB free: writes fail until room is made`);
    }
    const full = this.storageFull;
    if (full && Date.now() - full.at < STORAGE_FULL_REMEMBERED_MS && this.options.database.dialect === 'postgres') {
      throw new Error(`${full.reason} (${Math.round((Date.now() - full.at) / 1000)} s ago)`);
    }
  }

  /** A module's own condition for serving, named as /readyz shows it. */
  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** The node is shutting down: it answers not ready so that a balancer stops sending it requests. */
  drain(): void {
    this.draining = true;
    this.lastReport = undefined;
  }

  /** Every check, run at once; reused for a second. */
  report(): Promise<ReadinessReport> {
    const now = Date.now();
    if (this.lastReport && now - this.lastReport.at < READINESS_REUSE_MS) return this.lastReport.report;
    const report = this.runChecks();
    this.lastReport = { at: now, report };
    return report;
  }

  /** The store, Redis and room to write: what /health answers. */
  async health(): Promise<{ store: CheckStatus; redis: CheckStatus; storage: CheckStatus }> {
    const { database, redis } = this.options;
    const [store, redisCheck, storage] = await Promise.all([
      passes(() => sql`select 1`.execute(database.db)),
      redis ? passes(() => redis.ping()) : Promise.resolve({ status: 'not configured' as const }),
      passes(() => this.checkStorage()),
    ]);
    return { store: store.status, redis: redisCheck.status, storage: storage.status };
  }

  private async runChecks(): Promise<ReadinessReport> {
    const names = [...this.checks.keys()];
    const results = await Promise.all(names.map((name) => passes(this.checks.get(name)!)));
    const checks: Record<string, CheckStatus> = {};
    const failures: Record<string, string> = {};
    if (!this.options.redis) checks.redis = 'not configured';
    names.forEach((name, i) => {
      const result = results[i]!;
      checks[name] = result.status;
      if (result.reason) failures[name] = result.reason;
    });
    if (this.draining) {
      checks.accepting = 'failing';
      failures.accepting = 'the node is shutting down';
    }
    return { ready: Object.keys(failures).every((name) => this.advisory.has(name)), checks, failures };
  }
}

const CheckResult = Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('not configured')]);
const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String(),
  checks: Type.Object({
    store: CheckResult,
    redis: CheckResult,
    storage: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('failing')], { description: 'Room to write: failing when the disk is full (every write then answers 507 InsufficientStorage)' })),
  }),
});
const Alive = Type.Object({ status: Type.Literal('ok'), version: Type.String() }, { description: 'The process answers.' });
const Ready = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not ready')]),
    version: Type.String(),
    checks: Type.Record(Type.String(), CheckResult, {
      description:
        'Each part this node needs: store, blobs, storage (room to write), change_feed, search (and accepting while it shuts down); redis is reported but a node without it still serves, on local throttle counters.',
    }),
    failures: Type.Record(Type.String(), Type.String(), { description: 'Why each failing check fails.' }),
  },
  { description: 'Whether this node can serve, part by part.' },
);

export interface HealthRoutesOptions {
  readiness: Readiness;
}

/**
 * Probes for load balancers and process managers, without a key or the throttle:
 * `/healthz` says the process answers (liveness: restart it if not), `/readyz` whether it can
 * serve (send it requests only then), `/health` the store and Redis, as it always has.
 */
export async function healthRoutes(app: FastifyInstance, options: HealthRoutesOptions): Promise<void> {
  const { readiness } = options;
  const service = { tags: ['service'], security: [] };
  app.get('/healthz', { schema: { ...service, summary: 'Whether this process answers (liveness)', response: { 200: Alive } } }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok', version: STOCKROOM_VERSION }),
  );
  app.get(
    '/readyz',
    { schema: { ...service, summary: 'Whether this node can serve (readiness): store, Redis, blob store, search index, change feed', response: { 200: Ready, 503: Ready } } },
    async (_request, reply) => {
      const { ready, checks, failures } = await readiness.report();
      return reply
        .code(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'ready' : 'not ready', version: STOCKROOM_VERSION, checks, failures });
    },
  );
  app.get(
    '/health',
    { schema: { ...service, summary: 'Whether this node can serve: its store and Redis', response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      const checks = await readiness.health();
      // A full disk fails every write (downloads, purchases): the node is not healthy, though it still reads.
      const healthy = checks.store === 'ok' && checks.redis !== 'failing' && checks.storage !== 'failing';
      return reply
        .code(healthy ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: healthy ? 'ok' : 'unavailable', version: STOCKROOM_VERSION, checks });
    },
  );
}

export interface MetricsRouteOptions {
  metrics: Metrics;
  /** The bearer token a scraper must send. */
  token: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * `/metrics` on the API's own port, for a scraper that sends `Authorization: Bearer <token>`.
 * Registered only when a token is configured; without one there is no such route (404), so the
 * metrics are never public by default. Hidden from the API description: it is not the API.
 */
export async function metricsRoute(app: FastifyInstance, options: MetricsRouteOptions): Promise<void> {
  const expected = digest(options.token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    // Compared as digests, so that neither the length nor the content leaks through timing.
    if (!timingSafeEqual(digest(given), expected)) {
      return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').send({ message: 'The metrics need Authorization: Bearer <STOCKROOM_METRICS_TOKEN>', code: 'Unauthorized' });
    }
    const { contentType, body } = await options.metrics.exposition();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}
