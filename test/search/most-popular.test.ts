import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addImage } from '../helpers/catalog-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { insertUser } from '../licensing/licensing-fixtures.js';

/** most_popular ranks by licensed downloads: a license counts, and every node's index learns it from the change log. */
describe('sort_order=most_popular', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  const CREATIVE = { asset_family: 'creative', collection_code: 'STK', collection_id: 101, collection_name: 'Stockroom Creative' };

  beforeAll(async () => {
    t = await createTestApp();
    for (const id of ['kite-a', 'kite-b', 'kite-c']) {
      await addImage(t.services, id, { width: 640, height: 480, fields: { title: `Red kite over the dunes ${id}`, product_types: ['premiumaccess'], ...CREATIVE } });
    }
    const userId = await insertUser(t.services.database.db);
    await t.services.products.grant({ userId, type: 'premiumaccess' });
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 });
    headers = { 'api-key': t.apiKey, authorization: `Bearer ${token}` };
    await t.services.changeFeed.poll();
    await t.services.search.settled();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const order = async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v3/search/images?phrase=kite&sort_order=most_popular&fields=id', headers: { 'api-key': t.apiKey } });
    expect(response.statusCode).toBe(200);
    return (response.json() as { images: Array<{ id: string }> }).images.map((image) => image.id);
  };
  const download = async (id: string) => {
    const response = await t.app.inject({ method: 'POST', url: `/v3/downloads/images/${id}?auto_download=false`, headers });
    expect(response.statusCode, response.body).toBe(200);
  };

  it('puts the most downloaded first once the downloads are in the index', async () => {
    // Without downloads the order falls to quality, then id.
    expect((await order()).sort()).toEqual(['kite-a', 'kite-b', 'kite-c']);
    await download('kite-c');
    await download('kite-c');
    await download('kite-b');
    // a second customer licenses kite-c too
    const other = await insertUser(t.services.database.db);
    await t.services.products.grant({ userId: other, type: 'premiumaccess' });
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId: other, grantType: 'password', lifetimeSeconds: 1800 });
    const response = await t.app.inject({
      method: 'POST',
      url: '/v3/downloads/images/kite-c?auto_download=false',
      headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
    await t.services.changeFeed.poll();
    await t.services.search.settled();
    expect(await order()).toEqual(['kite-c', 'kite-b', 'kite-a']);
    // kite-c was licensed twice (two customers); its second download by the first was free and adds nothing.
    const [record] = (await t.services.catalog.findAssets('image', ['kite-c'])).found;
    expect(record?.downloads).toBe(2);
  });
});
