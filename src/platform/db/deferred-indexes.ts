import { sql } from 'kysely';
import type { Database } from './database.js';

/**
 * A secondary index that an initial load into an empty store may leave out while it writes,
 * and build at the end, as pg_restore does: one sorted build instead of an entry put into the
 * B-tree for every row, at a page of its own. Only a non-unique index: the unique ones (the
 * primary keys) are what makes a resumed ingest find the rows it had stored.
 */
interface DeferrableIndex {
  readonly name: string;
  readonly table: string;
  readonly column: string;
}

/** The keyword links' index by keyword (0001-foundation): some fifteen entries a line of a manifest. */
const DEFERRABLE_INDEXES: readonly DeferrableIndex[] = [{ name: 'asset_keywords_keyword_idx', table: 'asset_keywords', column: 'keyword_id' }];

/**
 * Drops the deferrable indexes when the store holds no assets yet, for a long run of writes
 * (stockroom ingest) that puts them back with restoreDeferredIndexes at its end; a run stopped
 * before that leaves them missing, and every command's start (migrateToLatest) builds them again.
 * Returns the names dropped: none when the store holds assets.
 *
 * SQLite only. On PostgreSQL the indexes stay: a store there is shared by the cluster's nodes,
 * which go on reading it, DROP INDEX waits for and then blocks every reader of the table, and the
 * gain was measured on SQLite only.
 */
export async function deferIndexesForInitialLoad(database: Database): Promise<readonly string[]> {
  if (database.dialect !== 'sqlite') return [];
  const anyAsset = await database.db.selectFrom('assets').select('id').limit(1).executeTakeFirst();
  if (anyAsset !== undefined) return [];
  const dropped: string[] = [];
  for (const index of DEFERRABLE_INDEXES) {
    if (!(await indexExists(database, index.name))) continue;
    await sql`drop index ${sql.id(index.name)}`.execute(database.db);
    dropped.push(index.name);
  }
  return dropped;
}

/** Builds each deferrable index that is missing (a sorted build of the whole table); returns the names built. */
export async function restoreDeferredIndexes(database: Database): Promise<readonly string[]> {
  const missing: DeferrableIndex[] = [];
  for (const index of DEFERRABLE_INDEXES) if (!(await indexExists(database, index.name))) missing.push(index);
  if (missing.length === 0) return [];
  // The build sorts every entry of the table: in temporary files, never in memory, even on a
  // connection that keeps its statement journals there (fitForLongWrites); put back after.
  const tempStore = database.dialect === 'sqlite' ? await sqliteTempStore(database) : undefined;
  if (tempStore !== undefined) await sql.raw('pragma temp_store = file').execute(database.db);
  try {
    for (const index of missing) {
      await sql`create index if not exists ${sql.id(index.name)} on ${sql.table(index.table)} (${sql.id(index.column)})`.execute(database.db);
    }
  } finally {
    if (tempStore !== undefined) await sql.raw(`pragma temp_store = ${tempStore}`).execute(database.db);
  }
  return missing.map((index) => index.name);
}

/** The connection's temp_store setting (0 default, 1 file, 2 memory). */
async function sqliteTempStore(database: Database): Promise<number> {
  const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(database.db);
  return Number(rows[0]?.temp_store ?? 0);
}

export async function indexExists(database: Database, name: string): Promise<boolean> {
  const found =
    database.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and name = ${name}`.execute(database.db)
      : await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and indexname = ${name}`.execute(database.db);
  return found.rows.length > 0;
}
