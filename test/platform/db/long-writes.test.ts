import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitForLongWrites } from '../../../src/platform/db/database.js';
import { STORES, openTestStore, type TestStore } from '../../helpers/test-store.js';

/*
 * A SQLite connection keeps the writes it compiled and runs them again (an ingest's batches use
 * the same statement texts over and over); each run takes its own values, whatever the run
 * before it did. A long run of writes gets a page cache and a write-ahead log of its own size (stockroom ingest).
 */

describe.each(STORES)('writes run again by their text ($name)', ({ name, url }) => {
  let store: TestStore;

  beforeAll(async () => {
    store = await openTestStore(url);
  });
  afterAll(async () => {
    await store?.drop();
  });

  it('write the values of each run, after a run refused and after a transaction rolled back', async () => {
    const { db } = store.database;
    const insert = (name: string) => db.insertInto('artists').values({ name }).execute();
    await insert('First');
    await insert('Second');
    // The same text refused (the name is unique), then run again with a new value.
    await expect(insert('First')).rejects.toThrow();
    await insert('Third');
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('artists').values({ name: 'Rolled back' }).execute();
        throw new Error('roll it back');
      }),
    ).rejects.toThrow('roll it back');
    await insert('Fourth');
    const names = await db.selectFrom('artists').select('name').orderBy('id').execute();
    expect(names.map((row) => row.name)).toEqual(['First', 'Second', 'Third', 'Fourth']);
  });

  it('fit a connection for a long run of writes: a larger page cache and write-ahead log on SQLite, nothing asked of PostgreSQL', async () => {
    await fitForLongWrites(store.database);
    if (store.database.dialect === 'sqlite') {
      const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(store.database.db);
      expect(rows[0]!.cache_size).toBe(-65_536);
      const { rows: checkpoint } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.database.db);
      expect(checkpoint[0]!.wal_autocheckpoint).toBe(16_384);
      const { rows: temp } = await sql<{ temp_store: number }>`pragma temp_store`.execute(store.database.db);
      expect(temp[0]!.temp_store).toBe(2);
    }
  });

  // PostgreSQL ends a transaction at its first failed statement; SQLite goes on, which is what its statement journals are for.
  it.skipIf(name !== 'sqlite')('undo only the statement that fails half-way on a fitted connection (its journal in memory), the transaction going on', async () => {
    await fitForLongWrites(store.database);
    const { db } = store.database;
    await db.insertInto('artists').values({ name: 'Kept before' }).execute();
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('artists').values({ name: 'In the transaction' }).execute();
      // Many rows in one statement, the last one refused (the name is unique): none of its rows stays.
      const rows = Array.from({ length: 300 }, (_, n) => ({ name: `Half-way ${n}` }));
      await expect(trx.insertInto('artists').values([...rows, { name: 'Kept before' }]).execute()).rejects.toThrow();
      await trx.insertInto('artists').values({ name: 'After the refusal' }).execute();
    });
    const names = await db.selectFrom('artists').select('name').where('name', 'in', ['Kept before', 'In the transaction', 'After the refusal']).orderBy('id').execute();
    expect(names.map((row) => row.name)).toEqual(['Kept before', 'In the transaction', 'After the refusal']);
    const halfWay = await db.selectFrom('artists').select('name').where('name', 'like', 'Half-way%').execute();
    expect(halfWay).toEqual([]);
  });
});
