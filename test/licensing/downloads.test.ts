import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DownloadsRepository } from '../../src/licensing/downloads.repository.js';
import { DownloadsService, type DownloadRequest } from '../../src/licensing/downloads.service.js';
import { UsersRepository } from '../../src/oauth/users.repository.js';
import { UsersService } from '../../src/oauth/users.service.js';
import { ProductsRepository } from '../../src/licensing/products.repository.js';
import { ProductsService, type GrantInput } from '../../src/licensing/products.service.js';
import type { Tables } from '../../src/platform/db/tables.js';
import { STORES, openTestStore, type TestStore } from '../helpers/test-store.js';
import {
  assetRecord,
  creativeImageFields,
  creativeVideoFields,
  editorialImageFields,
  fakeDeliveryUri,
  insertUser,
  ledgerOf,
  memoryCatalog,
} from './licensing-fixtures.js';

const START = new Date('2025-03-01T12:00:00.000Z');
const DAY = 86_400_000;

describe.each(STORES)('downloads, on $name', ({ url }) => {
  let store: TestStore;
  let db: Kysely<Tables>;
  let clock: { now: Date };
  let products: ProductsService;
  let downloads: DownloadsService;
  let catalog: ReturnType<typeof memoryCatalog>;
  let userId: number;

  beforeEach(async () => {
    store = await openTestStore(url);
    db = store.database.db;
    clock = { now: START };
    const now = () => clock.now;
    catalog = memoryCatalog([
      ...['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => assetRecord('image', id, creativeImageFields())),
      assetRecord('image', 'sig', creativeImageFields({ partner_licenses: [{ license_type: 'Standard', credits: 3 }] })),
      assetRecord('image', 'ed1', editorialImageFields()),
      assetRecord('image', 'bare', creativeImageFields({ download_sizes: [] })),
      assetRecord('image', 'nofile', creativeImageFields(), { withFile: false }),
      assetRecord('video', 'v1', creativeVideoFields()),
    ]);
    products = new ProductsService(new ProductsRepository(db), new UsersService(new UsersRepository(db)), now);
    downloads = new DownloadsService({
      repository: new DownloadsRepository(db),
      products,
      catalog,
      deliveryUri: fakeDeliveryUri,
      publicUrl: 'http://stockroom.test/',
      now,
    });
    userId = await insertUser(db);
  });
  afterEach(async () => {
    await store.drop();
  });

  const grant = (input: Omit<GrantInput, 'userId'>, forUser = userId) => products.grant({ userId: forUser, ...input });
  const download = (assetId: string, options: Partial<DownloadRequest> = {}, forUser = userId) =>
    downloads.download({
      grant: { clientId: 1, userId: forUser, issuedAt: clock.now },
      assetType: 'image',
      assetId,
      useTeamCredits: false,
      ...options,
    });
  const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);
  const product = async (id: number) => (await products.productsOf(userId)).find((p) => p.id === id)!;
  const downloadRows = () => db.selectFrom('downloads').selectAll().orderBy('id').execute();

  describe('credits', () => {
    it('a credit-pack download takes the asset’s standard credits: one ledger row, written with the download record', async () => {
      const pack = await grant({ type: 'creditpack', credits: 10 });
      const result = await download('sig');
      expect(result).toMatchObject({ downloadId: expect.any(Number), replayed: false });
      expect(result.uri).toBe(`https://delivery.test/${result.downloadId}/sig/4000x3000`);
      expect((await product(pack.id)).creditsRemaining).toBe(7);
      const ledger = await ledgerOf(db, { productId: pack.id });
      expect(ledger.rows.map((row) => [row.reason, row.amount, row.download_id])).toEqual([
        ['grant', 10, null],
        ['download', -3, result.downloadId],
      ]);
      expect(ledger.balance).toBe(7);
      const [row] = await downloadRows();
      expect(row).toMatchObject({ id: result.downloadId, product_id: pack.id, product_type: 'creditpack', new_license: 1, credits_spent: 3, source: 'api' });
    });

    it('downloading an asset already licensed under the same product again costs nothing, at any size', async () => {
      const pack = await grant({ type: 'creditpack', credits: 3 });
      await download('sig');
      const again = await download('sig', { height: '446' });
      expect(again.uri).toBe(`https://delivery.test/${again.downloadId}/sig/594x446`);
      expect((await product(pack.id)).creditsRemaining).toBe(0);
      expect((await ledgerOf(db, { productId: pack.id })).debits).toHaveLength(1);
      expect((await downloadRows()).map((row) => [row.new_license, row.credits_spent])).toEqual([
        [1, 3],
        [0, 0],
      ]);
    });

    it('credits that do not cover the asset: 403 InsufficientCredits, and nothing is recorded or taken', async () => {
      const pack = await grant({ type: 'creditpack', credits: 2 });
      const error = await refusal(download('sig'));
      expect(error).toMatchObject({ statusCode: 403, code: 'InsufficientCredits', message: expect.stringContaining('costs 3 credits') });
      expect((await product(pack.id)).creditsRemaining).toBe(2);
      expect(await downloadRows()).toEqual([]);
      expect((await ledgerOf(db, { productId: pack.id })).debits).toEqual([]);
    });

    it('use_team_credits=true spends the team’s credits, false (the default) the user’s own', async () => {
      const member = await insertUser(db, { team: 'Newsroom', partnerCredit: true });
      const colleague = await insertUser(db, { team: 'Newsroom', partnerCredit: true });
      const own = await grant({ type: 'creditpack', credits: 5 }, member);
      await grant({ type: 'creditpack', credits: 20, team: true }, colleague);
      await grant({ type: 'creditpack', credits: 0 }, member);
      expect(await products.teamCredits('Newsroom')).toBe(20);

      await download('sig', { useTeamCredits: true }, member);
      expect(await products.teamCredits('Newsroom')).toBe(17);
      await download('c1', {}, member);
      expect((await products.productsOf(member)).find((p) => p.id === own.id)!.creditsRemaining).toBe(4);
      expect(await products.teamCredits('Newsroom')).toBe(17);

      const team = await ledgerOf(db, { team: 'Newsroom' });
      expect(team.rows.map((row) => [row.reason, row.amount])).toEqual([
        ['grant', 20],
        ['download', -3],
      ]);
      expect(team.balance).toBe(17);
      expect((await downloadRows()).map((row) => row.used_team_credits)).toEqual([1, 0]);
    });

    it('team credits need a partner-credit user of a team: 403 TeamCreditsNotAvailable', async () => {
      await grant({ type: 'creditpack', credits: 5 });
      expect(await refusal(download('sig', { useTeamCredits: true }))).toMatchObject({ statusCode: 403, code: 'TeamCreditsNotAvailable' });
      const noPartner = await insertUser(db, { team: 'Newsroom' });
      await grant({ type: 'creditpack', credits: 5 }, noPartner);
      expect(await refusal(download('sig', { useTeamCredits: true }, noPartner))).toMatchObject({ code: 'TeamCreditsNotAvailable' });
    });

    it('a team without enough credits: 403 InsufficientCredits; with team credits only credit products are tried', async () => {
      const member = await insertUser(db, { team: 'Desk', partnerCredit: true });
      await grant({ type: 'premiumaccess' }, member);
      expect(await refusal(download('sig', { useTeamCredits: true }, member))).toMatchObject({ code: 'NoAccessToProductType' });
      await grant({ type: 'creditpack', credits: 2, team: true }, member);
      expect(await refusal(download('sig', { useTeamCredits: true }, member))).toMatchObject({
        statusCode: 403,
        code: 'InsufficientCredits',
        message: expect.stringContaining('team Desk'),
      });
    });
  });

  describe('download limits', () => {
    it('downloads_remaining counts down, refuses with 403 OverageLimitReached, and starts again with its period', async () => {
      const daily = await grant({ type: 'premiumaccess', downloads: 2, period: 'day' });
      await download('c1');
      await download('c2');
      expect((await products.productRecords((await products.findCustomer(userId))!))[0]).toMatchObject({
        downloads_remaining: 0,
        download_limit: 2,
        download_limit_duration: 'day',
        download_limit_reset_utc_date: '2025-03-02T12:00:00Z',
      });
      expect(await refusal(download('c3'))).toMatchObject({
        statusCode: 403,
        code: 'OverageLimitReached',
        message: expect.stringContaining('until 2025-03-02T12:00:00Z'),
      });
      // Already licensed: free, so not refused.
      await download('c1');

      clock.now = new Date(START.getTime() + 3 * DAY + 1000);
      await download('c3');
      const stored = await product(daily.id);
      expect(stored).toMatchObject({ downloadsUsed: 1, downloadPeriodEndsAt: '2025-03-05T12:00:00.000Z' });
      const ledger = await db.selectFrom('download_ledger').select(['unit', 'amount']).where('product_id', '=', daily.id).execute();
      expect(ledger).toEqual([
        { unit: 'download', amount: -1 },
        { unit: 'download', amount: -1 },
        { unit: 'download', amount: -1 },
      ]);
    });

    it('overage allows downloads beyond the limit until it too is used up', async () => {
      const monthly = await grant({ type: 'premiumaccess', downloads: 1, period: 'month', overage: 1 });
      await download('c1');
      await download('c2');
      expect(await product(monthly.id)).toMatchObject({ downloadsUsed: 1, overageCount: 1 });
      const [record] = await products.productRecords((await products.findCustomer(userId))!);
      expect(record!.overage).toEqual({ limit: 1, remaining: 0, count: 1, overages_reached: true });
      expect(await refusal(download('c3'))).toMatchObject({ code: 'OverageLimitReached' });
    });

    it('an image pack is a number of downloads that never resets, limited to its resolution', async () => {
      const pack = await grant({ type: 'imagepack', downloads: 1, imagepackResolution: 'medium' });
      const first = await download('c1');
      // Without height: the largest size the pack allows.
      expect(first.uri).toMatch(/\/c1\/2048x1536$/);
      clock.now = new Date(START.getTime() + 400 * DAY);
      expect(await refusal(download('c2'))).toMatchObject({ code: 'OverageLimitReached' });
      expect((await product(pack.id)).downloadsUsed).toBe(1);
    });

    it('a height larger than the product allows: 403 UnauthorizedDownloadSize; an unknown height: 400', async () => {
      await grant({ type: 'imagepack', downloads: 5, imagepackResolution: 'small' });
      expect(await refusal(download('c1', { height: '3000' }))).toMatchObject({ statusCode: 403, code: 'UnauthorizedDownloadSize' });
      expect(await refusal(download('c1', { height: '1234' }))).toMatchObject({
        statusCode: 400,
        code: 'InvalidParameterValue',
        message: expect.stringContaining('446, 768, 1536, 2625, 3000'),
      });
      expect((await download('c1', { height: '768' })).uri).toMatch(/\/c1\/1024x768$/);
    });
  });

  describe('which product', () => {
    it('a product that does not license the asset: 403 NoAccessToProductType', async () => {
      await grant({ type: 'editorialsubscription' });
      expect(await refusal(download('c1'))).toMatchObject({ statusCode: 403, code: 'NoAccessToProductType' });
      expect((await download('ed1')).downloadId).toBeGreaterThan(0);
      const creditUser = await insertUser(db);
      await grant({ type: 'creditpack', credits: 5 }, creditUser);
      expect(await refusal(download('ed1', {}, creditUser))).toMatchObject({ code: 'NoAccessToProductType' });
      expect((await download('c1', {}, creditUser)).downloadId).toBeGreaterThan(0);
    });

    it('sandbox and aigen products license nothing', async () => {
      await grant({ type: 'sandbox' });
      await grant({ type: 'aigen' });
      expect(await refusal(download('c1'))).toMatchObject({ code: 'NoAccessToProductType' });
    });

    it('expired and suspended products license nothing', async () => {
      await grant({ type: 'premiumaccess', expiresAt: new Date(START.getTime() - 1000) });
      const suspended = await grant({ type: 'premiumaccess' });
      await products.setStatus(suspended.id, 'inactive');
      expect(await refusal(download('c1'))).toMatchObject({ code: 'NoAccessToProductType' });
      await products.setStatus(suspended.id, 'active');
      expect(await download('c1')).toMatchObject({ replayed: false });
    });

    it('product_type and product_id pick the product; one not held is 403 NoAccessToProductType', async () => {
      const pack = await grant({ type: 'creditpack', credits: 5 });
      const premium = await grant({ type: 'premiumaccess' });
      await download('c1', { productType: 'creditpack' });
      await download('c2', { productId: pack.id });
      await download('c3', { productId: premium.id, productType: 'premiumaccess' });
      expect((await downloadRows()).map((row) => row.product_id)).toEqual([pack.id, pack.id, premium.id]);
      expect(await refusal(download('c4', { productType: 'imagepack' }))).toMatchObject({ code: 'NoAccessToProductType' });
      expect(await refusal(download('c4', { productId: premium.id + 100 }))).toMatchObject({ code: 'NoAccessToProductType' });
      expect(await refusal(download('c4', { productId: pack.id, productType: 'premiumaccess' }))).toMatchObject({ code: 'NoAccessToProductType' });
    });

    it('without them: a product already licensing the asset, else the policy order — and past one that cannot pay', async () => {
      const pack = await grant({ type: 'creditpack', credits: 5 });
      const easy = await grant({ type: 'easyaccess', downloads: 1 });
      const premium = await grant({ type: 'premiumaccess', downloads: 1 });
      await download('c1'); // premium access comes first
      await download('c2'); // premium is used up: easy access
      await download('c3'); // both used up: the credit pack
      await download('c1'); // licensed under premium access: free there
      expect((await downloadRows()).map((row) => [row.asset_id, row.product_id, row.new_license])).toEqual([
        ['c1', premium.id, 1],
        ['c2', easy.id, 1],
        ['c3', pack.id, 1],
        ['c1', premium.id, 0],
      ]);
    });

    it('when no product can pay, the refusal is that of the first in the order', async () => {
      await grant({ type: 'premiumaccess', downloads: 0 });
      await grant({ type: 'creditpack', credits: 0 });
      expect(await refusal(download('c1'))).toMatchObject({ code: 'OverageLimitReached' });
      expect(await refusal(download('c1', { productType: 'creditpack' }))).toMatchObject({ code: 'InsufficientCredits' });
    });

    it('videos: by size name (any case), the largest without one', async () => {
      await grant({ type: 'creditpack', credits: 20 });
      expect((await download('v1', { assetType: 'video' })).uri).toMatch(/\/v1\/4k$/);
      expect((await download('v1', { assetType: 'video', size: 'HD_WEB' })).uri).toMatch(/\/v1\/hd_web$/);
      expect(await refusal(download('v1', { assetType: 'video', size: '8k' }))).toMatchObject({ statusCode: 400, message: expect.stringContaining("'size'") });
      expect((await downloadRows()).map((row) => row.credits_spent)).toEqual([6, 0]);
    });

    it('an unknown asset: 404 ImageNotFound / VideoNotFound; one without sizes has nothing to download', async () => {
      await grant({ type: 'premiumaccess' });
      expect(await refusal(download('nope'))).toMatchObject({ statusCode: 404, code: 'ImageNotFound' });
      expect(await refusal(download('c1', { assetType: 'video' }))).toMatchObject({ statusCode: 404, code: 'VideoNotFound' });
      expect(await refusal(download('bare'))).toMatchObject({ statusCode: 409, code: 'NoDownloadableSize', message: expect.stringContaining('bare') });
      expect(await refusal(download('c1', { fileType: 'eps' }))).toMatchObject({ statusCode: 400, message: expect.stringContaining('file_type') });
      expect((await download('c1', { fileType: 'jpg' })).uri).toMatch(/4000x3000\.jpg$/);
    });
  });

  it('an asset in the catalogue without a file: 409 AssetFileNotAvailable, before any payment', async () => {
    const pack = await grant({ type: 'creditpack', credits: 10 });
    expect(await refusal(download('nofile', { productType: 'creditpack' }))).toMatchObject({
      statusCode: 409,
      code: 'AssetFileNotAvailable',
      message: expect.stringContaining('nofile has no file'),
    });
    expect((await product(pack.id)).creditsRemaining).toBe(10);
    expect(await downloadRows()).toEqual([]);
  });

  describe('who may download', () => {
    it('a client-credentials token (no user): 403 UserTokenRequired', async () => {
      await grant({ type: 'premiumaccess' });
      const error = await refusal(downloads.download({ grant: { clientId: 1, userId: null, issuedAt: clock.now }, assetType: 'image', assetId: 'c1', useTeamCredits: false }));
      expect(error).toMatchObject({ statusCode: 403, code: 'UserTokenRequired', headers: { 'www-authenticate': expect.stringContaining('insufficient_scope') } });
    });

    it('a token issued more than 30 days ago: 401, with the invalid_token challenge', async () => {
      await grant({ type: 'premiumaccess' });
      const old = { clientId: 1, userId, issuedAt: new Date(START.getTime() - 30 * DAY - 1000) };
      const error = await refusal(downloads.download({ grant: old, assetType: 'image', assetId: 'c1', useTeamCredits: false }));
      expect(error).toMatchObject({ statusCode: 401, headers: { 'www-authenticate': expect.stringContaining('error="invalid_token"') } });
      const recent = { ...old, issuedAt: new Date(START.getTime() - 29 * DAY) };
      expect(await downloads.download({ grant: recent, assetType: 'image', assetId: 'c1', useTeamCredits: false })).toMatchObject({ replayed: false });
    });

    it('a product that demands notes and a project code gets them, from its list', async () => {
      await grant({ type: 'premiumaccess', noteRequired: true, projectCodeRequired: true, projectCodes: ['SPRING', 'FALL'] });
      expect(await refusal(download('c1'))).toMatchObject({ statusCode: 400, code: 'DownloadNotesRequired' });
      expect(await refusal(download('c1', { downloadNotes: 'cover' }))).toMatchObject({ statusCode: 400, code: 'ProjectCodeRequired' });
      expect(await refusal(download('c1', { downloadNotes: 'cover', projectCode: 'WINTER' }))).toMatchObject({ statusCode: 400, code: 'InvalidParameterValue' });
      await download('c1', { downloadNotes: 'cover', projectCode: ' SPRING ' });
      expect((await downloadRows())[0]).toMatchObject({ download_notes: 'cover', project_code: 'SPRING' });
    });

    it('passes over a product whose requirements the request does not meet when another can license the asset as asked', async () => {
      const demanding = await grant({ type: 'premiumaccess', noteRequired: true });
      const plain = await grant({ type: 'easyaccess' });
      expect(await download('c1')).toMatchObject({ replayed: false });
      expect((await downloadRows())[0]).toMatchObject({ product_id: plain.id });
      await download('c2', { downloadNotes: 'cover' });
      expect((await downloadRows()).find((row) => row.asset_id === 'c2')).toMatchObject({ product_id: demanding.id });
    });
  });

  describe('nothing spent twice', () => {
    it('a retried request with the same Idempotency-Key returns the same URI without a second debit', async () => {
      const pack = await grant({ type: 'creditpack', credits: 10 });
      const first = await download('sig', { idempotencyKey: 'retry-1' });
      const second = await download('sig', { idempotencyKey: 'retry-1' });
      expect(second).toEqual({ ...first, replayed: true });
      expect((await product(pack.id)).creditsRemaining).toBe(7);
      expect(await downloadRows()).toHaveLength(1);
    });

    it('the same key for a different request: 422 IdempotencyKeyReused; a malformed key: 400', async () => {
      await grant({ type: 'creditpack', credits: 10 });
      await download('c1', { idempotencyKey: 'k' });
      expect(await refusal(download('c2', { idempotencyKey: 'k' }))).toMatchObject({ statusCode: 422, code: 'IdempotencyKeyReused' });
      expect(await refusal(download('c1', { idempotencyKey: 'k', height: '446' }))).toMatchObject({ code: 'IdempotencyKeyReused' });
      expect(await refusal(download('c1', { idempotencyKey: 'has space' }))).toMatchObject({ statusCode: 400 });
      // Keys are per user.
      const other = await insertUser(db);
      await grant({ type: 'creditpack', credits: 10 }, other);
      expect(await download('c2', { idempotencyKey: 'k' }, other)).toMatchObject({ replayed: false });
    });

    it('a key replayed after its URI lapsed gets a fresh URI for the same download, still without a debit', async () => {
      const pack = await grant({ type: 'creditpack', credits: 10 });
      const first = await download('c1', { idempotencyKey: 'late' });
      await db.updateTable('downloads').set({ delivery_uri: 'https://delivery.test/expired' }).execute();
      expect((await download('c1', { idempotencyKey: 'late' })).uri).toBe('https://delivery.test/expired');
      clock.now = new Date(START.getTime() + DAY + 1000);
      const late = await download('c1', { idempotencyKey: 'late' });
      expect(late).toEqual({ uri: first.uri, downloadId: first.downloadId, replayed: true });
      expect((await product(pack.id)).creditsRemaining).toBe(9);
    });

    it('the same key sent many times at once is paid once', async () => {
      const pack = await grant({ type: 'creditpack', credits: 10 });
      const results = await Promise.all(Array.from({ length: 20 }, () => download('sig', { idempotencyKey: 'burst' })));
      expect(new Set(results.map((r) => r.uri)).size).toBe(1);
      expect((await product(pack.id)).creditsRemaining).toBe(7);
      expect(await downloadRows()).toHaveLength(1);
    });

    it('the same asset downloaded many times at once is paid once', async () => {
      const pack = await grant({ type: 'creditpack', credits: 10 });
      await Promise.all(Array.from({ length: 20 }, () => download('sig')));
      expect((await product(pack.id)).creditsRemaining).toBe(7);
      expect((await downloadRows()).filter((row) => row.new_license === 1)).toHaveLength(1);
      expect((await ledgerOf(db, { productId: pack.id })).balance).toBe(7);
    });

    it('200 concurrent downloads of different assets at a 10-credit pack: exactly 10 succeed, and the ledger balances', async () => {
      const ids = Array.from({ length: 200 }, (_, n) => `burst${n}`);
      for (const id of ids) catalog.add(assetRecord('image', id, creativeImageFields()));
      const pack = await grant({ type: 'creditpack', credits: 10 });
      const settled = await Promise.allSettled(ids.map((id) => download(id)));
      const succeeded = settled.filter((s) => s.status === 'fulfilled');
      const refused = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
      expect(succeeded).toHaveLength(10);
      expect(new Set(refused.map((r) => (r.reason as { code: string }).code))).toEqual(new Set(['InsufficientCredits']));
      expect((await product(pack.id)).creditsRemaining).toBe(0);
      const ledger = await ledgerOf(db, { productId: pack.id });
      expect(ledger.debits).toHaveLength(10);
      expect(ledger.balance).toBe(0);
      const rows = await downloadRows();
      expect(rows).toHaveLength(10);
      expect(new Set(ledger.debits.map((d) => d.download_id))).toEqual(new Set(rows.map((row) => row.id)));
    });
  });
});
