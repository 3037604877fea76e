import type { Kysely } from 'kysely';
import type { Tables } from '../platform/db/tables.js';
import { AuthorizationCodesRepository } from './authorization-codes.repository.js';
import { RefreshTokensRepository } from './refresh-tokens.repository.js';
import { TokensRepository } from './tokens.repository.js';

/**
 * The OAuth tables, with a way to change several of them at once: a code is marked used
 * and its tokens are stored in one transaction, so that a concurrent replay that lost the
 * race revokes tokens that are already there (see grants/authorization-code.ts).
 */
export class OAuthStore {
  readonly accessTokens: TokensRepository;
  readonly refreshTokens: RefreshTokensRepository;
  readonly codes: AuthorizationCodesRepository;

  constructor(private readonly db: Kysely<Tables>) {
    this.accessTokens = new TokensRepository(db);
    this.refreshTokens = new RefreshTokensRepository(db);
    this.codes = new AuthorizationCodesRepository(db);
  }

  /** Runs `work` in one transaction (or in the current one, when this store is already inside one). */
  transaction<T>(work: (store: OAuthStore) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new OAuthStore(trx)));
  }
}
