import type { Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * Boards: collections of assets a customer keeps, the colleagues invited to edit them, the
 * assets on them and the comments. Board and comment ids are random text, never a sequence.
 * A board's two links (invitation, share) are tokens derived from a random nonce with a key
 * kept in the settings; the store keeps the nonce and the SHA-256 of the token, never the token.
 */
export function boards(_dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('boards')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        // Kept with every change to board_assets, in the same transaction: the limit and the lists read it.
        .addColumn('asset_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('comment_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('date_created', 'text', (c) => c.notNull())
        .addColumn('date_last_updated', 'text', (c) => c.notNull())
        .addColumn('invitation_nonce', 'text', (c) => c.notNull())
        .addColumn('invitation_hash', 'text', (c) => c.notNull().unique())
        .addColumn('share_nonce', 'text', (c) => c.notNull())
        .addColumn('share_hash', 'text', (c) => c.notNull().unique())
        .execute();
      await db.schema.createIndex('boards_owner_idx').on('boards').columns(['owner_id', 'date_last_updated']).execute();

      await db.schema
        .createTable('board_members')
        .addColumn('board_id', 'text', (c) => c.notNull().references('boards.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        // editor: the one role an invitation gives
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('joined_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('board_members_pk', ['board_id', 'user_id'])
        .execute();
      await db.schema.createIndex('board_members_user_idx').on('board_members').column('user_id').execute();

      await db.schema
        .createTable('board_assets')
        .addColumn('board_id', 'text', (c) => c.notNull().references('boards.id').onDelete('cascade'))
        .addColumn('asset_id', 'text', (c) => c.notNull())
        // image | video
        .addColumn('asset_type', 'text', (c) => c.notNull())
        .addColumn('date_added', 'text', (c) => c.notNull())
        // Two editors adding the same asset at once store it once.
        .addPrimaryKeyConstraint('board_assets_pk', ['board_id', 'asset_id'])
        .execute();
      await db.schema.createIndex('board_assets_asset_idx').on('board_assets').column('asset_id').execute();
      await db.schema.createIndex('board_assets_added_idx').on('board_assets').columns(['board_id', 'date_added']).execute();

      await db.schema
        .createTable('board_comments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('board_id', 'text', (c) => c.notNull().references('boards.id').onDelete('cascade'))
        // A comment outlives its author's account; it then shows no name.
        .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('date_created', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('board_comments_board_idx').on('board_comments').columns(['board_id', 'date_created']).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('board_comments').execute();
      await db.schema.dropTable('board_assets').execute();
      await db.schema.dropTable('board_members').execute();
      await db.schema.dropTable('boards').execute();
    },
  };
}
