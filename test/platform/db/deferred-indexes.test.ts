import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogRepository } from '../../../src/catalog/catalog.repository.js';
import type { AssetInput } from '../../../src/catalog/catalog.records.js';
import { sql } from 'kysely';
import { fitForLongWrites, migrateToLatest } from '../../../src/platform/db/database.js';
import { deferIndexesForInitialLoad, indexExists, restoreDeferredIndexes } from '../../../src/platform/db/deferred-indexes.js';
import { STORES, openTestStore, type TestStore } from '../../helpers/test-store.js';

/*
 * An initial load into an empty SQLite store leaves the index by keyword out while it writes and
 * builds it at the end; a store that holds assets keeps it, and so does PostgreSQL. A store left
 * without it (the load was stopped) gets it back at the next command's start (migrateToLatest).
 */

const INDEX = 'asset_keywords_keyword_idx';

function asset(n: number): AssetInput {
  const keywords = [100 + (n % 3), 200 + (n % 5)].map((id) => ({ keyword_id: String(id), text: `word ${id}` }));
  return { asset_type: 'image', id: `d-${n}`, fields: { title: `Deferred ${n}`, asset_family: 'creative', keywords, event_ids: [] } };
}

describe.each(STORES)('the index left out by an initial load ($name)', ({ name, url }) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore(url);
  });
  afterEach(async () => {
    await store.drop();
  });

  it('is dropped for a load into an empty store on SQLite only, and built again by restoreDeferredIndexes', async () => {
    const dropped = await deferIndexesForInitialLoad(store.database);
    expect(dropped).toEqual(name === 'sqlite' ? [INDEX] : []);
    expect(await indexExists(store.database, INDEX)).toBe(name !== 'sqlite');
    const repository = new CatalogRepository(store.database);
    await repository.upsertAssets([asset(1), asset(2), asset(3)]);
    expect(await restoreDeferredIndexes(store.database)).toEqual(dropped);
    expect(await indexExists(store.database, INDEX)).toBe(true);
    // Built once: a second call finds it.
    expect(await restoreDeferredIndexes(store.database)).toEqual([]);
  });

  it('is built on a connection fitted for long writes, whose temp_store (memory) is the same after', async () => {
    await fitForLongWrites(store.database);
    const dropped = await deferIndexesForInitialLoad(store.database);
    const repository = new CatalogRepository(store.database);
    await repository.upsertAssets([asset(1), asset(2)]);
    expect(await restoreDeferredIndexes(store.database)).toEqual(dropped);
    expect(await indexExists(store.database, INDEX)).toBe(true);
    if (name === 'sqlite') {
      const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(store.database.db);
      expect(rows[0]!.temp_store).toBe(2);
    }
  });

  it('stays when the store already holds an asset', async () => {
    const repository = new CatalogRepository(store.database);
    await repository.upsertAsset(asset(1));
    expect(await deferIndexesForInitialLoad(store.database)).toEqual([]);
    expect(await indexExists(store.database, INDEX)).toBe(true);
  });

  it('is built again at the next start (migrateToLatest) when a stopped load left it out', async () => {
    const dropped = await deferIndexesForInitialLoad(store.database);
    const repository = new CatalogRepository(store.database);
    await repository.upsertAssets([asset(1), asset(2)]);
    expect(await migrateToLatest(store.database)).toEqual({ rebuiltIndexes: dropped });
    expect(await indexExists(store.database, INDEX)).toBe(true);
    // The links are all there, once each, and the index answers by keyword.
    const byKeyword = await store.database.db.selectFrom('asset_keywords').select('asset_id').where('keyword_id', '=', 101).orderBy('asset_id').execute();
    expect(byKeyword.map((row) => row.asset_id)).toEqual(['d-1']);
    expect(Number((await store.database.db.selectFrom('asset_keywords').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(4);
  });
});
