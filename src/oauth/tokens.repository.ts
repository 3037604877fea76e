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

  async revokeForUser(userId: number, at: string): Promise<void> {
    await this.db
      .updateTable('access_tokens')
      .set({ revoked_at: at })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Revokes the tokens descending from an authorization code. */
  async revokeForCode(codeHash: string, at: string): Promise<void> {
    await this.db
      .updateTable('access_tokens')
      .set({ revoked_at: at })
      .where('code_hash', '=', codeHash)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Revokes the tokens issued from a refresh-token family. */
  async revokeForFamily(family: string, at: string): Promise<void> {
    await this.db
      .updateTable('access_tokens')
      .set({ revoked_at: at })
      .where('refresh_family', '=', family)
      .where('revoked_at', 'is', null)
      .execute();
  }
}
