import type { Kysely, Selectable } from 'kysely';
import type { AccessTokensTable, Tables } from '../platform/db/tables.js';
import { CredentialRows } from './credential-rows.js';
import { revokeLiveTokens } from './token-revocation.js';

export type AccessTokenRow = Selectable<AccessTokensTable>;

export class TokensRepository extends CredentialRows<'access_tokens'> {
  constructor(db: Kysely<Tables>) {
    super(db, 'access_tokens', 'token_hash');
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

  private revokeLive(column: 'user_id' | 'code_hash' | 'refresh_family', value: string | number, at: string): Promise<void> {
    return revokeLiveTokens(this.db, 'access_tokens', column, value, at);
  }
}
