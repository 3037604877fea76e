import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import {
  Kysely,
  sql,
  type CompiledQuery,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  type Migration,
  type MigrationProvider,
} from 'kysely';
import type { Tables } from './tables.js';
import { foundation } from './migrations/0001-foundation.js';
import { search } from './migrations/0002-search.js';
import { oauth } from './migrations/0003-oauth.js';
import { licensing } from './migrations/0004-licensing.js';
import { counts } from './migrations/0005-counts.js';
import { userStatus } from './migrations/0006-user-status.js';
import { boards } from './migrations/0007-boards.js';
import { reportingAndOrders } from './migrations/0008-reporting-and-orders.js';
import { assetChanges } from './migrations/0009-asset-changes.js';
import { assetSends } from './migrations/0010-asset-sends.js';
import { changeLogFamily } from './migrations/0011-change-log-family.js';
import { generation } from './migrations/0012-generation.js';
import { video } from './migrations/0013-video.js';
import { mediaFacts } from './migrations/0014-media-facts.js';
import { assetEditCost } from './migrations/0016-asset-edit-cost.js';
import { web } from './migrations/0017-web.js';
import { uploadOwners } from './migrations/0018-upload-owners.js';
import { exactRedirects } from './migrations/0019-exact-redirects.js';
import { boardArrangement } from './migrations/0020-board-arrangement.js';
import { staff } from './migrations/0021-staff.js';
import { assetPublication } from './migrations/0022-asset-publication.js';
import { assetUploads } from './migrations/0023-asset-uploads.js';
import { searchSnapshotLease } from './migrations/0024-search-snapshot-lease.js';
import { ingestCheckpoints } from './migrations/0025-ingest-checkpoints.js';
import { restoreDeferredIndexes } from './deferred-indexes.js';

export type SqlDialect = 'sqlite' | 'postgres';

/** The store: one Kysely instance over SQLite or PostgreSQL. */
export interface Database {
  readonly db: Kysely<Tables>;
  readonly dialect: SqlDialect;
  /**
   * Runs a compiled select and gives its rows as arrays, each the select list's values in its
   * order. For the reads of the whole catalogue: both drivers make a row object by setting each
   * column through their native interface, and a page of the boot's scan is mostly that (a
   * million asset rows of 24 columns on SQLite: 19.7 s as the driver's objects, 8.0 s as arrays
   * put into object literals). It waits for the connection as any query does (SQLite's one
   * connection is not read in the middle of another caller's transaction).
   */
  readArrays(query: CompiledQuery): Promise<unknown[][]>;
  /** How another process opens this same store; absent when none can (a SQLite in memory). */
  readonly reopen?: DatabaseOptions | undefined;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… ; absent means SQLite at sqliteFile. */
  url?: string | undefined;
  sqliteFile?: string;
  /** PostgreSQL schema to live in (tests use one schema per suite). */
  pgSchema?: string;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) return { ...(await openPostgres(options.url, options.pgSchema)), reopen: { url: options.url, ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}) } };
  const file = options.sqliteFile ?? ':memory:';
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: keepingTheFirstError(sqlite) }) });
  // Kysely's connection is held for the read: no transaction of another caller is open on it meanwhile.
  const readArrays = (query: CompiledQuery) =>
    db.connection().execute(async () => sqlite.prepare(query.sql).raw(true).all(...query.parameters) as unknown[][]);
  return { db, dialect: 'sqlite', readArrays, reopen: file === ':memory:' ? undefined : { sqliteFile: path.resolve(file) }, close: () => db.destroy() };
}

/**
 * SQLite rolls a transaction back by itself when a write fails with SQLITE_FULL (a full disk),
 * SQLITE_IOERR or SQLITE_NOMEM; Kysely's own ROLLBACK after it then fails ("cannot rollback - no
 * transaction is active"), and that error would reach the caller instead of the one that says
 * what happened. A ROLLBACK with no transaction open is therefore nothing here.
 */
function keepingTheFirstError(sqlite: SqliteDatabase.Database): { close(): void; prepare(source: string): SqliteDatabase.Statement } {
  const nothing = sqlite.prepare('select 1 where 0');
  const prepare = reusingWrites(sqlite);
  return {
    close: () => sqlite.close(),
    prepare: (source) => (source === 'rollback' && !sqlite.inTransaction ? nothing : prepare(source)),
  };
}

/** How many compiled writes a connection keeps for reuse, the least recently used dropped first. */
const REUSED_WRITES = 128;

/**
 * Kysely compiles every query it runs (better-sqlite3's prepare) and drops it after; a write of
 * many rows to a statement (an ingest's batch: thousands of parameters) costs more to compile
 * than to run. Statements that return no rows are kept, by their text, and run again: such a
 * statement runs to its end at once, so it is never still in use when asked for again. A
 * statement that returns rows is not kept: a stream may be reading it.
 */
function reusingWrites(sqlite: SqliteDatabase.Database): (source: string) => SqliteDatabase.Statement {
  const kept = new Map<string, SqliteDatabase.Statement>();
  return (source) => {
    const statement = kept.get(source);
    if (statement !== undefined) {
      // Moved to the end: the map's order is its use.
      kept.delete(source);
      kept.set(source, statement);
      return statement;
    }
    const prepared = sqlite.prepare(source);
    if (!prepared.reader) {
      kept.set(source, prepared);
      if (kept.size > REUSED_WRITES) kept.delete(kept.keys().next().value!);
    }
    return prepared;
  };
}

/**
 * SQLite's page cache for a process that writes a long run of records (stockroom ingest), in
 * KiB. A batch's keyword links go to pages all over the index by keyword, which grows with the
 * catalogue; with better-sqlite3's default cache (16 MB) those pages are read back from the file
 * and spilled to the journal before the commit, and the batches slow down as the store grows.
 * The cache is a bound, not a growth: memory stays flat once it is full.
 */
const LONG_WRITES_CACHE_KIB = 65_536;

/**
 * How many pages the write-ahead log of such a process holds before a commit copies them into
 * the store (SQLite's default: 1,000). A batch of an ingest writes more pages than that, so at
 * the default every commit is followed by a checkpoint, and a page that each batch changes (the
 * index by keyword's, the keywords') is copied once per batch; with room for several batches it
 * is copied once per checkpoint. 16,384 pages of 4 KiB: a log of 64 MB at most, as much as the
 * cache. Durability is unchanged: a commit is in the log either way, and a checkpoint only moves
 * committed pages (100,000 lines, two pairs of runs in turn: 41.2 → 34.9 and 34.6 → 31.2 CPU s).
 */
const LONG_WRITES_CHECKPOINT_PAGES = 16_384;

/**
 * Where such a process keeps its statement journals: in memory. A statement that writes many rows
 * (the repository's inserts of a few hundred rows each) first copies every page it changes into
 * a statement journal, so that a constraint failing half-way undoes only that statement; in a
 * file that is a write system call per page, about four a manifest line (strace over 12,000
 * lines: 126,000 writes, 24,000 with the journals in memory; 50,000 lines: 3.9 → 3.0 system CPU
 * s). A statement's journal lives only until the statement ends. The sort of a deferred index's
 * build goes to files all the same (restoreDeferredIndexes).
 */
const LONG_WRITES_TEMP_STORE = 'memory';

/**
 * Makes this process's connection fit a long run of writes (see LONG_WRITES_CACHE_KIB,
 * LONG_WRITES_CHECKPOINT_PAGES and LONG_WRITES_TEMP_STORE). The journal and its durability are those of every connection
 * (WAL, synchronous NORMAL). Nothing to do on PostgreSQL, whose server keeps its own cache.
 */
export async function fitForLongWrites(database: Database): Promise<void> {
  if (database.dialect !== 'sqlite') return;
  await sql.raw(`pragma cache_size = -${LONG_WRITES_CACHE_KIB}`).execute(database.db);
  await sql.raw(`pragma wal_autocheckpoint = ${LONG_WRITES_CHECKPOINT_PAGES}`).execute(database.db);
  await sql.raw(`pragma temp_store = ${LONG_WRITES_TEMP_STORE}`).execute(database.db);
}

/**
 * The PostgreSQL client, loaded when a PostgreSQL store is first opened, not at start: a node on
 * SQLite (the default) does not hold it.
 */
async function loadPostgresClient(): Promise<typeof pg> {
  const { default: client } = await import('pg');
  // PostgreSQL returns int8 (bigserial, count(*)) as strings; every such value here fits a JS number.
  client.types.setTypeParser(client.types.builtins.INT8, (value) => Number(value));
  return client;
}

async function openPostgres(url: string, schema: string | undefined): Promise<Database> {
  const pg = await loadPostgresClient();
  // A server that does not answer a connection within a few seconds fails the request (503)
  // instead of holding it: requests fail fast while PostgreSQL is down or restarting.
  const poolOptions: pg.PoolConfig = { connectionString: url, max: 10, connectionTimeoutMillis: 3000 };
  if (schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    try {
      await setup.query(`create schema if not exists ${schema}`);
    } finally {
      await setup.end();
    }
    poolOptions.options = `-c search_path=${schema}`;
  }
  const pool = new pg.Pool(poolOptions);
  // A failed idle connection must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  // A connection in use when PostgreSQL stops or restarts (a transaction between statements)
  // reports it as an 'error' event the pool only listens for while the connection is idle;
  // unheard, it would end the process. Its query fails instead, and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  const readArrays = async (query: CompiledQuery) => {
    const result = await pool.query<unknown[]>({ text: query.sql, values: [...query.parameters], rowMode: 'array' });
    return result.rows;
  };
  return { db, dialect: 'postgres', readArrays, close: () => db.destroy() };
}

/** Every migration, by name, in the order they apply. */
export function stockroomMigrations(dialect: SqlDialect): Record<string, Migration> {
  return {
    '0001-foundation': foundation(dialect),
    '0002-search': search(dialect),
    '0003-oauth': oauth(dialect),
    '0004-licensing': licensing(dialect),
    '0005-counts': counts(dialect),
    '0006-user-status': userStatus(dialect),
    '0007-boards': boards(dialect),
    '0008-reporting-and-orders': reportingAndOrders(dialect),
    '0009-asset-changes': assetChanges(dialect),
    '0010-asset-sends': assetSends(dialect),
    '0011-change-log-family': changeLogFamily(dialect),
    '0012-generation': generation(dialect),
    '0013-video': video(),
    '0014-media-facts': mediaFacts(dialect),
    '0016-asset-edit-cost': assetEditCost(dialect),
    '0017-web': web(dialect),
    '0018-upload-owners': uploadOwners(dialect),
    '0019-exact-redirects': exactRedirects(),
    '0020-board-arrangement': boardArrangement(),
    '0021-staff': staff(dialect),
    '0022-asset-publication': assetPublication(),
    '0023-asset-uploads': assetUploads(),
    '0024-search-snapshot-lease': searchSnapshotLease(),
    '0025-ingest-checkpoints': ingestCheckpoints(),
  };
}

/**
 * Applies every migration not yet applied, then builds any index an initial load left out and did
 * not put back (it was stopped: see deferIndexesForInitialLoad); run at boot by every command.
 * Returns the names of the indexes so built, for the log.
 */
export async function migrateToLatest(database: Database): Promise<{ rebuiltIndexes: readonly string[] }> {
  const migrations = stockroomMigrations(database.dialect);
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  // On PostgreSQL the migrator must look for its bookkeeping tables in our own schema only:
  // a database may hold other Stockroom schemas (one per test suite, or per tenant).
  const migrationTableSchema =
    database.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({ db: database.db, provider, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
  return { rebuiltIndexes: await restoreDeferredIndexes(database) };
}
