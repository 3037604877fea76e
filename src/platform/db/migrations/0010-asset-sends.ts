import type { Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Assets sent to people: one row an asset each time a customer sends a board to an email
 * address. A client reads its own in order of `sent_at`, which is unique per client (a
 * microsecond timestamp), so that a page of the feed never ends inside a tie.
 */
export function assetSends(dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('asset_send_events')
        .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('client_id', 'integer', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('board_id', 'text', (c) => c.notNull())
        .addColumn('asset_id', 'text', (c) => c.notNull())
        .addColumn('email_address', 'text', (c) => c.notNull())
        // YYYY-MM-DDTHH:MM:SS.ffffffZ: sorts as text in time order
        .addColumn('sent_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('asset_send_events_client_time', ['client_id', 'sent_at'])
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('asset_send_events').execute();
    },
  };
}
