import { sql, type Kysely, type Selectable } from 'kysely';
import type { SqlDialect } from '../../platform/db/database.js';
import { withStoreLocks } from '../../platform/db/store-locks.js';
import type { SearchUploadsTable, Tables } from '../../platform/db/tables.js';

export type SearchUploadRow = Selectable<SearchUploadsTable>;

/** Who an upload belongs to: the user whose token came with it, or the API key alone (userId null). */
export interface UploadOwner {
  clientId: number;
  userId: number | null;
}

/** What is stored: how many live uploads, and their bytes. */
export interface UploadUsage {
  files: number;
  bytes: number;
}

/** user_id of an upload sent with the API key alone. */
const KEY_ONLY = 0;

/**
 * The files clients uploaded for search by image: one row per (API client, user, name),
 * pointing at a content-addressed blob that several rows may share.
 */
export class UploadsRepository {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
  ) {}

  find(owner: UploadOwner, name: string): Promise<SearchUploadRow | undefined> {
    return this.db
      .selectFrom('search_uploads')
      .selectAll()
      .where('client_id', '=', owner.clientId)
      .where('user_id', '=', owner.userId ?? KEY_ONLY)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  /** Stores the upload, replacing any earlier one of the same owner and name. */
  async upsert(owner: UploadOwner, row: Omit<SearchUploadRow, 'client_id' | 'user_id'>): Promise<void> {
    const { name: _name, ...replaced } = row;
    await this.db
      .insertInto('search_uploads')
      .values({ ...row, client_id: owner.clientId, user_id: owner.userId ?? KEY_ONLY })
      .onConflict((conflict) => conflict.columns(['client_id', 'user_id', 'name']).doUpdateSet(replaced))
      .execute();
  }

  async updateSignature(owner: UploadOwner, name: string, visualSignature: string): Promise<void> {
    await this.db
      .updateTable('search_uploads')
      .set({ visual_signature: visualSignature })
      .where('client_id', '=', owner.clientId)
      .where('user_id', '=', owner.userId ?? KEY_ONLY)
      .where('name', '=', name)
      .execute();
  }

  /**
   * The live uploads (not expired at `nowIso`) of an API key (every sender's) or of a user
   * (through any key), leaving out the upload `replacing` names: it is about to be replaced.
   */
  async usage(of: { clientId: number } | { userId: number }, nowIso: string, replacing: { owner: UploadOwner; name: string }): Promise<UploadUsage> {
    let query = this.db
      .selectFrom('search_uploads')
      .select([sql<number>`count(*)`.as('files'), sql<number>`coalesce(sum(byte_size), 0)`.as('bytes')])
      .where('expires_at', '>', nowIso)
      .where((eb) =>
        eb.not(
          eb.and([
            eb('client_id', '=', replacing.owner.clientId),
            eb('user_id', '=', replacing.owner.userId ?? KEY_ONLY),
            eb('name', '=', replacing.name),
          ]),
        ),
      );
    query = 'clientId' in of ? query.where('client_id', '=', of.clientId) : query.where('user_id', '=', of.userId);
    const row = await query.executeTakeFirstOrThrow();
    return { files: Number(row.files), bytes: Number(row.bytes) };
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
   * a row that references it" (see withStoreLocks).
   */
  withBlobLock<T>(blobKey: string, work: (repository: UploadsRepository) => Promise<T>): Promise<T> {
    return this.withLocks({ blobKey }, work);
  }

  /**
   * Runs `work` holding the locks of a blob key and, when given, of an owner's quotas (its
   * API key's and its user's), so that two uploads cannot both pass the same quota check.
   * `work` gets a repository to use meanwhile (on PostgreSQL, bound to the locks' transaction).
   */
  withLocks<T>(locks: { blobKey: string; owner?: UploadOwner }, work: (repository: UploadsRepository) => Promise<T>): Promise<T> {
    const names = [`search_uploads:${locks.blobKey}`];
    if (locks.owner) {
      names.push(`search_uploads:client:${locks.owner.clientId}`);
      if (locks.owner.userId !== null) names.push(`search_uploads:user:${locks.owner.userId}`);
    }
    return withStoreLocks(this.db, this.dialect, names, (db) => work(db === this.db ? this : new UploadsRepository(db, this.dialect)));
  }
}
