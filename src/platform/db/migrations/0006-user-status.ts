import type { Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * users.disabled_at: when an operator disabled the account (null: enabled). A disabled user
 * cannot sign in or use the password grant; the row stays, with the user's products,
 * downloads and ledger.
 */
export function userStatus(_dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('users').addColumn('disabled_at', 'text').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('users').dropColumn('disabled_at').execute();
    },
  };
}
