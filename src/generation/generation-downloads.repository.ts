import type { Kysely, Selectable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { GenerationDownloadsTable, Tables } from '../platform/db/tables.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';
import { LeaseQueue, type LeaseTable } from '../platform/jobs/lease-queue.js';

export type PreparedDownloadRow = Selectable<GenerationDownloadsTable>;

/**
 * A file being prepared is a job: 'preparing' whether it waits or a node holds it (the lease
 * tells which), so that "is it being prepared?" is one status.
 */
export const DOWNLOAD_PREPARATION_QUEUE: LeaseTable<'generation_downloads'> = {
  table: 'generation_downloads',
  key: ['id'],
  order: ['id'],
  lease: { holder: 'claimed_by', until: 'lease_until' },
  status: { column: 'status', waiting: 'preparing', held: 'preparing' },
};

/**
 * The files of generated-image downloads, one per result and size: prepared once (an upscale
 * is a job, claimed under a lease that its runner renews, so a file whose node died is
 * prepared again by another), then delivered as often as it is downloaded.
 */
export class GenerationDownloadsRepository {
  /** The files being prepared, as jobs any node may claim. */
  readonly queue: LeaseQueue<'generation_downloads'>;

  constructor(
    private readonly db: Kysely<Tables>,
    dialect: SqlDialect,
  ) {
    this.queue = new LeaseQueue(db, dialect, DOWNLOAD_PREPARATION_QUEUE);
  }

  find(requestId: string, index: number, sizeName: string): Promise<PreparedDownloadRow | undefined> {
    return this.db
      .selectFrom('generation_downloads')
      .selectAll()
      .where('request_id', '=', requestId)
      .where('result_index', '=', index)
      .where('size_name', '=', sizeName)
      .executeTakeFirst();
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
  async enqueue(row: { generatedAssetId: string; requestId: string; index: number; sizeName: string; userId: number }, now: Date): Promise<'queued' | 'busy' | 'ready'> {
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

  /** Stores the prepared file, or that it could not be made, only while the node still holds it. */
  finish(file: PreparedDownloadRow, node: string, made: { key: string; width: number; height: number } | 'failed'): Promise<boolean> {
    const outcome = made === 'failed' ? { status: 'failed' } : { status: 'ready', file_key: made.key, width: made.width, height: made.height };
    return this.queue.finish(file, node, { ...outcome, claimed_by: null });
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
}
