import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { tokenRequest } from '../helpers/oauth-fixtures.js';
import { redactedUrl } from '../../src/platform/http/redacted-url.js';

/** What an independent review of the OAuth endpoints found, each kept fixed by a test. */
describe('the token endpoint under odd input', () => {
  let t: TestApp;
  let apiKey: string;
  let apiSecret: string;
  beforeAll(async () => {
    t = await createTestApp();
    ({ apiKey, apiSecret } = await t.services.clients.create({ name: 'Hardening' }));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers unsupported_grant_type with a string description for grant types named like object properties', async () => {
    for (const grantType of ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
      const response = await tokenRequest(t.app, '/auth/oauth2', { grant_type: grantType, client_id: apiKey, client_secret: apiSecret });
      expect(response.statusCode, grantType).toBe(400);
      const body = response.json<{ error: string; error_description: unknown }>();
      expect(body.error).toBe('unsupported_grant_type');
      expect(typeof body.error_description).toBe('string');
    }
  });

  it('keeps error_description to the characters RFC 6749 §5.2 allows, whatever the request held', async () => {
    const response = await tokenRequest(t.app, '/auth/oauth2', { grant_type: 'x"\\\u202e\u0000y', client_id: apiKey, client_secret: apiSecret });
    expect(response.json<{ error_description: string }>().error_description).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
  });

  it('refuses token request parameters in the URL (RFC 6749 §2.3.1): they would end up in logs', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/auth/oauth2/token?client_secret=${apiSecret}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: apiKey }).toString(),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('client_secret') });
  });
});

describe('the request log', () => {
  it('never writes the value of a secret-bearing query parameter', () => {
    expect(redactedUrl('/oauth2/token?grant_type=password&password=hunter22&client_secret=s3cret')).toBe(
      '/oauth2/token?grant_type=password&password=[redacted]&client_secret=[redacted]',
    );
    expect(redactedUrl('/cb?code=abc&state=x#access_token=t')).toBe('/cb?code=[redacted]&state=x#access_token=t');
    expect(redactedUrl('/v3/search/images?phrase=password')).toBe('/v3/search/images?phrase=password');
    // a signed download URL opens a licensed file for a day
    expect(redactedUrl('/delivery/1/2/f.jpg?expires=1&signature=abc')).toBe('/delivery/1/2/f.jpg?expires=1&signature=[redacted]');
  });
});
