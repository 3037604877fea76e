import type { Kysely, Selectable } from 'kysely';
import type { Tables, UsersTable } from '../platform/db/tables.js';

export type UserRow = Selectable<UsersTable>;

export class UsersRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  insert(values: Omit<UserRow, 'id'>): Promise<UserRow> {
    return this.db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
  }

  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }
}
