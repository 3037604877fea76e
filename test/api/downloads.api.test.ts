import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GrantInput } from '../../src/licensing/products.service.js';
import { addImage, makeJpeg } from '../helpers/catalog-fixtures.js';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import {
  addAssets,
  creativeImageFields,
  creativeVideoFields,
  editorialImageFields,
  fakeDeliveryUri,
  insertUser,
  ledgerOf,
} from '../licensing/licensing-fixtures.js';

const DAY = 86_400_000;

describe.each(STORES)('the download endpoints, on $name', ({ url }) => {
  let t: TestApp;
  let userId: number;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url, deliveryUri: fakeDeliveryUri });
    await addAssets(t.services, 'image', ['c1', 'c2', 'c3', 'c4'], creativeImageFields());
    await addAssets(t.services, 'image', ['sig'], creativeImageFields({ partner_licenses: [{ license_type: 'Standard', credits: 3 }, { license_type: 'Multiseat', credits: 5 }] }));
    await addAssets(t.services, 'image', ['ed1'], editorialImageFields());
    await addAssets(t.services, 'video', ['v1', 'v2'], creativeVideoFields());
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    ({ userId, token } = await customer());
  });

  async function customer(options: Parameters<typeof insertUser>[1] = {}) {
    const id = await insertUser(t.services.database.db, options);
    const issued = await t.services.tokens.issue({ clientId: t.clientId, userId: id, grantType: 'password', lifetimeSeconds: 1800 });
    return { userId: id, token: issued.token };
  }
  const grant = (input: Omit<GrantInput, 'userId'>, forUser = userId) => t.services.products.grant({ userId: forUser, ...input });

  function call(method: InjectOptions['method'], path: string, options: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { 'api-key': t.apiKey, ...options.headers };
    const bearer = options.token === undefined ? token : options.token;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    const request: InjectOptions = { method, url: path, headers };
    if (options.body !== undefined) request.payload = options.body as InjectOptions['payload'];
    return t.app.inject(request);
  }
  const post = (path: string, options: Parameters<typeof call>[2] = {}) => call('POST', path, options);
  const get = (path: string, options: Parameters<typeof call>[2] = {}) => call('GET', path, options);
  const json = (response: LightMyRequestResponse) => response.json() as Record<string, unknown>;

  describe('POST /v3/downloads', () => {
    it('answers a request without a token with the bare Bearer challenge (401)', async () => {
      const response = await post('/v3/downloads/images/c1', { token: null, body: { download_notes: 5 } });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="Stockroom"');
      expect(json(response)).toMatchObject({ code: 'AuthorizationTokenRequired' });
    });

    it('refuses a client-credentials token (no user) with 403 UserTokenRequired', async () => {
      await grant({ type: 'premiumaccess' });
      const response = await post('/v3/downloads/images/c1', { token: await t.issueToken() });
      expect(response.statusCode).toBe(403);
      expect(json(response)).toMatchObject({ code: 'UserTokenRequired' });
      expect(response.headers['www-authenticate']).toContain('error="insufficient_scope"');
    });

    it('refuses a token issued more than 30 days ago (401 invalid_token), though it has not expired', async () => {
      await grant({ type: 'premiumaccess' });
      const { token: old } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'implicit', lifetimeSeconds: 365 * 86_400 });
      await t.services.database.db
        .updateTable('access_tokens')
        .set({ issued_at: new Date(Date.now() - 31 * DAY).toISOString() })
        .where('user_id', '=', userId)
        .where('grant_type', '=', 'implicit')
        .execute();
      expect((await get('/v3/products', { token: old })).statusCode).toBe(200);
      const response = await post('/v3/downloads/images/c1', { token: old });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(json(response).message).toContain('30 days');
    });

    it('images: 303 to the file by default (auto_download=true), 200 {"uri"} with auto_download=false', async () => {
      await grant({ type: 'premiumaccess' });
      const redirect = await post('/v3/downloads/images/c1');
      expect(redirect.statusCode).toBe(303);
      expect(redirect.headers.location).toMatch(/^https:\/\/delivery\.test\/\d+\/c1\/4000x3000$/);
      const body = await post('/v3/downloads/images/c1?auto_download=FALSE&height=768');
      expect(body.statusCode).toBe(200);
      expect(json(body)).toEqual({ uri: expect.stringMatching(/^https:\/\/delivery\.test\/\d+\/c1\/1024x768$/) });
      expect((await post('/v3/downloads/images/c1?auto_download=True')).statusCode).toBe(303);
      expect((await post('/v3/downloads/images/c1?auto_download=')).statusCode).toBe(303);
      expect(json(await post('/v3/downloads/images/c1?auto_download=maybe'))).toMatchObject({ code: 'InvalidParameterValue' });
    });

    it('images by the earlier path forms: /downloads/{id} and /downloads/images/{id}/post', async () => {
      await grant({ type: 'premiumaccess' });
      for (const path of ['/v3/downloads/c2', '/v3/downloads/images/c2/post']) {
        const response = await post(`${path}?auto_download=false`);
        expect(response.statusCode, path).toBe(200);
        expect(json(response).uri).toMatch(/\/c2\/4000x3000$/);
      }
      expect((await post('/v3/downloads/nope')).statusCode).toBe(404);
    });

    it('videos: 200 {"uri"} by default, 307 to the file with auto_download=true (the spec’s status)', async () => {
      await grant({ type: 'premiumaccess' });
      const body = await post('/v3/downloads/videos/v1?size=1080p');
      expect(body.statusCode).toBe(200);
      expect(json(body).uri).toMatch(/\/v1\/1080p$/);
      const redirect = await post('/v3/downloads/videos/v1?auto_download=true');
      expect(redirect.statusCode).toBe(307);
      expect(redirect.headers.location).toMatch(/\/v1\/4k$/);
      expect(json(await post('/v3/downloads/videos/nope'))).toMatchObject({ code: 'VideoNotFound' });
    });

    it('names the field at fault in a body it cannot take', async () => {
      await grant({ type: 'premiumaccess' });
      const cases: Array<[unknown, RegExp]> = [
        [[], /object/],
        [42, /object/],
        [{ download_notes: { a: 1 } }, /download_notes/],
        [{ download_notes: 'x'.repeat(2001) }, /download_notes/],
        [{ project_code: ['a', 'b'] }, /project_code/],
        [{ colour: 'red' }, /colour/],
      ];
      for (const [body, message] of cases) {
        const response = await post('/v3/downloads/images/c1?auto_download=false', { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(json(response).message, JSON.stringify(body)).toMatch(message);
      }
    });

    it('takes no body, an empty one, the JSON null, or {download_notes, project_code}', async () => {
      await grant({ type: 'premiumaccess' });
      const jsonType = { 'content-type': 'application/json' };
      expect((await post('/v3/downloads/images/c1?auto_download=false')).statusCode).toBe(200);
      expect((await post('/v3/downloads/images/c1?auto_download=false', { body: '', headers: jsonType })).statusCode).toBe(200);
      expect((await post('/v3/downloads/images/c1?auto_download=false', { body: 'null', headers: jsonType })).statusCode).toBe(200);
      expect((await post('/v3/downloads/images/c1?auto_download=false', { body: ' \n', headers: jsonType })).statusCode).toBe(200);
      const noted = await post('/v3/downloads/images/c1?auto_download=false', { body: { download_notes: 'for the cover', project_code: 'P-7' } });
      expect(noted.statusCode).toBe(200);
      const row = await t.services.database.db.selectFrom('downloads').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ download_notes: 'for the cover', project_code: 'P-7' });
      expect(json(await post('/v3/downloads/images/c1', { body: '{oops', headers: jsonType }))).toMatchObject({ code: 'MalformedRequest' });
      expect((await post('/v3/downloads/images/c1', { body: { notes: 'x' } })).statusCode).toBe(400);
    });

    it('a product that demands notes: 400 DownloadNotesRequired without them', async () => {
      await grant({ type: 'premiumaccess', noteRequired: true });
      expect(json(await post('/v3/downloads/images/c1', { body: 'null', headers: { 'content-type': 'application/json' } }))).toMatchObject({
        code: 'DownloadNotesRequired',
      });
      expect((await post('/v3/downloads/images/c1', { body: { download_notes: 'ok' } })).statusCode).toBe(303);
    });

    it('names its refusals: NoAccessToProductType, OverageLimitReached, InsufficientCredits (403), ImageNotFound (404)', async () => {
      expect(json(await post('/v3/downloads/images/c1'))).toMatchObject({ code: 'NoAccessToProductType' });
      await grant({ type: 'premiumaccess', downloads: 1, period: 'month' });
      await grant({ type: 'creditpack', credits: 1 });
      expect((await post('/v3/downloads/images/c1')).statusCode).toBe(303);
      const overage = await post('/v3/downloads/images/c2?product_type=premiumaccess');
      expect(overage.statusCode).toBe(403);
      expect(json(overage)).toMatchObject({ code: 'OverageLimitReached', message: expect.any(String) });
      expect((await post('/v3/downloads/images/c2?product_type=CreditPack')).statusCode).toBe(303);
      expect(json(await post('/v3/downloads/images/c3?product_type=creditpack'))).toMatchObject({ code: 'InsufficientCredits' });
      expect(json(await post('/v3/downloads/images/ed1?product_type=creditpack'))).toMatchObject({ code: 'NoAccessToProductType' });
      const missing = await post('/v3/downloads/images/nope');
      expect(missing.statusCode).toBe(404);
      expect(json(missing)).toEqual({ code: 'ImageNotFound', message: 'Image not found: nope' });
      expect(json(await post('/v3/downloads/images/c1?product_type=lifetime'))).toMatchObject({ code: 'InvalidParameterValue' });
      expect(json(await post('/v3/downloads/images/c1?product_id=abc'))).toMatchObject({ code: 'InvalidParameterValue' });
    });

    it('an Idempotency-Key replays the first answer without a second debit; reused for another request it is 422', async () => {
      const pack = await grant({ type: 'creditpack', credits: 10 });
      const key = { 'idempotency-key': 'order-1234' };
      const first = await post('/v3/downloads/images/sig?auto_download=false', { headers: key });
      const again = await post('/v3/downloads/images/sig', { headers: key });
      expect(again.statusCode).toBe(303);
      expect(again.headers.location).toBe(json(first).uri);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect((await ledgerOf(t.services.database.db, { productId: pack.id })).balance).toBe(7);
      const reused = await post('/v3/downloads/images/c1', { headers: key });
      expect(reused.statusCode).toBe(422);
      expect(json(reused)).toMatchObject({ code: 'IdempotencyKeyReused' });
    });

    it('200 concurrent downloads at a 10-credit pack: exactly 10 succeed and the ledger balances', async () => {
      const ids = Array.from({ length: 200 }, (_, n) => `rush${n}`);
      await addAssets(t.services, 'image', ids, creativeImageFields());
      const pack = await grant({ type: 'creditpack', credits: 10 });
      const responses = await Promise.all(ids.map((id) => post(`/v3/downloads/images/${id}?auto_download=false`)));
      const statuses = responses.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.filter((s) => s === 403)).toHaveLength(190);
      expect(new Set(responses.filter((r) => r.statusCode === 403).map((r) => json(r).code))).toEqual(new Set(['InsufficientCredits']));
      const db = t.services.database.db;
      const ledger = await ledgerOf(db, { productId: pack.id });
      expect(ledger.balance).toBe(0);
      expect(ledger.debits).toHaveLength(10);
      const products = json(await get('/v3/products')).products as Array<Record<string, unknown>>;
      expect(products.find((p) => p.id === pack.id)).toMatchObject({ credits_remaining: 0 });
      const recorded = await db.selectFrom('downloads').select('id').where('product_id', '=', pack.id).execute();
      expect(new Set(recorded.map((r) => r.id))).toEqual(new Set(ledger.debits.map((d) => d.download_id)));
    });
  });

  describe('download links in image and video metadata', () => {
    it('lists, per size, a link for each product held that licenses it, in the choice order', async () => {
      const premium = await grant({ type: 'premiumaccess', agreementName: 'Premium terms' });
      const pack = await grant({ type: 'imagepack', downloads: 5, imagepackResolution: 'small' });
      await grant({ type: 'editorialsubscription' });
      const response = await get('/v3/images/c1?fields=downloads');
      expect(response.statusCode).toBe(200);
      const [image] = json(response).images as Array<{ download_sizes: Array<{ height: number; downloads: unknown[] }> }>;
      const byHeight = new Map(image!.download_sizes.map((size) => [size.height, size.downloads]));
      expect(byHeight.get(768)).toEqual([
        {
          product_id: String(premium.id),
          product_type: 'premiumaccess',
          uri: `http://stockroom.test/v3/downloads/images/c1?height=768&product_id=${premium.id}&product_type=premiumaccess`,
          agreement_name: 'Premium terms',
        },
        {
          product_id: String(pack.id),
          product_type: 'imagepack',
          uri: `http://stockroom.test/v3/downloads/images/c1?height=768&product_id=${pack.id}&product_type=imagepack`,
          agreement_name: null,
        },
      ]);
      // The image pack stops at small.
      expect((byHeight.get(3000) as Array<{ product_type: string }>).map((d) => d.product_type)).toEqual(['premiumaccess']);
    });

    it('largest_downloads links the largest size; POSTing a link downloads with that product', async () => {
      const pack = await grant({ type: 'creditpack', credits: 5 });
      const response = await get('/v3/images?ids=sig&fields=largest_downloads');
      const image = (json(response).images as Array<{ largest_downloads: Array<{ height: number; downloads: Array<{ uri: string }> }> }>)[0]!;
      expect(image.largest_downloads).toHaveLength(1);
      expect(image.largest_downloads[0]!.height).toBe(3000);
      const link = image.largest_downloads[0]!.downloads[0]!.uri;
      expect(link).toBe(`http://stockroom.test/v3/downloads/images/sig?height=3000&product_id=${pack.id}&product_type=creditpack`);
      const downloaded = await post(`${link.replace('http://stockroom.test', '')}&auto_download=false`);
      expect(downloaded.statusCode).toBe(200);
      expect(json(downloaded).uri).toMatch(/\/sig\/4000x3000$/);
    });

    it('videos link by size name; a customer without products, or a token without a user, gets no links', async () => {
      const premium = await grant({ type: 'premiumaccess' });
      const video = json(await get('/v3/videos/v1?fields=downloads'));
      const sizes = ((video.videos as unknown[] | undefined)?.[0] ?? video) as { download_sizes: Array<{ name: string; downloads: Array<{ uri: string }> }> };
      expect(sizes.download_sizes.find((s) => s.name === 'hd_web')!.downloads.map((d) => d.uri)).toEqual([
        `http://stockroom.test/v3/downloads/videos/v1?size=hd_web&product_id=${premium.id}&product_type=premiumaccess`,
      ]);
      const { token: nobody } = await customer();
      const bare = json(await get('/v3/images/c1?fields=downloads', { token: nobody }));
      const bareImage = (bare.images as unknown[])[0] as { download_sizes: Array<{ downloads: unknown[] }> };
      expect(bareImage.download_sizes.every((size) => size.downloads.length === 0)).toBe(true);
      const app = json(await get('/v3/images/c1?fields=downloads', { token: await t.issueToken() }));
      const appImage = (app.images as unknown[])[0] as { download_sizes: Array<{ downloads: unknown[] }> };
      expect(appImage.download_sizes.every((size) => size.downloads.length === 0)).toBe(true);
    });
  });

  describe('GET /v3/products and /v3/customers/current', () => {
    it('lists the products of the user with every field, wrapped in products', async () => {
      await grant({ type: 'premiumaccess', downloads: 100, period: 'month', agreementName: 'Terms', projectCodes: ['A'] });
      const response = await get('/v3/products');
      expect(response.statusCode).toBe(200);
      const { products } = json(response) as { products: Array<Record<string, unknown>> };
      expect(Object.keys(products[0]!).sort()).toEqual(
        [
          'agreement_name',
          'application_website',
          'credits_remaining',
          'download_limit',
          'download_limit_duration',
          'download_limit_reset_utc_date',
          'downloads_remaining',
          'expiration_utc_date',
          'id',
          'imagepack_resolution',
          'name',
          'overage',
          'status',
          'team_credits',
          'type',
        ].sort(),
      );
      expect(products[0]).toMatchObject({ type: 'premiumaccess', status: 'active', download_limit: 100, downloads_remaining: 100, agreement_name: 'Terms' });
      const withRequirements = json(await get('/v3/products?fields=download_requirements')) as { products: Array<Record<string, unknown>> };
      expect(withRequirements.products[0]!.download_requirements).toEqual({ is_note_required: false, is_project_code_required: false, project_codes: ['A'] });
      expect(json(await get('/v3/products?fields=credits'))).toMatchObject({ code: 'InvalidParameterValue' });
      expect((await get('/v3/products', { token: null })).statusCode).toBe(401);
      expect(json(await get('/v3/products', { token: await t.issueToken() }))).toMatchObject({ code: 'UserTokenRequired' });
    });

    it('shows the team’s credits to a member of the team', async () => {
      const member = await customer({ team: 'Desk', partnerCredit: true });
      await grant({ type: 'creditpack', credits: 3 }, member.userId);
      await grant({ type: 'creditpack', credits: 25, team: true }, member.userId);
      const { products } = json(await get('/v3/products', { token: member.token })) as { products: Array<Record<string, unknown>> };
      expect(products.map((p) => [p.credits_remaining, p.team_credits])).toEqual([
        [3, 25],
        [0, 25],
      ]);
    });

    it('GET /v3/customers/current gives the names of the user', async () => {
      const named = await customer({ firstName: 'Ada', lastName: 'Lens' });
      const response = await get('/v3/customers/current', { token: named.token });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({ first_name: 'Ada', middle_name: null, last_name: 'Lens' });
      expect((await get('/v3/customers/current', { token: null })).statusCode).toBe(401);
    });
  });

  describe('history and purchases', () => {
    async function backdate(days: number) {
      const db = t.services.database.db;
      const latest = await db.selectFrom('downloads').select('id').where('user_id', '=', userId).orderBy('id', 'desc').executeTakeFirstOrThrow();
      await db
        .updateTable('downloads')
        .set({ downloaded_at: new Date(Date.now() - days * DAY).toISOString() })
        .where('id', '=', latest.id)
        .execute();
    }

    it('GET /v3/downloads lists the user’s downloads of the last 30 days, newest first, in the contract’s shape', async () => {
      const premium = await grant({ type: 'premiumaccess', agreementName: 'Terms' });
      await post('/v3/downloads/images/c1?height=768', { body: { download_notes: 'n', project_code: 'p' } });
      await post('/v3/downloads/videos/v1');
      await post('/v3/downloads/images/c2');
      await backdate(45);
      const response = await get('/v3/downloads');
      expect(response.statusCode).toBe(200);
      const body = json(response) as { result_count: number; downloads: Array<Record<string, unknown>> };
      expect(body.result_count).toBe(2);
      expect(body.downloads.map((d) => d.id)).toEqual(['v1', 'c1']);
      expect(body.downloads[1]).toEqual({
        date_downloaded: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
        id: 'c1',
        asset_type: 'image',
        product_type: 'premiumaccess',
        thumb_uri: expect.stringMatching(/^http:\/\/stockroom\.test\/display\/\w+\/thumb\.jpg\?expires=\d+&signature=/),
        agreement_name: 'Terms',
        product_id: premium.id,
        download_details: { download_notes: 'n', project_code: 'p' },
        download_source: 'api',
        user: { username: expect.any(String), first_name: 'Casey', middle_name: null, last_name: 'Customer' },
        size_name: 'small',
        dimensions: { width: 1024, height: 768, dpi: 72 },
        license_model: 'royaltyfree',
        generated_asset_id: null,
      });
    });

    it('answers 400, never a database error, to a page past any history, an impossible date or dates the wrong way round', async () => {
      for (const path of ['/v3/downloads?page=99999999999999999999', '/v3/purchased-assets?page=99999999999999999999']) {
        const response = await get(path);
        expect(response.statusCode, path).toBe(400);
        expect(json(response).code, path).toBe('InvalidPage');
      }
      for (const path of ['/v3/downloads?date_from=2026-02-30', '/v3/purchased-assets?date_to=2025-13-01']) {
        expect((await get(path)).statusCode, path).toBe(400);
      }
      expect(json(await get('/v3/purchased-assets?date_from=2026-03-02&date_to=2026-03-01'))).toMatchObject({ code: 'InvalidParameterValue' });
    });

    it('takes date_from, date_to (whole days unless use_time), product_type and pages', async () => {
      await grant({ type: 'premiumaccess' });
      await grant({ type: 'creditpack', credits: 10 });
      await post('/v3/downloads/images/c1');
      await backdate(45);
      await post('/v3/downloads/images/c2?product_type=creditpack');
      await backdate(10);
      await post('/v3/downloads/images/c3');
      const day = (offset: number) => new Date(Date.now() - offset * DAY).toISOString().slice(0, 10);
      const ids = async (query: string) => ((json(await get(`/v3/downloads${query}`)).downloads ?? []) as Array<{ id: string }>).map((d) => d.id);
      expect(await ids('')).toEqual(['c3', 'c2']);
      // date_from alone: the 30 days from it.
      expect(await ids(`?date_from=${day(46)}`)).toEqual(['c1']);
      expect(await ids(`?date_from=${day(46)}&date_to=${day(0)}`)).toEqual(['c3', 'c2', 'c1']);
      // date_to alone: the 30 days up to it, that day included.
      expect(await ids(`?date_to=${day(10)}`)).toEqual(['c2']);
      expect(await ids('?product_type=creditpack')).toEqual(['c2']);
      expect(await ids('?page=2&page_size=1')).toEqual(['c2']);
      // With use_time the time of day counts: a minute ago excludes what happened 10 days ago.
      const aMinuteAgo = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, '');
      expect(await ids(`?date_from=${aMinuteAgo}&use_time=true`)).toEqual(['c3']);
      expect(await ids(`?date_from=${aMinuteAgo}`)).toEqual(['c3']);
      expect(json(await get('/v3/downloads?date_from=yesterday'))).toMatchObject({ code: 'InvalidParameterValue' });
      expect(json(await get('/v3/downloads?page_size=101'))).toMatchObject({ code: 'InvalidPageSize' });
    });

    it('company_downloads lists the whole team’s downloads; a user of no team gets 403', async () => {
      const a = await customer({ team: 'Crew' });
      const b = await customer({ team: 'Crew' });
      for (const member of [a, b]) {
        await grant({ type: 'premiumaccess' }, member.userId);
        await post('/v3/downloads/images/c4', { token: member.token });
      }
      expect((json(await get('/v3/downloads', { token: a.token })) as { result_count: number }).result_count).toBe(1);
      expect((json(await get('/v3/downloads?company_downloads=true', { token: a.token })) as { result_count: number }).result_count).toBe(2);
      const history = json(await get('/v3/images/c4/downloadhistory?company_downloads=true', { token: b.token })) as { id: string; downloads: unknown[] };
      expect(history.id).toBe('c4');
      expect(history.downloads).toHaveLength(2);
      expect(json(await get('/v3/downloads?company_downloads=true'))).toMatchObject({ code: 'CompanyDownloadsNotEnabled' });
    });

    it('GET /v3/images/{id}/downloadhistory and /v3/videos/{id}/downloadhistory: the downloads of one asset', async () => {
      await grant({ type: 'premiumaccess' });
      await post('/v3/downloads/images/c1');
      await post('/v3/downloads/images/c1?height=446');
      await post('/v3/downloads/videos/v2');
      const images = json(await get('/v3/images/c1/downloadhistory')) as { id: string; downloads: Array<{ size_name: string }> };
      expect(images.downloads.map((d) => d.size_name)).toEqual(['x-small', 'x-large']);
      const videos = json(await get('/v3/videos/v2/downloadhistory')) as { downloads: Array<{ size_name: string; asset_type: string }> };
      expect(videos.downloads).toEqual([expect.objectContaining({ size_name: '4k', asset_type: 'video' })]);
      expect(json(await get('/v3/images/nope/downloadhistory'))).toMatchObject({ code: 'ImageNotFound' });
      expect(json(await get('/v3/videos/nope/downloadhistory'))).toMatchObject({ code: 'VideosNotFound' });
      expect((await get('/v3/images/c1/downloadhistory', { token: null })).statusCode).toBe(401);
    });

    it('purchases are the downloads that licensed their asset; downloading again buys nothing', async () => {
      const pack = await grant({ type: 'creditpack', credits: 20 });
      await post('/v3/downloads/images/sig');
      await post('/v3/downloads/images/sig?height=446');
      await post('/v3/downloads/videos/v1?size=hd_web');
      const assets = json(await get('/v3/purchased-assets')) as { result_count: number; previous_purchases: Array<Record<string, unknown>> };
      expect(assets.result_count).toBe(2);
      expect(assets.previous_purchases[1]).toEqual({
        date_purchased: expect.stringMatching(/Z$/),
        purchased_by: expect.any(String),
        asset_id: 'sig',
        asset_type: 'image',
        license_model: 'royaltyfree',
        order_id: expect.stringMatching(/^\d+$/),
        thumb_uri: expect.stringMatching(/^http:\/\/stockroom\.test\/display\/\w+\/thumb\.jpg\?expires=\d+&signature=/),
        size_name: 'x-large',
        file_size_in_bytes: '3000000',
        download_uri: `http://stockroom.test/v3/downloads/images/sig?height=3000&product_id=${pack.id}&product_type=creditpack`,
      });
      const images = json(await get('/v3/purchased-images')) as { result_count: number; previous_purchases: Array<Record<string, unknown>> };
      expect(images.result_count).toBe(1);
      expect(images.previous_purchases[0]).toEqual({
        date_purchased: expect.any(String),
        image_id: 'sig',
        license_model: 'royaltyfree',
        order_id: assets.previous_purchases[1]!.order_id,
        thumb_uri: expect.stringMatching(/^http:\/\/stockroom\.test\/display\/\w+\/thumb\.jpg\?expires=\d+&signature=/),
      });
      expect(json(await get('/v3/purchased-assets?page=0'))).toMatchObject({ code: 'PageNumberLessThanOne' });
      const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
      expect((json(await get(`/v3/purchased-assets?date_from=${tomorrow}`)) as { result_count: number }).result_count).toBe(0);
    });
  });

  describe('POST /v3/asset-licensing/{assetId}', () => {
    const licensing = (assetId: string, body: unknown, forToken?: string) => post(`/v3/asset-licensing/${assetId}`, { body, ...(forToken ? { token: forToken } : {}) });

    it('buys extended licenses of a downloaded asset with credits, in any letter case; held ones cost nothing again', async () => {
      const buyer = await customer({ partnerCredit: true });
      const pack = await grant({ type: 'creditpack', credits: 20 }, buyer.userId);
      await post('/v3/downloads/images/sig', { token: buyer.token });
      const first = await licensing('sig', { extended_licenses: ['Multiseat', 'RESALE'] }, buyer.token);
      expect(first.statusCode).toBe(200);
      // Multiseat from the asset's partner_licenses (5), resale from the policy table (6).
      expect(json(first)).toEqual({ credits_used: 11, acquired_licenses: ['multiseat', 'resale'] });
      const again = await licensing('sig', { extended_licenses: ['multiseat', 'unlimited'] }, buyer.token);
      expect(json(again)).toEqual({ credits_used: 4, acquired_licenses: ['multiseat', 'unlimited'] });
      const ledger = await ledgerOf(t.services.database.db, { productId: pack.id });
      expect(ledger.balance).toBe(20 - 3 - 11 - 4);
      expect(ledger.rows.filter((row) => row.reason === 'extended_license').map((row) => row.amount)).toEqual([-5, -6, -4]);
    });

    it('402 NotEnoughCreditsForPurchase when the credits do not cover them, nothing bought', async () => {
      const buyer = await customer({ partnerCredit: true });
      await grant({ type: 'creditpack', credits: 4 }, buyer.userId);
      await post('/v3/downloads/images/sig', { token: buyer.token });
      const response = await licensing('sig', { extended_licenses: ['unlimited'] }, buyer.token);
      expect(response.statusCode).toBe(402);
      expect(json(response)).toMatchObject({ code: 'NotEnoughCreditsForPurchase' });
      expect(await t.services.database.db.selectFrom('extended_licenses').selectAll().where('user_id', '=', buyer.userId).execute()).toEqual([]);
    });

    it('pays with the team’s credits when asked', async () => {
      const buyer = await customer({ partnerCredit: true, team: 'Studio' });
      await grant({ type: 'creditpack', credits: 3 }, buyer.userId);
      await grant({ type: 'creditpack', credits: 10, team: true }, buyer.userId);
      await post('/v3/downloads/images/sig', { token: buyer.token });
      expect(json(await licensing('sig', { extended_licenses: ['indemnification'], use_team_credits: true }, buyer.token))).toEqual({
        credits_used: 2,
        acquired_licenses: ['indemnification'],
      });
      expect(await t.services.products.teamCredits('Studio')).toBe(8);
    });

    it('404 StandardLicenseNotFound for an asset not downloaded; 403 for a user without partner credits; 400 for an unknown license; 401 without a token', async () => {
      const buyer = await customer({ partnerCredit: true });
      await grant({ type: 'creditpack', credits: 10 }, buyer.userId);
      expect(json(await licensing('c1', { extended_licenses: ['multiseat'] }, buyer.token))).toMatchObject({ code: 'StandardLicenseNotFound' });
      expect(json(await licensing('c1', { extended_licenses: ['platinum'] }, buyer.token))).toMatchObject({ code: 'InvalidRequestParameters' });
      expect(json(await licensing('c1', { extended_licenses: [] }, buyer.token))).toMatchObject({ code: 'InvalidRequestParameters' });
      expect((await licensing('c1', {}, buyer.token)).statusCode).toBe(400);
      await grant({ type: 'creditpack', credits: 10 });
      await post('/v3/downloads/images/c1');
      expect(json(await licensing('c1', { extended_licenses: ['multiseat'] }))).toMatchObject({ code: 'PartnerCreditsRequired' });
      const anonymous = await post('/v3/asset-licensing/c1', { token: null, body: { extended_licenses: ['multiseat'] } });
      expect(anonymous.statusCode).toBe(401);
    });
  });
});

describe('a download’s URI serves the licensed file (with the media module’s delivery)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await addImage(t.services, 'real1', { width: 1200, height: 800 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('at the size asked, as a JPEG', async () => {
    const userId = await insertUser(t.services.database.db);
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 });
    await t.services.products.grant({ userId, type: 'premiumaccess' });
    const headers = { 'api-key': t.apiKey, authorization: `Bearer ${token}` };
    const sizes = (await t.app.inject({ method: 'GET', url: '/v3/images/real1?fields=download_sizes', headers })).json() as {
      images: Array<{ download_sizes: Array<{ width: number; height: number }> }>;
    };
    const small = sizes.images[0]!.download_sizes.find((size) => size.height < 800)!;
    const response = await t.app.inject({ method: 'POST', url: `/v3/downloads/images/real1?height=${small.height}`, headers });
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string);
    expect(location.origin).toBe('http://stockroom.test');
    const file = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}` });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/jpeg');
    const { width, height } = await sharp(file.rawPayload).metadata();
    expect({ width, height }).toEqual({ width: small.width, height: small.height });
  });

  it('for a video, through the 307 a client follows with its POST', async () => {
    const poster = await makeJpeg(640, 360);
    const key = 'originals/e2e-video-poster.jpg';
    await t.services.blobs.put(key, poster);
    await t.services.catalog.upsertAsset({
      asset_type: 'video',
      id: 'realv1',
      fields: creativeVideoFields(),
      original: { key, media_type: 'image/jpeg', width: 640, height: 360, dpi: 72, bytes: poster.length },
    });
    const userId = await insertUser(t.services.database.db);
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 });
    await t.services.products.grant({ userId, type: 'premiumaccess' });
    const headers = { 'api-key': t.apiKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const response = await t.app.inject({ method: 'POST', url: '/v3/downloads/videos/realv1?auto_download=true', headers, payload: 'null' });
    expect(response.statusCode).toBe(307);
    const location = new URL(response.headers.location as string);
    // A 307 keeps the method and the body: the delivery URL answers that POST with the file.
    const file = await t.app.inject({ method: 'POST', url: `${location.pathname}${location.search}`, headers: { 'content-type': 'application/json' }, payload: 'null' });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(poster)).toBe(true);
    expect(file.headers['content-disposition']).toMatch(/^attachment; filename="stockroom-realv1-/);
  });
});
