import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineFailedError, type EngineRequest, type EngineResult } from '../../src/generation/engines/engine.js';
import { STORES } from '../helpers/test-store.js';
import { addAssets, creativeImageFields } from '../licensing/licensing-fixtures.js';
import { DrawingEngine } from './drawing-engine.js';
import { createGenerationApp, type GenerationTestApp, type Person } from './generation-fixtures.js';

/**
 * The drawing engine, which also lays a plain background behind a product shot, and whose
 * background removal fails while `failing` is set: a failed edit of a catalogue asset gives its
 * charge back.
 */
class EditingEngine extends DrawingEngine {
  failing = false;

  constructor() {
    super(['generate', 'remove_background', 'generate_background']);
  }

  override async run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    if (request.operation === 'remove_background' && this.failing) throw new EngineFailedError('the test server lost the picture');
    if (request.operation === 'generate_background') {
      const data = await sharp(request.source.data).flatten({ background: '#88aa66' }).png().toBuffer();
      return { pictures: Array.from({ length: request.count }, (_, index) => ({ data, seed: request.seed + index })) };
    }
    return super.run(request, signal);
  }
}

interface ProductListing {
  id: number;
  downloads_remaining: number | null;
  overage: { remaining: number | null };
  ai_gen_requirements?: { asset_edit_cost: number };
}

describe.each(STORES)('what an edit of a catalogue asset costs (asset_edit_cost), on $name', ({ url }) => {
  let t: GenerationTestApp;
  const engine = new EditingEngine();

  beforeAll(async () => {
    // These tests read each generation's answer (200): a long wait, so that a slow machine (CI beside
    // benchmarks took past the default 3 s once) does not answer 202 instead.
    t = await createGenerationApp(url, { builtin: engine }, { STOCKROOM_GENERATION_MAX_PER_USER: '50', STOCKROOM_GENERATION_WAIT_MS: '30000' });
    await addAssets(t.services, 'image', ['edit-1'], creativeImageFields());
  });
  afterAll(async () => {
    await t.close();
  });

  /** A customer who licensed (downloaded) the catalogue image edit-1 and holds an AI product granted so. */
  async function editor(grant: Record<string, unknown>): Promise<Person & { productId: number }> {
    const person = await t.person();
    await t.services.products.grant({ userId: person.userId, type: 'premiumaccess' });
    await t.services.downloads.download({ grant: { clientId: t.clientId, userId: person.userId, issuedAt: new Date() }, assetType: 'image', assetId: 'edit-1', useTeamCredits: false });
    const product = await t.services.products.grant({ userId: person.userId, type: 'aigen', ...grant });
    return { ...person, productId: product.id };
  }
  const removeBackground = (as: Person, body: Record<string, unknown>) => t.call('POST', '/v3/ai/image-generations/background-removal', { token: as.token, body });
  const generate = (as: Person) => t.call('POST', '/v3/ai/image-generations', { token: as.token, body: { prompt: 'a lighthouse' } });
  async function listing(as: Person & { productId: number }): Promise<ProductListing> {
    const products = (await t.call('GET', '/v3/products', { token: as.token })).json<{ products: ProductListing[] }>().products;
    return products.find((product) => product.id === as.productId)!;
  }

  it('is shown in ai_gen_requirements: 1 unless the grant says otherwise; a product that makes no generations takes none', async () => {
    expect((await listing(await editor({}))).ai_gen_requirements?.asset_edit_cost).toBe(1);
    expect((await listing(await editor({ assetEditCost: 0 }))).ai_gen_requirements?.asset_edit_cost).toBe(0);
    const person = await t.person();
    await expect(t.services.products.grant({ userId: person.userId, type: 'premiumaccess', assetEditCost: 2 })).rejects.toMatchObject({ code: 'InvalidParameterValue' });
    await expect(t.services.products.grant({ userId: person.userId, type: 'aigen', assetEditCost: -1 })).rejects.toMatchObject({ code: 'InvalidParameterValue' });
  });

  it('an edit of a catalogue asset draws the cost, an edit of a result and text to image one; too few left is 403 and changes nothing', async () => {
    const ann = await editor({ generations: 6, period: 'month', assetEditCost: 3 });
    const edited = await removeBackground(ann, { reference_asset_id: 'edit-1' });
    expect(edited.statusCode, edited.body).toBe(200);
    expect((await listing(ann)).downloads_remaining).toBe(3);
    const generated = await generate(ann);
    expect(generated.statusCode, generated.body).toBe(200);
    expect((await listing(ann)).downloads_remaining).toBe(2);
    // An edit of an earlier result starts from no catalogue asset: one, as any request.
    const resultEdit = await removeBackground(ann, { reference_generation: { generation_request_id: generated.json<{ generation_request_id: string }>().generation_request_id, index: 0 } });
    expect(resultEdit.statusCode, resultEdit.body).toBe(200);
    expect((await listing(ann)).downloads_remaining).toBe(1);
    const refused = await removeBackground(ann, { reference_asset_id: 'edit-1' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'ProductQuotaExceeded', message: expect.stringMatching(/fewer than the 3 generations an edit of a catalogue asset uses/) });
    expect((await listing(ann)).downloads_remaining).toBe(1);
    // The one left still pays for a request that costs one.
    expect((await generate(ann)).statusCode).toBe(200);
    expect((await listing(ann)).downloads_remaining).toBe(0);
  });

  it('0 makes edits of catalogue assets free; other requests still draw one', async () => {
    const ben = await editor({ generations: 1, assetEditCost: 0 });
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await removeBackground(ben, { reference_asset_id: 'edit-1' })).statusCode).toBe(200);
    expect((await listing(ben)).downloads_remaining).toBe(1);
    expect((await generate(ben)).statusCode).toBe(200);
    expect((await generate(ben)).statusCode).toBe(403);
  });

  it('a failed edit gives the whole cost back, once', async () => {
    const cat = await editor({ generations: 5, assetEditCost: 4 });
    engine.failing = true;
    try {
      const failed = await removeBackground(cat, { reference_asset_id: 'edit-1' });
      expect(failed.statusCode, failed.body).toBe(502);
      expect(failed.json()).toMatchObject({ code: 'GenerationFailed' });
    } finally {
      engine.failing = false;
    }
    expect((await listing(cat)).downloads_remaining).toBe(5);
    const ledger = await t.services.database.db.selectFrom('download_ledger').select(['reason', 'amount', 'unit']).where('product_id', '=', cat.productId).orderBy('id').execute();
    expect(ledger).toEqual([
      { reason: 'generation', amount: -4, unit: 'download' },
      { reason: 'generation_refund', amount: 4, unit: 'download' },
    ]);
    expect((await removeBackground(cat, { reference_asset_id: 'edit-1' })).statusCode).toBe(200);
    expect((await listing(cat)).downloads_remaining).toBe(1);
  });

  it('a request is charged once and refunded once, however often either is asked (a job run again never pays twice)', async () => {
    const dan = await editor({ generations: 10, assetEditCost: 3 });
    const product = (await t.services.products.heldProducts(dan.userId)).find((held) => held.id === dan.productId)!;
    const requestId = 'ab'.repeat(16);
    expect(await t.services.aiLicensing.charge(product, requestId, { assetEdit: true })).toBe('charged');
    expect(await t.services.aiLicensing.charge(product, requestId, { assetEdit: true })).toBe('free');
    expect((await listing(dan)).downloads_remaining).toBe(7);
    await t.services.aiLicensing.refund(requestId);
    await t.services.aiLicensing.refund(requestId);
    expect((await listing(dan)).downloads_remaining).toBe(10);
  });

  it('a cost the allowance cannot cover is taken whole from the overage, and given back there', async () => {
    const eve = await editor({ generations: 3, period: 'month', overage: 4, assetEditCost: 2 });
    expect((await generate(eve)).statusCode).toBe(200);
    expect((await generate(eve)).statusCode).toBe(200);
    // One left of the allowance, two asked: both from the overage, the one left untouched.
    expect((await removeBackground(eve, { reference_asset_id: 'edit-1' })).statusCode).toBe(200);
    expect(await listing(eve)).toMatchObject({ downloads_remaining: 1, overage: { remaining: 2 } });
    engine.failing = true;
    try {
      expect((await removeBackground(eve, { reference_asset_id: 'edit-1' })).statusCode).toBe(502);
    } finally {
      engine.failing = false;
    }
    expect(await listing(eve)).toMatchObject({ downloads_remaining: 1, overage: { remaining: 2 } });
    expect((await removeBackground(eve, { reference_asset_id: 'edit-1' })).statusCode).toBe(200);
    expect(await listing(eve)).toMatchObject({ downloads_remaining: 1, overage: { remaining: 0 } });
    expect((await removeBackground(eve, { reference_asset_id: 'edit-1' })).json()).toMatchObject({ code: 'ProductQuotaExceeded' });
  });

  it('a background generated around a product shot draws the cost too', async () => {
    const fay = await editor({ generations: 10, assetEditCost: 3 });
    const shot = await sharp({ create: { width: 48, height: 32, channels: 3, background: '#aa3355' } }).jpeg().toBuffer();
    // The upload is fay's (her token comes with it), so only she can register it.
    expect((await t.call('PUT', '/v3/search/by-image/uploads/product-shot.jpg', { token: fay.token, payload: shot, contentType: 'image/jpeg' })).statusCode).toBeLessThan(300);
    const registered = await t.call('POST', '/beta/ai/file-registrations', {
      token: fay.token,
      body: { url: 'http://stockroom.test/v3/search/by-image/uploads/product-shot.jpg', category: 'CustomerProduct', rights_claimed: true },
    });
    expect(registered.statusCode, registered.body).toBeLessThan(300);
    const generatedBackground = await t.call('POST', '/beta/ai/image-generations/background-generations', {
      token: fay.token,
      body: { reference_file_registration_id: registered.json<{ id: string }>().id, prompt: 'on a kitchen table', left_percentage: 20 },
    });
    expect(generatedBackground.statusCode, generatedBackground.body).toBe(200);
    expect((await listing(fay)).downloads_remaining).toBe(7);
  });
});
