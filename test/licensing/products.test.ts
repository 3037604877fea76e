import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProductsRepository } from '../../src/licensing/products.repository.js';
import { PRODUCT_TYPES, ProductsService } from '../../src/licensing/products.service.js';
import { UsersRepository } from '../../src/oauth/users.repository.js';
import { ApiError } from '../../src/platform/http/errors.js';
import { STORES, openTestStore, type TestStore } from '../helpers/test-store.js';

const NOW = new Date('2025-03-01T12:00:00.000Z');

describe.each(STORES)('products customers hold, on $name', ({ url }) => {
  let store: TestStore;
  let products: ProductsService;
  let userId: number;

  beforeEach(async () => {
    store = await openTestStore(url);
    products = new ProductsService(new ProductsRepository(store.database.db), () => NOW);
    const user = await new UsersRepository(store.database.db).insert({
      username: 'customer',
      password_hash: 'not-a-real-hash',
      first_name: null,
      last_name: null,
      email: null,
      password_changed_at: NOW.toISOString(),
      created_at: NOW.toISOString(),
    });
    userId = user.id;
  });
  afterEach(async () => {
    await store.drop();
  });

  it('grants a product, active from now, with the type’s own name unless one is given', async () => {
    const granted = await products.grant({ userId, type: 'premiumaccess' });
    expect(granted).toEqual({
      id: expect.any(Number),
      userId,
      type: 'premiumaccess',
      name: 'Premium Access',
      status: 'active',
      expiresAt: null,
      createdAt: NOW.toISOString(),
    });
    const named = await products.grant({ userId, type: 'CreditPack', name: '  Team credits ', expiresAt: '2025-06-01T00:00:00+02:00' });
    expect(named).toMatchObject({ type: 'creditpack', name: 'Team credits', expiresAt: '2025-05-31T22:00:00.000Z' });
    expect((await products.productsOf(userId)).map((p) => p.id)).toEqual([granted.id, named.id]);
  });

  it('takes every product type of the contract and sandbox, and refuses others with a 400 naming type', async () => {
    for (const type of PRODUCT_TYPES) await products.grant({ userId, type });
    expect(await products.heldProductTypes(userId)).toEqual([...PRODUCT_TYPES].sort());
    const refusal = await products.grant({ userId, type: 'lifetimepass' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ statusCode: 400, code: 'InvalidParameterValue', message: expect.stringContaining("'type'") });
  });

  it('refuses an unreadable expiry (400) and an unknown user (404), storing nothing', async () => {
    await expect(products.grant({ userId, type: 'easyaccess', expiresAt: 'next tuesday' })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining("'expires_at'"),
    });
    await expect(products.grant({ userId: userId + 1000, type: 'easyaccess' })).rejects.toMatchObject({ statusCode: 404, code: 'UserNotFound' });
    expect(await products.productsOf(userId)).toEqual([]);
  });

  it('holds the types of active, unexpired products only, each once', async () => {
    await products.grant({ userId, type: 'easyaccess' });
    await products.grant({ userId, type: 'easyaccess', expiresAt: new Date('2026-01-01T00:00:00Z') });
    await products.grant({ userId, type: 'imagepack', expiresAt: new Date('2025-02-28T00:00:00Z') });
    const suspended = await products.grant({ userId, type: 'editorialsubscription' });
    await products.setStatus(suspended.id, 'inactive');
    await products.grant({ userId, type: 'royaltyfreesubscription', expiresAt: NOW });

    expect(await products.heldProductTypes(userId)).toEqual(['easyaccess']);
    // An earlier moment: the image pack had not expired yet, nor had the subscription that ends at NOW.
    expect(await products.heldProductTypes(userId, new Date('2025-02-01T00:00:00Z'))).toEqual([
      'easyaccess',
      'imagepack',
      'royaltyfreesubscription',
    ]);
    await products.setStatus(suspended.id, 'active');
    expect(await products.heldProductTypes(userId)).toEqual(['easyaccess', 'editorialsubscription']);
    await expect(products.setStatus(999_999, 'inactive')).rejects.toMatchObject({ statusCode: 404, code: 'ProductNotFound' });
  });

  it('licenses with the types that license catalogue assets: not sandbox, not aigen', async () => {
    await products.grant({ userId, type: 'sandbox' });
    await products.grant({ userId, type: 'aigen' });
    expect(await products.heldProductTypes(userId)).toEqual(['aigen', 'sandbox']);
    expect(await products.licensingProductTypes(userId)).toEqual([]);
    await products.grant({ userId, type: 'creditpack' });
    await products.grant({ userId, type: 'premiumaccess' });
    expect(await products.licensingProductTypes(userId)).toEqual(['creditpack', 'premiumaccess']);
  });

  it('keeps each user’s products apart', async () => {
    const other = await new UsersRepository(store.database.db).insert({
      username: 'someone-else',
      password_hash: 'x',
      first_name: null,
      last_name: null,
      email: null,
      password_changed_at: NOW.toISOString(),
      created_at: NOW.toISOString(),
    });
    await products.grant({ userId: other.id, type: 'imagepack' });
    expect(await products.heldProductTypes(userId)).toEqual([]);
    expect(await products.heldProductTypes(other.id)).toEqual(['imagepack']);
  });
});
