import type { Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Two counters that came after their modules' first migrations (a migration, once run, is
 * never edited — stores made with it would no longer boot):
 * - assets.download_count: how often an asset has been downloaded; search's most_popular ranks by it;
 * - users.first_failed_at: when a run of failed sign-ins began; a run older than the lock window
 *   starts again, as it does for unknown usernames.
 */
export function counts(_dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('assets').addColumn('download_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('users').addColumn('first_failed_at', 'text').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('users').dropColumn('first_failed_at').execute();
      await db.schema.alterTable('assets').dropColumn('download_count').execute();
    },
  };
}
