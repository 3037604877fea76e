import { sql, type Kysely, type Transaction } from 'kysely';
import type { Tables } from '../platform/db/tables.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';
import { periodEndAfter } from './entitlements.js';
import { Ledger } from './ledger.repository.js';
import type { DownloadLimitDuration } from './licensing-policy.js';

/** What counting a generation did: 'download' or 'overage' (its units taken from the allowance or its overage), 'free' (no limit, or nothing to take), undefined (not enough left). */
export type GenerationCharge = 'download' | 'overage' | 'free';

/**
 * The allowance of AI generation products in the store: a generation request counts like a
 * download of a product with a download limit, with its ledger row naming the request. A
 * request is charged once and given back once: a unique index on (request, reason) keeps a
 * second charge or refund, by any node, from being written.
 *
 * A request may cost more than one unit (an edit of a catalogue asset costs the product's
 * asset_edit_cost). Its units are taken whole from the allowance, or else whole from the
 * overage, never split between the two: one conditional update takes them all or nothing, and
 * the ledger row's unit says where they came from, so a refund puts them back there.
 */
export class AiGenerationRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  /** Counts a generation of `units` against the product; undefined (nothing changed) when neither its allowance nor its overage has that many left. */
  async charge(productId: number, userId: number, requestId: string, units: number, now: Date): Promise<GenerationCharge | undefined> {
    const at = now.toISOString();
    try {
      return await this.db.transaction().execute(async (trx) => {
        const product = await trx
          .selectFrom('products')
          .select(['download_limit', 'download_limit_duration', 'download_period_ends_at', 'created_at'])
          .where('id', '=', productId)
          .executeTakeFirstOrThrow();
        const ledger = new Ledger(trx);
        const entry = { user_id: userId, product_id: productId, reason: 'generation', generation_request_id: requestId, created_at: at };
        if (product.download_limit === null || units === 0) {
          await ledger.record({ ...entry, unit: 'generation', amount: 0 });
          return 'free' as const;
        }
        const duration = product.download_limit_duration as DownloadLimitDuration | null;
        if (duration !== null && (product.download_period_ends_at === null || Date.parse(product.download_period_ends_at) <= now.getTime())) {
          await ledger.rollDownloadPeriod(productId, product.download_period_ends_at, periodEndAfter(new Date(product.created_at), duration, now).toISOString());
        }
        const counted = await countUnits(trx, productId, units);
        if (counted === undefined) return undefined;
        await ledger.record({ ...entry, unit: counted, amount: -units });
        return counted;
      });
    } catch (error) {
      // Charged already (the same request id): nothing more to take.
      if (isUniqueViolation(error)) return 'free';
      throw error;
    }
  }

  /**
   * Gives back what the request's charge took, once: the refund's ledger row is written first,
   * and a second refund finds it there. A charge from a period that has since ended gives
   * nothing back (that period's counts are gone).
   */
  async refund(requestId: string, now: Date): Promise<void> {
    const at = now.toISOString();
    try {
      await this.db.transaction().execute(async (trx) => {
        const charge = await trx
          .selectFrom('download_ledger')
          .selectAll()
          .where('generation_request_id', '=', requestId)
          .where('reason', '=', 'generation')
          .executeTakeFirst();
        if (!charge || charge.product_id === null) return;
        const ledger = new Ledger(trx);
        await ledger.record({ ...charge, id: undefined, reason: 'generation_refund', amount: -charge.amount, created_at: at });
        if (charge.amount === 0) return;
        const product = await trx.selectFrom('products').select(['download_period_ends_at', 'download_limit_duration']).where('id', '=', charge.product_id).executeTakeFirstOrThrow();
        const samePeriod = product.download_limit_duration === null || (product.download_period_ends_at !== null && Date.parse(charge.created_at) < Date.parse(product.download_period_ends_at) && Date.parse(product.download_period_ends_at) > now.getTime());
        if (!samePeriod) return;
        const column = charge.unit === 'overage' ? 'overage_count' : 'downloads_used';
        const units = -charge.amount;
        await trx
          .updateTable('products')
          .set((eb) => ({ [column]: eb(column, '-', units) }))
          .where('id', '=', charge.product_id)
          .where(column, '>=', units)
          .execute();
      });
    } catch (error) {
      if (isUniqueViolation(error)) return;
      throw error;
    }
  }

  /** The user has licensed (downloaded) the asset under any product. */
  async hasLicensed(userId: number, assetId: string): Promise<boolean> {
    const row = await this.db.selectFrom('asset_licenses').select('product_id').where('user_id', '=', userId).where('asset_id', '=', assetId).executeTakeFirst();
    return row !== undefined;
  }

  /** The products under which a download licensed the asset to the user. */
  async licensingProductIds(userId: number, assetId: string): Promise<number[]> {
    const rows = await this.db.selectFrom('asset_licenses').select('product_id').where('user_id', '=', userId).where('asset_id', '=', assetId).execute();
    return rows.map((row) => row.product_id);
  }

  /**
   * A download of a generated image, in the download history (GET /v3/downloads): no purchase
   * and no payment (the generation was charged when it was requested). Its delivery URI names it.
   */
  async recordGeneratedDownload(row: GeneratedDownloadRow, deliveryUri: (downloadId: number) => string, now: Date): Promise<{ id: number; deliveryUri: string }> {
    const at = now.toISOString();
    return this.db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('downloads')
        .values({
          user_id: row.userId,
          client_id: row.clientId,
          product_id: row.productId,
          product_type: 'aigen',
          team: row.team,
          asset_id: row.generatedAssetId,
          asset_type: 'image',
          size_name: row.sizeName,
          width: row.width,
          height: row.height,
          dpi: null,
          bytes: null,
          file_type: null,
          license_model: null,
          download_notes: row.notes,
          project_code: row.projectCode,
          downloaded_at: at,
          new_license: 0,
          idempotency_key: null,
          request_fingerprint: null,
          delivery_uri: null,
          delivery_issued_at: null,
          generated_asset_id: row.generatedAssetId,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const uri = deliveryUri(id);
      await trx.updateTable('downloads').set({ delivery_uri: uri, delivery_issued_at: at }).where('id', '=', id).execute();
      return { id, deliveryUri: uri };
    });
  }

  /** The user's latest download of a generated image, any size. */
  latestGeneratedDownload(userId: number, generatedAssetId: string): Promise<{ id: number; size_name: string | null } | undefined> {
    return this.db
      .selectFrom('downloads')
      .select(['id', 'size_name'])
      .where('user_id', '=', userId)
      .where('generated_asset_id', '=', generatedAssetId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }
}

/**
 * Takes `units` from the product's allowance if it has that many left, else from its overage:
 * each is one conditional update that changes nothing unless all of them fit, so no two
 * requests, processes or nodes can overdraw.
 */
async function countUnits(trx: Transaction<Tables>, productId: number, units: number): Promise<'download' | 'overage' | undefined> {
  const counted = await trx
    .updateTable('products')
    .set({ downloads_used: sql<number>`downloads_used + ${units}` })
    .where('id', '=', productId)
    .where('download_limit', 'is not', null)
    .where(sql<boolean>`downloads_used + ${units} <= download_limit`)
    .executeTakeFirst();
  if (Number(counted.numUpdatedRows) === 1) return 'download';
  const overage = await trx
    .updateTable('products')
    .set({ overage_count: sql<number>`overage_count + ${units}` })
    .where('id', '=', productId)
    .where('overage_limit', 'is not', null)
    .where(sql<boolean>`overage_count + ${units} <= overage_limit`)
    .executeTakeFirst();
  return Number(overage.numUpdatedRows) === 1 ? 'overage' : undefined;
}

export interface GeneratedDownloadRow {
  userId: number;
  clientId: number;
  productId: number;
  team: string | null;
  generatedAssetId: string;
  sizeName: string;
  width: number | null;
  height: number | null;
  notes: string | null;
  projectCode: string | null;
}
