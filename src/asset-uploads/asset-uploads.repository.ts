import type { Kysely, Selectable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { AssetUploadsTable, Tables } from '../platform/db/tables.js';
import { LeaseQueue, type LeaseTable } from '../platform/jobs/lease-queue.js';

export type AssetUploadRow = Selectable<AssetUploadsTable>;

/** The ingests of finished uploads, as jobs: waiting, then held by the node that ingests them. */
export const UPLOAD_INGEST_QUEUE: LeaseTable<'asset_uploads'> = {
  table: 'asset_uploads',
  key: ['id'],
  order: ['active_at', 'id'],
  lease: { holder: 'claimed_by', until: 'lease_until' },
  status: { column: 'status', waiting: 'waiting', held: 'ingesting' },
  attempts: 'attempts',
};

/** The uploads table: one row per upload, from its creation to what came of it. */
export class AssetUploadsRepository {
  readonly queue: LeaseQueue<'asset_uploads'>;

  constructor(
    private readonly db: Kysely<Tables>,
    dialect: SqlDialect,
  ) {
    this.queue = new LeaseQueue(db, dialect, UPLOAD_INGEST_QUEUE);
  }

  async insert(row: { id: string; user_id: number; file_name: string; byte_size: number; now: Date }): Promise<void> {
    const at = row.now.toISOString();
    await this.db
      .insertInto('asset_uploads')
      .values({ id: row.id, user_id: row.user_id, file_name: row.file_name, byte_size: row.byte_size, status: 'uploading', created_at: at, active_at: at })
      .execute();
  }

  find(id: string): Promise<AssetUploadRow | undefined> {
    return this.db.selectFrom('asset_uploads').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A user's uploads, newest first. */
  listOf(userId: number, limit: number): Promise<AssetUploadRow[]> {
    return this.db.selectFrom('asset_uploads').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
  }

  findMany(userId: number, ids: readonly string[]): Promise<AssetUploadRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('asset_uploads').selectAll().where('user_id', '=', userId).where('id', 'in', ids).execute();
  }

  /** Bytes came in: the upload is not idle. */
  async touch(id: string, now: Date): Promise<void> {
    await this.db.updateTable('asset_uploads').set({ active_at: now.toISOString() }).where('id', '=', id).where('status', '=', 'uploading').execute();
  }

  /** Every byte is in: the upload waits for its ingest. False when it was not uploading (abandoned meanwhile). */
  async markFinished(id: string, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('asset_uploads')
      .set({ status: 'waiting', active_at: now.toISOString() })
      .where('id', '=', id)
      .where('status', '=', 'uploading')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Unfinished uploads that received nothing since `before`. */
  idleSince(before: Date, limit: number): Promise<AssetUploadRow[]> {
    return this.db
      .selectFrom('asset_uploads')
      .selectAll()
      .where('status', '=', 'uploading')
      .where('active_at', '<', before.toISOString())
      .orderBy('active_at')
      .limit(limit)
      .execute();
  }

  /** An abandoned upload whose staged bytes could not be removed, back to unfinished: the next sweep tries again. */
  async reopenAbandoned(id: string): Promise<void> {
    await this.db.updateTable('asset_uploads').set({ status: 'uploading', finished_at: null }).where('id', '=', id).where('status', '=', 'abandoned').execute();
  }

  /** An upload cancelled by its sender or abandoned: it ends with no ingest. False when it was no longer uploading. */
  async end(id: string, status: 'cancelled' | 'abandoned', now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('asset_uploads')
      .set({ status, finished_at: now.toISOString() })
      .where('id', '=', id)
      .where('status', '=', 'uploading')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
