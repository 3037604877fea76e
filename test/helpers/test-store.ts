import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateToLatest, openDatabase, type Database } from '../../src/platform/db/database.js';

export const POSTGRES_URL = process.env.STOCKROOM_TEST_DATABASE_URL;
export const REDIS_URL = process.env.STOCKROOM_TEST_REDIS_URL;

/** The stores a storage suite runs against: SQLite always, PostgreSQL when configured. */
export const STORES: ReadonlyArray<{ name: 'sqlite' | 'postgres'; url: string | undefined }> = [
  { name: 'sqlite', url: undefined },
  ...(POSTGRES_URL ? [{ name: 'postgres' as const, url: POSTGRES_URL }] : []),
];

export interface TestStore {
  database: Database;
  drop(): Promise<void>;
}

/** A fresh, migrated store: an in-memory SQLite, or a schema of its own in the test PostgreSQL. */
export async function openTestStore(url: string | undefined): Promise<TestStore> {
  if (!url) {
    const database = await openDatabase({ sqliteFile: ':memory:' });
    await migrateToLatest(database);
    return { database, drop: () => database.close() };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const database = await openDatabase({ url, pgSchema: schema });
  await migrateToLatest(database);
  return {
    database,
    async drop() {
      // The app may have closed the pool already.
      await database.close().catch(() => undefined);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

