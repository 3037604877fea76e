import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh random credential: 256 bits, URL-safe. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** An API key: 24 lower-case letters and digits (about 124 bits), easy to paste into a header. */
export function randomApiKey(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let key = '';
  while (key.length < 24) {
    for (const byte of randomBytes(32)) {
      // 252 is the largest multiple of 36 below 256: rejecting the rest keeps every character equally likely.
      if (byte < 252 && key.length < 24) key += alphabet[byte % alphabet.length];
    }
  }
  return key;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two hex digests without leaking, through timing, where they differ. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
