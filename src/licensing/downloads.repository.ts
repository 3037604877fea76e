import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DownloadsTable, Tables } from '../platform/db/tables.js';
import { periodEndAfter, type PaymentRefusal } from './entitlements.js';
import { Ledger } from './ledger.repository.js';
import { OrdersRepository, type OrderNotes } from './orders.repository.js';
import type { DownloadLimitDuration } from './licensing-policy.js';

export type DownloadRow = Selectable<DownloadsTable>;
export type NewDownloadRow = Omit<Insertable<DownloadsTable>, 'id' | 'new_license' | 'credits_spent' | 'used_team_credits' | 'delivery_uri' | 'delivery_issued_at'>;

/** What a download that licenses its asset pays, decided by the service. */
export interface DownloadPayment {
  /** credits to take (0: none) */
  credits: number;
  /** take the credits from this team's pool instead of the product's own */
  team: string | null;
  /** the product has a download limit: count the download against it (or its overage) */
  countsDownload: boolean;
}

/** The conditional debit found too little left; the transaction is undone. */
export class PaymentRefusedError extends Error {
  override name = 'PaymentRefusedError';
  constructor(readonly refusal: PaymentRefusal) {
    super(refusal);
  }
}

export interface RecordedDownload {
  id: number;
  /** this download licensed the asset under its product (and paid) */
  newLicense: boolean;
  creditsSpent: number;
  deliveryUri: string;
  /** The order of a purchase; null for a free download again. */
  orderId: number | null;
}

/** A download with the names of its user and the agreement of its product, for the history. */
export interface HistoryRow extends DownloadRow {
  username: string;
  first_name: string | null;
  last_name: string | null;
  agreement_name: string | null;
}

export interface HistoryFilter {
  userId?: number;
  /** the downloads of a whole team (company_downloads) instead of one user's */
  team?: string;
  assetType?: string;
  assetId?: string;
  /** downloaded_at >= from */
  from?: string;
  /** downloaded_at < until */
  until?: string;
  productType?: string;
  /** only the downloads that licensed their asset (the purchases) */
  purchasesOnly?: boolean;
}

/** How many downloads licensed one asset through one client on one day. */
export interface LicensedDownloadCount {
  asset_id: string;
  asset_type: string;
  client_id: number;
  /** YYYY-MM-DD, in UTC */
  day: string;
  downloads: number;
}

export { isUniqueViolation } from '../platform/db/unique-violation.js';

/** Downloads: recording one with its payment, and reading the history. */
export class DownloadsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  /**
   * Records a download and pays for it in one transaction. The asset is licensed under the
   * product first (a key of product and asset): when it already was, the download is free;
   * otherwise the payment is taken by conditional updates, each with its ledger row. Too little
   * left throws PaymentRefusedError and nothing is kept. The delivery URI is made inside (it names
   * the download) and stored, so a retry with the same Idempotency-Key returns it. A download
   * that licenses its asset is a purchase, and belongs to the order its notes name (or a new one).
   */
  async record(
    row: NewDownloadRow,
    payment: DownloadPayment,
    deliveryUri: (downloadId: number) => string,
    now: Date,
    order: OrderNotes = {},
  ): Promise<RecordedDownload> {
    const at = now.toISOString();
    return this.db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('downloads')
        .values({ ...row, new_license: 0, credits_spent: 0, used_team_credits: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      const licensed = await trx
        .insertInto('asset_licenses')
        .values({ product_id: row.product_id, asset_id: row.asset_id, user_id: row.user_id, download_id: id, licensed_at: at })
        .onConflict((conflict) => conflict.columns(['product_id', 'asset_id']).doNothing())
        .returning('download_id')
        .executeTakeFirst();
      const newLicense = licensed !== undefined;
      let creditsSpent = 0;
      if (newLicense) {
        const ledger = new Ledger(trx);
        const entry = { user_id: row.user_id, product_id: row.product_id, reason: 'download', download_id: id, created_at: at };
        if (payment.countsDownload) {
          await this.rollPeriodIfEnded(trx, ledger, row.product_id, now);
          const counted = await ledger.countDownload(row.product_id);
          if (counted === undefined) throw new PaymentRefusedError('OverageLimitReached');
          await ledger.record({ ...entry, unit: counted, amount: -1 });
        }
        if (payment.credits > 0) {
          const paid =
            payment.team === null
              ? await ledger.debitProductCredits(row.product_id, payment.credits)
              : await ledger.debitTeamCredits(payment.team, payment.credits, at);
          if (!paid) throw new PaymentRefusedError('InsufficientCredits');
          await ledger.record({ ...entry, team: payment.team, unit: 'credit', amount: -payment.credits });
          creditsSpent = payment.credits;
        }
      }
      const orderId = newLicense ? await new OrdersRepository(trx).place(row.user_id, order, at) : null;
      const uri = deliveryUri(id);
      await trx
        .updateTable('downloads')
        .set({
          new_license: newLicense ? 1 : 0,
          credits_spent: creditsSpent,
          used_team_credits: creditsSpent > 0 && payment.team !== null ? 1 : 0,
          delivery_uri: uri,
          delivery_issued_at: at,
          order_id: orderId,
        })
        .where('id', '=', id)
        .execute();
      return { id, newLicense, creditsSpent, deliveryUri: uri, orderId };
    });
  }

  /** A limit that resets: when its period has ended, counting starts again in the period `now` is in. */
  private async rollPeriodIfEnded(trx: Kysely<Tables>, ledger: Ledger, productId: number, now: Date): Promise<void> {
    const product = await trx
      .selectFrom('products')
      .select(['download_limit_duration', 'download_period_ends_at', 'created_at'])
      .where('id', '=', productId)
      .executeTakeFirstOrThrow();
    const duration = product.download_limit_duration as DownloadLimitDuration | null;
    if (duration === null) return;
    const storedEnd = product.download_period_ends_at;
    if (storedEnd !== null && Date.parse(storedEnd) > now.getTime()) return;
    await ledger.rollDownloadPeriod(productId, storedEnd, periodEndAfter(new Date(product.created_at), duration, now).toISOString());
  }

  findByIdempotencyKey(userId: number, key: string): Promise<DownloadRow | undefined> {
    return this.db.selectFrom('downloads').selectAll().where('user_id', '=', userId).where('idempotency_key', '=', key).executeTakeFirst();
  }

  async updateDelivery(id: number, uri: string, issuedAt: string): Promise<void> {
    await this.db.updateTable('downloads').set({ delivery_uri: uri, delivery_issued_at: issuedAt }).where('id', '=', id).execute();
  }

  /** Which of the products already license the asset (downloading it again there is free). */
  async licensedUnder(productIds: readonly number[], assetId: string): Promise<Set<number>> {
    if (productIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('asset_licenses')
      .select('product_id')
      .where('asset_id', '=', assetId)
      .where('product_id', 'in', productIds)
      .execute();
    return new Set(rows.map((row) => row.product_id));
  }

  /** Purchases (downloads that licensed their asset) per asset, client and UTC day, made in [from, until). */
  async licensedCounts(from: string, until: string): Promise<LicensedDownloadCount[]> {
    // The instants are ISO 8601 text in UTC in both stores: the day is their first ten characters.
    const day = sql<string>`substr(downloaded_at, 1, 10)`;
    const rows = await this.db
      .selectFrom('downloads')
      .select(['asset_id', 'asset_type', 'client_id'])
      .select((eb) => [day.as('day'), eb.fn.countAll<number>().as('downloads')])
      .where('new_license', '=', 1)
      .where('downloaded_at', '>=', from)
      .where('downloaded_at', '<', until)
      .groupBy(['asset_id', 'asset_type', 'client_id', day])
      .execute();
    return rows.map((row) => ({ ...row, downloads: Number(row.downloads) }));
  }

  /** One page of the history, newest first, and how many downloads match in all. */
  async list(filter: HistoryFilter, offset: number, limit: number): Promise<{ total: number; rows: HistoryRow[] }> {
    let query = this.db.selectFrom('downloads');
    if (filter.userId !== undefined) query = query.where('downloads.user_id', '=', filter.userId);
    if (filter.team !== undefined) query = query.where('downloads.team', '=', filter.team);
    if (filter.assetType !== undefined) query = query.where('downloads.asset_type', '=', filter.assetType);
    if (filter.assetId !== undefined) query = query.where('downloads.asset_id', '=', filter.assetId);
    if (filter.from !== undefined) query = query.where('downloads.downloaded_at', '>=', filter.from);
    if (filter.until !== undefined) query = query.where('downloads.downloaded_at', '<', filter.until);
    if (filter.productType !== undefined) query = query.where('downloads.product_type', '=', filter.productType);
    if (filter.purchasesOnly) query = query.where('downloads.new_license', '=', 1);
    const counted = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const rows = await query
      .innerJoin('users', 'users.id', 'downloads.user_id')
      .innerJoin('products', 'products.id', 'downloads.product_id')
      .selectAll('downloads')
      .select(['users.username', 'users.first_name', 'users.last_name', 'products.agreement_name'])
      .orderBy('downloads.downloaded_at', 'desc')
      .orderBy('downloads.id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute();
    return { total: Number(counted?.total ?? 0), rows };
  }
}
