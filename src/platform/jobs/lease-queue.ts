import { sql, type Kysely, type RawBuilder, type Selectable, type Updateable } from 'kysely';
import type { SqlDialect } from '../db/database.js';
import type { Tables } from '../db/tables.js';

type ColumnOf<Name extends keyof Tables> = keyof Tables[Name] & string;

/**
 * A table whose rows are jobs, as the lease queue sees it. A job is held by one node at a time
 * under a lease that the node renews while it works; a job is ready for a node when it is open
 * (waiting, or held) and nobody's lease on it runs: never claimed, given back, or its node
 * stopped renewing.
 */
export interface LeaseTable<Name extends keyof Tables> {
  readonly table: Name;
  /** The columns that name one job (its primary key). */
  readonly key: readonly ColumnOf<Name>[];
  /** The order jobs are claimed in, oldest first, ending with the key so that the order is total. */
  readonly order: readonly ColumnOf<Name>[];
  /** Who holds the job (a node's name) and until when (an ISO time): null while nobody does. */
  readonly lease: { readonly holder: ColumnOf<Name>; readonly until: ColumnOf<Name> };
  readonly status: {
    readonly column: ColumnOf<Name>;
    /** A job that waits for a node. */
    readonly waiting: string;
    /** A job a node holds; the same as `waiting` in a table where only the lease tells the two apart. */
    readonly held: string;
  };
  /** Counted up at each claim, so that a job whose nodes keep stopping can be failed; absent: not counted. */
  readonly attempts?: ColumnOf<Name>;
  /**
   * How a job that failed is kept, for the people who look after the jobs (the back office's
   * jobs page): its status, the column with the reason, when it was queued and finished, and
   * the column that says what it is. Absent: a table whose failures nobody runs again.
   */
  readonly failures?: {
    /** What the jobs are called on that page: "Generation jobs". */
    readonly label: string;
    readonly status: string;
    readonly reason: ColumnOf<Name>;
    readonly created: ColumnOf<Name>;
    readonly finished: ColumnOf<Name>;
    readonly what: ColumnOf<Name>;
  };
}

/** Where a job stands, as the people who look after the jobs see it. */
export type JobState = 'waiting' | 'running' | 'failed';
export const JOB_STATES: readonly JobState[] = ['waiting', 'running', 'failed'];

/** A job as the jobs page lists it. */
export interface JobView {
  /** The values of its key columns, in order: what names it to run it again. */
  key: unknown[];
  /** What it is (its operation, its kind of file). */
  what: string;
  state: JobState;
  attempts: number | undefined;
  /** The node that holds it, while one does. */
  holder: string | null;
  reason: string | null;
  created: string;
  finished: string | null;
}

/**
 * The jobs of one table, claimed by the nodes that share the store. One claim algorithm for
 * both stores: a single statement takes the oldest ready job and marks it held, on the condition
 * that it is still ready. On PostgreSQL the job is picked `FOR UPDATE SKIP LOCKED`, so nodes that
 * claim at once each take a different job instead of queueing behind the same row; SQLite has one
 * writer at a time, so the statement is the whole claim (the same dialect split as the store locks).
 *
 * Every write after the claim (renew, finish) is conditional on the job still being held by the
 * writer: a node that lost its lease to another can no longer change the job.
 */
export class LeaseQueue<Name extends keyof Tables> {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
    readonly description: LeaseTable<Name>,
  ) {}

  /** The oldest ready job, now held by `node` until `leaseUntil`; undefined when none is ready. */
  async claim(node: string, now: Date, leaseUntil: Date): Promise<Selectable<Tables[Name]> | undefined> {
    const { table, key, order, lease, status, attempts } = this.description;
    const ready = this.ready(now);
    const keys = sql.join(key.map((column) => sql.ref(column)));
    const lock = this.dialect === 'postgres' ? sql` for update skip locked` : sql``;
    const counted = attempts === undefined ? sql`` : sql`, ${sql.ref(attempts)} = ${sql.ref(attempts)} + 1`;
    const result = await sql<Selectable<Tables[Name]>>`
      update ${sql.table(table)}
         set ${sql.ref(status.column)} = ${status.held}, ${sql.ref(lease.holder)} = ${node}, ${sql.ref(lease.until)} = ${leaseUntil.toISOString()}${counted}
       where (${keys}) = (select ${keys} from ${sql.table(table)}
                           where ${ready}
                           order by ${sql.join(order.map((column) => sql.ref(column)))}
                           limit 1${lock})
         and ${ready}
      returning *`.execute(this.db);
    return result.rows[0];
  }

  /** The node is still at the job: its lease runs on. False when the job is no longer the node's. */
  async renew(job: Selectable<Tables[Name]>, node: string, leaseUntil: Date): Promise<boolean> {
    return this.updateHeld(this.db, job, node, sql`${sql.ref(this.description.lease.until)} = ${leaseUntil.toISOString()}`);
  }

  /**
   * Writes the job's outcome (`values`: its status and what it made) and ends the lease, only
   * while the job is still the node's; false otherwise, and nothing is written. `db` is a
   * transaction when the outcome is written with other rows.
   */
  async finish(job: Selectable<Tables[Name]>, node: string, values: Updateable<Tables[Name]>, db: Kysely<Tables> = this.db): Promise<boolean> {
    const assignments = Object.entries(values as Record<string, unknown>)
      .filter(([, value]) => value !== undefined)
      .map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
    assignments.push(sql`${sql.ref(this.description.lease.until)} = ${null}`);
    return this.updateHeld(db, job, node, sql.join(assignments));
  }

  /** How many jobs wait (queued, or held under a lapsed lease), run (under a running lease) and failed. */
  async tally(now: Date): Promise<Record<JobState, number>> {
    const { table } = this.description;
    const rows = await sql<{ state: JobState; n: number | string }>`
      select ${this.stateOf(now)} as state, count(*) as n from ${sql.table(table)} where ${this.inSomeState()} group by 1`.execute(this.db);
    const counts: Record<JobState, number> = { waiting: 0, running: 0, failed: 0 };
    for (const row of rows.rows) counts[row.state] = Number(row.n);
    return counts;
  }

  /** Jobs in one state, a page of them: waiting and running oldest first, failed newest first. */
  async inState(state: JobState, now: Date, limit: number, offset: number): Promise<JobView[]> {
    const { table, key, failures } = this.description;
    if (!failures) return [];
    const order = sql.join([...(state === 'failed' ? [sql`${sql.ref(failures.finished)} desc`] : []), ...this.description.order.map((column) => sql.ref(column))]);
    const rows = await sql<Record<string, unknown>>`
      select * from ${sql.table(table)}
       where ${this.inSomeState()} and ${this.stateOf(now)} = ${state}
       order by ${order} limit ${limit} offset ${offset}`.execute(this.db);
    return rows.rows.map((row) => ({
      key: key.map((column) => row[column]),
      what: String(row[failures.what] ?? ''),
      state,
      attempts: this.description.attempts === undefined ? undefined : Number(row[this.description.attempts]),
      holder: state === 'running' ? ((row[this.description.lease.holder] as string | null) ?? null) : null,
      reason: (row[failures.reason] as string | null) ?? null,
      created: String(row[failures.created]),
      finished: (row[failures.finished] as string | null) ?? null,
    }));
  }

  /**
   * A failed job queued again, from its key values: its reason and finish cleared, its attempts
   * counted from naught. Conditional on its having failed, so two people running it again at
   * once queue it once; false when it was not a failed job (gone, or run again already).
   */
  async requeueFailed(keyValues: readonly unknown[]): Promise<boolean> {
    const { table, key, failures, status, lease, attempts } = this.description;
    if (!failures || keyValues.length !== key.length) return false;
    const assignments = [
      sql`${sql.ref(status.column)} = ${status.waiting}`,
      sql`${sql.ref(failures.reason)} = ${null}`,
      sql`${sql.ref(failures.finished)} = ${null}`,
      sql`${sql.ref(lease.holder)} = ${null}`,
      sql`${sql.ref(lease.until)} = ${null}`,
      ...(attempts === undefined ? [] : [sql`${sql.ref(attempts)} = ${0}`]),
    ];
    const where = key.map((column, index) => sql`${sql.ref(column)} = ${keyValues[index] as string | number}`);
    const result = await sql`
      update ${sql.table(table)} set ${sql.join(assignments)}
       where ${sql.join(where, sql` and `)} and ${sql.ref(status.column)} = ${failures.status}`.execute(this.db);
    return Number(result.numAffectedRows ?? 0) === 1;
  }

  /** Gives back every job `node` holds (it is stopping): they are ready at once for any node. */
  async release(node: string): Promise<void> {
    await this.giveBack(sql`${sql.ref(this.description.lease.holder)} = ${node}`);
  }

  /**
   * Gives back every held job. Only for a store that one process uses (SQLite): at that
   * process's start, a job still held was held by a process that is gone.
   */
  async releaseAll(): Promise<void> {
    await this.giveBack(sql`1 = 1`);
  }

  /** The job's key columns and values, for logs. */
  keyOf(job: Selectable<Tables[Name]>): Record<string, unknown> {
    const row = job as Record<string, unknown>;
    return Object.fromEntries(this.description.key.map((column) => [column, row[column]]));
  }

  /** How many times the job has been claimed; undefined when the table does not count. */
  attemptsOf(job: Selectable<Tables[Name]>): number | undefined {
    const { attempts } = this.description;
    return attempts === undefined ? undefined : Number((job as Record<string, unknown>)[attempts]);
  }

  /** A job's state as the jobs page sees it, in SQL: held under a running lease is running; open otherwise is waiting. */
  private stateOf(now: Date): RawBuilder<JobState> {
    const { status, lease, failures } = this.description;
    const until = sql.ref(lease.until);
    return sql<JobState>`case
      when ${sql.ref(status.column)} = ${failures?.status ?? null} then 'failed'
      when ${sql.ref(status.column)} = ${status.held} and ${until} is not null and ${until} >= ${now.toISOString()} then 'running'
      else 'waiting' end`;
  }

  /** Open, or failed: the jobs the jobs page lists (done ones are the business of their own module). */
  private inSomeState(): RawBuilder<unknown> {
    const { status, failures } = this.description;
    return sql`${sql.ref(status.column)} in (${status.waiting}, ${status.held}, ${failures?.status ?? status.waiting})`;
  }

  /** Open (waiting or held) and under no running lease. ISO times in one zone compare as text. */
  private ready(now: Date): RawBuilder<unknown> {
    const { status, lease } = this.description;
    const until = sql.ref(lease.until);
    return sql`${sql.ref(status.column)} in (${status.waiting}, ${status.held}) and (${until} is null or ${until} < ${now.toISOString()})`;
  }

  private async giveBack(which: RawBuilder<unknown>): Promise<void> {
    const { table, lease, status } = this.description;
    await sql`
      update ${sql.table(table)}
         set ${sql.ref(status.column)} = ${status.waiting}, ${sql.ref(lease.holder)} = ${null}, ${sql.ref(lease.until)} = ${null}
       where ${which} and ${sql.ref(status.column)} = ${status.held}`.execute(this.db);
  }

  private async updateHeld(db: Kysely<Tables>, job: Selectable<Tables[Name]>, node: string, assignments: RawBuilder<unknown>): Promise<boolean> {
    const { table, lease, status } = this.description;
    const key = Object.entries(this.keyOf(job)).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
    const result = await sql`
      update ${sql.table(table)}
         set ${assignments}
       where ${sql.join(key, sql` and `)} and ${sql.ref(lease.holder)} = ${node} and ${sql.ref(status.column)} = ${status.held}`.execute(db);
    return Number(result.numAffectedRows ?? 0) === 1;
  }
}
