import { randomSecret, sha256Hex } from '../platform/crypto/secrets.js';
import type { OAuthStore } from './oauth.store.js';
import type { RefreshTokenRow } from './refresh-tokens.repository.js';

/** Who a valid bearer token speaks for. */
export interface TokenGrant {
  clientId: number;
  userId: number | null;
  grantType: string;
  issuedAt: Date;
  expiresAt: Date;
}

export type TokenCheck = { valid: true; grant: TokenGrant } | { valid: false; reason: string };

export interface IssueTokenInput {
  clientId: number;
  userId: number | null;
  grantType: string;
  lifetimeSeconds: number;
  /** The authorization code the token descends from. */
  codeHash?: string | null;
  /** The refresh-token family it was issued from (or issued with). */
  refreshFamily?: string | null;
}

export interface IssueRefreshTokenInput {
  clientId: number;
  userId: number;
  /** Given when rotating: the new token joins the chain; omitted: a new family. */
  family?: string;
  codeHash?: string | null;
  expiresAt: Date;
}

/** Longer than any token this server issues (43 characters); longer input is not looked up. */
const MAX_TOKEN_LENGTH = 512;

/**
 * The token store: access and refresh tokens are random (256 bits), stored as SHA-256
 * hashes, looked up by hash. They live in different tables, so a refresh token is never
 * accepted as a bearer token.
 */
export class TokensService {
  constructor(
    private readonly store: OAuthStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The same service writing through `store` (a transaction). */
  within(store: OAuthStore): TokensService {
    return new TokensService(store, this.now);
  }

  async issue(input: IssueTokenInput): Promise<{ token: string; expiresIn: number }> {
    const token = randomSecret();
    const issuedAt = this.now();
    await this.store.accessTokens.insert({
      token_hash: sha256Hex(token),
      client_id: input.clientId,
      user_id: input.userId,
      grant_type: input.grantType,
      issued_at: issuedAt.toISOString(),
      expires_at: new Date(issuedAt.getTime() + input.lifetimeSeconds * 1000).toISOString(),
      revoked_at: null,
      code_hash: input.codeHash ?? null,
      refresh_family: input.refreshFamily ?? null,
    });
    return { token, expiresIn: input.lifetimeSeconds };
  }

  async issueRefreshToken(input: IssueRefreshTokenInput): Promise<{ token: string; family: string }> {
    const token = randomSecret();
    const family = input.family ?? randomSecret(16);
    await this.store.refreshTokens.insert({
      token_hash: sha256Hex(token),
      client_id: input.clientId,
      user_id: input.userId,
      family,
      code_hash: input.codeHash ?? null,
      issued_at: this.now().toISOString(),
      expires_at: input.expiresAt.toISOString(),
      revoked_at: null,
      replaced_at: null,
    });
    return { token, family };
  }

  /** The stored refresh token, whatever its state; the refresh grant judges it. */
  async findRefreshToken(token: string): Promise<RefreshTokenRow | undefined> {
    if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
    return this.store.refreshTokens.findByHash(sha256Hex(token));
  }

  /** Marks a refresh token replaced by its successor; false when it was replaced or revoked meanwhile. */
  markRefreshTokenReplaced(tokenHash: string): Promise<boolean> {
    return this.store.refreshTokens.markReplaced(tokenHash, this.now().toISOString());
  }

  /** Checks a bearer token presented with a request by the client `clientId`. */
  async verify(token: string, clientId: number): Promise<TokenCheck> {
    if (!token || token.length > MAX_TOKEN_LENGTH) return { valid: false, reason: 'The access token is malformed' };
    const row = await this.store.accessTokens.findByHash(sha256Hex(token));
    if (!row) return { valid: false, reason: 'The access token is invalid' };
    if (row.revoked_at) return { valid: false, reason: 'The access token has been revoked' };
    const expiresAt = new Date(row.expires_at);
    if (expiresAt.getTime() <= this.now().getTime()) return { valid: false, reason: 'The access token has expired' };
    if (row.client_id !== clientId) return { valid: false, reason: 'The access token was issued to another client' };
    return {
      valid: true,
      grant: {
        clientId: row.client_id,
        userId: row.user_id,
        grantType: row.grant_type,
        issuedAt: new Date(row.issued_at),
        expiresAt,
      },
    };
  }

  /** Everything issued to a user: access and refresh tokens, and codes not yet exchanged (password change). */
  async revokeAllForUser(userId: number): Promise<void> {
    const at = this.now().toISOString();
    await this.store.transaction(async (tx) => {
      await tx.accessTokens.revokeForUser(userId, at);
      await tx.refreshTokens.revokeForUser(userId, at);
      await tx.codes.deleteUnusedForUser(userId);
    });
  }

  /** Every access and refresh token descending from an authorization code (a replayed code, RFC 6749 §4.1.2). */
  async revokeIssuedFromCode(codeHash: string): Promise<void> {
    const at = this.now().toISOString();
    await this.store.transaction(async (tx) => {
      await tx.accessTokens.revokeForCode(codeHash, at);
      await tx.refreshTokens.revokeForCode(codeHash, at);
    });
  }

  /** Every refresh token of a family and the access tokens issued from it (refresh-token reuse, RFC 9700 §4.14.2). */
  async revokeFamily(family: string): Promise<void> {
    const at = this.now().toISOString();
    await this.store.transaction(async (tx) => {
      await tx.refreshTokens.revokeFamily(family, at);
      await tx.accessTokens.revokeForFamily(family, at);
    });
  }
}
