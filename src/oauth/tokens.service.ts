import { randomSecret, sha256Hex } from '../platform/crypto/secrets.js';
import type { TokensRepository } from './tokens.repository.js';

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
}

/** The token store: bearer tokens are random, stored as SHA-256 hashes, looked up by hash. */
export class TokensService {
  constructor(
    private readonly repository: TokensRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async issue(input: IssueTokenInput): Promise<{ token: string; expiresIn: number }> {
    const token = randomSecret();
    const issuedAt = this.now();
    await this.repository.insert({
      token_hash: sha256Hex(token),
      client_id: input.clientId,
      user_id: input.userId,
      grant_type: input.grantType,
      issued_at: issuedAt.toISOString(),
      expires_at: new Date(issuedAt.getTime() + input.lifetimeSeconds * 1000).toISOString(),
      revoked_at: null,
    });
    return { token, expiresIn: input.lifetimeSeconds };
  }

  /** Checks a bearer token presented with a request by the client `clientId`. */
  async verify(token: string, clientId: number): Promise<TokenCheck> {
    if (!token || token.length > 512) return { valid: false, reason: 'The access token is malformed' };
    const row = await this.repository.findByHash(sha256Hex(token));
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
}
