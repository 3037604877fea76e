import { createHmac, randomBytes } from 'node:crypto';
import { sha256Hex } from '../platform/crypto/secrets.js';

export type BoardLinkKind = 'invitation' | 'share';
export const BOARD_LINK_KINDS: readonly BoardLinkKind[] = ['invitation', 'share'];

/** A link as stored: the random nonce it is derived from, and the SHA-256 of the token to find it by. */
export interface StoredLink {
  nonce: string;
  hash: string;
}

/** What a board link token may look like: a SHA-256 HMAC in base64url is 43 characters. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * A board's invitation and share links. The owner must be able to read a link again on every
 * GET of the board, yet the store must not hold anything that opens the board: the token is an
 * HMAC of a random 256-bit nonce under a key kept apart from the boards, and the store keeps the
 * nonce and the token's SHA-256 (to find the board by it). A new nonce revokes the old link.
 */
export class BoardLinks {
  private readonly publicUrl: string;

  constructor(
    private readonly key: string,
    publicUrl: string,
  ) {
    this.publicUrl = publicUrl.replace(/\/+$/, '');
  }

  /** A new link: a fresh nonce and the hash of the token it gives. */
  create(kind: BoardLinkKind): StoredLink {
    const nonce = randomBytes(32).toString('base64url');
    return { nonce, hash: sha256Hex(this.token(kind, nonce)) };
  }

  /** The hash to look a presented token up by; undefined for text no link token can be. */
  hashOf(token: string): string | undefined {
    return TOKEN.test(token) ? sha256Hex(token) : undefined;
  }

  url(kind: BoardLinkKind, nonce: string): string {
    const token = this.token(kind, nonce);
    return kind === 'invitation' ? `${this.publicUrl}/v3/boards/invitations/${token}` : `${this.publicUrl}/shared/boards/${token}`;
  }

  private token(kind: BoardLinkKind, nonce: string): string {
    return createHmac('sha256', this.key).update(`${kind}:${nonce}`).digest('base64url');
  }
}

/** A board or comment id: 128 random bits, URL-safe; nothing about it follows from another. */
export function randomId(): string {
  return randomBytes(16).toString('base64url');
}
