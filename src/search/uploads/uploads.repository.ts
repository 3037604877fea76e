import { sql, type Kysely, type Selectable } from 'kysely';
import type { SqlDialect } from '../../platform/db/database.js';
import type { SearchUploadsTable, Tables } from '../../platform/db/tables.js';

export type SearchUploadRow = Selectable<SearchUploadsTable>;

/**
 * The files clients uploaded for search by image: one row per (API client, name), pointing
 * at a content-addressed blob that several rows may share.
 */
export class UploadsRepository {
  /**
   * Blob keys being written or released in this process, each with the tail of its queue.
   * Only used on SQLite; PostgreSQL locks through the store so that every node takes part.
   */
  private readonly localBlobLocks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
  ) {}

  find(clientId: number, name: string): Promise<SearchUploadRow | undefined> {
    return this.db
      .selectFrom('search_uploads')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  /** Stores the upload, replacing any earlier one of the same client and name. */
  async upsert(row: SearchUploadRow): Promise<void> {
    const { client_id: _clientId, name: _name, ...replaced } = row;
    await this.db
      .insertInto('search_uploads')
      .values(row)
      .onConflict((conflict) => conflict.columns(['client_id', 'name']).doUpdateSet(replaced))
      .execute();
  }

  async updateSignature(clientId: number, name: string, visualSignature: string): Promise<void> {
    await this.db
      .updateTable('search_uploads')
      .set({ visual_signature: visualSignature })
      .where('client_id', '=', clientId)
      .where('name', '=', name)
      .execute();
  }

  /** Deletes every upload that expired at or before `nowIso`; returns the blob keys they held. */
  async deleteExpired(nowIso: string): Promise<string[]> {
    const deleted = await this.db
      .deleteFrom('search_uploads')
      .where('expires_at', '<=', nowIso)
      .returning('blob_key')
      .execute();
    return [...new Set(deleted.map((row) => row.blob_key))];
  }

  async isBlobReferenced(blobKey: string): Promise<boolean> {
    const row = await this.db.selectFrom('search_uploads').select('name').where('blob_key', '=', blobKey).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Runs `work` while no other writer or releaser of the same blob key runs, so that "is
   * this blob still referenced? then delete it" cannot interleave with "write the blob and
   * a row that references it". `work` gets a repository to use meanwhile: on PostgreSQL it
   * is bound to the transaction holding an advisory lock (rows written there become visible
   * to the next holder only when the lock is released at commit). On SQLite, a file one
   * process uses, a lock in this process suffices and keeps the single connection free
   * while the blob is being written.
   */
  async withBlobLock<T>(blobKey: string, work: (repository: UploadsRepository) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') {
      return this.db.transaction().execute(async (transaction) => {
        await sql`select pg_advisory_xact_lock(hashtext(${`stockroom.search_uploads:${blobKey}`}))`.execute(transaction);
        return work(new UploadsRepository(transaction, this.dialect));
      });
    }
    const previous = this.localBlobLocks.get(blobKey) ?? Promise.resolve();
    const result = previous.then(() => work(this));
    const tail = result.catch(() => undefined);
    this.localBlobLocks.set(blobKey, tail);
    try {
      return await result;
    } finally {
      // The last in the queue clears the entry so the map does not grow with every key ever seen.
      if (this.localBlobLocks.get(blobKey) === tail) this.localBlobLocks.delete(blobKey);
    }
  }
}
