import type { Kysely, Selectable } from 'kysely';
import type { RefreshTokensTable, Tables } from '../platform/db/tables.js';
import { revokeLiveTokens } from './token-revocation.js';

export type RefreshTokenRow = Selectable<RefreshTokensTable>;

export class RefreshTokensRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async insert(row: RefreshTokenRow): Promise<void> {
    await this.db.insertInto('refresh_tokens').values(row).execute();
  }

  findByHash(tokenHash: string): Promise<RefreshTokenRow | undefined> {
    return this.db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
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
