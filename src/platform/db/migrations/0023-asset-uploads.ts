import type { Kysely } from 'kysely';

/**
 * The back office's resumable uploads (src/asset-uploads): one row per upload, from its
 * creation to its outcome. A finished upload waits for its ingest as a job any node may run
 * (the lease columns); the row keeps what came of it, the new asset or the problem, for the
 * page to show beside the file.
 */
export function assetUploads() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('asset_uploads')
        // The tus upload's id: the staged file's name (or object key's last part).
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('byte_size', 'integer', (c) => c.notNull())
        // uploading | waiting | ingesting | done | refused | abandoned
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('asset_id', 'text')
        .addColumn('asset_type', 'text')
        .addColumn('problem', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('claimed_by', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        // The last bytes received (or the last change of status): an upload idle too long is abandoned.
        .addColumn('active_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('asset_uploads_queue').on('asset_uploads').columns(['status', 'active_at']).execute();
      await db.schema.createIndex('asset_uploads_user').on('asset_uploads').columns(['user_id', 'created_at']).execute();
    },
  };
}
