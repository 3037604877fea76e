import type { Kysely, Selectable } from 'kysely';
import type { Tables, WebSessionsTable } from '../platform/db/tables.js';

export type WebSessionRow = Selectable<WebSessionsTable>;

/** The catalogue browser's sessions, by the hash of the cookie's id. */
export class WebSessionsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async insert(row: WebSessionRow): Promise<void> {
    await this.db.insertInto('web_sessions').values(row).execute();
  }

  /** The live session with this id hash; an expired one is not found. */
  find(idHash: string, now: Date): Promise<WebSessionRow | undefined> {
    return this.db.selectFrom('web_sessions').selectAll().where('id_hash', '=', idHash).where('expires_at', '>', now.toISOString()).executeTakeFirst();
  }

  async update(idHash: string, changes: Partial<Omit<WebSessionRow, 'id_hash'>>): Promise<void> {
    await this.db.updateTable('web_sessions').set(changes).where('id_hash', '=', idHash).execute();
  }

  /**
   * Ends a sign-in under way, once: only the request that finds the state still there takes it,
   * so a replayed callback finds nothing.
   */
  async takeSignIn(idHash: string, stateHash: string): Promise<{ verifier: string; returnTo: string } | undefined> {
    const row = await this.db
      .selectFrom('web_sessions')
      .select(['sign_in_verifier', 'sign_in_return'])
      .where('id_hash', '=', idHash)
      .where('sign_in_state_hash', '=', stateHash)
      .executeTakeFirst();
    if (!row?.sign_in_verifier) return undefined;
    // RETURNING would give the cleared values: the row is read first, then cleared on the same condition.
    const cleared = await this.db
      .updateTable('web_sessions')
      .set({ sign_in_state_hash: null, sign_in_verifier: null, sign_in_return: null })
      .where('id_hash', '=', idHash)
      .where('sign_in_state_hash', '=', stateHash)
      .executeTakeFirst();
    if (Number(cleared.numUpdatedRows) !== 1) return undefined;
    return { verifier: row.sign_in_verifier, returnTo: row.sign_in_return ?? '/' };
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('expires_at', '<=', now.toISOString()).execute();
  }
}
