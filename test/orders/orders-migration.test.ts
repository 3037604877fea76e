import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reportingAndOrders } from '../../src/platform/db/migrations/0008-reporting-and-orders.js';
import type { Database } from '../../src/platform/db/database.js';
import { STORES, openTestStore, type TestStore } from '../helpers/test-store.js';
import { insertUser } from '../licensing/licensing-fixtures.js';

/*
 * Purchases made before orders existed get one each when the store is migrated: the migration
 * taken down, purchases written as the store held them before, and the migration applied again.
 */
describe.each(STORES)('migration 0008 gives earlier purchases their orders, on $name', ({ url }) => {
  let store: TestStore;
  let database: Database;
  beforeEach(async () => {
    store = await openTestStore(url);
    database = store.database;
  });
  afterEach(async () => {
    await store.drop();
  });

  it('one order per download that licensed its asset, one per extended-license purchase, none for a free download again', async () => {
    const { db, dialect } = database;
    const migration = reportingAndOrders(dialect);
    await migration.down(db);

    const userId = await insertUser(db);
    const at = (minute: number) => `2024-03-09T10:${String(minute).padStart(2, '0')}:00.000Z`;
    const product = await db
      .insertInto('products')
      .values({ user_id: userId, type: 'creditpack', name: 'Credit Pack', status: 'active', created_at: at(0) } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    const download = (assetId: string, newLicense: number, minute: number) =>
      db
        .insertInto('downloads')
        .values({
          user_id: userId,
          client_id: 1,
          product_id: product.id,
          product_type: 'creditpack',
          asset_id: assetId,
          asset_type: 'image',
          downloaded_at: at(minute),
          new_license: newLicense,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
    const first = await download('a1', 1, 1);
    const second = await download('a2', 1, 2);
    const again = await download('a1', 0, 3);
    for (const type of ['multiseat', 'resale']) {
      await db.insertInto('extended_licenses').values({ user_id: userId, asset_id: 'a1', license_type: type, credits: 2, acquired_at: at(4) } as never).execute();
    }
    await db.insertInto('extended_licenses').values({ user_id: userId, asset_id: 'a1', license_type: 'unlimited', credits: 4, acquired_at: at(5) } as never).execute();

    await migration.up(db);

    const downloads = await db.selectFrom('downloads').select(['id', 'order_id']).orderBy('id').execute();
    const orderOf = (id: number) => downloads.find((row) => row.id === id)!.order_id;
    expect(orderOf(first.id)).not.toBeNull();
    expect(orderOf(second.id)).not.toBeNull();
    expect(orderOf(first.id)).not.toBe(orderOf(second.id));
    expect(orderOf(again.id)).toBeNull();
    const licenses = await db.selectFrom('extended_licenses').select(['license_type', 'order_id']).orderBy('id').execute();
    expect(licenses[0]!.order_id).toBe(licenses[1]!.order_id);
    expect(licenses[2]!.order_id).not.toBe(licenses[0]!.order_id);
    const orders = await db.selectFrom('orders').selectAll().orderBy('id').execute();
    expect(orders).toHaveLength(4);
    expect(orders.map((order) => [order.user_id, order.order_date, order.purchase_order_number])).toEqual([
      [userId, at(1), null],
      [userId, at(2), null],
      [userId, at(4), null],
      [userId, at(5), null],
    ]);
  });
});
