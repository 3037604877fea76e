import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Uploads belong to whoever sent them: the user when a token came with the upload, the API key
 * alone otherwise (user_id 0). The primary key gains the user, which SQLite can only do by
 * building the table again, so it is built again on both stores. Uploads from before the
 * owner was recorded stay with their key, as key-only uploads, for the rest of their 24 hours.
 *
 * File registrations record the key they were made with and the bytes they keep, for the
 * quotas; older rows count as 0 bytes and no key, and leave with the retention like any other.
 */
export function uploadOwners(_dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('search_uploads_owned')
        .addColumn('client_id', 'integer', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
        // 0: sent with the API key alone; else the user whose token came with it.
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('media_type', 'text', (c) => c.notNull())
        .addColumn('byte_size', 'integer', (c) => c.notNull())
        .addColumn('visual_signature', 'text', (c) => c.notNull())
        .addColumn('uploaded_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('search_uploads_owner_pk', ['client_id', 'user_id', 'name'])
        .execute();
      await sql`insert into search_uploads_owned (client_id, user_id, name, blob_key, media_type, byte_size, visual_signature, uploaded_at, expires_at)
        select client_id, 0, name, blob_key, media_type, byte_size, visual_signature, uploaded_at, expires_at from search_uploads`.execute(db);
      await db.schema.dropTable('search_uploads').execute();
      await db.schema.alterTable('search_uploads_owned').renameTo('search_uploads').execute();
      await db.schema.createIndex('search_uploads_expiry_idx').on('search_uploads').column('expires_at').execute();
      await db.schema.createIndex('search_uploads_user_idx').on('search_uploads').column('user_id').execute();
      await db.schema.createIndex('search_uploads_blob_idx').on('search_uploads').column('blob_key').execute();

      await db.schema.alterTable('generation_file_registrations').addColumn('client_id', 'integer').execute();
      await db.schema.alterTable('generation_file_registrations').addColumn('byte_size', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.createIndex('generation_file_registrations_user_idx').on('generation_file_registrations').column('user_id').execute();
      await db.schema.createIndex('generation_file_registrations_client_idx').on('generation_file_registrations').column('client_id').execute();
      await db.schema.createIndex('generation_file_registrations_created_idx').on('generation_file_registrations').column('created_at').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('generation_file_registrations_created_idx').execute();
      await db.schema.dropIndex('generation_file_registrations_client_idx').execute();
      await db.schema.dropIndex('generation_file_registrations_user_idx').execute();
      await db.schema.alterTable('generation_file_registrations').dropColumn('byte_size').execute();
      await db.schema.alterTable('generation_file_registrations').dropColumn('client_id').execute();
      // Back to one upload per key and name: a key's own uploads are kept, its users' go.
      await sql`delete from search_uploads where user_id <> 0`.execute(db);
      await db.schema.dropIndex('search_uploads_blob_idx').execute();
      await db.schema.dropIndex('search_uploads_user_idx').execute();
      await db.schema.dropIndex('search_uploads_expiry_idx').execute();
      await db.schema.alterTable('search_uploads').renameTo('search_uploads_owned').execute();
      await db.schema
        .createTable('search_uploads')
        .addColumn('client_id', 'integer', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('media_type', 'text', (c) => c.notNull())
        .addColumn('byte_size', 'integer', (c) => c.notNull())
        .addColumn('visual_signature', 'text', (c) => c.notNull())
        .addColumn('uploaded_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('search_uploads_pk', ['client_id', 'name'])
        .execute();
      await sql`insert into search_uploads select client_id, name, blob_key, media_type, byte_size, visual_signature, uploaded_at, expires_at from search_uploads_owned`.execute(db);
      await db.schema.dropTable('search_uploads_owned').execute();
      await db.schema.createIndex('search_uploads_expiry_idx').on('search_uploads').column('expires_at').execute();
    },
  };
}
