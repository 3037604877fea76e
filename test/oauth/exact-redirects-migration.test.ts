import { randomBytes } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, stockroomMigrations, type Database } from '../../src/platform/db/database.js';
import { sha256Hex } from '../../src/platform/crypto/secrets.js';
import { STORES } from '../helpers/test-store.js';

/*
 * Migration 0019 holds the catalogue browser's clients registered before it to their callback
 * exactly: an install upgraded in place is no longer open to a localhost redirect. Its clients
 * are the ones the settings remember (`web_client:<callback>`); every other client keeps the
 * local-redirect exemption.
 */
describe.each(STORES)('migration 0019 on an existing install ($name)', ({ url }) => {
  it('marks the browser’s clients exact, and no other', async () => {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const database: Database = await openDatabase(url ? { url, pgSchema: schema } : { sqliteFile: ':memory:' });
    try {
      // The install as it was before 0019.
      // (Later migrations too are left out: the migrator applies migrations in order only.)
      const before = Object.fromEntries(Object.entries(stockroomMigrations(database.dialect)).filter(([name]) => name < '0019'));
      const migrationTableSchema = url ? schema : undefined;
      const { error } = await new Migrator({ db: database.db, provider: { getMigrations: async () => before }, ...(migrationTableSchema ? { migrationTableSchema } : {}) }).migrateToLatest();
      expect(error).toBeUndefined();
      const insertClient = async (name: string, key: string) => {
        await sql`insert into api_clients (name, key_hash, key_hint, secret_hash, sandbox, queries_per_second, queries_per_day, disabled, created_at, confidential, redirect_uris)
          values (${name}, ${sha256Hex(key)}, ${key.slice(-4)}, '', 0, null, null, 0, ${new Date().toISOString()}, 0, '[]')`.execute(database.db);
      };
      await insertClient('Stockroom web', 'webclientkey0000000000001');
      await insertClient('A developer’s app', 'thirdpartykey000000000002');
      await sql`insert into settings (key, value) values ('web_client:https://stockroom.example/signin/callback', 'webclientkey0000000000001')`.execute(database.db);

      await migrateToLatest(database);
      const rows = await database.db.selectFrom('api_clients').select(['name', 'exact_redirects']).orderBy('name').execute();
      expect(rows).toEqual([
        { name: 'A developer’s app', exact_redirects: 0 },
        { name: 'Stockroom web', exact_redirects: 1 },
      ]);
    } finally {
      await database.close();
      if (url) {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      }
    }
  });
});
