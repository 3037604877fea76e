/**
 * The implicit grant (RFC 6749 §4.2): the authorization endpoint hands the access token to
 * the browser in the redirect URI's fragment; there is no token-endpoint step (a token
 * request with grant_type=implicit is unsupported_grant_type) and no refresh token. Its
 * tokens live long (the spec: usually one year; STOCKROOM_IMPLICIT_TOKEN_TTL), which is
 * why a password change revokes them and downloads want a recent one.
 */
import type { ApiClient } from '../clients.service.js';
import type { TokensService } from '../tokens.service.js';
import type { TokenLifetimes } from './grant.js';

export class ImplicitGrant {
  readonly type = 'implicit' as const;

  constructor(private readonly options: { tokens: TokensService; lifetimes: TokenLifetimes }) {}

  async issue(client: ApiClient, userId: number): Promise<{ accessToken: string; expiresIn: number }> {
    const { token, expiresIn } = await this.options.tokens.issue({
      clientId: client.id,
      userId,
      grantType: this.type,
      lifetimeSeconds: this.options.lifetimes.implicitTokenTtlSeconds,
    });
    return { accessToken: token, expiresIn };
  }
}
