import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { addImage } from '../helpers/catalog-fixtures.js';

describe('display files reached through the API', () => {
  let t: TestApp;
  let sizes: Array<{ name: string; uri: string; width: number; height: number }>;
  beforeAll(async () => {
    t = await createTestApp();
    await addImage(t.services, '1001', { width: 1500, height: 1000 });
    const body = (await t.app.inject({ method: 'GET', url: '/v3/images/1001?fields=display_set,mid_res_comp,high_res_comp,comp_webp,mid_res_comp_webp,high_res_comp_webp', headers: { 'api-key': t.apiKey } })).json();
    sizes = body.images[0].display_sizes;
  });
  afterAll(async () => {
    await t.close();
  });
  const fetchUri = (uri: string) => t.app.inject({ method: 'GET', url: uri.replace('http://stockroom.test', '') });

  it('serves every display URI with no headers at all, at the size it announces', async () => {
    for (const size of sizes) {
      const response = await fetchUri(size.uri);
      expect(response.statusCode, size.name).toBe(200);
      const type = size.uri.includes('.webp') ? 'image/webp' : 'image/jpeg';
      expect(response.headers['content-type']).toBe(type);
      const metadata = await sharp(response.rawPayload).metadata();
      expect([metadata.width, metadata.height], size.name).toEqual([size.width, size.height]);
    }
  });

  it('answers 403 for a tampered display URI', async () => {
    const thumb = sizes.find((s) => s.name === 'thumb')!;
    const tampered = thumb.uri.replace('/1001/thumb.jpg', '/1001/high_res_comp.jpg');
    expect((await fetchUri(tampered)).statusCode).toBe(403);
    const badSignature = thumb.uri.replace(/signature=.{4}/, 'signature=AAAA');
    expect((await fetchUri(badSignature)).statusCode).toBe(403);
  });

  it('answers 403 for an expired display URI', async () => {
    const thumb = sizes.find((s) => s.name === 'thumb')!;
    const url = new URL(thumb.uri);
    url.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 10));
    expect((await fetchUri(url.toString())).statusCode).toBe(403);
  });
});
