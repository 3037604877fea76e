import type { Kysely, Selectable } from 'kysely';
import type { AccessTokensTable, Tables } from '../platform/db/tables.js';

export type AccessTokenRow = Selectable<AccessTokensTable>;

export class TokensRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async insert(row: AccessTokenRow): Promise<void> {
    await this.db.insertInto('access_tokens').values(row).execute();
  }

  findByHash(tokenHash: string): Promise<AccessTokenRow | undefined> {
    return this.db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  revokeForUser(userId: number, at: string): Promise<void> {
    return this.revokeLive('user_id', userId, at);
  }

  /** Revokes the tokens descending from an authorization code. */
  revokeForCode(codeHash: string, at: string): Promise<void> {
    return this.revokeLive('code_hash', codeHash, at);
  }

  /** Revokes the tokens issued from a refresh-token family. */
  revokeForFamily(family: string, at: string): Promise<void> {
    return this.revokeLive('refresh_family', family, at);
  }

  /** Stamps every live token whose `column` holds `value` revoked (revoked ones keep their first stamp). */
  private async revokeLive(column: 'user_id' | 'code_hash' | 'refresh_family', value: string | number, at: string): Promise<void> {
    await this.db.updateTable('access_tokens').set({ revoked_at: at }).where(column, '=', value).where('revoked_at', 'is', null).execute();
  }
}
