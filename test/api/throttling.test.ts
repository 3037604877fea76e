import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, createTestApp, type TestApp } from '../helpers/test-app.js';

const THROTTLE_STORES: ReadonlyArray<{ name: string; redisUrl: string | undefined }> = [
  { name: 'memory', redisUrl: undefined },
  ...(REDIS_URL ? [{ name: 'redis', redisUrl: REDIS_URL }] : []),
];

describe.each(THROTTLE_STORES)('throttling per API key ($name store)', ({ redisUrl }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: redisUrl ? { REDIS_URL: redisUrl } : {} });
  });
  afterAll(async () => {
    await t.close();
  });
  const call = (apiKey: string) => t.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': apiKey } });

  it('answers 403 with X-Error-Detail once the per-second limit is used up', async () => {
    const { apiKey } = await t.services.clients.create({ name: 'qps', queriesPerSecond: 2, queriesPerDay: 1000 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(apiKey)).statusCode);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    const refused = await call(apiKey);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['x-error-detail']).toBe('Account Over Queries Per Second Limit');
    expect(refused.json().message).toBe('Account Over Queries Per Second Limit');
  });

  it('answers 403 Account Over Rate Limit once the per-day limit is used up', async () => {
    const { apiKey } = await t.services.clients.create({ name: 'daily', queriesPerSecond: 1000, queriesPerDay: 2 });
    expect((await call(apiKey)).statusCode).toBe(200);
    expect((await call(apiKey)).statusCode).toBe(200);
    const refused = await call(apiKey);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['x-error-detail']).toBe('Account Over Rate Limit');
  });

  it('uses the configured defaults for a key without limits of its own', async () => {
    const limited = await createTestApp({ env: { STOCKROOM_THROTTLE_PER_SECOND: '1', ...(redisUrl ? { REDIS_URL: redisUrl } : {}) } });
    try {
      const { apiKey } = await limited.services.clients.create({ name: 'defaults' });
      const first = await limited.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': apiKey } });
      expect(first.headers['x-ratelimit-limit-second']).toBe('1');
      const second = await limited.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': apiKey } });
      expect(second.statusCode).toBe(403);
    } finally {
      await limited.close();
    }
  });

  it('limits each key on its own', async () => {
    const a = await t.services.clients.create({ name: 'a', queriesPerSecond: 1 });
    const b = await t.services.clients.create({ name: 'b', queriesPerSecond: 1 });
    expect((await call(a.apiKey)).statusCode).toBe(200);
    expect((await call(a.apiKey)).statusCode).toBe(403);
    expect((await call(b.apiKey)).statusCode).toBe(200);
  });
});
