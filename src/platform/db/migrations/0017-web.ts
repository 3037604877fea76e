import type { Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * The catalogue browser's sessions: one row per browser that signed in (or began to). The
 * cookie holds a random id; the row is found by its SHA-256, so the table alone opens no
 * session. The OAuth tokens and the PKCE verifier are sealed (AES-GCM under a key kept in
 * settings), so a copy of this table alone acts for nobody either.
 */
export function web(_dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('web_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('access_token', 'text')
        .addColumn('refresh_token', 'text')
        .addColumn('sign_in_state_hash', 'text')
        .addColumn('sign_in_verifier', 'text')
        .addColumn('sign_in_return', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('web_sessions_expiry').on('web_sessions').column('expires_at').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('web_sessions').execute();
    },
  };
}
