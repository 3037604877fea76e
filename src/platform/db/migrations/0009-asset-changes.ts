import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * The asset-change feed: the channels an operator gives a partner client, the change sets
 * handed out on them, and the assets a client registered as kept. A channel's notices are not
 * stored one by one: they are read from the catalogue's change log after the channel's
 * confirmed position; a change set keeps the notices it handed out, so that it is handed out
 * again unchanged until it is confirmed.
 */
export function assetChanges(dialect: SqlDialect) {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  const counterKey = (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey());
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('asset_change_channels')
        .addColumn('id', serial, counterKey)
        .addColumn('client_id', 'integer', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
        // creative | editorial | both
        .addColumn('asset_family', 'text', (c) => c.notNull())
        // image | film
        .addColumn('asset_type', 'text', (c) => c.notNull())
        .addColumn('metadata', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        // Every change-log entry up to here is confirmed (or matched nothing of the channel).
        .addColumn('confirmed_seq', 'bigint', (c) => c.notNull().defaultTo(0))
        // The set handed out and not yet confirmed; null: the next hand-out makes one.
        .addColumn('open_change_set_id', 'bigint')
        .execute();
      await db.schema.createIndex('asset_change_channels_client_idx').on('asset_change_channels').column('client_id').execute();

      await db.schema
        .createTable('asset_change_sets')
        .addColumn('id', serial, counterKey)
        .addColumn('channel_id', 'integer', (c) => c.notNull().references('asset_change_channels.id').onDelete('cascade'))
        // The change-log entries after_seq < seq <= through_seq were read for it.
        .addColumn('after_seq', 'bigint', (c) => c.notNull())
        .addColumn('through_seq', 'bigint', (c) => c.notNull())
        .addColumn('notice_count', 'integer', (c) => c.notNull())
        // JSON array of the notices exactly as handed out.
        .addColumn('notices', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('confirmed_at', 'text')
        .execute();
      await db.schema.createIndex('asset_change_sets_channel_idx').on('asset_change_sets').columns(['channel_id', 'id']).execute();

      await db.schema
        .createTable('asset_registrations')
        .addColumn('client_id', 'integer', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
        .addColumn('asset_id', 'text', (c) => c.notNull())
        .addColumn('registered_at', 'text', (c) => c.notNull())
        // Registering an asset twice (or at once from two requests) keeps one row.
        .addPrimaryKeyConstraint('asset_registrations_pk', ['client_id', 'asset_id'])
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('asset_registrations').execute();
      await db.schema.dropTable('asset_change_sets').execute();
      await db.schema.dropTable('asset_change_channels').execute();
    },
  };
}
