import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { BuiltinEngine } from '../../src/generation/engines/builtin/builtin-engine.js';
import type { EngineOperation, EngineRequest, EngineResult, GenerationEngine } from '../../src/generation/engines/engine.js';
import { STORES } from '../helpers/test-store.js';
import { addAssets, creativeImageFields } from '../licensing/licensing-fixtures.js';
import { DrawingEngine } from './drawing-engine.js';
import { createGenerationApp, settle, type GenerationTestApp, type Person } from './generation-fixtures.js';

/** The built-in engine, whose upscales wait while the gate is shut: a download can be caught while it is prepared. */
class GatedEngine implements GenerationEngine {
  readonly name = 'builtin';
  upscales = 0;
  private readonly engine = new BuiltinEngine();
  private opened: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;

  supports(operation: EngineOperation): boolean {
    return this.engine.supports(operation);
  }

  shut(): void {
    this.opened = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open();
  }

  async run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    if (request.operation === 'upscale') {
      this.upscales += 1;
      await this.opened;
    }
    return this.engine.run(request, signal);
  }
}

interface Answer {
  generation_request_id: string;
  results: Array<{ index: number }>;
}
interface HistoryEntry {
  id: string;
  generated_asset_id: string | null;
  size_name: string | null;
  product_id: number;
  dimensions: { width: number | null; height: number | null };
}

describe.each(STORES)('downloads of generated images, on $name', ({ url }) => {
  let t: GenerationTestApp;
  const builtin = new GatedEngine();

  beforeAll(async () => {
    t = await createGenerationApp(url, { server: new DrawingEngine(['generate', 'remove_background']), builtin }, { STOCKROOM_GENERATION_WAIT_MS: '2000' });
  });
  afterAll(() => t.close());

  async function customer(): Promise<Person & { productId: number }> {
    const person = await t.person();
    const product = await t.services.products.grant({ userId: person.userId, type: 'aigen' });
    return { ...person, productId: product.id };
  }
  async function generated(as: Person, body: Record<string, unknown> = { prompt: 'a fox', aspect_ratio: '16:9' }, path = '/v3/ai/image-generations'): Promise<string> {
    const response = await t.call('POST', path, { token: as.token, body });
    expect(response.statusCode, response.body).toBeLessThan(300);
    const id = response.json<Answer>().generation_request_id;
    expect((await settle(t, id, as.token)).statusCode).toBe(200);
    return id;
  }
  const fetchFile = (deliveryUrl: string) => t.app.inject({ method: 'GET', url: deliveryUrl.replace('http://stockroom.test', '') });
  const history = async (as: Person) => (await t.call('GET', '/v3/downloads', { token: as.token })).json<{ downloads: HistoryEntry[] }>().downloads;

  it('lists 1k and 4k by the longest side, the aspect kept; 404 for an index without a result; 403 for another user', async () => {
    const alice = await customer();
    const id = await generated(alice);
    const sizes = await t.call('GET', `/v3/ai/image-generations/${id}/images/2/download-sizes`, { token: alice.token });
    expect(sizes.statusCode, sizes.body).toBe(200);
    expect(sizes.json()).toEqual({
      download_sizes: [
        { size_name: '1k', width: 1024, height: 576 },
        { size_name: '4k', width: 4096, height: 2304 },
      ],
    });
    expect((await t.call('GET', `/v3/ai/image-generations/${id}/images/4/download-sizes`, { token: alice.token })).json()).toMatchObject({ code: 'GenerationResultNotFound' });
    const other = await customer();
    expect((await t.call('GET', `/v3/ai/image-generations/${id}/images/0/download-sizes`, { token: other.token })).statusCode).toBe(403);
    expect((await t.call('GET', `/v3/ai/image-generations/${'0'.repeat(32)}/images/0/download-sizes`, { token: alice.token })).statusCode).toBe(404);
  });

  it('downloads a result: the file behind a signed delivery URL, in the download history with its generated_asset_id; a redownload names it', async () => {
    const bob = await customer();
    const id = await generated(bob);
    const put = (body: Record<string, unknown>) => t.call('PUT', `/v3/ai/image-generations/${id}/images/1/download`, { token: bob.token, body });
    expect((await put({})).json()).toMatchObject({ code: 'InvalidParameterValue' });
    expect((await put({ size_name: '8k' })).statusCode).toBe(400);
    const response = await put({ size_name: '1k', notes: 'for the brochure' });
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json<{ url: string; generated_asset_id: string }>();
    expect(answer.generated_asset_id).toBe(`${id}-1`);
    const file = await fetchFile(answer.url);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="stockroom-${id}-1-1k-generated.png"`);
    const meta = await sharp(file.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([1024, 576]);
    expect((await fetchFile(answer.url.replace(/signature=[^&]+/, 'signature=x'))).statusCode).toBe(403);

    const [entry] = await history(bob);
    expect(entry).toMatchObject({ id: answer.generated_asset_id, generated_asset_id: answer.generated_asset_id, size_name: '1k', product_id: bob.productId, dimensions: { width: 1024, height: 576 } });
    expect((await t.call('GET', `/v3/ai/image-generations/${id}/images/1/download`, { token: bob.token })).json()).toMatchObject({ generated_asset_id: answer.generated_asset_id });

    const again = await t.call('POST', '/v3/ai/redownloads', { token: bob.token, body: { generated_asset_id: answer.generated_asset_id, product_id: bob.productId, size_name: '1k' } });
    expect(again.statusCode, again.body).toBe(200);
    expect((await history(bob)).filter((item) => item.generated_asset_id === answer.generated_asset_id)).toHaveLength(2);
    const unknown = await t.call('POST', '/v3/ai/redownloads', { token: bob.token, body: { generated_asset_id: `${id}-3`, product_id: bob.productId, size_name: '1k' } });
    expect(unknown.json()).toMatchObject({ code: 'GeneratedAssetNotFound' });
    const notHis = await t.call('POST', '/v3/ai/redownloads', { token: bob.token, body: { generated_asset_id: answer.generated_asset_id, product_id: 999_999, size_name: '1k' } });
    expect(notHis.json()).toMatchObject({ code: 'InvalidProduct' });
  });

  it('4k is upscaled as a job: 202 while it is prepared, 409 for the same result meanwhile, then 200 with a 4096 px file; made once', async () => {
    const carol = await customer();
    const id = await generated(carol);
    builtin.shut();
    const upscalesBefore = builtin.upscales;
    const put = () => t.call('PUT', `/v3/ai/image-generations/${id}/images/0/download`, { token: carol.token, body: { size_name: '4k' } });
    const first = await t.call('PUT', `/v3/ai/image-generations/${id}/images/0/download`, { token: carol.token, body: { size_name: '4k' } });
    expect(first.statusCode, first.body).toBe(202);
    expect(first.body).toBe('');
    const conflict = await put();
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'DownloadInProgress' });
    // Another size of the same result too, while this one is prepared.
    expect((await t.call('PUT', `/v3/ai/image-generations/${id}/images/0/download`, { token: carol.token, body: { size_name: '1k' } })).statusCode).toBe(409);
    expect((await t.call('GET', `/v3/ai/image-generations/${id}/images/0/download`, { token: carol.token })).statusCode).toBe(202);
    builtin.release();
    let ready = await t.call('GET', `/v3/ai/image-generations/${id}/images/0/download`, { token: carol.token });
    for (let n = 0; ready.statusCode === 202 && n < 400; n++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      ready = await t.call('GET', `/v3/ai/image-generations/${id}/images/0/download`, { token: carol.token });
    }
    expect(ready.statusCode, ready.body).toBe(200);
    const file = await fetchFile(ready.json<{ url: string }>().url);
    const meta = await sharp(file.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([4096, 2304]);
    expect((await put()).statusCode).toBe(200);
    expect(builtin.upscales - upscalesBefore).toBe(1);
  });

  it('the result of an edit of a catalogue image downloads only with a product that licensed the original and a download of it', async () => {
    const dana = await customer();
    await addAssets(t.services, 'image', ['dl1'], creativeImageFields());
    const subscription = await t.services.products.grant({ userId: dana.userId, type: 'premiumaccess' });
    await t.services.downloads.download({ grant: { clientId: t.clientId, userId: dana.userId, issuedAt: new Date() }, assetType: 'image', assetId: 'dl1', useTeamCredits: false });
    const id = await generated(dana, { reference_asset_id: 'dl1' }, '/v3/ai/image-generations/background-removal');
    const put = () => t.call('PUT', `/v3/ai/image-generations/${id}/images/0/download`, { token: dana.token, body: { size_name: '1k' } });
    await t.services.products.revoke(subscription.id);
    const refused = await put();
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'OriginalNotLicensed' });
    await t.services.products.setStatus(subscription.id, 'active');
    const allowed = await put();
    expect(allowed.statusCode, allowed.body).toBe(200);
    const meta = await sharp((await fetchFile(allowed.json<{ url: string }>().url)).rawPayload).metadata();
    // The 8×6 original, cut out and upscaled to 1024 on its long side, its transparency kept.
    expect([meta.width, meta.height, meta.hasAlpha]).toEqual([1024, 768, true]);
  });

  it('a generated file gone from the store is 404 GeneratedFileNotFound: a prepared download is made again, a lost result cannot be downloaded or edited', async () => {
    const erin = await customer();
    const id = await generated(erin);
    const put = (index: number) => t.call('PUT', `/v3/ai/image-generations/${id}/images/${index}/download`, { token: erin.token, body: { size_name: '1k' } });
    const first = await put(0);
    expect(first.statusCode, first.body).toBe(200);
    const url = first.json<{ url: string }>().url;
    await t.services.blobs.delete(`generation/downloads/${id}-0-1k.png`);
    const lost = await fetchFile(url);
    expect(lost.statusCode).toBe(404);
    expect(lost.json()).toMatchObject({ code: 'GeneratedFileNotFound', message: expect.stringMatching(/no longer stored: PUT …\/download again/) });
    // Asked again, the file is made anew from the result, and the same URL finds it.
    const again = await put(0);
    expect(again.statusCode, again.body).toBe(200);
    expect((await fetchFile(again.json<{ url: string }>().url)).statusCode).toBe(200);
    expect((await fetchFile(url)).statusCode).toBe(200);
    // Even when the lost file is asked for before anyone fetches it: never a URL that finds nothing.
    await t.services.blobs.delete(`generation/downloads/${id}-0-1k.png`);
    const remade = await put(0);
    expect(remade.statusCode, remade.body).toBe(200);
    expect((await fetchFile(remade.json<{ url: string }>().url)).statusCode).toBe(200);

    const result = await t.services.database.db.selectFrom('generation_results').select('image_key').where('request_id', '=', id).where('result_index', '=', 1).executeTakeFirstOrThrow();
    await t.services.blobs.delete(result.image_key!);
    const noPicture = await put(1);
    expect(noPicture.statusCode).toBe(404);
    expect(noPicture.json()).toMatchObject({ code: 'GeneratedFileNotFound' });
    const edit = await t.call('POST', '/v3/ai/image-generations/background-removal', { token: erin.token, body: { reference_generation: { generation_request_id: id, index: 1 } } });
    expect(edit.statusCode).toBe(404);
    expect(edit.json()).toMatchObject({ code: 'GeneratedFileNotFound' });
    // The result still lists its sizes (they come from the store's record), and the request is not gone.
    expect((await t.call('GET', `/v3/ai/image-generations/${id}/images/1/download-sizes`, { token: erin.token })).statusCode).toBe(200);

    // The document names the code where it can be answered.
    type Responses = Record<string, { description?: string }>;
    const document = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json<{ paths: Record<string, Record<string, { responses: Responses }>> }>();
    const notFound = (path: string, method: string) => document.paths[path]?.[method]?.responses['404']?.description ?? '';
    expect(notFound('/v3/ai/image-generations/{generationRequestId}/images/{index}/download', 'put')).toMatch(/GeneratedFileNotFound/);
    expect(notFound('/v3/ai/redownloads', 'post')).toMatch(/GeneratedFileNotFound/);
    expect(notFound('/v3/ai/image-generations/background-removal', 'post')).toMatch(/GeneratedFileNotFound/);
    expect(notFound('/delivery/{downloadId}/{assetId}/{fileName}', 'get')).toMatch(/GeneratedFileNotFound/);
  });
});
