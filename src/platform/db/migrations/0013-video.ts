import type { Kysely } from 'kysely';

/**
 * Video: the files made from an original (a smaller download size, the preview clip) are jobs
 * in the store, one row per original and kind. Any node may claim one; a claim is a lease its
 * runner renews, so the job of a node that stopped runs again elsewhere, or after a restart.
 */
export function video() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('video_transcodes')
        // The original's blob key and what is made from it ('preview', 'HD 720p', …).
        .addColumn('original_key', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        // pending | running | done | failed
        .addColumn('status', 'text', (c) => c.notNull())
        // Where the made file is kept (done), or null when the original itself serves (it is no larger).
        .addColumn('output_key', 'text')
        .addColumn('failure', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('claimed_by', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addPrimaryKeyConstraint('video_transcodes_key', ['original_key', 'kind'])
        .execute();
      await db.schema.createIndex('video_transcodes_queue').on('video_transcodes').columns(['status', 'created_at']).execute();
    },
  };
}
