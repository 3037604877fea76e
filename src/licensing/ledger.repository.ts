import { sql, type Insertable, type Kysely } from 'kysely';
import type { DownloadLedgerTable, Tables } from '../platform/db/tables.js';

export type LedgerEntry = Insertable<DownloadLedgerTable>;

/**
 * The moves of credits and download allowances. Every debit is one conditional update — it
 * changes nothing unless enough is left — so no interleaving of requests, processes or nodes can
 * overdraw; the caller writes the matching ledger row in the same transaction. Give it the
 * transaction (`new Ledger(trx)`), never the bare store, when a debit belongs to a record.
 */
export class Ledger {
  constructor(private readonly db: Kysely<Tables>) {}

  /** Takes `credits` from a product's own credits; false (nothing changed) when it has fewer. */
  async debitProductCredits(productId: number, credits: number): Promise<boolean> {
    const result = await this.db
      .updateTable('products')
      .set({ credits_remaining: sql<number>`credits_remaining - ${credits}` })
      .where('id', '=', productId)
      .where('credits_remaining', '>=', credits)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Takes `credits` from a team's pool; false (nothing changed) when it has fewer or there is no pool. */
  async debitTeamCredits(team: string, credits: number, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('team_credits')
      .set({ credits: sql<number>`credits - ${credits}`, updated_at: at })
      .where('team', '=', team)
      .where('credits', '>=', credits)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async addTeamCredits(team: string, credits: number, at: string): Promise<void> {
    await this.db
      .insertInto('team_credits')
      .values({ team, credits, updated_at: at })
      .onConflict((conflict) =>
        conflict.column('team').doUpdateSet({ credits: sql<number>`team_credits.credits + ${credits}`, updated_at: at }),
      )
      .execute();
  }

  /**
   * Starts a new download period for a product whose period ended: counts back to zero, the next
   * end stored. Only the request that finds the stored end unchanged does it (compare-and-set),
   * so two requests rolling at once roll once.
   */
  async rollDownloadPeriod(productId: number, storedEnd: string | null, nextEnd: string): Promise<void> {
    await this.db
      .updateTable('products')
      .set({ downloads_used: 0, overage_count: 0, download_period_ends_at: nextEnd })
      .where('id', '=', productId)
      .where((eb) => (storedEnd === null ? eb('download_period_ends_at', 'is', null) : eb('download_period_ends_at', '=', storedEnd)))
      .execute();
  }

  /**
   * Counts one download against a product's limit, or else against its overage: 'download' or
   * 'overage' for what was counted, undefined (nothing changed) when both are used up.
   */
  async countDownload(productId: number): Promise<'download' | 'overage' | undefined> {
    const counted = await this.db
      .updateTable('products')
      .set({ downloads_used: sql<number>`downloads_used + 1` })
      .where('id', '=', productId)
      .where('download_limit', 'is not', null)
      .whereRef('downloads_used', '<', 'download_limit')
      .executeTakeFirst();
    if (Number(counted.numUpdatedRows) === 1) return 'download';
    const overage = await this.db
      .updateTable('products')
      .set({ overage_count: sql<number>`overage_count + 1` })
      .where('id', '=', productId)
      .where('overage_limit', 'is not', null)
      .whereRef('overage_count', '<', 'overage_limit')
      .executeTakeFirst();
    return Number(overage.numUpdatedRows) === 1 ? 'overage' : undefined;
  }

  async record(entry: LedgerEntry): Promise<void> {
    await this.db.insertInto('download_ledger').values(entry).execute();
  }

  /**
   * Debits written after ledger row `afterId`, summed by unit and reason, and the last row's id
   * (the metrics read the ledger on from there at each scrape).
   */
  async debitsAfter(afterId: number): Promise<{ lastId: number; debits: Array<{ unit: string; reason: string; entries: number; amount: number }> }> {
    const last = await this.db.selectFrom('download_ledger').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
    const lastId = Number(last?.id ?? 0);
    if (lastId <= afterId) return { lastId: afterId, debits: [] };
    const rows = await this.db
      .selectFrom('download_ledger')
      .select((eb) => ['unit', 'reason', eb.fn.countAll<number>().as('entries'), eb.fn.sum<number>('amount').as('amount')])
      .where('id', '>', afterId)
      .where('id', '<=', lastId)
      .where('amount', '<', 0)
      .groupBy(['unit', 'reason'])
      .execute();
    return { lastId, debits: rows.map((row) => ({ unit: row.unit, reason: row.reason, entries: Number(row.entries), amount: -Number(row.amount) })) };
  }
}
