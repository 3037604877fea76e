import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES } from '../helpers/test-store.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { DrawingEngine } from './drawing-engine.js';
import { createGenerationApp, type GenerationTestApp } from './generation-fixtures.js';

const UPLOADS = 'http://stockroom.test/v3/search/by-image/uploads';
const DAY_MS = 86_400_000;

interface Sender {
  apiKey: string;
  token?: string;
  userId?: number;
}

/*
 * Issue 23 §2: what clients may keep. Uploads and file registrations have quotas of files and
 * bytes per API key (all its senders) and per user; a registration keeps the upload's own
 * bytes, not a decoded copy, and is deleted after its retention.
 */
describe.each(STORES)('quotas and retention of uploads and file registrations, on $name', ({ url }) => {
  let t: GenerationTestApp;
  let photo: Buffer;

  const send = (as: Sender, method: 'GET' | 'PUT' | 'POST', path: string, body?: { json?: unknown; file?: Buffer; type?: string }) => {
    const headers: Record<string, string> = { 'api-key': as.apiKey };
    if (as.token) headers.authorization = `Bearer ${as.token}`;
    if (body?.file) headers['content-type'] = body.type ?? 'image/jpeg';
    if (body?.json !== undefined) headers['content-type'] = 'application/json';
    return t.app.inject({ method, url: path, headers, ...(body?.file ? { payload: body.file } : body?.json !== undefined ? { payload: JSON.stringify(body.json) } : {}) });
  };
  const upload = (as: Sender, name: string, file: Buffer, type = 'image/jpeg') => send(as, 'PUT', `/v3/search/by-image/uploads/${name}`, { file, type });
  const register = (as: Sender, name: string) =>
    send(as, 'POST', '/beta/ai/file-registrations', { json: { url: `${UPLOADS}/${name}`, rights_claimed: true, category: 'ImageReference' } });

  /** A new API key, so that each case starts with nothing stored under its key. */
  async function freshKey(): Promise<{ apiKey: string; clientId: number }> {
    const { apiKey, client } = await t.services.clients.create({ name: 'Quota tests', queriesPerSecond: 100_000, queriesPerDay: 10_000_000 });
    return { apiKey, clientId: client.id };
  }
  async function customerOf(key: { apiKey: string; clientId: number }): Promise<Required<Sender>> {
    const { userId } = await t.person();
    await t.services.products.grant({ userId, type: 'aigen' });
    const { token } = await t.services.tokens.issue({ clientId: key.clientId, userId, grantType: 'password', lifetimeSeconds: 86_400 * 400 });
    return { apiKey: key.apiKey, token, userId };
  }
  /** A JPEG of about `bytes` bytes: padding after its end marker, which decoders ignore. */
  const paddedJpeg = (bytes: number) => Buffer.concat([photo, Buffer.alloc(bytes - photo.length)]);

  beforeAll(async () => {
    t = await createGenerationApp(url, { builtin: new DrawingEngine() }, {
      STOCKROOM_UPLOADS_PER_USER: '2',
      STOCKROOM_UPLOAD_MB_PER_USER: '1',
      STOCKROOM_UPLOADS_PER_KEY: '4',
      STOCKROOM_REGISTRATIONS_PER_USER: '1',
      STOCKROOM_REGISTRATIONS_PER_KEY: '2',
    });
    photo = await makeJpeg(320, 200, '#2050c0');
  });
  afterAll(async () => {
    await t.close();
  });

  it('a user keeps at most so many uploads: one more is 429 UploadQuotaExceeded; replacing one of them is not one more', async () => {
    const alice = await customerOf(await freshKey());
    expect((await upload(alice, 'a.jpg', photo)).statusCode).toBe(200);
    expect((await upload(alice, 'b.jpg', photo)).statusCode).toBe(200);
    const refused = await upload(alice, 'c.jpg', photo);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ code: 'UploadQuotaExceeded', message: expect.stringContaining('You would keep more than 2 files') });
    expect((await upload(alice, 'a.jpg', photo)).statusCode).toBe(200);
  });

  it('a user keeps at most so many bytes of uploads', async () => {
    const carol = await customerOf(await freshKey());
    expect((await upload(carol, 'big-1.jpg', paddedJpeg(600 * 1024))).statusCode).toBe(200);
    const refused = await upload(carol, 'big-2.jpg', paddedJpeg(600 * 1024));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ code: 'UploadQuotaExceeded', message: expect.stringContaining('more than 1 MB') });
    // A smaller file still fits.
    expect((await upload(carol, 'small.jpg', photo)).statusCode).toBe(200);
  });

  it('a key keeps at most so many uploads, all its senders together; another key is not touched', async () => {
    const key = await freshKey();
    const [bob, dana] = [await customerOf(key), await customerOf(key)];
    for (const [as, name] of [[bob, 'x.jpg'], [bob, 'y.jpg'], [dana, 'x.jpg'], [dana, 'y.jpg']] as const) expect((await upload(as, name, photo)).statusCode).toBe(200);
    const keyOnly = await upload({ apiKey: key.apiKey }, 'z.jpg', photo);
    expect(keyOnly.statusCode).toBe(429);
    expect(keyOnly.json()).toEqual({ code: 'UploadQuotaExceeded', message: expect.stringContaining('This API key would keep more than 4 files') });
    const other = await freshKey();
    expect((await upload({ apiKey: other.apiKey }, 'z.jpg', photo)).statusCode).toBe(200);
  });

  it('uploads sent at once cannot pass the same quota check together', async () => {
    const erin = await customerOf(await freshKey());
    // Six different files: the same bytes would queue on their shared blob's lock anyway.
    const files = await Promise.all(['#100000', '#200000', '#300000', '#400000', '#500000', '#600000'].map((colour) => makeJpeg(64, 64, colour)));
    const answers = await Promise.all(files.map((file, index) => upload(erin, `r${index}.jpg`, file)));
    const codes = answers.map((answer) => answer.statusCode).sort();
    expect(codes).toEqual([200, 200, 429, 429, 429, 429]);
    const stored = await t.services.database.db.selectFrom('search_uploads').select('name').where('user_id', '=', erin.userId).execute();
    expect(stored).toHaveLength(2);
  });

  it('a registration keeps the upload’s own bytes and a preview, no decoded copy', async () => {
    const fay = await customerOf(await freshKey());
    // Stored on its side (EXIF orientation 6): the preview is upright, 200 wide and 320 high.
    const turned = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#c02020' } }).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    expect((await upload(fay, 'turned.jpg', turned)).statusCode).toBe(200);
    const registered = await register(fay, 'turned.jpg');
    expect(registered.statusCode, registered.body).toBe(200);
    const id = registered.json<{ id: string }>().id;
    const row = await t.services.database.db.selectFrom('generation_file_registrations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.image_key).toBe(`generation/registrations/${id}.jpg`);
    expect(await t.services.blobs.get(row.image_key)).toEqual(turned);
    const preview = (await t.services.blobs.get(row.preview_key))!;
    expect(row.byte_size).toBe(turned.length + preview.length);
    expect(row.client_id).toBe((await t.services.database.db.selectFrom('api_clients').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id);
    const described = await send(fay, 'GET', `/beta/ai/file-registrations/${id}`);
    expect(described.json()).toMatchObject({ id, preview_urls: [{ width: 200, height: 320 }] });
    const meta = await sharp(preview).metadata();
    expect([meta.width, meta.height]).toEqual([200, 320]);
  });

  it('registrations have quotas per user and per key: 429 RegistrationQuotaExceeded', async () => {
    const key = await freshKey();
    const [gina, hal, ivy] = [await customerOf(key), await customerOf(key), await customerOf(key)];
    for (const as of [gina, hal, ivy]) expect((await upload(as, 'ref.jpg', photo)).statusCode).toBe(200);
    expect((await register(gina, 'ref.jpg')).statusCode).toBe(200);
    const again = await register(gina, 'ref.jpg');
    expect(again.statusCode).toBe(429);
    expect(again.json()).toEqual({ code: 'RegistrationQuotaExceeded', message: expect.stringContaining('You would keep more than 1 registrations') });
    expect((await register(hal, 'ref.jpg')).statusCode).toBe(200);
    const keyFull = await register(ivy, 'ref.jpg');
    expect(keyFull.statusCode).toBe(429);
    expect(keyFull.json()).toEqual({ code: 'RegistrationQuotaExceeded', message: expect.stringContaining('This API key would keep more than 2 registrations') });
  });

  it('a registration is kept for the retention (30 days by default), then it is gone with its files', async () => {
    const jay = await customerOf(await freshKey());
    expect((await upload(jay, 'kept.jpg', photo)).statusCode).toBe(200);
    const id = (await register(jay, 'kept.jpg')).json<{ id: string }>().id;
    const row = await t.services.database.db.selectFrom('generation_file_registrations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const previewUrl = (await send(jay, 'GET', `/beta/ai/file-registrations/${id}`)).json<{ preview_urls: Array<{ image_url: string }> }>().preview_urls[0]!.image_url;

    t.tick(29 * DAY_MS);
    expect((await send(jay, 'GET', `/beta/ai/file-registrations/${id}`)).statusCode).toBe(200);
    t.tick(DAY_MS + 60_000);
    const gone = await send(jay, 'GET', `/beta/ai/file-registrations/${id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ code: 'FileRegistrationIdNotFound', message: expect.stringContaining('kept 30 days') });
    expect((await t.app.inject({ method: 'GET', url: previewUrl.replace('http://stockroom.test', '') })).statusCode).toBe(404);
    const influence = await send(jay, 'POST', '/v3/ai/image-generations/influence-color-by-image', { json: { reference_file_registration_id: id, prompt: 'x', noise_level: 0.5 } });
    expect(influence.statusCode).toBe(404);

    // An expired registration no longer counts against the quota; the next registration sweeps it away, files and all.
    const next = await register(jay, 'kept.jpg');
    expect(next.statusCode, next.body).toBe(200);
    expect(await t.services.database.db.selectFrom('generation_file_registrations').select('id').where('id', '=', id).execute()).toEqual([]);
    expect(await t.services.blobs.get(row.image_key)).toBeUndefined();
    expect(await t.services.blobs.get(row.preview_key)).toBeUndefined();
  });
});
