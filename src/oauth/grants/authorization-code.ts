/**
 * The authorization code grant (RFC 6749 §4.1) with PKCE (RFC 7636, S256 only).
 *
 * A code is 256 random bits, stored as its SHA-256, bound to the client, the user, the
 * exact redirect_uri of the authorization request and the PKCE challenge, and lives
 * CODE_LIFETIME_SECONDS. It is exchanged once: the exchange marks it used with a
 * conditional update (`used_at is null`) in the same transaction that stores its tokens,
 * so of two concurrent exchanges exactly one wins, and the loser, finding the code used,
 * revokes every token descending from it (§4.1.2: a replayed code means it leaked); the
 * transaction guarantees those tokens are already stored when it does.
 */
import { createHash } from 'node:crypto';
import { randomSecret, sha256Hex } from '../../platform/crypto/secrets.js';
import type { ApiClient } from '../clients.service.js';
import { InvalidGrant, InvalidRequest } from '../oauth.errors.js';
import type { OAuthStore } from '../oauth.store.js';
import type { TokenResponse } from '../oauth.types.js';
import type { TokensService } from '../tokens.service.js';
import { issueTokenResponse, type GrantRequest, type TokenGrant, type TokenLifetimes } from './grant.js';

export const CODE_LIFETIME_SECONDS = 600;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** BASE64URL of a SHA-256 digest, without padding: 43 characters. */
export const S256_CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_CODE_LENGTH = 512;

/** RFC 7636 §4.2: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256Challenge(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier, 'ascii').digest('base64url');
}

export interface AuthorizationCodeGrantOptions {
  store: OAuthStore;
  tokens: TokensService;
  lifetimes: TokenLifetimes;
  now: () => Date;
}

export class AuthorizationCodeGrant implements TokenGrant {
  readonly type = 'authorization_code' as const;
  readonly requiredParameters = ['code', 'redirect_uri'] as const;

  constructor(private readonly options: AuthorizationCodeGrantOptions) {}

  /** Issues a code for the user's authorization; the caller sends it to the redirect URI. */
  async issueCode(input: { client: ApiClient; userId: number; redirectUri: string; codeChallenge: string | undefined }): Promise<string> {
    const code = randomSecret();
    const now = this.options.now();
    await this.options.store.codes.insert({
      code_hash: sha256Hex(code),
      client_id: input.client.id,
      user_id: input.userId,
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge ?? null,
      issued_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CODE_LIFETIME_SECONDS * 1000).toISOString(),
      used_at: null,
    });
    return code;
  }

  async exchange({ client, form }: GrantRequest): Promise<TokenResponse> {
    const { store, tokens, lifetimes } = this.options;
    const code = form.code!;
    if (code.length > MAX_CODE_LENGTH) throw new InvalidGrant('The authorization code is invalid');
    const codeHash = sha256Hex(code);
    const row = await store.codes.findByHash(codeHash);
    if (!row) throw new InvalidGrant('The authorization code is invalid');
    if (row.client_id !== client.id) throw new InvalidGrant('The authorization code was issued to another client');
    if (row.used_at) return this.replayed(codeHash);
    const now = this.options.now();
    if (new Date(row.expires_at).getTime() <= now.getTime()) throw new InvalidGrant('The authorization code has expired');
    if (form.redirect_uri !== row.redirect_uri) {
      throw new InvalidGrant('The redirect_uri differs from the one of the authorization request');
    }
    checkPkce(row.code_challenge, form.code_verifier);

    const issued = await store.transaction(async (tx) => {
      if (!(await tx.codes.claim(codeHash, now.toISOString()))) return undefined;
      return issueTokenResponse(tokens.within(tx), { client, userId: row.user_id, grantType: 'authorization_code', lifetimes, now, codeHash });
    });
    return issued ?? this.replayed(codeHash);
  }

  private async replayed(codeHash: string): Promise<never> {
    await this.options.tokens.revokeIssuedFromCode(codeHash);
    throw new InvalidGrant('The authorization code has already been used; the tokens issued with it are revoked');
  }
}

/**
 * A code issued with a challenge needs the verifier that hashes to it; a verifier without
 * a challenge is refused too (a client that used PKCE and finds it ignored is being
 * downgraded: RFC 9700 §2.1.1).
 */
function checkPkce(codeChallenge: string | null, codeVerifier: string | undefined): void {
  if (codeChallenge === null) {
    if (codeVerifier !== undefined) throw new InvalidGrant('A code_verifier was sent, but the authorization request had no code_challenge');
    return;
  }
  if (codeVerifier === undefined || codeVerifier === '') throw new InvalidGrant('The code_verifier is missing (the authorization request had a code_challenge)');
  if (!CODE_VERIFIER.test(codeVerifier)) throw new InvalidRequest('The code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~"');
  if (s256Challenge(codeVerifier) !== codeChallenge) throw new InvalidGrant('The code_verifier does not match the code_challenge');
}
