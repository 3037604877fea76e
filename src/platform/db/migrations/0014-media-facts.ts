import type { Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Facts computed from an asset's pixels at ingest (dominant colours, black and white, nudity
 * scores): `media_facts` holds them as JSON, `nudity_score` the one number search compares with
 * its threshold (null: not classified), and `media_facts_version` is the marker `stockroom
 * backfill` resumes by (null: never computed; below the current version: computed by an older
 * rule). The index finds the assets still to do without reading every row.
 */
export function mediaFacts(_dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('assets').addColumn('media_facts', 'text').execute();
      await db.schema.alterTable('assets').addColumn('media_facts_version', 'integer').execute();
      await db.schema.alterTable('assets').addColumn('nudity_score', 'double precision').execute();
      await db.schema.createIndex('assets_media_facts_version_idx').on('assets').columns(['media_facts_version', 'id']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('assets_media_facts_version_idx').execute();
      await db.schema.alterTable('assets').dropColumn('nudity_score').execute();
      await db.schema.alterTable('assets').dropColumn('media_facts_version').execute();
      await db.schema.alterTable('assets').dropColumn('media_facts').execute();
    },
  };
}
