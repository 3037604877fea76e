import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import { withStoreLocks } from '../platform/db/store-locks.js';
import { LeaseQueue, type LeaseTable } from '../platform/jobs/lease-queue.js';
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

/** A generation request is a job: pending until a node claims it, running while the node holds it. */
export const GENERATION_QUEUE: LeaseTable<'generation_requests'> = {
  table: 'generation_requests',
  key: ['id'],
  order: ['created_at', 'id'],
  lease: { holder: 'claimed_by', until: 'lease_until' },
  status: { column: 'status', waiting: 'pending', held: 'running' },
  attempts: 'attempts',
  // Run again, a failed job is not charged again: the customer's refund stands (docs/back-office.md).
  failures: { label: 'Generation jobs', status: 'failed', reason: 'failure', created: 'created_at', finished: 'finished_at', what: 'generation_type' },
};

/** Generation requests as jobs (claimed under a lease), their results and their history. */
export class GenerationRepository {
  /** The requests as jobs any node may claim. */
  readonly queue: LeaseQueue<'generation_requests'>;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
  ) {
    this.queue = new LeaseQueue(db, dialect, GENERATION_QUEUE);
  }

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

  /** Stores the results and marks the job done, only while it is still this node's; false otherwise (nothing kept). */
  async complete(job: GenerationRow, node: string, engine: string, results: readonly NewResultRow[], now: Date): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await this.queue.finish(job, node, { status: 'done', engine, finished_at: now.toISOString() }, trx))) return false;
      await trx.deleteFrom('generation_results').where('request_id', '=', job.id).execute();
      if (results.length > 0) await trx.insertInto('generation_results').values([...results]).execute();
      return true;
    });
  }

  /** Marks the job failed with its reason, only while it is this node's. */
  fail(job: GenerationRow, node: string, reason: string, engine: string | null, now: Date): Promise<boolean> {
    return this.queue.finish(job, node, { status: 'failed', failure: reason, engine, finished_at: now.toISOString() });
  }

  async markRefunded(id: string): Promise<void> {
    await this.db.updateTable('generation_requests').set({ charge: 'refunded' }).where('id', '=', id).where('charge', '=', 'charged').execute();
  }

  /** Failed jobs whose charge is not yet given back (a node stopped between the two). */
  async unrefunded(limit: number): Promise<string[]> {
    const rows = await this.db.selectFrom('generation_requests').select('id').where('status', '=', 'failed').where('charge', '=', 'charged').limit(limit).execute();
    return rows.map((row) => row.id);
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
