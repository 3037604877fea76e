import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { addAssets, creativeImageFields, fakeDeliveryUri, insertUser } from '../licensing/licensing-fixtures.js';

/** The spec's one form of a date-time in an answer. */
const SPEC_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
/** What names a date-time in these answers. */
const DATE_TIME_KEY = /date|timestamp|expires|_utc/;

/** Every value under a key that names a date-time, with its path. */
function dateTimes(value: unknown, path = ''): Array<[string, unknown]> {
  if (Array.isArray(value)) return value.flatMap((item, index) => dateTimes(item, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) =>
    DATE_TIME_KEY.test(key) && (typeof item === 'string' || item === null) ? [[`${path}.${key}`, item] as [string, unknown]] : dateTimes(item, `${path}.${key}`),
  );
}

describe.each(STORES)('date-times in answers, on $name', ({ url }) => {
  let t: TestApp;
  let token: string;
  // A clock that is always 789 ms into its second, so a fraction, if one were written, would show.
  const clock = () => new Date(Math.floor(Date.now() / 1000) * 1000 + 789);

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url, deliveryUri: fakeDeliveryUri, clock });
    await addAssets(t.services, 'image', ['d1', 'd2'], creativeImageFields());
    await t.services.clients.setPermissions(String(t.clientId), { orderMetadata: true });
    const userId = await insertUser(t.services.database.db, { firstName: 'Dana', lastName: 'Dates' });
    await t.services.products.grant({ userId, type: 'creditpack', credits: 100, expiresAt: new Date(Date.now() + 86_400_000 + 456) });
    token = (await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 })).token;
  });
  afterAll(async () => {
    await t.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, contentType = 'application/json') =>
    t.app.inject({
      method,
      url: path,
      headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      ...(body === undefined ? {} : { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
    });
  const ok = async (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, contentType?: string) => {
    const response = await call(method, path, body, contentType);
    expect(response.statusCode, `${method} ${path}: ${response.body}`).toBeLessThan(300);
    return response.body === '' ? undefined : response.json<unknown>();
  };

  it('boards, comments, orders, send events, upload expiries, downloads and products: YYYY-MM-DDTHH:MM:SSZ, no fraction', async () => {
    const board = (await ok('POST', '/v3/boards', { name: 'Dated' })) as { id: string };
    await ok('PUT', `/v3/boards/${board.id}/assets/d1`);
    await ok('POST', `/v3/boards/${board.id}/comments`, { text: 'When was this?' });
    await ok('POST', `/v3/boards/${board.id}/sends`, { email_address: 'someone@example.com' });
    await ok('POST', '/v3/downloads/images/d2?auto_download=false', { project_title: 'Dates' });
    const purchases = (await ok('GET', '/v3/purchased-assets')) as { previous_purchases: Array<{ order_id: string }> };
    const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#336699' } }).jpeg().toBuffer();

    const answers: Record<string, unknown> = {
      boards: await ok('GET', '/v3/boards'),
      board: await ok('GET', `/v3/boards/${board.id}`),
      comments: await ok('GET', `/v3/boards/${board.id}/comments`),
      sendEvents: await ok('GET', '/v3/asset-management/assets/send-events'),
      order: await ok('GET', `/v3/orders/${purchases.previous_purchases[0]!.order_id}`),
      upload: await ok('PUT', '/v3/search/by-image/uploads/dated.jpg', jpeg, 'image/jpeg'),
      downloads: await ok('GET', '/v3/downloads'),
      purchases,
      products: await ok('GET', '/v3/products'),
    };
    const found = dateTimes(answers);
    const named = new Set(found.map(([path]) => path.replace(/\[\d+\]/g, '[]')));
    // Each kind the issue names is there, so the check below cannot pass by finding nothing.
    for (const path of [
      '.boards.boards[].date_created',
      '.boards.boards[].date_last_updated',
      '.board.assets[].date_added',
      '.comments.comments[].date_created',
      '.sendEvents.asset_send_events[].timestamp',
      '.order.order_date',
      '.upload.expires',
      '.downloads.downloads[].date_downloaded',
      '.purchases.previous_purchases[].date_purchased',
      '.products.products[].expiration_utc_date',
    ]) {
      expect(named, path).toContain(path);
    }
    for (const [path, value] of found) {
      if (value !== null && path !== '.sendEvents.last_offset') expect(value, path).toMatch(SPEC_FORM);
    }
  });
});
