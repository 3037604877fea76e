import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Orders and usage reporting. Every purchase (a download that licensed its asset, extended
 * licenses bought together) belongs to an order; purchases that name the same purchase order
 * number share one. Usage batches keep what a partner reported of its use of licensed assets,
 * one row per entry, under the client's transaction id (unique per client). Two client flags say
 * who may report usage and who may read order metadata.
 */
export function reportingAndOrders(dialect: SqlDialect) {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  const counterKey = (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey());

  return {
    async up(db: Kysely<any>): Promise<void> {
      // SQLite adds one column per ALTER TABLE statement.
      await db.schema.alterTable('api_clients').addColumn('usage_reporting', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('api_clients').addColumn('order_metadata', 'integer', (c) => c.notNull().defaultTo(0)).execute();

      await db.schema
        .createTable('orders')
        .addColumn('id', serial, counterKey)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        // Purchases of one user naming the same number join one order; null: an order of its own.
        .addColumn('purchase_order_number', 'text')
        .addColumn('end_client', 'text')
        .addColumn('licensee_name', 'text')
        .addColumn('project_title', 'text')
        .addColumn('ordered_by', 'text')
        .addColumn('order_date', 'text', (c) => c.notNull())
        .execute();
      // Two purchases naming a new purchase order number at once make one order (nulls never collide).
      await db.schema.createIndex('orders_purchase_order_idx').on('orders').columns(['user_id', 'purchase_order_number']).unique().execute();

      // No foreign key: SQLite cannot drop a column that has one (down), and an order goes only
      // with its user, whose purchases go with it.
      await db.schema.alterTable('downloads').addColumn('order_id', 'integer').execute();
      await db.schema.createIndex('downloads_order_idx').on('downloads').column('order_id').where(sql.ref('order_id'), 'is not', null).execute();
      await db.schema.alterTable('extended_licenses').addColumn('order_id', 'integer').execute();
      await db.schema
        .createIndex('extended_licenses_order_idx')
        .on('extended_licenses')
        .column('order_id')
        .where(sql.ref('order_id'), 'is not', null)
        .execute();
      await backfillOrders(db);

      await db.schema
        .createTable('usage_batches')
        .addColumn('id', serial, counterKey)
        .addColumn('client_id', 'integer', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
        // The client's own id of the batch: a second batch with it is refused, even one sent at the same moment.
        .addColumn('transaction_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('usage_count', 'integer', (c) => c.notNull())
        .addColumn('received_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('usage_batches_transaction_unique', ['client_id', 'transaction_id'])
        .execute();

      await db.schema
        .createTable('asset_usages')
        .addColumn('id', serial, counterKey)
        .addColumn('batch_id', 'integer', (c) => c.notNull().references('usage_batches.id').onDelete('cascade'))
        .addColumn('client_id', 'integer', (c) => c.notNull())
        .addColumn('asset_id', 'text', (c) => c.notNull())
        // image | video, as the catalogue knew the asset when the usage was reported
        .addColumn('asset_type', 'text', (c) => c.notNull())
        .addColumn('quantity', 'integer', (c) => c.notNull())
        // The calendar day of the use (YYYY-MM-DD), as the reporter wrote it.
        .addColumn('usage_date', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('asset_usages_date_idx').on('asset_usages').columns(['usage_date', 'asset_id']).execute();
      await db.schema.createIndex('asset_usages_batch_idx').on('asset_usages').column('batch_id').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('asset_usages').execute();
      await db.schema.dropTable('usage_batches').execute();
      await db.schema.dropIndex('extended_licenses_order_idx').execute();
      await db.schema.alterTable('extended_licenses').dropColumn('order_id').execute();
      await db.schema.dropIndex('downloads_order_idx').execute();
      await db.schema.alterTable('downloads').dropColumn('order_id').execute();
      await db.schema.dropTable('orders').execute();
      await db.schema.alterTable('api_clients').dropColumn('order_metadata').execute();
      await db.schema.alterTable('api_clients').dropColumn('usage_reporting').execute();
    },
  };
}

/**
 * Purchases made before orders existed get one each: a download that licensed its asset, and
 * the extended licenses a user bought for one asset at one moment (one request).
 */
async function backfillOrders(db: Kysely<any>): Promise<void> {
  const purchases = (await db
    .selectFrom('downloads')
    .select(['id', 'user_id', 'downloaded_at'])
    .where('new_license', '=', 1)
    .orderBy('id')
    .execute()) as Array<{ id: number; user_id: number; downloaded_at: string }>;
  for (const purchase of purchases) {
    const order = (await db
      .insertInto('orders')
      .values({ user_id: purchase.user_id, order_date: purchase.downloaded_at })
      .returning('id')
      .executeTakeFirstOrThrow()) as { id: number };
    await db.updateTable('downloads').set({ order_id: order.id }).where('id', '=', purchase.id).execute();
  }
  const bought = (await db
    .selectFrom('extended_licenses')
    .select(['user_id', 'asset_id', 'acquired_at'])
    .groupBy(['user_id', 'asset_id', 'acquired_at'])
    .orderBy('acquired_at')
    .execute()) as Array<{ user_id: number; asset_id: string; acquired_at: string }>;
  for (const group of bought) {
    const order = (await db
      .insertInto('orders')
      .values({ user_id: group.user_id, order_date: group.acquired_at })
      .returning('id')
      .executeTakeFirstOrThrow()) as { id: number };
    await db
      .updateTable('extended_licenses')
      .set({ order_id: order.id })
      .where('user_id', '=', group.user_id)
      .where('asset_id', '=', group.asset_id)
      .where('acquired_at', '=', group.acquired_at)
      .execute();
  }
}
