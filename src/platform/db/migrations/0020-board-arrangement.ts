import type { Kysely } from 'kysely';

/**
 * A board as its owner arranges it: a note on each asset (written by whoever may add to the
 * board), the owner's order of the assets, and the owner's choice to show the comments on the
 * page the share link opens. An asset added after the owner last ordered the board has no
 * position and comes first, newest first, as every asset did before there was an order.
 */
export function boardArrangement() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('board_assets').addColumn('note', 'text').execute();
      await db.schema.alterTable('board_assets').addColumn('position', 'integer').execute();
      await db.schema.alterTable('boards').addColumn('share_comments', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('boards').dropColumn('share_comments').execute();
      await db.schema.alterTable('board_assets').dropColumn('position').execute();
      await db.schema.alterTable('board_assets').dropColumn('note').execute();
    },
  };
}
