import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineRequest, EngineResult } from '../../src/generation/engines/engine.js';
import { STORES } from '../helpers/test-store.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { DrawingEngine } from './drawing-engine.js';
import { createGenerationApp, type GenerationTestApp } from './generation-fixtures.js';

const UPLOADS = 'http://stockroom.test/v3/search/by-image/uploads';

/** The drawing engine that also "removes objects" by answering the mask it was given, and keeps it. */
class MaskEchoEngine extends DrawingEngine {
  lastMask: Buffer | undefined;

  constructor() {
    super(['generate', 'remove_background', 'remove_object']);
  }

  override async run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    if (request.operation === 'remove_object') {
      this.lastMask = request.mask.data;
      return { pictures: [{ data: await sharp(request.mask.data).png().toBuffer(), seed: 0 }] };
    }
    return super.run(request, signal);
  }
}

/** Who sends a request: an API key, and a user's token with it or none. */
interface Sender {
  label: string;
  apiKey: string;
  token?: string;
}

const greyOf = async (picture: Buffer) => Math.round((await sharp(picture).greyscale().stats()).channels[0]!.mean);

/*
 * The matrix of issue 23 §1: an upload belongs to whoever sent it — the user whose token came
 * with it, or the API key alone without one. Its owner can use it; the same user's other
 * uploads, another user of the same key, the key alone and another key cannot read it, register
 * it, use it as a mask or as image_url, nor replace it: for them it is not there at all, so the
 * answer is what a name never uploaded gets (400 InvalidParameterValue naming the parameter),
 * which reveals nothing. A PUT to the same name makes the sender's own upload and leaves the
 * owner's as it was.
 */
describe.each(STORES)('who may use an upload, on $name', ({ url }) => {
  let t: GenerationTestApp;
  const engine = new MaskEchoEngine();
  let alice: Sender & { token: string };
  let bob: Sender & { token: string };
  let keyOnly: Sender;
  let otherKey: Sender;
  let aliceThroughOtherKey: Sender & { token: string };
  let everyoneElse: Sender[];
  let blue: Buffer;
  let whiteMask: Buffer;
  let blackMask: Buffer;

  const send = (as: Sender, method: 'GET' | 'PUT' | 'POST', path: string, body?: { json?: unknown; file?: Buffer; type?: string }) => {
    const headers: Record<string, string> = { 'api-key': as.apiKey };
    if (as.token) headers.authorization = `Bearer ${as.token}`;
    if (body?.file) headers['content-type'] = body.type ?? 'image/jpeg';
    if (body?.json !== undefined) headers['content-type'] = 'application/json';
    return t.app.inject({ method, url: path, headers, ...(body?.file ? { payload: body.file } : body?.json !== undefined ? { payload: JSON.stringify(body.json) } : {}) });
  };
  const upload = (as: Sender, name: string, file: Buffer, type = 'image/jpeg') => send(as, 'PUT', `/v3/search/by-image/uploads/${name}`, { file, type });
  const searchBy = (as: Sender, name: string) => send(as, 'GET', `/v3/search/images/creative/by-image?image_url=${encodeURIComponent(`${UPLOADS}/${name}`)}`);
  const register = (as: Sender, name: string) =>
    send(as, 'POST', '/beta/ai/file-registrations', { json: { url: `${UPLOADS}/${name}`, rights_claimed: true, category: 'ImageReference' } });
  async function objectRemoval(as: Sender & { token: string }, maskName: string) {
    const first = await send(as, 'POST', '/v3/ai/image-generations', { json: { prompt: 'a field', seed: 3 } });
    expect(first.statusCode, first.body).toBe(200);
    const id = first.json<{ generation_request_id: string }>().generation_request_id;
    return send(as, 'POST', '/v3/ai/image-generations/object-removal', {
      json: { reference_generation: { generation_request_id: id, index: 0 }, mask_url: `${UPLOADS}/${maskName}` },
    });
  }

  async function customerOn(apiKey: string, clientId: number, label: string, userId?: number): Promise<Sender & { token: string; userId: number }> {
    const id = userId ?? (await t.person()).userId;
    if (userId === undefined) await t.services.products.grant({ userId: id, type: 'aigen' });
    const { token } = await t.services.tokens.issue({ clientId, userId: id, grantType: 'password', lifetimeSeconds: 3600 });
    return { label, apiKey, token, userId: id };
  }

  beforeAll(async () => {
    t = await createGenerationApp(url, { builtin: engine }, { STOCKROOM_GENERATION_MAX_PER_USER: '50' });
    const other = await t.services.clients.create({ name: 'Another application', queriesPerSecond: 100_000, queriesPerDay: 10_000_000 });
    const aliceOnKey = await customerOn(t.apiKey, t.clientId, 'alice');
    alice = aliceOnKey;
    bob = await customerOn(t.apiKey, t.clientId, 'another user of the same key');
    keyOnly = { label: 'the same key without a token', apiKey: t.apiKey };
    otherKey = { label: 'another key', apiKey: other.apiKey };
    aliceThroughOtherKey = await customerOn(other.apiKey, other.client.id, 'the same user through another key', aliceOnKey.userId);
    everyoneElse = [bob, keyOnly, otherKey, aliceThroughOtherKey];
    blue = await makeJpeg(320, 200, '#2050c0');
    // Mostly white, with a black band: a mask that is white all over is refused before any engine sees it.
    const band = await sharp({ create: { width: 16, height: 64, channels: 3, background: '#000000' } }).png().toBuffer();
    whiteMask = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
      .composite([{ input: band, left: 0, top: 0 }])
      .jpeg()
      .toBuffer();
    blackMask = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000000' } }).jpeg().toBuffer();
    expect((await upload(alice, 'photo.jpg', blue)).statusCode).toBe(200);
    expect((await upload(alice, 'mask.jpg', whiteMask)).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t.close();
  });

  it('its owner searches by it, registers it and masks with it', async () => {
    const search = await searchBy(alice, 'photo.jpg');
    expect(search.statusCode, search.body).toBe(200);
    const registered = await register(alice, 'photo.jpg');
    expect(registered.statusCode, registered.body).toBe(200);
    const removal = await objectRemoval(alice, 'mask.jpg');
    expect(removal.statusCode, removal.body).toBe(200);
    expect(await greyOf(engine.lastMask!)).toBeGreaterThan(150);
  });

  it('nobody else can search by it: 400 naming image_url, as for a name never uploaded', async () => {
    const never = (await searchBy(alice, 'never-sent.jpg')).json<{ code: string; message: string }>();
    for (const as of everyoneElse) {
      const response = await searchBy(as, 'photo.jpg');
      expect(response.statusCode, as.label).toBe(400);
      expect(response.json(), as.label).toEqual({ code: 'InvalidParameterValue', message: expect.stringContaining("'image_url': there is no upload named 'photo.jpg'") });
    }
    expect(never.code).toBe('InvalidParameterValue');
  });

  it('another user can neither register it nor mask with it: 400 naming url and mask_url', async () => {
    for (const as of [bob, aliceThroughOtherKey]) {
      const registered = await register(as, 'photo.jpg');
      expect(registered.statusCode, as.label).toBe(400);
      expect(registered.json(), as.label).toEqual({ code: 'InvalidParameterValue', message: expect.stringContaining("'url': there is no upload named 'photo.jpg'") });
      const removal = await objectRemoval(as, 'mask.jpg');
      expect(removal.statusCode, as.label).toBe(400);
      expect(removal.json(), as.label).toEqual({ code: 'InvalidParameterValue', message: expect.stringContaining("'mask_url': there is no upload named 'mask.jpg'") });
    }
    // Without a user nobody registers or generates at all.
    expect((await register(keyOnly, 'photo.jpg')).statusCode).toBe(401);
    expect((await register(otherKey, 'photo.jpg')).statusCode).toBe(401);
  });

  it('a PUT of the same name by anyone else makes their own upload; the owner’s stays, and stays her mask', async () => {
    const before = (await searchBy(alice, 'mask.jpg')).json<{ image_fingerprint: string }>().image_fingerprint;
    for (const as of everyoneElse) {
      const response = await upload(as, 'mask.jpg', blackMask);
      expect(response.statusCode, as.label).toBe(200);
      expect(response.json<{ url: string }>().url).toBe(`${UPLOADS}/mask.jpg`);
      // Theirs is theirs: they search by it.
      expect((await searchBy(as, 'mask.jpg')).statusCode, as.label).toBe(200);
    }
    const after = await searchBy(alice, 'mask.jpg');
    expect(after.json<{ image_fingerprint: string }>().image_fingerprint).toBe(before);
    expect((await searchBy(keyOnly, 'mask.jpg')).json<{ image_fingerprint: string }>().image_fingerprint).not.toBe(before);
    // The mask under her generation is still the white one she sent; bob's is his black one.
    expect((await objectRemoval(alice, 'mask.jpg')).statusCode).toBe(200);
    expect(await greyOf(engine.lastMask!)).toBeGreaterThan(150);
    expect((await objectRemoval(bob, 'mask.jpg')).statusCode).toBe(200);
    expect(await greyOf(engine.lastMask!)).toBe(0);
    const rows = await t.services.database.db.selectFrom('search_uploads').select(['client_id', 'user_id']).where('name', '=', 'mask.jpg').execute();
    expect(rows).toHaveLength(5);
  });

  it('an upload sent with the key alone is the key’s: no user of the key reaches it', async () => {
    expect((await upload(keyOnly, 'key-file.jpg', blue)).statusCode).toBe(200);
    expect((await searchBy(keyOnly, 'key-file.jpg')).statusCode).toBe(200);
    for (const as of [alice, bob, otherKey]) expect((await searchBy(as, 'key-file.jpg')).statusCode, as.label).toBe(400);
    expect((await register(alice, 'key-file.jpg')).json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'url'") });
  });

  it('a bad token on an upload is 401 and stores nothing', async () => {
    const response = await upload({ label: 'bad token', apiKey: t.apiKey, token: 'not-a-token' }, 'bad-token.jpg', blue);
    expect(response.statusCode).toBe(401);
    expect(await t.services.database.db.selectFrom('search_uploads').select('name').where('name', '=', 'bad-token.jpg').execute()).toEqual([]);
  });
});
