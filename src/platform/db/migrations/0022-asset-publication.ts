import type { Kysely } from 'kysely';

/**
 * An asset's publication state: `draft` (new from an upload, not yet reviewed), `published`
 * (searchable, readable, licensable) or `withdrawn` (kept for the back office and for the
 * records of past sales, shown to no client). Every asset stored before is published, as is
 * every asset the folder and manifest ingest add, so the default is `published`.
 *
 * The back office lists drafts and withdrawn assets by id; they are few beside the published
 * ones, so a partial index over them alone serves those lists and costs the million published
 * assets nothing (both SQLite and PostgreSQL have partial indexes).
 */
export function assetPublication() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('assets').addColumn('publication', 'text', (c) => c.notNull().defaultTo('published')).execute();
      await db.schema
        .createIndex('assets_unpublished')
        .on('assets')
        .columns(['publication', 'id'])
        .where('publication', '<>', 'published')
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('assets_unpublished').execute();
      await db.schema.alterTable('assets').dropColumn('publication').execute();
    },
  };
}
