import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import { withStoreLocks } from '../platform/db/store-locks.js';
import type { GenerationFileRegistrationsTable, GenerationRequestsTable, GenerationResultsTable, Tables } from '../platform/db/tables.js';

export type GenerationRow = Selectable<GenerationRequestsTable>;
export type NewGenerationRow = Insertable<GenerationRequestsTable>;
export type ResultRow = Selectable<GenerationResultsTable>;
export type NewResultRow = Insertable<GenerationResultsTable>;
export type RegistrationRow = Selectable<GenerationFileRegistrationsTable>;

export interface HistoryFilter {
  userId?: number;
  team?: string;
  from?: string;
  until?: string;
  mediaType?: string;
  productIds?: readonly number[];
}

/** Generation requests as jobs (claimed under a lease), their results and their history. */
export class GenerationRepository {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
  ) {}

  async insert(row: NewGenerationRow, results: readonly NewResultRow[] = []): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('generation_requests').values(row).execute();
      if (results.length > 0) await trx.insertInto('generation_results').values([...results]).execute();
    });
  }

  find(id: string): Promise<GenerationRow | undefined> {
    return this.db.selectFrom('generation_requests').selectAll().where('id', '=', id).executeTakeFirst();
  }

  results(requestIds: readonly string[]): Promise<ResultRow[]> {
    if (requestIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('generation_results').selectAll().where('request_id', 'in', requestIds).orderBy('request_id').orderBy('result_index').execute();
  }

  result(requestId: string, index: number): Promise<ResultRow | undefined> {
    return this.db.selectFrom('generation_results').selectAll().where('request_id', '=', requestId).where('result_index', '=', index).executeTakeFirst();
  }

  /** The user's requests waiting or running (the 429 rule). */
  async activeCount(userId: number): Promise<number> {
    const row = await this.db
      .selectFrom('generation_requests')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('status', 'in', ['pending', 'running'])
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Jobs waiting and running across every node, with the oldest's creation time of each (metrics; read-only). */
  async queueStats(): Promise<Array<{ status: string; jobs: number; oldest: string | null }>> {
    const rows = await this.db
      .selectFrom('generation_requests')
      .select((eb) => ['status', eb.fn.countAll<number>().as('jobs'), eb.fn.min('created_at').as('oldest')])
      .where('status', 'in', ['pending', 'running'])
      .groupBy('status')
      .execute();
    return rows.map((row) => ({ status: row.status, jobs: Number(row.jobs), oldest: row.oldest === null ? null : String(row.oldest) }));
  }

  /**
   * Claims the oldest job that waits, or whose runner's lease has lapsed (its node stopped), for
   * `node` until `leaseUntil`. On PostgreSQL the row is locked with SKIP LOCKED, so nodes
   * claiming at once each get a different job; SQLite has one writer at a time.
   */
  async claim(node: string, now: Date, leaseUntil: Date): Promise<GenerationRow | undefined> {
    const nowIso = now.toISOString();
    const lock = this.dialect === 'postgres' ? sql` for update skip locked` : sql``;
    const result = await sql<GenerationRow>`
      update generation_requests
         set status = 'running', claimed_by = ${node}, lease_until = ${leaseUntil.toISOString()}, attempts = attempts + 1
       where id = (select id from generation_requests
                    where status = 'pending' or (status = 'running' and lease_until < ${nowIso})
                    order by created_at, id
                    limit 1${lock})
         and (status = 'pending' or (status = 'running' and lease_until < ${nowIso}))
      returning *`.execute(this.db);
    return result.rows[0];
  }

  /** The runner is still at it: its lease runs on. False when the job is no longer its own. */
  async renew(id: string, node: string, leaseUntil: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('generation_requests')
      .set({ lease_until: leaseUntil.toISOString() })
      .where('id', '=', id)
      .where('claimed_by', '=', node)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Stores the results and marks the job done, only while it is still this node's; false otherwise (nothing kept). */
  async complete(id: string, node: string, engine: string, results: readonly NewResultRow[], now: Date): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('generation_requests')
        .set({ status: 'done', engine, finished_at: now.toISOString(), lease_until: null })
        .where('id', '=', id)
        .where('claimed_by', '=', node)
        .where('status', '=', 'running')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await trx.deleteFrom('generation_results').where('request_id', '=', id).execute();
      if (results.length > 0) await trx.insertInto('generation_results').values([...results]).execute();
      return true;
    });
  }

  /** Marks the job failed with its reason, only while it is this node's (or, without a node, whoever's). */
  async fail(id: string, node: string | undefined, reason: string, engine: string | null, now: Date): Promise<boolean> {
    let query = this.db
      .updateTable('generation_requests')
      .set({ status: 'failed', failure: reason, engine, finished_at: now.toISOString(), lease_until: null })
      .where('id', '=', id)
      .where('status', 'in', ['pending', 'running']);
    if (node !== undefined) query = query.where('claimed_by', '=', node);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async markRefunded(id: string): Promise<void> {
    await this.db.updateTable('generation_requests').set({ charge: 'refunded' }).where('id', '=', id).where('charge', '=', 'charged').execute();
  }

  /** Failed jobs whose charge is not yet given back (a node stopped between the two). */
  async unrefunded(limit: number): Promise<string[]> {
    const rows = await this.db.selectFrom('generation_requests').select('id').where('status', '=', 'failed').where('charge', '=', 'charged').limit(limit).execute();
    return rows.map((row) => row.id);
  }

  /** Gives back this node's claims (it is stopping): another node, or this one after a restart, runs them. */
  async release(node: string): Promise<void> {
    await this.db
      .updateTable('generation_requests')
      .set({ status: 'pending', claimed_by: null, lease_until: null })
      .where('claimed_by', '=', node)
      .where('status', '=', 'running')
      .execute();
  }

  /** On SQLite the one process is every runner there is: a job 'running' at its start was interrupted. */
  async releaseAll(): Promise<void> {
    await this.db.updateTable('generation_requests').set({ status: 'pending', claimed_by: null, lease_until: null }).where('status', '=', 'running').execute();
  }

  async history(filter: HistoryFilter, offset: number, limit: number): Promise<{ total: number; rows: GenerationRow[] }> {
    let query = this.db.selectFrom('generation_requests');
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.team !== undefined) query = query.where('team', '=', filter.team);
    if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
    if (filter.until !== undefined) query = query.where('created_at', '<=', filter.until);
    if (filter.mediaType !== undefined) query = query.where('media_type', '=', filter.mediaType);
    if (filter.productIds !== undefined && filter.productIds.length > 0) query = query.where('product_id', 'in', [...filter.productIds]);
    const counted = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
    return { total: Number(counted?.total ?? 0), rows };
  }

  async insertRegistration(row: RegistrationRow): Promise<void> {
    await this.db.insertInto('generation_file_registrations').values(row).execute();
  }

  findRegistration(id: string): Promise<RegistrationRow | undefined> {
    return this.db.selectFrom('generation_file_registrations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The registrations kept (made after `sinceIso`) of an API key or of a user: how many, and their bytes. */
  async registrationUsage(of: { clientId: number } | { userId: number }, sinceIso: string): Promise<{ files: number; bytes: number }> {
    let query = this.db
      .selectFrom('generation_file_registrations')
      .select([sql<number>`count(*)`.as('files'), sql<number>`coalesce(sum(byte_size), 0)`.as('bytes')])
      .where('created_at', '>', sinceIso);
    query = 'clientId' in of ? query.where('client_id', '=', of.clientId) : query.where('user_id', '=', of.userId);
    const row = await query.executeTakeFirstOrThrow();
    return { files: Number(row.files), bytes: Number(row.bytes) };
  }

  /** Deletes the registrations made at or before `cutoffIso`; returns the blob keys they held. */
  async deleteRegistrationsBefore(cutoffIso: string): Promise<string[]> {
    const deleted = await this.db
      .deleteFrom('generation_file_registrations')
      .where('created_at', '<=', cutoffIso)
      .returning(['image_key', 'preview_key'])
      .execute();
    return deleted.flatMap((row) => [row.image_key, row.preview_key]);
  }

  /**
   * Runs `work` holding the registration quota locks of an API key and a user, so that two
   * registrations cannot both pass the same quota check; `work` gets a repository to use
   * meanwhile (on PostgreSQL, bound to the locks' transaction).
   */
  withRegistrationLocks<T>(clientId: number, userId: number, work: (repository: GenerationRepository) => Promise<T>): Promise<T> {
    const names = [`generation_file_registrations:client:${clientId}`, `generation_file_registrations:user:${userId}`];
    return withStoreLocks(this.db, this.dialect, names, (db) => work(db === this.db ? this : new GenerationRepository(db, this.dialect)));
  }
}
