import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { Config } from '../config/config.js';
import { migrateToLatest, openDatabase, type Database } from './db/database.js';
import { ChangeFeed, latestChangeSeq } from './db/change-log.js';
import type { BlobStore } from './blobs/blob-store.js';
import { FilesystemBlobStore } from './blobs/filesystem-blob-store.js';
import { S3BlobStore } from './blobs/s3-blob-store.js';
import { createThrottle, type Throttle } from './throttle/throttle.js';
import { Metrics } from './metrics/metrics.js';
import { Readiness } from './http/health.js';
import { DecodeSlots } from './decode-slots.js';
import { privateFolder, privateStoreFiles, type TightenedMode } from './private-files.js';
import { JobRunner } from './jobs/job-runner.js';

/** What time it is: one clock for every module, so that a test can hold it still. */
export type Clock = () => Date;

/**
 * What every module stands on: the settings, the store, the blobs, Redis when configured, the
 * throttle counters, the change feed that tells each node about writes of the others, a logger
 * and a clock. Opened once; modules never close any of it.
 */
export interface Platform {
  readonly config: Config;
  readonly database: Database;
  readonly blobs: BlobStore;
  readonly redis: Redis | undefined;
  readonly throttle: Throttle;
  readonly changeFeed: ChangeFeed;
  readonly log: Logger;
  readonly clock: Clock;
  /** This node's Prometheus metrics; a module adds its own here. */
  readonly metrics: Metrics;
  /** What /readyz checks; a module adds its own condition for serving here. */
  readonly readiness: Readiness;
  /** Bounds the pictures decoded at once on request paths (STOCKROOM_IMAGE_DECODES): every module's decodes share it. */
  readonly imageDecodes: DecodeSlots;
  /** This node's runner of the jobs in the store; a module registers its kinds of job here. Started only by a serving node. */
  readonly jobs: JobRunner;
  /** Starts reading the change log; called once every module has subscribed. */
  followChanges(): Promise<void>;
  /** Stops the change feed first, so that nothing reaches a module that is closing. */
  stopFollowingChanges(): void;
  close(): Promise<void>;
}

export interface PlatformOverrides {
  /** An open, migrated store to use instead of the configured one (tests). */
  database?: Database;
  blobs?: BlobStore;
  /** How often to read the change log for writes of other processes. */
  changeFeedIntervalMs?: number;
  clock?: Clock;
}

const DEFAULT_CHANGE_FEED_INTERVAL_MS = 1000;

/** Opens the store (migrating it), the blob store and Redis; a failure names the setting to look at. */
export async function openPlatform(config: Config, overrides: PlatformOverrides = {}): Promise<Platform> {
  const log = pino({ level: config.logLevel });
  const tightened: TightenedMode[] = [];
  const database = overrides.database ?? (await openConfiguredStore(config, tightened, log));
  let blobs: BlobStore;
  try {
    if (!overrides.blobs && config.blobs.kind === 'folder') tightened.push(...privateFolder(config.blobs.dir, { keepGroup: true }));
    blobs = overrides.blobs ?? (await openConfiguredBlobs(config));
  } catch (error) {
    await database.close();
    throw error;
  }
  let redis: Redis | undefined;
  try {
    redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  } catch (error) {
    await database.close();
    throw error;
  }
  // An install made before the modes were set keeps working; the log says what changed.
  for (const { path: changed, was, now } of tightened) log.warn({ path: changed, was, now }, 'made a private file or folder private: it was readable by other accounts');
  const metrics = new Metrics();
  const throttle = countingRefusals(createThrottle(redis ? { redis } : {}), metrics);
  const changeFeed = new ChangeFeed(database.db);
  const changeFeedIntervalMs = overrides.changeFeedIntervalMs ?? DEFAULT_CHANGE_FEED_INTERVAL_MS;
  const clock = overrides.clock ?? (() => new Date());
  metrics.gauge('change_feed_lag_changes', "Changes in the store's log that this node has not read yet", async () => Math.max(0, (await latestChangeSeq(database.db)) - changeFeed.position));
  metrics.gauge('change_feed_last_read_age_seconds', 'Seconds since this node last read the change log', () => {
    const readAt = changeFeed.lastReadAt;
    return readAt === undefined ? [] : (Date.now() - readAt) / 1000;
  });
  return {
    config,
    database,
    blobs,
    redis,
    throttle,
    changeFeed,
    log,
    clock,
    metrics,
    readiness: new Readiness({ database, redis, blobs, changeFeed, changeFeedIntervalMs, storagePaths: localStoragePaths(config, blobs) }),
    imageDecodes: new DecodeSlots(config.imageDecodes.concurrency, config.imageDecodes.queue),
    // A SQLite store is one process's: whatever jobs it holds at start, that process held before it stopped.
    jobs: new JobRunner({ soleRunner: database.dialect === 'sqlite', log, now: clock }),
    followChanges: () => changeFeed.start(changeFeedIntervalMs),
    stopFollowingChanges: () => changeFeed.stop(),
    async close() {
      changeFeed.stop();
      await throttle.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await database.close();
      if (blobs instanceof S3BlobStore) blobs.close();
    },
  };
}

/** The local folders writes go to: the SQLite store's data folder, and the blob folder. */
function localStoragePaths(config: Config, blobs: BlobStore): string[] {
  const paths: string[] = [];
  if (!config.databaseUrl) paths.push(config.dataDir);
  if (blobs instanceof FilesystemBlobStore) paths.push(blobs.root);
  return paths;
}

/** The configured blob store; an S3 bucket must answer at start-up, so that a wrong setting stops the boot with its name. */
export async function openConfiguredBlobs(config: Config): Promise<BlobStore> {
  if (config.blobs.kind === 'folder') return new FilesystemBlobStore(config.blobs.dir);
  const store = new S3BlobStore(config.blobs.location, { pathStyle: config.blobs.pathStyle });
  try {
    await store.checkReachable('STOCKROOM_BLOBS');
  } catch (error) {
    store.close();
    throw error;
  }
  return store;
}

/** The throttle, counting what it refuses in the metrics. */
function countingRefusals(throttle: Throttle, metrics: Metrics): Throttle {
  const refusals = { second: metrics.throttleRefusals.labels('second'), day: metrics.throttleRefusals.labels('day') };
  return {
    async consume(key, limits) {
      const decision = await throttle.consume(key, limits);
      if (!decision.allowed) refusals[decision.exceeded].inc();
      return decision;
    },
    close: () => throttle.close(),
  };
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The configured store, reachable and migrated; a failure names the setting to look at. */
async function openConfiguredStore(config: Config, tightened: TightenedMode[], log: Logger): Promise<Database> {
  const setting = config.databaseUrl ? 'DATABASE_URL' : 'STOCKROOM_DATA_DIR';
  const sqliteFile = path.join(config.dataDir, 'stockroom.sqlite');
  if (!config.databaseUrl) {
    try {
      // The store holds the URL-signing and session-sealing keys: the folder and the store are the owner's alone.
      tightened.push(...privateFolder(config.dataDir));
      fs.accessSync(config.dataDir, fs.constants.W_OK);
      tightened.push(...privateStoreFiles(sqliteFile));
    } catch (error) {
      throw new Error(`STOCKROOM_DATA_DIR: cannot use ${config.dataDir} (${reason(error)})`);
    }
  }
  let database: Database;
  try {
    database = await openDatabase({ url: config.databaseUrl, sqliteFile });
    await sql`select 1`.execute(database.db);
  } catch (error) {
    throw new Error(`${setting}: cannot open the store (${reason(error)})`);
  }
  const { rebuiltIndexes } = await migrateToLatest(database);
  if (rebuiltIndexes.length > 0) log.warn({ indexes: rebuiltIndexes }, 'built indexes that an initial load had left out and was stopped before it built them');
  return database;
}

/**
 * Redis for shared throttle counters. A stalled command gives up after a short time so the
 * throttle's in-memory fallback answers instead; an unreachable Redis at boot stops the boot.
 */
async function connectRedis(url: string): Promise<Redis> {
  // Loaded only when Redis is configured: a single node without it does not hold the client.
  const { Redis } = await import('ioredis');
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
    throw new Error(`REDIS_URL: cannot reach Redis (${reason(error)})`);
  }
  return redis;
}
