import type { Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Staff of the library and what they did. `users.role`: null for a customer, `editor` (the
 * catalogue only) or `admin` (everything the back office does). `audit_log`: one row for each
 * back-office action, with who did it (id and the username as it was, so a later rename or
 * removal leaves the record readable), when, the action's name, its target and the target as it
 * was before and after (JSON). Rows are only ever added.
 */
export function staff(dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('users').addColumn('role', 'text').execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        // No foreign key: the record outlives the account it names.
        .addColumn('actor_id', 'integer', (c) => c.notNull())
        .addColumn('actor_username', 'text', (c) => c.notNull())
        // ISO 8601 with milliseconds: sorts as text in time order
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target_kind', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('before', 'text')
        .addColumn('after', 'text')
        .execute();
      await db.schema.createIndex('audit_log_at').on('audit_log').columns(['at', 'id']).execute();
      await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_id', 'at']).execute();
      await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target_kind', 'target_id', 'at']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('audit_log').execute();
      await db.schema.alterTable('users').dropColumn('role').execute();
    },
  };
}
