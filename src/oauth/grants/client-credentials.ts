/**
 * The client credentials grant (RFC 6749 §4.4): the application acts for itself, so the
 * token has no user and comes without a refresh token (spec: request a new one after
 * expiry). Only a confidential client can use it: the secret is its only credential. It is
 * the sandbox applications' only grant.
 */
import type { TokenResponse } from '../oauth.types.js';
import { UnauthorizedClient } from '../oauth.errors.js';
import type { TokensService } from '../tokens.service.js';
import type { GrantRequest, TokenGrant, TokenLifetimes } from './grant.js';

export class ClientCredentialsGrant implements TokenGrant {
  readonly type = 'client_credentials' as const;
  readonly requiredParameters = [] as const;

  constructor(private readonly options: { tokens: TokensService; lifetimes: TokenLifetimes }) {}

  async exchange({ client }: GrantRequest): Promise<TokenResponse> {
    // The grant policy never gives this grant to a public client; a second lock on the door.
    if (!client.confidential) throw new UnauthorizedClient('A public client cannot use the client_credentials grant');
    const { token, expiresIn } = await this.options.tokens.issue({
      clientId: client.id,
      userId: null,
      grantType: this.type,
      lifetimeSeconds: this.options.lifetimes.accessTokenTtlSeconds,
    });
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn };
  }
}
