import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UrlSigner } from '../../src/media/url-signer.js';

const HOUR = 3600;
/** 2024-06-01T12:00:00Z, the start of a clock hour, in milliseconds. */
const HOUR_START_MS = Date.UTC(2024, 5, 1, 12, 0, 0);
const PATH = '/display/abc123/comp.jpg';

function signerAt(nowMs: number, ttlSeconds = 86_400, secret = 'test-secret'): UrlSigner {
  return new UrlSigner(secret, 'https://stock.example.test/', ttlSeconds, () => nowMs);
}

function queryOf(url: string): { expires: string; signature: string } {
  const parsed = new URL(url);
  return { expires: parsed.searchParams.get('expires') ?? '', signature: parsed.searchParams.get('signature') ?? '' };
}

describe('UrlSigner', () => {
  it('sign gives publicUrl + path + expires + signature, and verify accepts it', () => {
    const signer = signerAt(HOUR_START_MS + 5_000);
    const url = signer.sign(PATH);
    expect(url).toMatch(/^https:\/\/stock\.example\.test\/display\/abc123\/comp\.jpg\?expires=\d+&signature=[A-Za-z0-9_-]{43}$/);
    expect(signer.verify(PATH, queryOf(url))).toBe('ok');
  });

  it('the signature is a base64url HMAC-SHA256 of the path and expiry under the secret', () => {
    const url = signerAt(HOUR_START_MS).sign(PATH);
    const { expires, signature } = queryOf(url);
    expect(signature).toBe(createHmac('sha256', 'test-secret').update(`${PATH}\n${expires}`).digest('base64url'));
  });

  it('a tampered path, expiry or signature is invalid', () => {
    const signer = signerAt(HOUR_START_MS);
    const { expires, signature } = queryOf(signer.sign(PATH));
    expect(signer.verify('/display/abc124/comp.jpg', { expires, signature })).toBe('invalid');
    expect(signer.verify('/display/abc123/high_res_comp.jpg', { expires, signature })).toBe('invalid');
    expect(signer.verify(PATH, { expires: String(Number(expires) + 3600), signature })).toBe('invalid');
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect(signer.verify(PATH, { expires, signature: flipped })).toBe('invalid');
  });

  it('missing, non-numeric or oddly shaped parameters are invalid', () => {
    const signer = signerAt(HOUR_START_MS);
    const { expires, signature } = queryOf(signer.sign(PATH));
    expect(signer.verify(PATH, {})).toBe('invalid');
    expect(signer.verify(PATH, { expires })).toBe('invalid');
    expect(signer.verify(PATH, { signature })).toBe('invalid');
    expect(signer.verify(PATH, { expires: `${expires}.0`, signature })).toBe('invalid');
    expect(signer.verify(PATH, { expires: '1e12', signature })).toBe('invalid');
    expect(signer.verify(PATH, { expires: `-${expires}`, signature })).toBe('invalid');
    expect(signer.verify(PATH, { expires, signature: `${signature}=` })).toBe('invalid');
    expect(signer.verify(PATH, { expires, signature: '' })).toBe('invalid');
  });

  it('a URL signed with another secret is invalid', () => {
    const url = signerAt(HOUR_START_MS, 86_400, 'other-secret').sign(PATH);
    expect(signerAt(HOUR_START_MS).verify(PATH, queryOf(url))).toBe('invalid');
  });

  it('a genuine URL past its expiry is expired', () => {
    const ttl = 600;
    const url = signerAt(HOUR_START_MS, ttl).sign(PATH);
    const { expires } = queryOf(url);
    const expiresMs = Number(expires) * 1000;
    expect(signerAt(expiresMs - 1000, ttl).verify(PATH, queryOf(url))).toBe('ok');
    expect(signerAt(expiresMs, ttl).verify(PATH, queryOf(url))).toBe('expired');
    expect(signerAt(expiresMs + 86_400_000, ttl).verify(PATH, queryOf(url))).toBe('expired');
  });

  it('expiry is bucketed: the same path signed within one clock hour gives the same URL', () => {
    const early = signerAt(HOUR_START_MS).sign(PATH);
    const late = signerAt(HOUR_START_MS + (HOUR - 1) * 1000).sign(PATH);
    const nextHour = signerAt(HOUR_START_MS + HOUR * 1000).sign(PATH);
    expect(late).toBe(early);
    expect(nextHour).not.toBe(early);
    expect(Number(queryOf(early).expires)).toBe(HOUR_START_MS / 1000 + 86_400 + HOUR);
  });

  it('a freshly signed URL stays valid for at least the TTL', () => {
    const ttl = 900;
    for (const offsetSeconds of [0, 1, 1799, 3599]) {
      const signedAtMs = HOUR_START_MS + offsetSeconds * 1000;
      const url = signerAt(signedAtMs, ttl).sign(PATH);
      expect(signerAt(signedAtMs + ttl * 1000, ttl).verify(PATH, queryOf(url))).toBe('ok');
    }
  });

  it('secondsUntilExpiry counts down to zero and never below', () => {
    const signer = signerAt(HOUR_START_MS);
    expect(signer.secondsUntilExpiry(String(HOUR_START_MS / 1000 + 120))).toBe(120);
    expect(signer.secondsUntilExpiry(String(HOUR_START_MS / 1000 - 120))).toBe(0);
    expect(signer.secondsUntilExpiry('soon')).toBe(0);
  });

  it('refuses to sign something that is not a bare path', () => {
    const signer = signerAt(HOUR_START_MS);
    expect(() => signer.sign('display/abc/comp.jpg')).toThrow();
    expect(() => signer.sign('/display/abc/comp.jpg?x=1')).toThrow();
  });
});
