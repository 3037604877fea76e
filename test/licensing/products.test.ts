import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProductsRepository } from '../../src/licensing/products.repository.js';
import { PRODUCT_TYPES, ProductsService } from '../../src/licensing/products.service.js';
import { UsersRepository } from '../../src/oauth/users.repository.js';
import { UsersService } from '../../src/oauth/users.service.js';
import { ApiError } from '../../src/platform/http/errors.js';
import { STORES, openTestStore, type TestStore } from '../helpers/test-store.js';
import { insertUser } from './licensing-fixtures.js';

const NOW = new Date('2025-03-01T12:00:00.000Z');

describe.each(STORES)('products customers hold, on $name', ({ url }) => {
  let store: TestStore;
  let products: ProductsService;
  let userId: number;

  beforeEach(async () => {
    store = await openTestStore(url);
    products = new ProductsService(new ProductsRepository(store.database.db), new UsersService(new UsersRepository(store.database.db)), () => NOW);
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
      creditsRemaining: null,
      downloadLimit: null,
      downloadLimitDuration: null,
      downloadsUsed: 0,
      downloadPeriodEndsAt: null,
      overageLimit: null,
      overageCount: 0,
      agreementName: null,
      imagepackResolution: null,
      applicationWebsite: null,
      noteRequired: false,
      projectCodeRequired: false,
      projectCodes: [],
      assetEditCost: 1,
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

  it('grants credits, download limits with their period, overage, a resolution and download requirements', async () => {
    const pack = await products.grant({ userId, type: 'creditpack', credits: 50, agreementName: 'Agency terms', applicationWebsite: 'https://app.example' });
    expect(pack).toMatchObject({ creditsRemaining: 50, downloadLimit: null, agreementName: 'Agency terms', applicationWebsite: 'https://app.example' });
    const monthly = await products.grant({ userId, type: 'premiumaccess', downloads: 100, period: 'Month', overage: 10 });
    expect(monthly).toMatchObject({
      creditsRemaining: null,
      downloadLimit: 100,
      downloadLimitDuration: 'month',
      downloadPeriodEndsAt: '2025-04-01T12:00:00.000Z',
      overageLimit: 10,
    });
    const imagePack = await products.grant({ userId, type: 'imagepack', downloads: 25, imagepackResolution: 'Medium' });
    expect(imagePack).toMatchObject({ downloadLimit: 25, downloadLimitDuration: null, downloadPeriodEndsAt: null, imagepackResolution: 'medium' });
    const strict = await products.grant({ userId, type: 'easyaccess', noteRequired: true, projectCodeRequired: true, projectCodes: [' A1 ', '', 'B2'] });
    expect(strict).toMatchObject({ noteRequired: true, projectCodeRequired: true, projectCodes: ['A1', 'B2'] });
    // A credit pack without credits given holds none (0, not null: it takes credits).
    expect(await products.grant({ userId, type: 'creditpack' })).toMatchObject({ creditsRemaining: 0 });
  });

  it('writes the credits a grant brings to the ledger with the product', async () => {
    const pack = await products.grant({ userId, type: 'creditpack', credits: 12 });
    const rows = await store.database.db.selectFrom('download_ledger').selectAll().execute();
    expect(rows).toEqual([
      expect.objectContaining({ user_id: userId, product_id: pack.id, team: null, unit: 'credit', reason: 'grant', amount: 12, download_id: null }),
    ]);
  });

  it('puts team credits in the pool of the user’s team', async () => {
    const member = await insertUser(store.database.db, { team: 'Newsroom', partnerCredit: true });
    const granted = await products.grant({ userId: member, type: 'creditpack', credits: 30, team: true });
    await products.grant({ userId: member, type: 'creditpack', credits: 5, team: true });
    expect(granted.creditsRemaining).toBe(0);
    expect(await products.teamCredits('Newsroom')).toBe(35);
    expect(await products.teamCredits('Elsewhere')).toBe(0);
    const ledger = await store.database.db.selectFrom('download_ledger').select(['team', 'amount']).execute();
    expect(ledger).toEqual([
      { team: 'Newsroom', amount: 30 },
      { team: 'Newsroom', amount: 5 },
    ]);
  });

  it.each([
    ['credits on a product that takes none', { type: 'premiumaccess', credits: 5 }, "'credits'"],
    ['team credits on a product that takes none', { type: 'imagepack', team: true }, "'team'"],
    ['team credits for a user of no team', { type: 'creditpack', credits: 5, team: true }, 'belongs to no team'],
    ['a period without a download limit', { type: 'premiumaccess', period: 'month' }, "'period'"],
    ['an unknown period', { type: 'premiumaccess', downloads: 5, period: 'fortnight' }, "'period'"],
    ['overage without a download limit', { type: 'premiumaccess', overage: 5 }, "'overage'"],
    ['an unknown resolution', { type: 'imagepack', imagepackResolution: 'huge' }, "'imagepack_resolution'"],
    ['negative credits', { type: 'creditpack', credits: -1 }, "'credits'"],
    ['fractional downloads', { type: 'premiumaccess', downloads: 1.5 }, "'downloads'"],
  ])('refuses %s with a 400 naming it, storing nothing', async (_case, input, named) => {
    await expect(products.grant({ userId, ...(input as { type: string }) })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining(named),
    });
    expect(await products.productsOf(userId)).toEqual([]);
  });

  it('shows each product in the spec’s names, as of now', async () => {
    const member = await insertUser(store.database.db, { team: 'Newsroom', partnerCredit: true });
    await products.grant({ userId: member, type: 'creditpack', credits: 7, expiresAt: '2026-01-01T00:00:00Z', agreementName: 'Terms' });
    await products.grant({ userId: member, type: 'creditpack', credits: 40, team: true });
    await products.grant({ userId: member, type: 'premiumaccess', downloads: 10, period: 'day', overage: 2, noteRequired: true, projectCodes: ['X'] });
    await products.grant({ userId: member, type: 'imagepack', downloads: 5, imagepackResolution: 'small', expiresAt: '2025-01-01T00:00:00Z' });
    const customer = (await products.findCustomer(member))!;
    const records = await products.productRecords(customer);
    expect(records[0]).toEqual({
      id: expect.any(Number),
      name: 'Credit Pack',
      type: 'creditpack',
      status: 'active',
      credits_remaining: 7,
      team_credits: 40,
      download_limit: null,
      download_limit_duration: null,
      downloads_remaining: null,
      download_limit_reset_utc_date: null,
      expiration_utc_date: '2026-01-01T00:00:00Z',
      agreement_name: 'Terms',
      imagepack_resolution: null,
      application_website: null,
      overage: { limit: null, remaining: null, count: null, overages_reached: null },
    });
    expect(records[1]).toMatchObject({ credits_remaining: 0, team_credits: 40 });
    expect(records[2]).toMatchObject({
      type: 'premiumaccess',
      credits_remaining: null,
      team_credits: null,
      download_limit: 10,
      download_limit_duration: 'day',
      downloads_remaining: 10,
      download_limit_reset_utc_date: '2025-03-02T12:00:00Z',
      overage: { limit: 2, remaining: 2, count: 0, overages_reached: false },
    });
    expect(records[2]).not.toHaveProperty('download_requirements');
    // An expired product is shown as inactive.
    expect(records[3]).toMatchObject({ type: 'imagepack', status: 'inactive', imagepack_resolution: 'small', downloads_remaining: 5 });
    const withRequirements = await products.productRecords(customer, { downloadRequirements: true });
    expect(withRequirements[2]!.download_requirements).toEqual({ is_note_required: true, is_project_code_required: false, project_codes: ['X'] });
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
  it('revokes a product: it stops counting, while the product, its downloads and its ledger stay', async () => {
    const pack = await products.grant({ userId, type: 'creditpack', credits: 30 });
    await products.grant({ userId, type: 'easyaccess' });
    const ledgerBefore = await store.database.db.selectFrom('download_ledger').selectAll().where('product_id', '=', pack.id).execute();
    expect(ledgerBefore).toHaveLength(1);

    expect(await products.revoke(pack.id, { userId })).toMatchObject({ id: pack.id, status: 'inactive', creditsRemaining: 30 });
    expect(await products.heldProductTypes(userId)).toEqual(['easyaccess']);
    const customer = (await products.findCustomer(userId))!;
    expect((await products.productRecords(customer)).find((record) => record.id === pack.id)).toMatchObject({ status: 'inactive', credits_remaining: 30 });
    expect(await store.database.db.selectFrom('download_ledger').selectAll().where('product_id', '=', pack.id).execute()).toEqual(ledgerBefore);
    // Again: nothing changes.
    expect(await products.revoke(pack.id)).toMatchObject({ status: 'inactive' });
  });

  it('revokes only a product that exists, and with a user only that user’s', async () => {
    const held = await products.grant({ userId, type: 'imagepack' });
    await expect(products.revoke(held.id, { userId: userId + 1 })).rejects.toMatchObject({ statusCode: 404, code: 'ProductNotFound' });
    await expect(products.revoke(999_999)).rejects.toMatchObject({ statusCode: 404, code: 'ProductNotFound' });
    expect(await products.heldProductTypes(userId)).toEqual(['imagepack']);
  });
});
