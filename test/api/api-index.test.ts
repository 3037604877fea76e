import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { STOCKROOM_VERSION } from '../../src/platform/version.js';

describe('the index at /v3 and /health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('rule: GET /v3 answers without a key: the version and where the docs, the OpenAPI document and health are', async () => {
    for (const url of ['/v3', '/v3/']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.json()).toMatchObject({
        version: STOCKROOM_VERSION,
        links: {
          docs: 'http://stockroom.test/docs',
          openapi: 'http://stockroom.test/v3/openapi.json',
          health: 'http://stockroom.test/health',
          token: 'http://stockroom.test/auth/oauth2/token',
        },
      });
    }
    // Each link the index gives answers.
    for (const path of ['/v3/openapi.json', '/health']) {
      expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    }
    expect((await t.app.inject({ method: 'GET', url: '/docs' })).statusCode).toBeLessThan(400);
  });

  it('rule: /health is 200 while the store answers (Redis: not configured here)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ status: 'ok', version: STOCKROOM_VERSION, checks: { store: 'ok', redis: 'not configured', storage: 'ok' } });
  });
});

describe('/health of a node whose store is gone', () => {
  it('rule: 503 unavailable, naming the failing check', async () => {
    const t = await createTestApp();
    try {
      await t.services.database.close();
      const response = await t.app.inject({ method: 'GET', url: '/health' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ status: 'unavailable', checks: { store: 'failing' } });
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
