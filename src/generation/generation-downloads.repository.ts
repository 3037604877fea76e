import type { Kysely, Selectable } from 'kysely';
import type { GenerationDownloadsTable, Tables } from '../platform/db/tables.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';

export type PreparedDownloadRow = Selectable<GenerationDownloadsTable>;

/**
 * The files of generated-image downloads, one per result and size: prepared once (an upscale
 * is a job, claimed under a lease that its runner renews, so a file whose node died is
 * prepared again by another), then delivered as often as it is downloaded.
 */
export class GenerationDownloadsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  find(requestId: string, index: number, sizeName: string): Promise<PreparedDownloadRow | undefined> {
    return this.db
      .selectFrom('generation_downloads')
      .selectAll()
      .where('request_id', '=', requestId)
      .where('result_index', '=', index)
      .where('size_name', '=', sizeName)
      .executeTakeFirst();
  }

  findById(id: number): Promise<PreparedDownloadRow | undefined> {
    return this.db.selectFrom('generation_downloads').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Any size of the result still being prepared. */
  async preparing(requestId: string, index: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('generation_downloads')
      .select('id')
      .where('request_id', '=', requestId)
      .where('result_index', '=', index)
      .where('status', '=', 'preparing')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Queues the file's preparation: a new row, or a failed one asked for again. 'busy' when
   * another request queued it first (or it is being prepared); 'ready' when it already is.
   */
  async queue(row: { generatedAssetId: string; requestId: string; index: number; sizeName: string; userId: number }, now: Date): Promise<'queued' | 'busy' | 'ready'> {
    try {
      await this.db
        .insertInto('generation_downloads')
        .values({
          generated_asset_id: row.generatedAssetId,
          request_id: row.requestId,
          result_index: row.index,
          size_name: row.sizeName,
          user_id: row.userId,
          status: 'preparing',
          created_at: now.toISOString(),
        })
        .execute();
      return 'queued';
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const retried = await this.db
      .updateTable('generation_downloads')
      .set({ status: 'preparing', claimed_by: null, lease_until: null })
      .where('request_id', '=', row.requestId)
      .where('result_index', '=', row.index)
      .where('size_name', '=', row.sizeName)
      .where('status', '=', 'failed')
      .executeTakeFirst();
    if (Number(retried.numUpdatedRows) === 1) return 'queued';
    const existing = await this.find(row.requestId, row.index, row.sizeName);
    return existing?.status === 'ready' ? 'ready' : 'busy';
  }

  /** Takes one file to prepare: unclaimed, or its lease lapsed. A conditional update, so two nodes never take the same one. */
  async claim(node: string, now: Date, leaseUntil: Date): Promise<PreparedDownloadRow | undefined> {
    const candidates = await this.db
      .selectFrom('generation_downloads')
      .select('id')
      .where('status', '=', 'preparing')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now.toISOString())]))
      .orderBy('id')
      .limit(5)
      .execute();
    for (const { id } of candidates) {
      const taken = await this.db
        .updateTable('generation_downloads')
        .set({ claimed_by: node, lease_until: leaseUntil.toISOString() })
        .where('id', '=', id)
        .where('status', '=', 'preparing')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now.toISOString())]))
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return this.findById(id);
    }
    return undefined;
  }

  async renew(id: number, node: string, leaseUntil: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('generation_downloads')
      .set({ lease_until: leaseUntil.toISOString() })
      .where('id', '=', id)
      .where('claimed_by', '=', node)
      .where('status', '=', 'preparing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async finish(id: number, node: string, file: { key: string; width: number; height: number } | 'failed'): Promise<boolean> {
    const result = await this.db
      .updateTable('generation_downloads')
      .set(file === 'failed' ? { status: 'failed', claimed_by: null, lease_until: null } : { status: 'ready', file_key: file.key, width: file.width, height: file.height, claimed_by: null, lease_until: null })
      .where('id', '=', id)
      .where('claimed_by', '=', node)
      .where('status', '=', 'preparing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * A ready file whose stored bytes went away (a blob store restored without them, or emptied)
   * becomes failed, so that the next PUT …/download prepares it again. Conditional on the key
   * it was found with: a file prepared anew meanwhile is left as it is.
   */
  async markMissing(id: number, key: string): Promise<void> {
    await this.db
      .updateTable('generation_downloads')
      .set({ status: 'failed', claimed_by: null, lease_until: null })
      .where('id', '=', id)
      .where('status', '=', 'ready')
      .where('file_key', '=', key)
      .execute();
  }

  /** Gives this node's files back to the queue (it is stopping). */
  /** Every file being prepared goes back to the queue (SQLite at start: no other runner can hold one). */
  async releaseAll(): Promise<void> {
    await this.db.updateTable('generation_downloads').set({ claimed_by: null, lease_until: null }).where('status', '=', 'preparing').execute();
  }

  async release(node: string): Promise<void> {
    await this.db.updateTable('generation_downloads').set({ claimed_by: null, lease_until: null }).where('claimed_by', '=', node).where('status', '=', 'preparing').execute();
  }
}
