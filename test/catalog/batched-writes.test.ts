import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogRepository, insertSizes } from '../../src/catalog/catalog.repository.js';
import type { AssetInput } from '../../src/catalog/catalog.records.js';
import { STORES, openTestStore, type TestStore } from '../helpers/test-store.js';

/*
 * A batch's rows go in by multi-row inserts of a few sizes only (powers of two), so that SQLite
 * compiles each statement text once; its keyword links go in keyword order. Neither changes what
 * is stored or read back.
 */

describe('the sizes of a batch’s multi-row inserts', () => {
  it('are full statements, then the rest in falling powers of two', () => {
    expect(insertSizes(437, 512)).toEqual([256, 128, 32, 16, 4, 1]);
    expect(insertSizes(1_100, 512)).toEqual([512, 512, 64, 8, 4]);
    expect(insertSizes(512, 512)).toEqual([512]);
    expect(insertSizes(3, 1)).toEqual([1, 1, 1]);
    expect(insertSizes(0, 512)).toEqual([]);
  });

  it('add up to every row, each size one of a few', () => {
    const sizes = new Set<number>();
    for (let total = 1; total <= 5_000; total++) {
      const parts = insertSizes(total, 512);
      expect(parts.reduce((sum, n) => sum + n, 0)).toBe(total);
      for (const n of parts) sizes.add(n);
    }
    expect([...sizes].sort((a, b) => a - b)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
  });
});

const ASSETS = 700;

function asset(n: number): AssetInput {
  // Keyword ids falling within a record and spread over the batch: the links are written in another order than they are listed.
  const keywords = [900 - (n % 50), 500 - (n % 7), 100 + (n % 3)].map((id) => ({ keyword_id: String(id), text: `word ${id}`, relevance: n % 4 }));
  return { asset_type: 'image', id: `w-${String(n).padStart(4, '0')}`, fields: { title: `Written ${n}`, asset_family: 'creative', keywords, event_ids: [] } };
}

describe.each(STORES)('a batch of assets written together ($name)', ({ url }) => {
  let store: TestStore;
  let repository: CatalogRepository;

  beforeAll(async () => {
    store = await openTestStore(url);
    repository = new CatalogRepository(store.database);
  });
  afterAll(async () => {
    await store?.drop();
  });

  it('reads back as written one by one, each record’s keywords in its own order', async () => {
    const inputs = Array.from({ length: ASSETS }, (_, n) => asset(n));
    expect(await repository.upsertAssets(inputs)).toHaveLength(ASSETS);
    // Written again: the same statements run a second time, over the rows they wrote.
    expect((await repository.upsertAssets(inputs)).every((write) => write.operation === 'update')).toBe(true);
    const ids = inputs.map((input) => input.id);
    const read = new Map((await repository.findAssetsInAnyState('image', ids)).map((record) => [record.id, record]));
    expect(read.size).toBe(ASSETS);
    for (const n of [0, 1, 349, 699]) {
      const keywords = read.get(asset(n).id)!.fields.keywords as Array<{ keyword_id: string; relevance: number }>;
      expect(keywords.map((k) => k.keyword_id)).toEqual([900 - (n % 50), 500 - (n % 7), 100 + (n % 3)].map(String));
      expect(keywords.every((k) => k.relevance === n % 4)).toBe(true);
    }
    const { db } = store.database;
    const links = await db.selectFrom('asset_keywords').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(links.n)).toBe(ASSETS * 3);
    const keywords = await db.selectFrom('keywords').select('id').orderBy('id').execute();
    expect(keywords).toHaveLength(50 + 7 + 3);
  });
});
