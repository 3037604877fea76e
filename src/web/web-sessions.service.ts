import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { randomSecret, sha256Hex } from '../platform/crypto/secrets.js';
import type { WebSessionRow, WebSessionsRepository } from './web-sessions.repository.js';

/** What the browser's session needs of the OAuth module: its own public client, the token endpoint's rules, and the token check. */
export interface WebOAuth {
  /** The first-party public client the browser signs in through: its client_id and numeric id. */
  webClient(): Promise<{ clientKey: string; clientId: number; redirectUri: string }>;
  /** Throws a 503 naming what to do when an operator has disabled that client. */
  requireEnabled(clientKey: string): Promise<void>;
  /** The token endpoint, called in-process (no HTTP): an authorization code or a refresh token for tokens. */
  exchange(form: Record<string, string>, remoteAddress: string): Promise<{ access_token: string; refresh_token?: string }>;
  /** Who a bearer token speaks for, if it is valid for the client. */
  verify(token: string, clientId: number): Promise<{ valid: true; grant: { userId: number | null; issuedAt: Date } } | { valid: false }>;
}

/** A signed-in person as pages see them: the user and the grant licensing reads (client, user, token age). */
export interface WebUser {
  userId: number;
  grant: { clientId: number; userId: number; issuedAt: Date };
}

/** One browser's session, read for one request. */
export interface WebSession {
  /** The cookie's id (random, 256 bits); the store holds only its hash. */
  cookieId: string;
  csrfToken: string;
  user: WebUser | undefined;
}

/** How long a signed-in session lasts; the refresh token behind it lives a year, the session less. */
const SESSION_MS = 30 * 24 * 3600 * 1000;
/** How long a sign-in may sit on the sign-in page before its state is forgotten. */
const SIGN_IN_MS = 60 * 60 * 1000;

/** Where a sign-in may return: a path of this site, never another host (`//host`, `/\host`). */
export function safeReturnPath(raw: string | undefined): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || raw.length > 2000 || !wellFormed(raw)) return '/';
  if ([...raw].some((character) => character.charCodeAt(0) < 0x20 || character === '\x7f')) return '/';
  // A Location header takes ASCII only: anything else is percent-encoded as UTF-8, which the browser reads as the same path.
  return raw.replace(/[^\x21-\x7e]/gu, (character) => encodeURIComponent(character));
}

/** No lone surrogate (which no URL can carry, and encodeURIComponent refuses). */
function wellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/** base64url of SHA-256: the PKCE S256 challenge of a verifier (RFC 7636 §4.2). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * AES-256-GCM under a key kept in settings: the tokens a session holds are useless to whoever
 * reads the table without that key. Output: base64url of iv (12) | tag (16) | ciphertext.
 */
export class Sealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(`stockroom web sessions:${secret}`).digest();
  }

  seal(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** undefined when the text was not sealed under this key (or was altered). */
  open(sealed: string): string | undefined {
    try {
      const raw = Buffer.from(sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

export interface WebSessionsDeps {
  repository: WebSessionsRepository;
  oauth: WebOAuth;
  sealer: Sealer;
  now: () => Date;
}

/**
 * Sessions of the catalogue browser. The browser signs in through this server's own OAuth
 * authorization endpoint as a first-party public client (authorization code with PKCE S256);
 * the code is exchanged here, in-process, and the access and refresh tokens stay in the
 * session row, sealed. The browser holds only a random cookie id: no token is ever in a URL
 * or a page.
 */
export class WebSessions {
  private readonly repository: WebSessionsRepository;
  private readonly oauth: WebOAuth;
  private readonly sealer: Sealer;
  private readonly now: () => Date;
  /** Refreshes under way, by session: two pages loading at once use one refresh (a public client's refresh token is rotated). */
  private readonly refreshing = new Map<string, Promise<WebUser | undefined>>();

  constructor(deps: WebSessionsDeps) {
    this.repository = deps.repository;
    this.oauth = deps.oauth;
    this.sealer = deps.sealer;
    this.now = deps.now;
  }

  /** The session of a cookie id, with its user when signed in; undefined for no, an unknown or an expired session. */
  async read(cookieId: string | undefined): Promise<WebSession | undefined> {
    if (!cookieId || cookieId.length > 100) return undefined;
    const idHash = sha256Hex(cookieId);
    const row = await this.repository.find(idHash, this.now());
    if (!row) return undefined;
    return { cookieId, csrfToken: row.csrf_token, user: row.user_id === null ? undefined : await this.userOf(idHash, row) };
  }

  /**
   * Starts a sign-in: a session (the existing one, or a new one) remembers a fresh `state`, the
   * PKCE verifier and where to return; the answer is where to send the browser.
   */
  async beginSignIn(cookieId: string | undefined, returnTo: string, authorizeUrl: string): Promise<{ cookieId: string; location: string }> {
    const { clientKey, redirectUri } = await this.oauth.webClient();
    await this.oauth.requireEnabled(clientKey);
    const state = randomSecret();
    const verifier = randomSecret(48);
    const pending = {
      sign_in_state_hash: sha256Hex(state),
      sign_in_verifier: this.sealer.seal(verifier),
      sign_in_return: safeReturnPath(returnTo),
    };
    // Sign-ins begun and never finished leave rows behind; each new one clears the expired ones.
    await this.repository.deleteExpired(this.now());
    const existing = cookieId ? await this.repository.find(sha256Hex(cookieId), this.now()) : undefined;
    let id = cookieId;
    if (existing && id) {
      await this.repository.update(existing.id_hash, pending);
    } else {
      id = randomSecret();
      const now = this.now();
      await this.repository.insert({
        id_hash: sha256Hex(id),
        csrf_token: randomSecret(),
        user_id: null,
        access_token: null,
        refresh_token: null,
        ...pending,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + SIGN_IN_MS).toISOString(),
      });
    }
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientKey,
      redirect_uri: redirectUri,
      state,
      code_challenge: pkceChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { cookieId: id, location: `${authorizeUrl}?${query.toString()}` };
  }

  /**
   * Ends a sign-in: the state must be the one this browser's session began with (so nobody
   * can sign a browser into their own account with a code of theirs); the code is exchanged
   * with the verifier. The signed-in session gets a new id (no session fixation). undefined
   * when the state does not match a sign-in under way.
   */
  async completeSignIn(cookieId: string | undefined, state: string, code: string, remoteAddress: string): Promise<{ cookieId: string; returnTo: string } | undefined> {
    if (!cookieId || cookieId.length > 100 || state.length > 200) return undefined;
    const oldHash = sha256Hex(cookieId);
    const pending = await this.repository.takeSignIn(oldHash, sha256Hex(state));
    if (!pending) return undefined;
    const verifier = this.sealer.open(pending.verifier);
    if (verifier === undefined) return undefined;
    const { clientKey, clientId, redirectUri } = await this.oauth.webClient();
    let tokens: { access_token: string; refresh_token?: string };
    try {
      tokens = await this.oauth.exchange(
        { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientKey, code_verifier: verifier },
        remoteAddress,
      );
    } catch {
      // A used or expired code, or a client disabled meanwhile: this sign-in is over; the person starts again.
      return undefined;
    }
    const check = await this.oauth.verify(tokens.access_token, clientId);
    if (!check.valid || check.grant.userId === null) return undefined;
    const id = randomSecret();
    const now = this.now();
    await this.repository.delete(oldHash);
    await this.repository.insert({
      id_hash: sha256Hex(id),
      csrf_token: randomSecret(),
      user_id: check.grant.userId,
      access_token: this.sealer.seal(tokens.access_token),
      refresh_token: tokens.refresh_token ? this.sealer.seal(tokens.refresh_token) : null,
      sign_in_state_hash: null,
      sign_in_verifier: null,
      sign_in_return: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_MS).toISOString(),
    });
    return { cookieId: id, returnTo: pending.returnTo };
  }

  async signOut(cookieId: string): Promise<void> {
    await this.repository.delete(sha256Hex(cookieId));
    await this.repository.deleteExpired(this.now());
  }

  /** The session's user: its access token checked, refreshed when it has run out; undefined when neither works any more. */
  private async userOf(idHash: string, row: WebSessionRow): Promise<WebUser | undefined> {
    const { clientId } = await this.oauth.webClient();
    const access = row.access_token ? this.sealer.open(row.access_token) : undefined;
    if (access !== undefined) {
      const check = await this.oauth.verify(access, clientId);
      if (check.valid && check.grant.userId !== null) return { userId: check.grant.userId, grant: { clientId, userId: check.grant.userId, issuedAt: check.grant.issuedAt } };
    }
    const running = this.refreshing.get(idHash);
    if (running) return running;
    const refresh = this.refresh(idHash, row, clientId).finally(() => this.refreshing.delete(idHash));
    this.refreshing.set(idHash, refresh);
    return refresh;
  }

  private async refresh(idHash: string, row: WebSessionRow, clientId: number): Promise<WebUser | undefined> {
    const refreshToken = row.refresh_token ? this.sealer.open(row.refresh_token) : undefined;
    if (refreshToken === undefined) return this.forget(idHash);
    const { clientKey } = await this.oauth.webClient();
    let tokens: { access_token: string; refresh_token?: string };
    try {
      tokens = await this.oauth.exchange({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientKey }, 'web-session');
    } catch {
      // Revoked, expired, or a password change: the person signs in again.
      return this.forget(idHash);
    }
    const check = await this.oauth.verify(tokens.access_token, clientId);
    if (!check.valid || check.grant.userId === null) return this.forget(idHash);
    await this.repository.update(idHash, {
      access_token: this.sealer.seal(tokens.access_token),
      refresh_token: tokens.refresh_token ? this.sealer.seal(tokens.refresh_token) : row.refresh_token,
    });
    return { userId: check.grant.userId, grant: { clientId, userId: check.grant.userId, issuedAt: check.grant.issuedAt } };
  }

  private async forget(idHash: string): Promise<undefined> {
    await this.repository.update(idHash, { user_id: null, access_token: null, refresh_token: null });
    return undefined;
  }
}
