import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { UsageRepository } from '../../src/reporting/usage.repository.js';
import { isUniqueViolation } from '../../src/platform/db/unique-violation.js';
import { addAssets, creativeImageFields, creativeVideoFields, insertUser } from '../licensing/licensing-fixtures.js';

interface BatchAnswer {
  invalid_assets: string[];
  total_asset_usages_processed: number;
}

const IMAGES = ['u1', 'u2', 'u3'];

describe.each(STORES)('usage batches, on $name', ({ url }) => {
  let t: TestApp;
  let userToken: string;
  let clientToken: string;
  let batchNumber = 0;

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url });
    await addAssets(t.services, 'image', IMAGES, creativeImageFields());
    await addAssets(t.services, 'video', ['uv1'], creativeVideoFields());
    await t.services.clients.setPermissions(String(t.clientId), { usageReporting: true });
    const userId = await insertUser(t.services.database.db);
    userToken = (await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 })).token;
    clientToken = await t.issueToken();
  });
  afterAll(async () => {
    await t.close();
  });

  const nextId = () => `batch-${++batchNumber}`;
  const put = (id: string, body: unknown, options: { token?: string; apiKey?: string; raw?: string } = {}) =>
    t.app.inject({
      method: 'PUT',
      url: `/v3/usage-batches/${encodeURIComponent(id)}`,
      headers: { 'api-key': options.apiKey ?? t.apiKey, authorization: `Bearer ${options.token ?? userToken}`, 'content-type': 'application/json' },
      payload: options.raw ?? JSON.stringify(body),
    });
  const usage = (assetId: string, usageDate = '2024-03-09', quantity = 1) => ({ asset_id: assetId, quantity, usage_date: usageDate });
  const storedUsages = (transactionId: string) =>
    t.services.database.db
      .selectFrom('asset_usages')
      .innerJoin('usage_batches', 'usage_batches.id', 'asset_usages.batch_id')
      .select(['asset_usages.asset_id', 'asset_usages.asset_type', 'asset_usages.quantity', 'asset_usages.usage_date'])
      .where('usage_batches.transaction_id', '=', transactionId)
      .orderBy('asset_usages.id')
      .execute();

  it('stores every usage of a batch and answers 201 with the count', async () => {
    const id = nextId();
    const response = await put(id, { asset_usages: [usage('u1', '2024-03-09', 3), usage('uv1', '9 March 2024T10:00', 1), usage('u2', '2024-03-10T23:30:00-05:00', 2)] });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json<BatchAnswer>()).toEqual({ invalid_assets: [], total_asset_usages_processed: 3 });
    expect(await storedUsages(id)).toEqual([
      { asset_id: 'u1', asset_type: 'image', quantity: 3, usage_date: '2024-03-09' },
      { asset_id: 'uv1', asset_type: 'video', quantity: 1, usage_date: '2024-03-09' },
      // The day written in a date-time, not its day in UTC.
      { asset_id: 'u2', asset_type: 'image', quantity: 2, usage_date: '2024-03-10' },
    ]);
  });

  it('takes unambiguous date forms and refuses an ambiguous one, naming the entry', async () => {
    const forms = ['2024-03-09', '2024-03-09T10:00:00Z', '9 March 2024', 'March 9, 2024', '2024/03/09', '09/13/2024', '13/09/2024', 'Sat, 09 Mar 2024 10:00:00 GMT'];
    const id = nextId();
    const accepted = await put(id, { asset_usages: forms.map((form) => usage('u1', form)) });
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect((await storedUsages(id)).map((row) => row.usage_date)).toEqual([
      '2024-03-09', '2024-03-09', '2024-03-09', '2024-03-09', '2024-03-09', '2024-09-13', '2024-09-13', '2024-03-09',
    ]);

    const ambiguous = await put(nextId(), { asset_usages: [usage('u1'), usage('u2', '03/04/2024')] });
    expect(ambiguous.statusCode).toBe(400);
    expect(ambiguous.json()).toMatchObject({ code: 'InvalidRequest' });
    expect(ambiguous.json<{ message: string }>().message).toContain('asset_usages[1].usage_date');
    expect(ambiguous.json<{ message: string }>().message).toContain('ambiguous');
  });

  it('refuses a usage date in the future, a two-digit year and a date that is not in the calendar', async () => {
    const nextYear = `${new Date().getUTCFullYear() + 1}-01-01`;
    for (const [date, words] of [
      [nextYear, 'future'],
      ['3/4/24', 'two-digit'],
      ['2024-02-30', 'calendar'],
      ['yesterday', 'not a date'],
    ] as const) {
      const response = await put(nextId(), { asset_usages: [usage('u1', date)] });
      expect(response.statusCode, date).toBe(400);
      expect(response.json()).toMatchObject({ code: 'InvalidRequest', message: expect.stringContaining(words) });
    }
  });

  it('answers 400 InvalidRequest for no usages, more than 1,000, malformed JSON and a bad entry', async () => {
    const tooMany = Array.from({ length: 1001 }, () => usage('u1'));
    const cases: Array<[string, unknown, string?]> = [
      ['empty', { asset_usages: [] }],
      ['too many', { asset_usages: tooMany }],
      ['no list', { usages: [] }],
      ['quantity 0', { asset_usages: [usage('u1', '2024-03-09', 0)] }],
      ['quantity 1.5', { asset_usages: [usage('u1', '2024-03-09', 1.5)] }],
      ['no asset id', { asset_usages: [{ quantity: 1, usage_date: '2024-03-09' }] }],
      ['no body', undefined, ''],
      ['malformed', undefined, '{"asset_usages": ['],
    ];
    for (const [name, body, raw] of cases) {
      const response = await put(nextId(), body, raw === undefined ? {} : { raw });
      expect(response.statusCode, name).toBe(400);
      expect(response.json(), name).toMatchObject({ code: 'InvalidRequest' });
    }
    const exactlyAThousand = await put(nextId(), { asset_usages: Array.from({ length: 1000 }, (_, n) => usage(IMAGES[n % 3]!)) });
    expect(exactlyAThousand.json()).toEqual({ invalid_assets: [], total_asset_usages_processed: 1000 });
  });

  it('records nothing when any asset is unknown, lists those, and leaves the transaction id free', async () => {
    const id = nextId();
    const response = await put(id, { asset_usages: [usage('u1'), usage('nope-1'), usage('u2'), usage('nope-2'), usage('nope-1')] });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ invalid_assets: ['nope-1', 'nope-2'], total_asset_usages_processed: 0 });
    expect(await storedUsages(id)).toEqual([]);
    const corrected = await put(id, { asset_usages: [usage('u1'), usage('u2')] });
    expect(corrected.json()).toEqual({ invalid_assets: [], total_asset_usages_processed: 2 });
  });

  it('answers 409 TransactionIdDuplicated for a second batch with the same id', async () => {
    const id = nextId();
    expect((await put(id, { asset_usages: [usage('u1')] })).statusCode).toBe(201);
    const again = await put(id, { asset_usages: [usage('u2')] });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'TransactionIdDuplicated' });
    expect(await storedUsages(id)).toEqual([{ asset_id: 'u1', asset_type: 'image', quantity: 1, usage_date: '2024-03-09' }]);
  });

  it('stores exactly one of many batches with the same id sent at once', async () => {
    const id = nextId();
    const responses = await Promise.all(Array.from({ length: 8 }, (_, n) => put(id, { asset_usages: [usage(IMAGES[n % 3]!, '2024-03-09', n + 1)] })));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(await storedUsages(id)).toHaveLength(1);
  });

  it('the store refuses the second of two batches with one id that both passed the check: one kept whole, the other not at all', async () => {
    const repository = new UsageRepository(t.services.database.db);
    const userId = await insertUser(t.services.database.db);
    const batch = (quantity: number) => ({
      clientId: t.clientId,
      transactionId: 'raced',
      userId,
      receivedAt: new Date().toISOString(),
      usages: Array.from({ length: 500 }, (_, n) => ({ assetId: IMAGES[n % 3]!, assetType: 'image', quantity, usageDate: '2024-03-09' })),
    });
    const outcomes = await Promise.allSettled([repository.insertBatch(batch(1)), repository.insertBatch(batch(2))]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected')!;
    expect(isUniqueViolation(failed.reason)).toBe(true);
    const rows = await storedUsages('raced');
    expect(rows).toHaveLength(500);
    expect(new Set(rows.map((row) => row.quantity)).size).toBe(1);
  });

  it('is refused to a client not enabled for usage reporting, to a client-credentials token and without a token', async () => {
    const other = await t.services.clients.create({ name: 'Not a reporter', queriesPerSecond: 1000 });
    const userId = await insertUser(t.services.database.db);
    const otherToken = (await t.services.tokens.issue({ clientId: other.client.id, userId, grantType: 'password', lifetimeSeconds: 600 })).token;
    const refused = await put(nextId(), { asset_usages: [usage('u1')] }, { apiKey: other.apiKey, token: otherToken });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'UnauthorizedToReportUsage' });
    // Permission is checked before the body.
    expect((await put(nextId(), { asset_usages: [] }, { apiKey: other.apiKey, token: otherToken })).json()).toMatchObject({ code: 'UnauthorizedToReportUsage' });

    // Enabled, it may report at once.
    await t.services.clients.setPermissions(other.apiKey, { usageReporting: true });
    expect((await put(nextId(), { asset_usages: [usage('u1')] }, { apiKey: other.apiKey, token: otherToken })).statusCode).toBe(201);

    const clientCredentials = await put(nextId(), { asset_usages: [usage('u1')] }, { token: clientToken });
    expect(clientCredentials.statusCode).toBe(403);
    expect(clientCredentials.json()).toMatchObject({ code: 'UserTokenRequired' });

    const noToken = await t.app.inject({ method: 'PUT', url: '/v3/usage-batches/x', headers: { 'api-key': t.apiKey }, payload: { asset_usages: [usage('u1')] } });
    expect(noToken.statusCode).toBe(401);
    expect(noToken.json()).toMatchObject({ code: 'AuthorizationTokenRequired' });
  });

  it('keeps transaction ids per client: another client may use the same id', async () => {
    const id = nextId();
    expect((await put(id, { asset_usages: [usage('u1')] })).statusCode).toBe(201);
    const other = await t.services.clients.create({ name: 'Second reporter', queriesPerSecond: 1000, usageReporting: true });
    const userId = await insertUser(t.services.database.db);
    const token = (await t.services.tokens.issue({ clientId: other.client.id, userId, grantType: 'password', lifetimeSeconds: 600 })).token;
    expect((await put(id, { asset_usages: [usage('u2')] }, { apiKey: other.apiKey, token })).statusCode).toBe(201);
  });

  it('refuses a transaction id that is not 1 to 100 visible characters', async () => {
    const response = await put('x'.repeat(101), { asset_usages: [usage('u1')] });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'InvalidRequest' });
  });
});
