import type { Kysely } from 'kysely';
import type { Tables } from '../platform/db/tables.js';
import { PaymentRefusedError } from './downloads.repository.js';
import { Ledger } from './ledger.repository.js';
import { OrdersRepository, type OrderNotes } from './orders.repository.js';

/** Who pays for extended licenses: a product's own credits, or a team's pool. */
export type CreditSource = { productId: number; team?: undefined } | { team: string; productId?: undefined };

/** Extended licenses bought with credits on top of a downloaded asset's standard license. */
export class AssetLicensingRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  /** True when the user has downloaded the asset (and so holds its standard license). */
  async hasDownloaded(userId: number, assetId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('downloads')
      .select('id')
      .where('user_id', '=', userId)
      .where('asset_id', '=', assetId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The extended license types the user already holds for the asset. */
  async held(userId: number, assetId: string): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('extended_licenses')
      .select('license_type')
      .where('user_id', '=', userId)
      .where('asset_id', '=', assetId)
      .execute();
    return new Set(rows.map((row) => row.license_type));
  }

  /**
   * Stores the licenses not held yet and takes their credits, in one transaction: one conditional
   * debit for the total, one ledger row per license. A license another request stored meanwhile
   * is not paid twice. Too few credits throws PaymentRefusedError and nothing is kept. The
   * licenses stored are one purchase: they belong to the order the notes name (or a new one).
   */
  async acquire(
    userId: number,
    assetId: string,
    licenses: ReadonlyArray<{ type: string; credits: number }>,
    source: CreditSource,
    at: string,
    order: OrderNotes = {},
  ): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const stored: Array<{ id: number; credits: number }> = [];
      for (const license of licenses) {
        const row = await trx
          .insertInto('extended_licenses')
          .values({
            user_id: userId,
            asset_id: assetId,
            license_type: license.type,
            credits: license.credits,
            product_id: source.productId ?? null,
            team: source.team ?? null,
            acquired_at: at,
          })
          .onConflict((conflict) => conflict.columns(['user_id', 'asset_id', 'license_type']).doNothing())
          .returning('id')
          .executeTakeFirst();
        if (row) stored.push({ id: row.id, credits: license.credits });
      }
      if (stored.length > 0) {
        const orderId = await new OrdersRepository(trx).place(userId, order, at);
        await trx.updateTable('extended_licenses').set({ order_id: orderId }).where('id', 'in', stored.map((license) => license.id)).execute();
      }
      const total = stored.reduce((sum, license) => sum + license.credits, 0);
      if (total === 0) return 0;
      const ledger = new Ledger(trx);
      const paid =
        source.team === undefined ? await ledger.debitProductCredits(source.productId, total) : await ledger.debitTeamCredits(source.team, total, at);
      if (!paid) throw new PaymentRefusedError('InsufficientCredits');
      for (const license of stored) {
        if (license.credits === 0) continue;
        await ledger.record({
          user_id: userId,
          product_id: source.productId ?? null,
          team: source.team ?? null,
          unit: 'credit',
          reason: 'extended_license',
          amount: -license.credits,
          extended_license_id: license.id,
          created_at: at,
        });
      }
      return total;
    });
  }
}
