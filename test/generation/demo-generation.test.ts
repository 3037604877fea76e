import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import { ensureDemoAccess } from '../../src/cli/demo-access.js';
import { loadConfig } from '../../src/config/config.js';
import { configuredEngines } from '../../src/generation/configured-engines.js';
import { createGenerationApp, settle, type GenerationTestApp } from './generation-fixtures.js';

let t: GenerationTestApp;

beforeAll(async () => {
  // The engines a server with no generation setting builds: the built-in one alone.
  t = await createGenerationApp(undefined, configuredEngines(loadConfig({ STOCKROOM_DATA_DIR: '/tmp/unused' }).generation));
  await seedDemo({ catalog: t.services.catalog, blobs: t.services.blobs }, { images: 2, videos: 0, events: 0 });
}, 30_000);
afterAll(() => t.close());

describe('the demo', () => {
  it("lets the demo user take the background off a demo picture they licensed, with the built-in engine and the demo's AI product", async () => {
    const demo = await ensureDemoAccess(t.services);
    const user = (await t.services.users.findByUsername(demo.access.username))!;
    const aiProducts = (await t.services.products.productsOf(user.id)).filter((product) => product.type === 'aigen');
    expect(aiProducts).toHaveLength(1);
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId: user.id, grantType: 'password', lifetimeSeconds: 3600 });

    const unlicensed = await t.call('POST', '/v3/ai/image-generations/background-removal', { token, body: { reference_asset_id: '1000001' } });
    expect(unlicensed.statusCode).toBe(403);
    expect((await t.call('POST', '/v3/downloads/images/1000001', { token, body: {} })).statusCode).toBeLessThan(400);

    const queued = await t.call('POST', '/v3/ai/image-generations/background-removal', { token, body: { reference_asset_id: '1000001' } });
    expect([200, 202]).toContain(queued.statusCode);
    const answer = await settle(t, queued.json<{ generation_request_id: string }>().generation_request_id, token, 60_000);
    expect(answer.statusCode).toBe(200);
    const preview = answer.json<{ results: Array<{ preview_urls: Array<{ image_url: string }> }> }>().results[0]!.preview_urls[0]!.image_url;
    const picture = await t.app.inject({ method: 'GET', url: new URL(preview).pathname + new URL(preview).search });
    expect(picture.statusCode).toBe(200);
    expect((await sharp(picture.rawPayload).metadata()).width).toBe(612);

    const history = await t.call('GET', '/v3/ai/generation-history', { token });
    expect(history.json<{ generations: Array<{ status: string }> }>().generations.map((item) => item.status)).toEqual(['done']);

    const prompted = await t.call('POST', '/v3/ai/image-generations', { token, body: { prompt: 'a lighthouse' } });
    expect(prompted.statusCode).toBe(503);
    expect(prompted.json()).toMatchObject({ code: 'GenerationEngineUnavailable', message: expect.stringContaining('STOCKROOM_GENERATION_SERVER') });
  }, 90_000);

  it('names the agreement of each demo product in the download links and the download history', async () => {
    const demo = await ensureDemoAccess(t.services);
    const user = (await t.services.users.findByUsername(demo.access.username))!;
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId: user.id, grantType: 'password', lifetimeSeconds: 3600 });
    const detail = (await t.call('GET', '/v3/images/1000002?fields=downloads', { token })).json<{
      images: Array<{ download_sizes: Array<{ downloads: Array<{ product_type: string; agreement_name: string | null }> }> }>;
    }>();
    const links = detail.images[0]!.download_sizes.flatMap((size) => size.downloads);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(link.agreement_name, link.product_type).toMatch(/^Demo .+ agreement$/);
    expect((await t.call('POST', '/v3/downloads/images/1000002?auto_download=false', { token, body: {} })).statusCode).toBe(200);
    const history = (await t.call('GET', '/v3/downloads', { token })).json<{ downloads: Array<{ id: string; agreement_name: string | null }> }>();
    expect(history.downloads.find((download) => download.id === '1000002')?.agreement_name).toMatch(/^Demo .+ agreement$/);
  });

  it('gives a demo user made before AI products one on the next start, and none again once an operator revoked it', async () => {
    const demo = await ensureDemoAccess(t.services);
    const user = (await t.services.users.findByUsername(demo.access.username))!;
    const aiProduct = () => t.services.products.productsOf(user.id).then((products) => products.filter((product) => product.type === 'aigen'));
    const [granted] = await aiProduct();
    await t.services.products.revoke(granted!.id);
    await ensureDemoAccess(t.services);
    expect((await aiProduct()).map((product) => product.status)).toEqual(['inactive']);
  });
});
