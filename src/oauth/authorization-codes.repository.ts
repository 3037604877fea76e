import type { Kysely, Selectable } from 'kysely';
import type { AuthorizationCodesTable, Tables } from '../platform/db/tables.js';
import { CredentialRows } from './credential-rows.js';

export type AuthorizationCodeRow = Selectable<AuthorizationCodesTable>;

export class AuthorizationCodesRepository extends CredentialRows<'authorization_codes'> {
  constructor(db: Kysely<Tables>) {
    super(db, 'authorization_codes', 'code_hash');
  }

  /**
   * Marks an unused code used. Conditional (`used_at is null`), so that of two concurrent
   * redemptions of one code exactly one sees `true`.
   */
  async claim(codeHash: string, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('authorization_codes')
      .set({ used_at: at })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Forgets a user's codes not exchanged yet (password change). */
  async deleteUnusedForUser(userId: number): Promise<void> {
    await this.db.deleteFrom('authorization_codes').where('user_id', '=', userId).where('used_at', 'is', null).execute();
  }
}
