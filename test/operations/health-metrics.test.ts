import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { STOCKROOM_VERSION } from '../../src/platform/version.js';

/** The value of one series in Prometheus's text format, or undefined when it is absent. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const TOKEN = 'metrics-token-for-the-test-0123456789';

describe.each(STORES)('probes: /healthz and /readyz, on $name', ({ url }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url });
  });
  afterAll(() => t.close());

  it('rule: /healthz answers 200 without a key, not cached', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ status: 'ok', version: STOCKROOM_VERSION });
  });

  it('rule: /readyz is 200 naming every part it checked: store, blob store, room to write, change feed, search index; Redis not configured', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'ready',
      version: STOCKROOM_VERSION,
      checks: { store: 'ok', redis: 'not configured', blobs: 'ok', storage: 'ok', change_feed: 'ok', search: 'ok' },
      failures: {},
    });
  });

  it('rule: the probes take no throttle token: a client at its limit still gets them, and they carry no rate-limit headers', async () => {
    for (let i = 0; i < 30; i++) {
      const response = await t.app.inject({ method: 'GET', url: '/readyz', headers: { 'api-key': t.apiKey } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit-second']).toBeUndefined();
    }
  });

  it('rule: /metrics is not served on the API port without STOCKROOM_METRICS_TOKEN', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });

  it('rule: the probes are in the API description; /metrics is not', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/health']));
    expect(document.paths['/metrics']).toBeUndefined();
  });
});

describe('/readyz of a node that cannot serve', () => {
  it('rule: a store that is gone is 503 "not ready", naming the store and why', async () => {
    const t = await createTestApp();
    try {
      await t.services.database.close();
      const response = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      const body = response.json() as { status: string; checks: Record<string, string>; failures: Record<string, string> };
      expect(body.status).toBe('not ready');
      expect(body.checks.store).toBe('failing');
      expect(body.failures.store).toMatch(/\w/);
      // The liveness probe does not depend on the store: the process still answers.
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.close().catch(() => undefined);
    }
  });

  it('rule: a node that is shutting down is not ready (accepting: failing), so that a balancer stops sending to it', async () => {
    const t = await createTestApp();
    try {
      t.services.readiness.drain();
      const response = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ checks: { accepting: 'failing', store: 'ok' }, failures: { accepting: 'the node is shutting down' } });
    } finally {
      await t.close();
    }
  });

  it('rule: a change feed that has not read the log for a while is not current', async () => {
    const t = await createTestApp();
    try {
      t.services.changeFeed.stop();
      // The feed read the log at start; pretend that was long ago by moving its clock reading.
      const feed = t.services.changeFeed as unknown as { readAt: number };
      feed.readAt = Date.now() - 60_000;
      const body = (await t.app.inject({ method: 'GET', url: '/readyz' })).json() as { checks: Record<string, string>; failures: Record<string, string> };
      expect(body.checks.change_feed).toBe('failing');
      expect(body.failures.change_feed).toMatch(/last read 60 s ago/);
    } finally {
      await t.close();
    }
  });
});

describe.each(STORES)('metrics behind a token, on $name', ({ url }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url, env: { STOCKROOM_METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  const scrape = async () => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    return response.body;
  };

  it('rule: without the token, or with another, 401 and nothing of the metrics', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-wrong-token-wrong' }, { authorization: TOKEN }]) {
      const response = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'Unauthorized' });
      expect(response.body).not.toContain('stockroom_');
    }
  });

  it('rule: requests are counted by route pattern and status, never by raw URL', async () => {
    await t.app.inject({ method: 'GET', url: '/v3/images/123456789?fields=id', headers: { 'api-key': t.apiKey } });
    await t.app.inject({ method: 'GET', url: '/no/such/path' });
    const text = await scrape();
    expect(text).toMatch(/stockroom_http_request_duration_seconds_count\{method="GET",route="\/v3\/images\/:id",status="\d{3}"\} 1/);
    expect(text).toContain('route="unmatched",status="404"');
    expect(text).not.toContain('123456789');
  });

  it('rule: search latency by kind and the index size are measured', async () => {
    await t.app.inject({ method: 'GET', url: '/v3/search/images?phrase=anything', headers: { 'api-key': t.apiKey } });
    const text = await scrape();
    expect(sample(text, 'stockroom_search_duration_seconds_count{kind="assets"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'stockroom_search_index_documents{index="assets"}')).toBe(0);
  });

  it('rule: throttle refusals are counted by the window exceeded', async () => {
    const { apiKey } = await t.services.clients.create({ name: 'Slow client', queriesPerSecond: 1, queriesPerDay: 1000 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': apiKey } })).statusCode);
    const refused = statuses.filter((status) => status === 403).length;
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(sample(await scrape(), 'stockroom_throttle_refusals_total{window="second"}')).toBe(refused);
  });

  it('rule: ledger debits are read from the ledger: each committed debit once, whatever the number of scrapes', async () => {
    const before = (await scrape()).includes('stockroom_ledger_debits_total{');
    expect(before).toBe(false);
    const { db } = t.services.database;
    const buyer = await t.services.users.create({ username: 'ledger-buyer', password: 'correct horse battery' });
    const row = { user_id: buyer.id, product_id: null, team: null, download_id: null, extended_license_id: null, created_at: new Date().toISOString() };
    await db.insertInto('download_ledger').values([
      { ...row, unit: 'credit', reason: 'grant', amount: 10 },
      { ...row, unit: 'credit', reason: 'download', amount: -2 },
      { ...row, unit: 'credit', reason: 'download', amount: -1 },
    ]).execute();
    let text = await scrape();
    text = await scrape();
    expect(sample(text, 'stockroom_ledger_debits_total{unit="credit",reason="download"}')).toBe(2);
    expect(sample(text, 'stockroom_ledger_debited_amount_total{unit="credit",reason="download"}')).toBe(3);
    expect(text).not.toContain('reason="grant"');
  });

  it('rule: the generation queue is measured (nothing queued here: zero of each, and no age)', async () => {
    const text = await scrape();
    expect(sample(text, 'stockroom_generation_jobs{status="pending"}')).toBe(0);
    expect(sample(text, 'stockroom_generation_jobs{status="running"}')).toBe(0);
    expect(sample(text, 'stockroom_generation_jobs_oldest_age_seconds{status="pending"}')).toBe(0);
    expect(sample(text, 'stockroom_change_feed_lag_changes')).toBe(0);
  });
});
