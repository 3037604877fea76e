import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Licensing: what a product allows (credits, download limits, sizes, requirements), the team
 * credit pools, the downloads (the history, and the record each debit belongs to), the ledger
 * of every debit and grant, the assets licensed under a product, and extended licenses.
 * Credits and counts are integers; instants are ISO 8601 text like the rest of the schema.
 */
export function licensing(dialect: SqlDialect) {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  const counterKey = (c: ColumnDefinitionBuilder) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey());

  // SQLite adds one column per ALTER TABLE statement.
  const productColumns: Array<[column: string, type: 'text' | 'integer', notNullDefault?: number | string]> = [
    // Personal credits; null: the product does not take credits.
    ['credits_remaining', 'integer'],
    // Downloads allowed per period (or in all, without a duration); null: no limit.
    ['download_limit', 'integer'],
    // day | month | year; null: the limit never resets (a pack).
    ['download_limit_duration', 'text'],
    // Downloads counted in the period that ends at download_period_ends_at.
    ['downloads_used', 'integer', 0],
    ['download_period_ends_at', 'text'],
    // Downloads allowed beyond the limit in a period; null: none.
    ['overage_limit', 'integer'],
    ['overage_count', 'integer', 0],
    ['agreement_name', 'text'],
    // The largest download size the product allows (a size name); null: any size.
    ['imagepack_resolution', 'text'],
    ['application_website', 'text'],
    ['note_required', 'integer', 0],
    ['project_code_required', 'integer', 0],
    // JSON array of the project codes a download may name; [] means any.
    ['project_codes', 'text', '[]'],
  ];

  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const [column, type, notNullDefault] of productColumns) {
        await db.schema
          .alterTable('products')
          .addColumn(column, type, (c) => (notNullDefault === undefined ? c : c.notNull().defaultTo(notNullDefault)))
          .execute();
      }

      await db.schema
        .createTable('team_credits')
        .addColumn('team', 'text', (c) => c.primaryKey())
        // The conditional debit keeps it from going below zero; the check is the last line of defence.
        .addColumn('credits', 'integer', (c) => c.notNull().defaultTo(0).check(sql`credits >= 0`))
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('downloads')
        .addColumn('id', serial, counterKey)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('client_id', 'integer', (c) => c.notNull())
        .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
        .addColumn('product_type', 'text', (c) => c.notNull())
        // The user's team when the download was made (company_downloads lists a team's downloads).
        .addColumn('team', 'text')
        .addColumn('asset_id', 'text', (c) => c.notNull())
        .addColumn('asset_type', 'text', (c) => c.notNull())
        .addColumn('size_name', 'text')
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('dpi', 'integer')
        .addColumn('bytes', 'integer')
        // jpg when the request named it (file_type); null: the size's own format
        .addColumn('file_type', 'text')
        .addColumn('license_model', 'text')
        .addColumn('download_notes', 'text')
        .addColumn('project_code', 'text')
        .addColumn('downloaded_at', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull().defaultTo('api'))
        // 1: this download licensed the asset under its product (a purchase); 0: a free re-download.
        .addColumn('new_license', 'integer', (c) => c.notNull())
        .addColumn('credits_spent', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('used_team_credits', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('idempotency_key', 'text')
        .addColumn('request_fingerprint', 'text')
        .addColumn('delivery_uri', 'text')
        .addColumn('delivery_issued_at', 'text')
        .execute();
      await db.schema.createIndex('downloads_user_idx').on('downloads').columns(['user_id', 'downloaded_at']).execute();
      await db.schema
        .createIndex('downloads_team_idx')
        .on('downloads')
        .columns(['team', 'downloaded_at'])
        .where(sql.ref('team'), 'is not', null)
        .execute();
      await db.schema.createIndex('downloads_asset_idx').on('downloads').columns(['asset_id', 'user_id']).execute();
      // A retried request with the same key finds the first one; two at once cannot both be stored.
      await db.schema.createIndex('downloads_idempotency_idx').on('downloads').columns(['user_id', 'idempotency_key']).unique().execute();

      await db.schema
        .createTable('asset_licenses')
        .addColumn('product_id', 'integer', (c) => c.notNull().references('products.id').onDelete('cascade'))
        .addColumn('asset_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('download_id', 'integer', (c) => c.notNull().references('downloads.id').onDelete('cascade'))
        .addColumn('licensed_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('asset_licenses_pk', ['product_id', 'asset_id'])
        .execute();
      await db.schema.createIndex('asset_licenses_user_idx').on('asset_licenses').columns(['user_id', 'asset_id']).execute();

      await db.schema
        .createTable('extended_licenses')
        .addColumn('id', serial, counterKey)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('asset_id', 'text', (c) => c.notNull())
        // multiseat | unlimited | resale | indemnification
        .addColumn('license_type', 'text', (c) => c.notNull())
        .addColumn('credits', 'integer', (c) => c.notNull())
        .addColumn('product_id', 'integer', (c) => c.references('products.id').onDelete('set null'))
        .addColumn('team', 'text')
        .addColumn('acquired_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('extended_licenses_unique', ['user_id', 'asset_id', 'license_type'])
        .execute();

      await db.schema
        .createTable('download_ledger')
        .addColumn('id', serial, counterKey)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('product_id', 'integer', (c) => c.references('products.id').onDelete('cascade'))
        // Set when the entry moves the team's pool rather than the product's own credits.
        .addColumn('team', 'text')
        // credit | download | overage: what the entry counts
        .addColumn('unit', 'text', (c) => c.notNull())
        // grant | download | extended_license
        .addColumn('reason', 'text', (c) => c.notNull())
        // Positive for a grant, negative for a debit.
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('download_id', 'integer', (c) => c.references('downloads.id').onDelete('cascade'))
        .addColumn('extended_license_id', 'integer', (c) => c.references('extended_licenses.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('download_ledger_product_idx').on('download_ledger').column('product_id').execute();
      await db.schema
        .createIndex('download_ledger_download_idx')
        .on('download_ledger')
        .column('download_id')
        .where(sql.ref('download_id'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('download_ledger_team_idx')
        .on('download_ledger')
        .column('team')
        .where(sql.ref('team'), 'is not', null)
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('download_ledger').execute();
      await db.schema.dropTable('extended_licenses').execute();
      await db.schema.dropTable('asset_licenses').execute();
      await db.schema.dropTable('downloads').execute();
      await db.schema.dropTable('team_credits').execute();
      for (const [column] of [...productColumns].reverse()) {
        await db.schema.alterTable('products').dropColumn(column).execute();
      }
    },
  };
}
