/**
 * The refresh token grant (RFC 6749 §6), with the stance of RFC 9700 §4.14.2 (refresh
 * tokens of public clients must be sender-constrained or rotated):
 *
 * - The token must belong to the authenticated client, be unexpired and not revoked (a
 *   password change revokes every refresh token of the user). The new access token lives
 *   at most STOCKROOM_ACCESS_TOKEN_TTL (the spec: at most 30 minutes), and never past the
 *   refresh token's own expiry.
 * - Confidential clients: the spec's rule. The refresh token stays valid for its whole
 *   lifetime (one year) and may be used again and again; the response repeats it. This is
 *   safe in RFC 9700's terms because the client authenticates with its secret on every
 *   refresh, so a stolen token is useless without that secret (the token is bound to it).
 * - Public clients (no secret, so nothing binds a stolen token to its owner): rotation with
 *   reuse detection. Each refresh returns a NEW refresh token of the same family, expiring
 *   when the family does (rotation never extends the year), and marks the presented one
 *   replaced. Presenting a replaced token again means two parties hold the chain: the whole
 *   family is revoked (every refresh token in it and every access token issued from it) and
 *   the request fails with invalid_grant. The replacement is a conditional update in the
 *   transaction that stores the successor, so of two concurrent refreshes with one token
 *   exactly one succeeds and the other, seen as reuse, revokes both.
 */
import { InvalidGrant } from '../oauth.errors.js';
import type { OAuthStore } from '../oauth.store.js';
import type { TokenResponse } from '../oauth.types.js';
import type { RefreshTokenRow } from '../refresh-tokens.repository.js';
import type { TokensService } from '../tokens.service.js';
import type { GrantRequest, TokenGrant, TokenLifetimes } from './grant.js';

export class RefreshTokenGrant implements TokenGrant {
  readonly type = 'refresh_token' as const;
  readonly requiredParameters = ['refresh_token'] as const;

  constructor(private readonly options: { store: OAuthStore; tokens: TokensService; lifetimes: TokenLifetimes; now: () => Date }) {}

  async exchange({ client, form }: GrantRequest): Promise<TokenResponse> {
    const { store, tokens } = this.options;
    const presented = form.refresh_token!;
    const row = await tokens.findRefreshToken(presented);
    if (!row) throw new InvalidGrant('The refresh token is invalid');
    if (row.client_id !== client.id) throw new InvalidGrant('The refresh token was issued to another client');
    if (row.revoked_at) throw new InvalidGrant('The refresh token has been revoked');
    const now = this.options.now();
    const remainingSeconds = Math.floor((new Date(row.expires_at).getTime() - now.getTime()) / 1000);
    if (remainingSeconds <= 0) throw new InvalidGrant('The refresh token has expired');
    const lifetimeSeconds = Math.min(this.options.lifetimes.accessTokenTtlSeconds, remainingSeconds);

    if (client.confidential) {
      const access = await this.issueAccess(tokens, row, lifetimeSeconds);
      return { ...access, refresh_token: presented };
    }

    if (row.replaced_at) return this.reused(row.family);
    const rotated = await store.transaction(async (tx) => {
      const inTx = tokens.within(tx);
      if (!(await inTx.markRefreshTokenReplaced(row.token_hash))) return undefined;
      const next = await inTx.issueRefreshToken({
        clientId: row.client_id,
        userId: row.user_id,
        family: row.family,
        codeHash: row.code_hash,
        expiresAt: new Date(row.expires_at),
      });
      const access = await this.issueAccess(inTx, row, lifetimeSeconds);
      return { ...access, refresh_token: next.token };
    });
    return rotated ?? this.reused(row.family);
  }

  private async issueAccess(tokens: TokensService, row: RefreshTokenRow, lifetimeSeconds: number) {
    const { token, expiresIn } = await tokens.issue({
      clientId: row.client_id,
      userId: row.user_id,
      grantType: this.type,
      lifetimeSeconds,
      codeHash: row.code_hash,
      refreshFamily: row.family,
    });
    return { access_token: token, token_type: 'Bearer' as const, expires_in: expiresIn };
  }

  private async reused(family: string): Promise<never> {
    await this.options.tokens.revokeFamily(family);
    throw new InvalidGrant('The refresh token has already been used; every token of its family is revoked');
  }
}
