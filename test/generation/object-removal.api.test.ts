import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinEngine } from '../../src/generation/engines/builtin/builtin-engine.js';
import { holeCases } from '../../bench/fixtures/builtin-quality-set.js';
import { encodePng, maskRaster } from '../../src/generation/engines/builtin/raster.js';
import { STORES } from '../helpers/test-store.js';
import { creativeImageFields } from '../licensing/licensing-fixtures.js';
import { createGenerationApp, settle, type GenerationTestApp } from './generation-fixtures.js';

interface Answer {
  generation_request_id: string;
  results: Array<{ index: number; is_blocked: boolean; preview_urls: Array<{ image_url: string; width: number; height: number }> }>;
}

describe.each(STORES)('object removal through the API, on $name', ({ url }) => {
  let t: GenerationTestApp;
  let maskPng: Buffer;
  const engine = new BuiltinEngine({ worker: false });
  // A textured picture (tiles) with an object on it, and the mask that covers the object.
  const [scene] = holeCases(5, 160, 160).slice(3, 4);

  beforeAll(async () => {
    t = await createGenerationApp(url, { builtin: engine });
    const picture = await encodePng(scene!.picture);
    const key = `originals/${createHash('sha256').update(picture).digest('hex')}.png`;
    await t.services.blobs.put(key, picture);
    await t.services.catalog.upsertAsset({
      asset_type: 'image',
      id: 'tiled-floor',
      fields: creativeImageFields({ max_dimensions: { width: 160, height: 160 } }),
      original: { key, media_type: 'image/png', width: 160, height: 160, dpi: 72, bytes: picture.length },
    });
    maskPng = await encodePng(maskRaster(scene!.mask, 160, 160));
  });
  afterAll(async () => {
    await t.close();
    await engine.close();
  });

  it('answers four different fills of the hole, as the spec says, for one generation of the allowance', async () => {
    const person = await t.person();
    // An upload belongs to the user whose token came with it: the mask is this person's own.
    const upload = await t.call('PUT', '/v3/search/by-image/uploads/object-mask.png', { token: person.token, payload: maskPng, contentType: 'image/png' });
    expect(upload.statusCode, upload.body).toBeLessThan(300);
    await t.services.products.grant({ userId: person.userId, type: 'premiumaccess' });
    await t.services.downloads.download({ grant: { clientId: t.clientId, userId: person.userId, issuedAt: new Date() }, assetType: 'image', assetId: 'tiled-floor', useTeamCredits: false });
    const product = await t.services.products.grant({ userId: person.userId, type: 'aigen', generations: 10 });
    const remaining = async () =>
      (await t.call('GET', '/v3/products', { token: person.token })).json<{ products: Array<{ id: number; downloads_remaining: number }> }>().products.find((p) => p.id === product.id)!.downloads_remaining;
    expect(await remaining()).toBe(10);

    const response = await t.call('POST', '/v3/ai/image-generations/object-removal', {
      token: person.token,
      body: { reference_asset_id: 'tiled-floor', mask_url: 'http://stockroom.test/v3/search/by-image/uploads/object-mask.png' },
    });
    // Four fills take a few seconds of one core: the answer may be the 202 to poll.
    expect([200, 202], response.body).toContain(response.statusCode);
    const done = await settle(t, response.json<Answer>().generation_request_id, person.token, 300_000);
    expect(done.statusCode, done.body).toBe(200);
    const answer = done.json<Answer>();
    expect(answer.results.map((result) => [result.index, result.is_blocked])).toEqual([
      [0, false],
      [1, false],
      [2, false],
      [3, false],
    ]);
    const previews = await Promise.all(
      answer.results.map(async (result) => {
        const file = await t.app.inject({ method: 'GET', url: result.preview_urls[0]!.image_url.replace('http://stockroom.test', '') });
        expect(file.statusCode).toBe(200);
        return sharp(file.rawPayload).raw().toBuffer();
      }),
    );
    // Four fills, not four copies: every two previews differ.
    for (const [n, preview] of previews.entries()) {
      for (const other of previews.slice(n + 1)) expect(preview.equals(other)).toBe(false);
    }
    // Charged once for the four.
    expect(await remaining()).toBe(9);
  }, 600_000);
});
