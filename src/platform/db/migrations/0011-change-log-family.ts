import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * The change log keeps the family (creative, editorial) of the asset an entry is about, as it
 * was then: readers of the log (the asset-change channels) filter by it without reading the
 * catalogue's own tables. Entries written before are given their asset's family where the asset
 * is still there. An index by entity finds an asset's later withdrawal.
 */
export function changeLogFamily(_dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('change_log').addColumn('asset_family', 'text').execute();
      await sql`update change_log set asset_family = (select lower(assets.asset_family) from assets where assets.id = change_log.entity_id)
                where entity_type in ('image', 'video')`.execute(db);
      await db.schema.createIndex('change_log_entity_idx').on('change_log').columns(['entity_id', 'seq']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('change_log_entity_idx').execute();
      await db.schema.alterTable('change_log').dropColumn('asset_family').execute();
    },
  };
}
