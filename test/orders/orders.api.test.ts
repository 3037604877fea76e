import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { addAssets, creativeImageFields, fakeDeliveryUri, insertUser } from '../licensing/licensing-fixtures.js';

interface Customer {
  userId: number;
  token: string;
}

interface OrderBody {
  id: string;
  invoice_number: string;
  order_date: string;
  end_client: string | null;
  notes: { licensee_name: string | null; purchase_order_number: string | null; project_title: string | null; ordered_by: string | null };
  assets: Array<{ id: string }>;
}

const IMAGES = ['o1', 'o2', 'o3', 'o4', 'o5', 'o6'];

describe.each(STORES)('orders, on $name', ({ url }) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url, deliveryUri: fakeDeliveryUri });
    await addAssets(t.services, 'image', IMAGES, creativeImageFields());
    await t.services.clients.setPermissions(String(t.clientId), { orderMetadata: true });
  });
  afterAll(async () => {
    await t.close();
  });

  async function customer(options: { firstName?: string; lastName?: string; partnerCredit?: boolean } = {}): Promise<Customer> {
    const userId = await insertUser(t.services.database.db, options);
    await t.services.products.grant({ userId, type: 'creditpack', credits: 100 });
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 });
    return { userId, token };
  }
  const call = (method: 'GET' | 'POST', path: string, token: string, body?: unknown, apiKey = t.apiKey) =>
    t.app.inject({
      method,
      url: path,
      headers: { 'api-key': apiKey, authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const buy = async (who: Customer, assetId: string, body?: Record<string, unknown>) => {
    const response = await call('POST', `/v3/downloads/images/${assetId}?auto_download=false`, who.token, body);
    expect(response.statusCode, response.body).toBe(200);
  };
  const purchases = async (who: Customer) => {
    const response = await call('GET', '/v3/purchased-assets', who.token);
    expect(response.statusCode, response.body).toBe(200);
    return new Map(response.json<{ previous_purchases: Array<{ asset_id: string; order_id: string }> }>().previous_purchases.map((p) => [p.asset_id, p.order_id]));
  };
  const order = (who: Customer, id: string) => call('GET', `/v3/orders/${id}`, who.token);

  it('makes each purchase without a purchase order number an order of its own, which purchased-assets points at', async () => {
    const buyer = await customer({ firstName: 'Orla', lastName: 'Buyer' });
    await buy(buyer, 'o1');
    await buy(buyer, 'o2', { end_client: 'Harbour Museum', project_title: 'Spring show' });
    const orders = await purchases(buyer);
    expect(orders.get('o1')).not.toBe(orders.get('o2'));

    const first = await order(buyer, orders.get('o1')!);
    expect(first.statusCode, first.body).toBe(200);
    const detail = first.json<OrderBody>();
    expect(detail).toEqual({
      id: orders.get('o1'),
      invoice_number: expect.stringMatching(/^INV-\d{8}-\d{6}$/),
      order_date: expect.any(String),
      end_client: null,
      // ordered_by not given: the purchasing user's name.
      notes: { licensee_name: null, purchase_order_number: null, project_title: null, ordered_by: 'Orla Buyer' },
      assets: [{ id: 'o1' }],
    });
    expect(detail.invoice_number.endsWith(orders.get('o1')!.padStart(6, '0'))).toBe(true);
    const second = (await order(buyer, orders.get('o2')!)).json<OrderBody>();
    expect(second).toMatchObject({ end_client: 'Harbour Museum', notes: { project_title: 'Spring show' }, assets: [{ id: 'o2' }] });

    // Downloading it again is free, buys nothing and makes no order.
    await buy(buyer, 'o1', { purchase_order_number: 'PO-NEW' });
    expect((await purchases(buyer)).get('o1')).toBe(orders.get('o1'));
    const count = await t.services.database.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', buyer.userId).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(2);
  });

  it('groups purchases naming one purchase order number into one order; later ones fill notes in, never change them', async () => {
    const buyer = await customer();
    await buy(buyer, 'o1', { purchase_order_number: 'PO-7', licensee_name: 'Harbour Museum Ltd' });
    await buy(buyer, 'o2', { purchase_order_number: ' PO-7 ', ordered_by: 'Sam Editor', licensee_name: 'Harbour Museum Ltd' });
    await buy(buyer, 'o3', { purchase_order_number: 'PO-8' });
    const orders = await purchases(buyer);
    expect(orders.get('o1')).toBe(orders.get('o2'));
    expect(orders.get('o3')).not.toBe(orders.get('o1'));
    const detail = (await order(buyer, orders.get('o1')!)).json<OrderBody>();
    expect(detail.notes).toEqual({ licensee_name: 'Harbour Museum Ltd', purchase_order_number: 'PO-7', project_title: null, ordered_by: 'Sam Editor' });
    expect(detail.assets).toEqual([{ id: 'o1' }, { id: 'o2' }]);

    // A note that differs from the order's: 409, and nothing is bought (no credits taken).
    const before = (await t.services.products.productsOf(buyer.userId))[0]!.creditsRemaining;
    const conflict = await call('POST', '/v3/downloads/images/o4?auto_download=false', buyer.token, { purchase_order_number: 'PO-7', licensee_name: 'Someone else' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'OrderNotesConflict', message: expect.stringContaining('licensee_name') });
    expect((await t.services.products.productsOf(buyer.userId))[0]!.creditsRemaining).toBe(before);
    expect((await purchases(buyer)).has('o4')).toBe(false);
  });

  it('puts extended licenses bought in an order too', async () => {
    const buyer = await customer({ partnerCredit: true });
    await buy(buyer, 'o5', { purchase_order_number: 'PO-X' });
    const response = await call('POST', '/v3/asset-licensing/o5', buyer.token, { extended_licenses: ['multiseat'], purchase_order_number: 'PO-X', project_title: 'Poster' });
    expect(response.statusCode, response.body).toBe(200);
    const licensed = await call('POST', '/v3/asset-licensing/o5', buyer.token, { extended_licenses: ['unlimited'] });
    expect(licensed.statusCode, licensed.body).toBe(200);
    const rows = await t.services.database.db.selectFrom('extended_licenses').select(['license_type', 'order_id']).where('user_id', '=', buyer.userId).orderBy('id').execute();
    const poOrder = (await purchases(buyer)).get('o5')!;
    expect(rows.map((row) => [row.license_type, row.order_id === null ? null : String(row.order_id)])).toEqual([
      ['multiseat', poOrder],
      ['unlimited', expect.not.stringMatching(`^${poOrder}$`)],
    ]);
    expect((await order(buyer, poOrder)).json<OrderBody>()).toMatchObject({ notes: { project_title: 'Poster' }, assets: [{ id: 'o5' }] });
    expect((await order(buyer, String(rows[1]!.order_id))).json<OrderBody>().assets).toEqual([{ id: 'o5' }]);
  });

  it('answers 404 OrderNotFound for another user’s order and for an unknown or malformed id', async () => {
    const owner = await customer();
    const other = await customer();
    await buy(owner, 'o6');
    const id = (await purchases(owner)).get('o6')!;
    for (const [who, orderId] of [
      [other, id],
      [owner, '999999999'],
      [owner, 'abc'],
      [owner, '0'],
      [owner, '99999999999'],
    ] as const) {
      const response = await order(who, orderId);
      expect(response.statusCode, orderId).toBe(404);
      expect(response.json()).toMatchObject({ code: 'OrderNotFound' });
    }
  });

  it('answers 403 NoAccessToOrderMetadata to a client not enabled for it, and UserTokenRequired to a client-credentials token', async () => {
    const buyer = await customer();
    await buy(buyer, 'o3');
    const id = (await purchases(buyer)).get('o3')!;
    const plain = await t.services.clients.create({ name: 'No orders', queriesPerSecond: 1000 });
    const { token } = await t.services.tokens.issue({ clientId: plain.client.id, userId: buyer.userId, grantType: 'password', lifetimeSeconds: 600 });
    const refused = await call('GET', `/v3/orders/${id}`, token, undefined, plain.apiKey);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'NoAccessToOrderMetadata' });
    await t.services.clients.setPermissions(plain.apiKey, { orderMetadata: true });
    expect((await call('GET', `/v3/orders/${id}`, token, undefined, plain.apiKey)).statusCode).toBe(200);

    const clientToken = await t.issueToken();
    expect((await order({ userId: 0, token: clientToken }, id)).json()).toMatchObject({ code: 'UserTokenRequired' });
    const anonymous = await t.app.inject({ method: 'GET', url: `/v3/orders/${id}`, headers: { 'api-key': t.apiKey } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('makes one order of two purchases naming a new purchase order number at the same moment', async () => {
    const buyer = await customer();
    await Promise.all([buy(buyer, 'o1', { purchase_order_number: 'PO-RACE' }), buy(buyer, 'o2', { purchase_order_number: 'PO-RACE' })]);
    const orders = await purchases(buyer);
    expect(orders.get('o1')).toBe(orders.get('o2'));
  });
});
