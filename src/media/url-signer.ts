import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureVerdict = 'ok' | 'expired' | 'invalid';

const SECONDS_PER_HOUR = 3600;
/** Unix seconds as plain digits; anything else (signs, exponents, spaces) is refused before any arithmetic. */
const EXPIRES_PATTERN = /^\d{1,12}$/;
/** A SHA-256 HMAC in base64url without padding is always 43 characters. */
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Signs and checks the display URLs handed out in `display_sizes`, so the image
 * route needs no API key (an `<img src>` sends none) yet cannot be enumerated.
 *
 * Expiry is bucketed by the hour: every URL for one path signed within the same
 * clock hour is byte-identical, so browsers and CDNs can cache it, and it stays
 * valid for at least `ttlSeconds` after signing.
 */
export class UrlSigner {
  private readonly publicUrl: string;

  /**
   * @param secret HMAC key; keep it stable across restarts or every issued URL breaks.
   * @param publicUrl base the signed URLs start with, e.g. `https://stock.example.com`.
   * @param ttlSeconds the least time a freshly signed URL stays valid.
   * @param now clock in milliseconds since the epoch (like `Date.now`); injectable for tests.
   */
  constructor(
    private readonly secret: string,
    publicUrl: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    if (secret.length === 0) throw new Error('UrlSigner needs a non-empty secret');
    if (!(Number.isInteger(ttlSeconds) && ttlSeconds > 0)) {
      throw new RangeError(`ttlSeconds must be a positive whole number, got ${ttlSeconds}`);
    }
    this.publicUrl = publicUrl.replace(/\/+$/, '');
  }

  /** The absolute, signed URL for a path such as `/display/abc/comp.jpg`. */
  sign(path: string): string {
    assertPath(path);
    const expires = String(this.currentHourStart() + this.ttlSeconds + SECONDS_PER_HOUR);
    return `${this.publicUrl}${path}?expires=${expires}&signature=${this.signatureOf(path, expires)}`;
  }

  /** Checks the signature first, so only a genuine URL is ever reported as merely expired. */
  verify(path: string, query: { expires?: string; signature?: string }): SignatureVerdict {
    const { expires, signature } = query;
    if (typeof expires !== 'string' || typeof signature !== 'string') return 'invalid';
    if (!EXPIRES_PATTERN.test(expires) || !SIGNATURE_PATTERN.test(signature)) return 'invalid';
    const expected = Buffer.from(this.signatureOf(path, expires), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return this.secondsUntilExpiry(expires) > 0 ? 'ok' : 'expired';
  }

  /** Whole seconds left before a URL with this `expires` value lapses; 0 once lapsed or when unreadable. */
  secondsUntilExpiry(expires: string): number {
    if (!EXPIRES_PATTERN.test(expires)) return 0;
    return Math.max(0, Number(expires) - Math.floor(this.now() / 1000));
  }

  private currentHourStart(): number {
    const nowSeconds = Math.floor(this.now() / 1000);
    return nowSeconds - (nowSeconds % SECONDS_PER_HOUR);
  }

  /** A newline separates path and expiry, so no path/expiry pair can be shifted into another. */
  private signatureOf(path: string, expires: string): string {
    return createHmac('sha256', this.secret).update(`${path}\n${expires}`).digest('base64url');
  }
}

function assertPath(path: string): void {
  if (!path.startsWith('/') || /[?#\s]/.test(path)) {
    throw new Error(`sign() takes a URL path starting with '/' and without query or fragment, got '${path}'`);
  }
}
