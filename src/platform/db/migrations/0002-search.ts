import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Search by image and the token rule of search: each asset's visual signature, the files
 * uploaded for by-image search, and the products a customer holds.
 */
export function search(dialect: SqlDialect) {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  const counterKey = (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey());

  return {
    async up(db: Kysely<any>): Promise<void> {
      // "v<SIGNATURE_VERSION>:<base64 float32s>", computed at ingest from the original.
      await db.schema.alterTable('assets').addColumn('visual_signature', 'text').execute();

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
      await db.schema.createIndex('search_uploads_expiry_idx').on('search_uploads').column('expires_at').execute();

      await db.schema
        .createTable('products')
        .addColumn('id', serial, counterKey)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
        .addColumn('expires_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('products_user_idx').on('products').column('user_id').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('products').execute();
      await db.schema.dropTable('search_uploads').execute();
      await db.schema.alterTable('assets').dropColumn('visual_signature').execute();
    },
  };
}
