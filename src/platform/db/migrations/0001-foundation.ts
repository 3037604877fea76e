import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/** The catalogue, its change log, API clients, users and the token store. */
export function foundation(dialect: SqlDialect) {
  // The one DDL difference between the two databases: how a counter key is made.
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  const counterKey = (c: ColumnDefinitionBuilder) =>
    dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey();

  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('collections')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('code', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('asset_family', 'text')
        .addColumn('license_model', 'text')
        .addColumn('product_types', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();

      await db.schema
        .createTable('artists')
        .addColumn('id', serial, counterKey)
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .execute();

      await db.schema
        .createTable('assets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('asset_type', 'text', (c) => c.notNull())
        .addColumn('asset_family', 'text')
        .addColumn('title', 'text')
        .addColumn('caption', 'text')
        .addColumn('artist_id', 'integer', (c) => c.references('artists.id'))
        .addColumn('collection_id', 'integer', (c) => c.references('collections.id'))
        .addColumn('license_model', 'text')
        .addColumn('orientation', 'text')
        .addColumn('max_width', 'integer')
        .addColumn('max_height', 'integer')
        .addColumn('quality_rank', 'integer')
        .addColumn('date_created', 'text')
        .addColumn('date_submitted', 'text')
        .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('original_key', 'text')
        .addColumn('original_media_type', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('assets_type_idx').on('assets').columns(['asset_type', 'id']).execute();
      await db.schema.createIndex('assets_collection_idx').on('assets').column('collection_id').execute();
      await db.schema.createIndex('assets_artist_idx').on('assets').column('artist_id').execute();

      await db.schema
        .createTable('keywords')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('type', 'text')
        .addColumn('entity_uris', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('entity_types', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('translations', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      await db.schema.createIndex('keywords_text_idx').on('keywords').columns(['text', 'type']).execute();

      await db.schema
        .createTable('asset_keywords')
        .addColumn('asset_id', 'text', (c) => c.notNull().references('assets.id').onDelete('cascade'))
        .addColumn('keyword_id', 'integer', (c) => c.notNull().references('keywords.id'))
        .addColumn('relevance', 'integer')
        .addColumn('position', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('asset_keywords_pk', ['asset_id', 'keyword_id'])
        .execute();
      await db.schema.createIndex('asset_keywords_keyword_idx').on('asset_keywords').column('keyword_id').execute();

      await db.schema
        .createTable('events')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('start_date', 'text')
        .addColumn('parent_id', 'integer')
        .addColumn('type', 'text')
        .addColumn('editorial_segments', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('hero_image_id', 'text')
        .addColumn('city', 'text')
        .addColumn('country', 'text')
        .addColumn('state_province', 'text')
        .addColumn('venue', 'text')
        .addColumn('keywords', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_parent_idx').on('events').column('parent_id').execute();

      await db.schema
        .createTable('asset_events')
        .addColumn('asset_id', 'text', (c) => c.notNull().references('assets.id').onDelete('cascade'))
        .addColumn('event_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('asset_events_pk', ['asset_id', 'event_id'])
        .execute();
      await db.schema.createIndex('asset_events_event_idx').on('asset_events').column('event_id').execute();

      await db.schema
        .createTable('change_log')
        .addColumn('seq', serial, counterKey)
        .addColumn('entity_type', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('operation', 'text', (c) => c.notNull())
        .addColumn('changed_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('api_clients')
        .addColumn('id', serial, counterKey)
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_hint', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('queries_per_second', 'integer')
        .addColumn('queries_per_day', 'integer')
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('users')
        .addColumn('id', serial, counterKey)
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('first_name', 'text')
        .addColumn('last_name', 'text')
        .addColumn('email', 'text')
        .addColumn('password_changed_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('access_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer')
        .addColumn('grant_type', 'text', (c) => c.notNull())
        .addColumn('issued_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
    },
  };
}
