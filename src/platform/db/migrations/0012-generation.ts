import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Generative images: each request is a job in the store (any node may claim one; a claim is a
 * lease its runner renews, so a job whose node died is claimed again), its results (pixels in
 * the blob store, none for a result the prompt policy blocked), files registered as references,
 * and downloads of results. The ledger and the download history learn which generation an
 * entry belongs to.
 */
export function generation(dialect: SqlDialect) {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  const counterKey = (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey());
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('generation_requests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('client_id', 'integer', (c) => c.notNull())
        // The user's team at the time (company_generations).
        .addColumn('team', 'text')
        .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
        // The contract's GenerationType (text_to_image, background_removal, …).
        .addColumn('generation_type', 'text', (c) => c.notNull())
        // What the engine is asked (JSON): the operation and its parameters, pictures by blob key.
        .addColumn('job', 'text', (c) => c.notNull())
        // pending | running | done | failed
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('prompt', 'text')
        .addColumn('negative_prompt', 'text')
        .addColumn('seed', 'integer', (c) => c.notNull())
        .addColumn('media_type', 'text')
        .addColumn('aspect_ratio', 'text')
        .addColumn('mood', 'text')
        .addColumn('notes', 'text')
        .addColumn('project_code', 'text')
        .addColumn('original_asset_id', 'text')
        .addColumn('source_request_id', 'text')
        .addColumn('source_index', 'integer')
        // charged | refunded | free: a failed job gives its charge back once.
        .addColumn('charge', 'text', (c) => c.notNull())
        .addColumn('engine', 'text')
        .addColumn('failure', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        // The node running it and when it last said so; a lease older than the limit is free to claim.
        .addColumn('claimed_by', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('generation_requests_queue').on('generation_requests').columns(['status', 'created_at']).execute();
      await db.schema.createIndex('generation_requests_user').on('generation_requests').columns(['user_id', 'created_at']).execute();
      await db.schema.createIndex('generation_requests_team').on('generation_requests').columns(['team', 'created_at']).execute();

      await db.schema
        .createTable('generation_results')
        .addColumn('request_id', 'text', (c) => c.notNull().references('generation_requests.id').onDelete('cascade'))
        .addColumn('result_index', 'integer', (c) => c.notNull())
        .addColumn('is_blocked', 'integer', (c) => c.notNull())
        .addColumn('seed', 'integer', (c) => c.notNull())
        // null for a blocked result: its pixels are never kept.
        .addColumn('image_key', 'text')
        .addColumn('preview_key', 'text')
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('preview_width', 'integer')
        .addColumn('preview_height', 'integer')
        .addPrimaryKeyConstraint('generation_results_key', ['request_id', 'result_index'])
        .execute();

      await db.schema
        .createTable('generation_file_registrations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        // ImageReference | CustomerProduct
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('image_key', 'text', (c) => c.notNull())
        .addColumn('preview_key', 'text', (c) => c.notNull())
        .addColumn('preview_width', 'integer', (c) => c.notNull())
        .addColumn('preview_height', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('generation_downloads')
        .addColumn('id', serial, counterKey)
        // What GET /v3/downloads shows and POST /v3/ai/redownloads names.
        .addColumn('generated_asset_id', 'text', (c) => c.notNull())
        .addColumn('request_id', 'text', (c) => c.notNull().references('generation_requests.id').onDelete('cascade'))
        .addColumn('result_index', 'integer', (c) => c.notNull())
        .addColumn('size_name', 'text', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        // preparing | ready | failed
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('file_key', 'text')
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('claimed_by', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('generation_downloads_one', ['request_id', 'result_index', 'size_name'])
        .execute();

      await db.schema.alterTable('download_ledger').addColumn('generation_request_id', 'text').execute();
      // A generation's charge and its refund are each written once, whoever writes them.
      await db.schema
        .createIndex('download_ledger_generation_once')
        .on('download_ledger')
        .columns(['generation_request_id', 'reason'])
        .unique()
        .where('generation_request_id', 'is not', null)
        .execute();
      await db.schema.alterTable('downloads').addColumn('generated_asset_id', 'text').execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('downloads').dropColumn('generated_asset_id').execute();
      await db.schema.dropIndex('download_ledger_generation_once').execute();
      await db.schema.alterTable('download_ledger').dropColumn('generation_request_id').execute();
      await db.schema.dropTable('generation_downloads').execute();
      await db.schema.dropTable('generation_file_registrations').execute();
      await db.schema.dropTable('generation_results').execute();
      await db.schema.dropTable('generation_requests').execute();
    },
  };
}
