import type { Kysely } from 'kysely';
import type { Tables } from '../platform/db/tables.js';

/** The tables of issued tokens (each row is live until it is stamped revoked), and the columns a revocation selects by in each. */
interface RevocableBy {
  access_tokens: 'user_id' | 'code_hash' | 'refresh_family';
  refresh_tokens: 'user_id' | 'code_hash' | 'family';
}
type TokenTable = keyof RevocableBy;

/**
 * Stamps every live token of `table` whose `column` holds `value` revoked (revoked ones keep
 * their first stamp): how a password change, a replayed code and a reused refresh token end the
 * tokens that descend from them, in both tables alike.
 */
export async function revokeLiveTokens<T extends TokenTable>(db: Kysely<Tables>, table: T, column: RevocableBy[T], value: string | number, at: string): Promise<void> {
  const tokens: TokenTable = table;
  const by: RevocableBy[TokenTable] = column;
  await db.updateTable(tokens).set({ revoked_at: at }).where(by, '=', value).where('revoked_at', 'is', null).execute();
}
