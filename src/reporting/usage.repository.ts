import type { Kysely } from 'kysely';
import type { Tables } from '../platform/db/tables.js';

export interface NewUsage {
  assetId: string;
  assetType: string;
  quantity: number;
  /** YYYY-MM-DD */
  usageDate: string;
}

export interface NewBatch {
  clientId: number;
  transactionId: string;
  userId: number;
  receivedAt: string;
  usages: readonly NewUsage[];
}

/** Reported usage of one asset by one client on one usage day. */
export interface UsageTotal {
  asset_id: string;
  asset_type: string;
  client_id: number;
  /** the usage date, YYYY-MM-DD */
  day: string;
  reported_usages: number;
  reported_quantity: number;
}

/** Rows of one multi-row insert: 6 values each stays well under both stores' parameter limits. */
const ROWS_PER_INSERT = 1000;

/** Usage batches and their entries. */
export class UsageRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async hasBatch(clientId: number, transactionId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('usage_batches')
      .select('id')
      .where('client_id', '=', clientId)
      .where('transaction_id', '=', transactionId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Stores a batch and every entry in one transaction. The key on (client, transaction id)
   * refuses a second batch with the same id, also one committed by another node a moment
   * earlier: the insert throws a unique violation and nothing of it is kept.
   */
  async insertBatch(batch: NewBatch): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('usage_batches')
        .values({
          client_id: batch.clientId,
          transaction_id: batch.transactionId,
          user_id: batch.userId,
          usage_count: batch.usages.length,
          received_at: batch.receivedAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (let start = 0; start < batch.usages.length; start += ROWS_PER_INSERT) {
        const rows = batch.usages.slice(start, start + ROWS_PER_INSERT).map((usage) => ({
          batch_id: id,
          client_id: batch.clientId,
          asset_id: usage.assetId,
          asset_type: usage.assetType,
          quantity: usage.quantity,
          usage_date: usage.usageDate,
        }));
        await trx.insertInto('asset_usages').values(rows).execute();
      }
      return id;
    });
  }

  /** Reported usage per asset, client and usage day, with usage dates from `fromDay` to `toDay` (both included, YYYY-MM-DD). */
  async totals(fromDay: string, toDay: string): Promise<UsageTotal[]> {
    const rows = await this.db
      .selectFrom('asset_usages')
      .select(['asset_id', 'asset_type', 'client_id', 'usage_date'])
      .select((eb) => [eb.fn.countAll<number>().as('reported_usages'), eb.fn.sum<number>('quantity').as('reported_quantity')])
      .where('usage_date', '>=', fromDay)
      .where('usage_date', '<=', toDay)
      .groupBy(['asset_id', 'asset_type', 'client_id', 'usage_date'])
      .execute();
    // PostgreSQL's sum of integers is numeric, which pg hands over as text.
    return rows.map(({ usage_date, ...row }) => ({ ...row, day: usage_date, reported_usages: Number(row.reported_usages), reported_quantity: Number(row.reported_quantity) }));
  }
}
