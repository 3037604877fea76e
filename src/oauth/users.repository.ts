import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Tables, UsersTable } from '../platform/db/tables.js';

export type UserRow = Selectable<UsersTable>;

export class UsersRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  insert(values: Insertable<UsersTable>): Promise<UserRow> {
    return this.db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The users of these ids that exist, in one query. */
  findByIds(ids: readonly number[]): Promise<UserRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('users').selectAll().where('id', 'in', [...ids]).execute();
  }

  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }

  /** Every user, by id. */
  list(): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().orderBy('id').execute();
  }

  /** A page of users whose username, names, email or team contain `text` (any case), by id, and how many match. */
  async search(query: { text: string; role: string | undefined; team?: string | undefined; offset: number; limit: number }): Promise<{ rows: UserRow[]; total: number }> {
    let select = this.db.selectFrom('users');
    if (query.text !== '') {
      // LIKE's own wildcards in the text are matched as themselves.
      const pattern = `%${query.text.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
      const like = (column: 'username' | 'first_name' | 'last_name' | 'email' | 'team') => sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${pattern} escape '\\'`;
      select = select.where((eb) => eb.or([like('username'), like('first_name'), like('last_name'), like('email'), like('team')]));
    }
    if (query.team !== undefined) select = select.where('team', '=', query.team);
    if (query.role === 'customer') select = select.where('role', 'is', null);
    else if (query.role !== undefined) select = select.where('role', '=', query.role);
    const [rows, counted] = await Promise.all([
      select.selectAll().orderBy('id').limit(query.limit).offset(query.offset).execute(),
      select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(counted.total) };
  }

  async setRole(userId: number, role: string | null): Promise<void> {
    await this.db.updateTable('users').set({ role }).where('id', '=', userId).execute();
  }

  /** Disables the account as of `at`, or enables it (null); false when there is no such user. */
  async setDisabledAt(userId: number, at: string | null): Promise<boolean> {
    const result = await this.db.updateTable('users').set({ disabled_at: at }).where('id', '=', userId).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Sets a new password hash and clears the lockout; false when there is no such user. */
  async updatePassword(userId: number, passwordHash: string, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ password_hash: passwordHash, password_changed_at: at, failed_sign_ins: 0, locked_until: null, first_failed_at: null })
      .where('id', '=', userId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Counts one failed sign-in, in one statement so that concurrent failures all count. A run
   * of failures that began before `windowStart` starts again at this one (the same window as
   * for unknown usernames, so the lock does not tell which accounts exist); the failure that
   * reaches `maxFailures` (≥ 2) within the window sets `locked_until` and starts the count again.
   */
  async recordFailedSignIn(
    userId: number,
    maxFailures: number,
    lockedUntil: string,
    now: string,
    windowStart: string,
  ): Promise<{ lockedUntil: string | null } | undefined> {
    const fresh = sql<boolean>`(first_failed_at is null or first_failed_at < ${windowStart})`;
    const reaches = sql<boolean>`(not ${fresh} and failed_sign_ins + 1 >= ${maxFailures})`;
    return this.db
      .updateTable('users')
      .set({
        failed_sign_ins: sql<number>`case when ${fresh} then 1 when ${reaches} then 0 else failed_sign_ins + 1 end`,
        locked_until: sql<string | null>`case when ${reaches} then ${lockedUntil} else locked_until end`,
        first_failed_at: sql<string | null>`case when ${fresh} then ${now} when ${reaches} then null else first_failed_at end`,
      })
      .where('id', '=', userId)
      .returning('locked_until as lockedUntil')
      .executeTakeFirst();
  }

  /** Clears the failure count after a successful sign-in (writes only when there is something to clear). */
  async clearFailedSignIns(userId: number): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ failed_sign_ins: 0, locked_until: null, first_failed_at: null })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('failed_sign_ins', '<>', 0), eb('locked_until', 'is not', null)]))
      .execute();
  }
}
