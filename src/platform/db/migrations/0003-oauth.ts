import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * OAuth 2.0: client kinds, redirect URIs and grants; user lockout; authorization codes
 * and refresh tokens, each kept as a SHA-256 hash like the access tokens.
 */
export function oauth(_dialect: SqlDialect) {
  // SQLite adds one column per ALTER TABLE statement.
  const columns: Array<[table: string, column: string, type: 'text' | 'integer', notNullDefault?: number | string]> = [
    ['api_clients', 'confidential', 'integer', 1],
    ['api_clients', 'redirect_uris', 'text', '[]'],
    ['api_clients', 'grant_types', 'text'],
    ['users', 'team', 'text'],
    ['users', 'partner_credit', 'integer', 0],
    ['users', 'failed_sign_ins', 'integer', 0],
    ['users', 'locked_until', 'text'],
    ['access_tokens', 'code_hash', 'text'],
    ['access_tokens', 'refresh_family', 'text'],
  ];

  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const [table, column, type, notNullDefault] of columns) {
        await db.schema
          .alterTable(table)
          .addColumn(column, type, (c) => (notNullDefault === undefined ? c : c.notNull().defaultTo(notNullDefault)))
          .execute();
      }
      await db.schema.createIndex('access_tokens_user_idx').on('access_tokens').column('user_id').execute();
      await db.schema
        .createIndex('access_tokens_code_idx')
        .on('access_tokens')
        .column('code_hash')
        .where(sql.ref('code_hash'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('access_tokens_family_idx')
        .on('access_tokens')
        .column('refresh_family')
        .where(sql.ref('refresh_family'), 'is not', null)
        .execute();

      await db.schema
        .createTable('authorization_codes')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'integer', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('code_challenge', 'text')
        .addColumn('issued_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema.createIndex('authorization_codes_user_idx').on('authorization_codes').column('user_id').execute();

      await db.schema
        .createTable('refresh_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'integer', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('family', 'text', (c) => c.notNull())
        .addColumn('code_hash', 'text')
        .addColumn('issued_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .addColumn('replaced_at', 'text')
        .execute();
      await db.schema.createIndex('refresh_tokens_user_idx').on('refresh_tokens').column('user_id').execute();
      await db.schema.createIndex('refresh_tokens_family_idx').on('refresh_tokens').column('family').execute();
      await db.schema
        .createIndex('refresh_tokens_code_idx')
        .on('refresh_tokens')
        .column('code_hash')
        .where(sql.ref('code_hash'), 'is not', null)
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('refresh_tokens').execute();
      await db.schema.dropTable('authorization_codes').execute();
      for (const index of ['access_tokens_family_idx', 'access_tokens_code_idx', 'access_tokens_user_idx']) {
        await db.schema.dropIndex(index).execute();
      }
      for (const [table, column] of [...columns].reverse()) {
        await db.schema.alterTable(table).dropColumn(column).execute();
      }
    },
  };
}
