import type { Kysely } from 'kysely';
import type { SqlDialect } from '../database.js';

/**
 * An AI generation product (aigen) says how many units of its generation allowance an edit of a
 * catalogue asset draws (a request with reference_asset_id, and background generation): the
 * contract says such operations "may use a credit" without saying of what. 1 by default, as any
 * request; 0 makes such edits free. Other product types keep the column's default and never read it.
 */
export function assetEditCost(_dialect: SqlDialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('products').addColumn('asset_edit_cost', 'integer', (c) => c.notNull().defaultTo(1)).execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('products').dropColumn('asset_edit_cost').execute();
    },
  };
}
