import type { Kysely, Selectable } from 'kysely';
import type { RefreshTokensTable, Tables } from '../platform/db/tables.js';
import { CredentialRows } from './credential-rows.js';
import { revokeLiveTokens } from './token-revocation.js';

export type RefreshTokenRow = Selectable<RefreshTokensTable>;

export class RefreshTokensRepository extends CredentialRows<'refresh_tokens'> {
  constructor(db: Kysely<Tables>) {
    super(db, 'refresh_tokens', 'token_hash');
  }

  /**
   * Marks a live token replaced by its rotation. Conditional, so that of two concurrent
   * rotations of one token exactly one sees `true`.
   */
  async markReplaced(tokenHash: string, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('refresh_tokens')
      .set({ replaced_at: at })
      .where('token_hash', '=', tokenHash)
      .where('replaced_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  revokeForUser(userId: number, at: string): Promise<void> {
    return this.revokeLive('user_id', userId, at);
  }

  revokeForCode(codeHash: string, at: string): Promise<void> {
    return this.revokeLive('code_hash', codeHash, at);
  }

  revokeFamily(family: string, at: string): Promise<void> {
    return this.revokeLive('family', family, at);
  }

  private revokeLive(column: 'user_id' | 'code_hash' | 'family', value: string | number, at: string): Promise<void> {
    return revokeLiveTokens(this.db, 'refresh_tokens', column, value, at);
  }
}
