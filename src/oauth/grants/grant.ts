import type { ApiClient } from '../clients.service.js';
import { ISSUES_REFRESH_TOKEN } from '../grant-policy.js';
import type { GrantType, TokenResponse } from '../oauth.types.js';
import type { TokensService } from '../tokens.service.js';

/** A token request that passed the pipeline: an authenticated client allowed this grant, its required parameters present. */
export interface GrantRequest {
  client: ApiClient;
  form: Readonly<Record<string, string>>;
  remoteAddress: string;
}

/** One grant of the token endpoint: its name, the form parameters it requires, and its handler. */
export interface TokenGrant {
  readonly type: GrantType;
  readonly requiredParameters: readonly string[];
  exchange(request: GrantRequest): Promise<TokenResponse>;
}

export interface TokenLifetimes {
  readonly accessTokenTtlSeconds: number;
  readonly implicitTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
}

/**
 * Issues the token response of a grant made for a user: an access token, and a refresh
 * token when the grant issues one (the grant policy gives every client of such a grant the
 * refresh grant; the check keeps a token the client could not use from being issued). The
 * access token joins the refresh token's family, so that revoking the family revokes it too.
 */
export async function issueTokenResponse(
  tokens: TokensService,
  input: {
    client: ApiClient;
    userId: number;
    grantType: GrantType;
    lifetimes: TokenLifetimes;
    now: Date;
    codeHash?: string;
  },
): Promise<TokenResponse> {
  const { client, userId, grantType, lifetimes, now, codeHash } = input;
  let refresh: { token: string; family: string } | undefined;
  if (ISSUES_REFRESH_TOKEN[grantType] && client.grantTypes.includes('refresh_token')) {
    refresh = await tokens.issueRefreshToken({
      clientId: client.id,
      userId,
      codeHash: codeHash ?? null,
      expiresAt: new Date(now.getTime() + lifetimes.refreshTokenTtlSeconds * 1000),
    });
  }
  const access = await tokens.issue({
    clientId: client.id,
    userId,
    grantType,
    lifetimeSeconds: lifetimes.accessTokenTtlSeconds,
    codeHash: codeHash ?? null,
    refreshFamily: refresh?.family ?? null,
  });
  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    ...(refresh ? { refresh_token: refresh.token } : {}),
  };
}
