import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinEngine } from '../../src/generation/engines/builtin/builtin-engine.js';
import { STORES } from '../helpers/test-store.js';
import { DrawingEngine } from './drawing-engine.js';
import { createGenerationApp, settle, type GenerationTestApp, type Person } from './generation-fixtures.js';

/*
 * An object removal fills what the mask marks from the picture around it. A mask white all over
 * leaves nothing to fill from: it is refused up front (400 naming mask_url), before anything is
 * queued or charged, where it used to be queued and then fail as a 502.
 */
describe.each(STORES)('object removal with a mask that marks the whole picture, on $name', ({ url }) => {
  let t: GenerationTestApp;
  let editor: Person & { productId: number };
  let reference: { generation_request_id: string; index: number };

  beforeAll(async () => {
    t = await createGenerationApp(url, { server: new DrawingEngine(['generate']), builtin: new BuiltinEngine() }, { STOCKROOM_GENERATION_WAIT_MS: '20000' });
    const person = await t.person();
    const product = await t.services.products.grant({ userId: person.userId, type: 'aigen', generations: 10, period: 'month' });
    editor = { ...person, productId: product.id };
    // The picture to edit: a result of the editor's own (a picture large enough to fill from).
    const generated = await t.call('POST', '/v3/ai/image-generations', { token: editor.token, body: { prompt: 'a red barn', aspect_ratio: '4:3' } });
    expect(generated.statusCode, generated.body).toBe(200);
    reference = { generation_request_id: generated.json<{ generation_request_id: string }>().generation_request_id, index: 0 };
  }, 60_000);
  afterAll(() => t?.close());

  /** Uploads a mask of 64×48: white where `marked` says, black elsewhere. */
  async function uploadMask(name: string, marked: (x: number, y: number) => boolean): Promise<string> {
    const [width, height] = [64, 48];
    const pixels = Buffer.alloc(width * height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels[y * width + x] = marked(x, y) ? 255 : 0;
    const png = await sharp(pixels, { raw: { width, height, channels: 1 } }).png().toBuffer();
    const uploaded = await t.call('PUT', `/v3/search/by-image/uploads/${name}`, { token: editor.token, payload: png, contentType: 'image/png' });
    expect(uploaded.statusCode, uploaded.body).toBeLessThan(300);
    return `http://stockroom.test/v3/search/by-image/uploads/${name}`;
  }
  const remove = (maskUrl: string) => t.call('POST', '/v3/ai/image-generations/object-removal', { token: editor.token, body: { reference_generation: reference, mask_url: maskUrl } });
  const remaining = async () =>
    (await t.call('GET', '/v3/products', { token: editor.token })).json<{ products: Array<{ id: number; downloads_remaining: number | null }> }>().products.find((p) => p.id === editor.productId)!
      .downloads_remaining;
  const requests = async () => (await t.services.database.db.selectFrom('generation_requests').select('id').where('user_id', '=', editor.userId).execute()).length;

  it('is refused with 400 InvalidParameterValue naming mask_url: nothing queued, nothing charged', async () => {
    const before = { remaining: await remaining(), requests: await requests() };
    const refused = await remove(await uploadMask('all-white.png', () => true));
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json()).toEqual({ code: 'InvalidParameterValue', message: expect.stringMatching(/^Invalid value for parameter 'mask_url': the mask is white all over/) });
    expect({ remaining: await remaining(), requests: await requests() }).toEqual(before);
  });

  it('a mask that leaves some of the picture unmarked is taken and the object removed', async () => {
    const taken = await remove(await uploadMask('square.png', (x, y) => x >= 24 && x < 40 && y >= 16 && y < 32));
    // Four fills take a few seconds of one core: the answer may be the 202 to poll.
    expect([200, 202], taken.body).toContain(taken.statusCode);
    const done = await settle(t, taken.json<{ generation_request_id: string }>().generation_request_id, editor.token, 300_000);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json<{ results: unknown[] }>().results).toHaveLength(4);
  }, 320_000);
});
