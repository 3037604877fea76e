import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, createTestApp, type TestApp } from '../helpers/test-app.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { computeVisualSignature } from '../../src/media/visual-signature.js';
import { UploadsRepository } from '../../src/search/uploads/uploads.repository.js';
import { MAX_UPLOAD_BYTES, UPLOAD_LIFETIME_MS, UploadsService } from '../../src/search/uploads/uploads.service.js';
import { ApiError } from '../../src/platform/http/errors.js';
import { DecodeSlots } from '../../src/platform/decode-slots.js';

const PUBLIC_URL = 'http://stockroom.test';
const UPLOADS = `${PUBLIC_URL}/v3/search/by-image/uploads`;

function makePng(width: number, height: number, color: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();
}

/** The owner of an upload sent with the test app's API key alone. */
const keyOnly = (t: TestApp) => ({ clientId: t.clientId, userId: null });
const generousQuotas = { perKey: { files: 10_000, bytes: 10 ** 12 }, perUser: { files: 10_000, bytes: 10 ** 12 } };

/** The ApiError a promise rejects with, to check its status, code and message. */
async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe.each(STORES)('uploads for search by image on $name', ({ url: databaseUrl }) => {
  let t: TestApp;
  let blue: Buffer;
  let red: Buffer;
  let greenPng: Buffer;

  /** contentType null sends none. */
  const put = (name: string, body: Buffer | string | undefined, contentType: string | null = 'image/jpeg', apiKey?: string) =>
    t.app.inject({
      method: 'PUT',
      url: `/v3/search/by-image/uploads/${name}`,
      headers: {
        ...(apiKey === '' ? {} : { 'api-key': apiKey ?? t.apiKey }),
        ...(contentType ? { 'content-type': contentType } : {}),
      },
      ...(body === undefined ? {} : { payload: body }),
    });

  /** A second service on the same store whose clock runs `offsetMs` ahead. */
  const serviceAt = (offsetMs: number) =>
    new UploadsService({
      repository: new UploadsRepository(t.services.database.db, t.services.database.dialect),
      blobs: t.services.blobs,
      publicUrl: t.services.config.publicUrl,
      quotas: generousQuotas,
      decodes: new DecodeSlots(2, 10),
      now: () => Date.now() + offsetMs,
    });

  const blobKeys = async () =>
    (await t.services.database.db.selectFrom('search_uploads').select('blob_key').execute()).map((row) => row.blob_key);
  const blobKeyOf = async (name: string) =>
    (await t.services.database.db.selectFrom('search_uploads').select('blob_key').where('name', '=', name).executeTakeFirstOrThrow()).blob_key;

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl });
    blue = await makeJpeg(320, 200, '#2050c0');
    red = await makeJpeg(320, 200, '#c02020');
    greenPng = await makePng(120, 160, '#20a040');
  });
  afterAll(async () => {
    await t.close();
  });

  it('stores a JPEG and answers its URL and expiry, 24 h ahead', async () => {
    const before = Date.now();
    const response = await put('holiday.jpg', blue);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.url).toBe(`${UPLOADS}/holiday.jpg`);
    // In the spec's form, whole seconds: the fraction is dropped.
    expect(body.expires).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const expires = Date.parse(body.expires);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + UPLOAD_LIFETIME_MS);
    expect(expires).toBeLessThanOrEqual(Date.now() + UPLOAD_LIFETIME_MS);

    const signature = await t.services.uploads.resolveImageUrl(keyOnly(t), body.url);
    expect(Array.from(signature)).toEqual(Array.from(await computeVisualSignature(blue)));
  });

  it('stores a PNG', async () => {
    const response = await put('leaf_1.PNG', greenPng, 'image/png');
    expect(response.statusCode).toBe(200);
    expect(response.json().url).toBe(`${UPLOADS}/leaf_1.PNG`);
    const row = await t.services.database.db.selectFrom('search_uploads').selectAll().where('name', '=', 'leaf_1.PNG').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ media_type: 'image/png', byte_size: greenPng.length });
    expect(row.blob_key).toMatch(/^search-uploads\/[0-9a-f]{64}$/);
    expect(await t.services.blobs.get(row.blob_key)).toEqual(greenPng);
  });

  it('accepts a Content-Type with parameters', async () => {
    expect((await put('params.jpg', blue, 'Image/JPEG; charset=binary')).statusCode).toBe(200);
  });

  it('replaces an upload of the same name, and frees the blob no upload holds any more', async () => {
    const first = (await put('swap.jpg', red)).json();
    const redKey = await blobKeyOf('swap.jpg');
    expect(await t.services.blobs.get(redKey)).toEqual(red);

    const second = await put('swap.jpg', greenPng, 'image/png');
    expect(second.statusCode).toBe(200);
    expect(second.json().url).toBe(first.url);
    const signature = await t.services.uploads.resolveImageUrl(keyOnly(t), first.url);
    expect(Array.from(signature)).toEqual(Array.from(await computeVisualSignature(greenPng)));

    // The red file was only held by swap.jpg; green is also held by leaf_1.PNG and stays.
    expect(await blobKeys()).not.toContain(redKey);
    expect(await t.services.blobs.get(redKey)).toBeUndefined();
    expect(await blobKeyOf('swap.jpg')).toBe(await blobKeyOf('leaf_1.PNG'));
    for (const key of await blobKeys()) expect(await t.services.blobs.get(key)).toBeDefined();
  });

  it('keeps a blob other uploads still hold when one of them is replaced', async () => {
    await put('twin-a.jpg', red);
    await put('twin-b.jpg', red);
    const key = await blobKeyOf('twin-a.jpg');
    await put('twin-a.jpg', blue);
    expect(await t.services.blobs.get(key)).toEqual(red);
  });

  it('keeps names per API key', async () => {
    const other = await t.services.clients.create({ name: 'Other application', queriesPerSecond: 1000, queriesPerDay: 100_000 });
    const mine = (await put('shared-name.jpg', blue)).json();

    // The other key cannot use the first key's upload…
    const refused = await apiErrorOf(t.services.uploads.resolveImageUrl({ clientId: other.client.id, userId: null }, mine.url));
    expect(refused.statusCode).toBe(400);
    expect(refused.code).toBe('InvalidParameterValue');
    expect(refused.message).toContain("'image_url'");
    expect(refused.message).toContain('no upload named');

    // …and its own upload of the same name leaves the first key's alone.
    const theirs = await put('shared-name.jpg', greenPng, 'image/png', other.apiKey);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().url).toBe(mine.url);
    const mineNow = await t.services.uploads.resolveImageUrl(keyOnly(t), mine.url);
    const theirsNow = await t.services.uploads.resolveImageUrl({ clientId: other.client.id, userId: null }, mine.url);
    expect(Array.from(mineNow)).toEqual(Array.from(await computeVisualSignature(blue)));
    expect(Array.from(theirsNow)).toEqual(Array.from(await computeVisualSignature(greenPng)));
  });

  it('refuses a file over 10 MB with 400 InvalidParameterValue', async () => {
    const huge = Buffer.concat([blue, Buffer.alloc(11 * 1024 * 1024 - blue.length)]);
    const response = await put('huge.jpg', huge);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ code: 'InvalidParameterValue', message: expect.stringContaining('over 10 MB') });
  });

  it('accepts a file of exactly 10 MB as far as size goes', async () => {
    // Padding after the JPEG's end marker: the decoder stops at the marker.
    const padded = Buffer.concat([blue, Buffer.alloc(MAX_UPLOAD_BYTES - blue.length)]);
    const response = await put('exactly-ten.jpg', padded);
    expect(response.statusCode).toBe(200);
  });

  it.each([
    ['bytes that are no image', () => Buffer.from('hello, this is not a picture'), 'image/jpeg', 'not a JPEG or PNG'],
    ['a truncated JPEG', () => blue.subarray(0, 200), 'image/jpeg', 'could not be decoded'],
    ['a PNG labelled as JPEG', () => greenPng, 'image/jpeg', 'is a PNG file but Content-Type says image/jpeg'],
    ['a GIF labelled as PNG', () => Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'image/png', 'not a JPEG or PNG'],
    ['an empty body', () => Buffer.alloc(0), 'image/jpeg', 'no body'],
    ['no body at all', () => undefined, 'image/jpeg', 'no body'],
    ['no body and no Content-Type', () => undefined, null, "'Content-Type'"],
    ['JSON', () => JSON.stringify({ image: 'x' }), 'application/json', "'Content-Type'"],
    ['plain text', () => 'picture', 'text/plain', "'Content-Type'"],
    ['WebP', () => Buffer.from('RIFF0000WEBPVP8 '), 'image/webp', "'Content-Type'"],
    ['bytes without a Content-Type', () => blue, null, "'Content-Type'"],
  ])('refuses %s with 400 InvalidParameterValue', async (_case, body, contentType, detail) => {
    const response = await put('bad.jpg', body(), contentType);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ code: 'InvalidParameterValue', message: expect.stringContaining(detail) });
  });

  it.each([
    ['starting with a dot', '.hidden.jpg'],
    ['with a space', 'my%20photo.jpg'],
    ['with an escaped slash', 'a%2Fb.jpg'],
    ['with non-ASCII', 'caf%C3%A9.jpg'],
    ['over 200 characters', 'x'.repeat(201)],
  ])('refuses a file-name %s', async (_case, name) => {
    const response = await put(name, blue);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ code: 'InvalidParameterValue', message: expect.stringContaining("'file-name'") });
  });

  it('accepts a file-name of 200 characters', async () => {
    expect((await put('y'.repeat(200), blue)).statusCode).toBe(200);
  });

  it('answers 403 without an API key, and stores nothing', async () => {
    const response = await put('anonymous.jpg', blue, 'image/jpeg', '');
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('AccountInactive');
    expect(await t.services.database.db.selectFrom('search_uploads').select('name').where('name', '=', 'anonymous.jpg').execute()).toEqual([]);
  });

  it('expires an upload 24 h after it arrived, and purges it on a later upload', async () => {
    const { url } = (await put('short-lived.jpg', red)).json();
    await expect(serviceAt(UPLOAD_LIFETIME_MS - 60_000).resolveImageUrl(keyOnly(t), url)).resolves.toHaveLength(118);

    const later = serviceAt(UPLOAD_LIFETIME_MS + 1000);
    const expired = await apiErrorOf(later.resolveImageUrl(keyOnly(t), url));
    expect(expired.statusCode).toBe(400);
    expect(expired.code).toBe('InvalidParameterValue');
    expect(expired.message).toContain('expired');

    // An upload made a day later clears every expired row and the blobs they alone held.
    const keysBefore = new Set(await blobKeys());
    await later.upload(keyOnly(t), 'next-day.png', { contentType: 'image/png', bytes: greenPng });
    const rows = await t.services.database.db.selectFrom('search_uploads').select(['name', 'client_id']).execute();
    expect(rows.map((row) => row.name)).toEqual(['next-day.png']);
    for (const key of keysBefore) {
      if (!(await blobKeys()).includes(key)) expect(await t.services.blobs.get(key)).toBeUndefined();
    }
    expect(await t.services.blobs.get((await blobKeys())[0]!)).toEqual(greenPng);
    const gone = await apiErrorOf(later.resolveImageUrl(keyOnly(t), url));
    expect(gone.message).toContain('no upload named');
  });

  it('re-uploading restarts the 24 h', async () => {
    const clock = { offset: 0 };
    const service = new UploadsService({
      repository: new UploadsRepository(t.services.database.db, t.services.database.dialect),
      blobs: t.services.blobs,
      publicUrl: t.services.config.publicUrl,
      quotas: generousQuotas,
      decodes: new DecodeSlots(2, 10),
      now: () => Date.now() + clock.offset,
    });
    const first = await service.upload(keyOnly(t), 'renewed.jpg', { contentType: 'image/jpeg', bytes: blue });
    clock.offset = 20 * 60 * 60 * 1000;
    const second = await service.upload(keyOnly(t), 'renewed.jpg', { contentType: 'image/jpeg', bytes: blue });
    expect(Date.parse(second.expires) - Date.parse(first.expires)).toBeGreaterThanOrEqual(20 * 60 * 60 * 1000);
    clock.offset = 30 * 60 * 60 * 1000;
    await expect(service.resolveImageUrl(keyOnly(t), second.url)).resolves.toHaveLength(118);
  });

  it('keeps a blob that a live upload shares with an expired one', async () => {
    const clock = { offset: 0 };
    const service = new UploadsService({
      repository: new UploadsRepository(t.services.database.db, t.services.database.dialect),
      blobs: t.services.blobs,
      publicUrl: t.services.config.publicUrl,
      quotas: generousQuotas,
      decodes: new DecodeSlots(2, 10),
      now: () => Date.now() + clock.offset,
    });
    clock.offset = 100 * 60 * 60 * 1000;
    await service.upload(keyOnly(t), 'old-copy.jpg', { contentType: 'image/jpeg', bytes: red });
    clock.offset = 110 * 60 * 60 * 1000;
    const { url } = await service.upload(keyOnly(t), 'new-copy.jpg', { contentType: 'image/jpeg', bytes: red });
    clock.offset = 125 * 60 * 60 * 1000; // old-copy expired, new-copy not
    await service.purgeExpired();
    const names = (await t.services.database.db.selectFrom('search_uploads').select('name').execute()).map((row) => row.name);
    expect(names).not.toContain('old-copy.jpg');
    expect(names).toContain('new-copy.jpg');
    const [key] = await blobKeys();
    expect(await t.services.blobs.get(key!)).toEqual(red);
    await expect(service.resolveImageUrl(keyOnly(t), url)).resolves.toHaveLength(118);
  });

  it('lets one holder of a blob key at a time write or release it', async () => {
    const repository = new UploadsRepository(t.services.database.db, t.services.database.dialect);
    const events: string[] = [];
    const hold = (label: string) =>
      repository.withBlobLock('search-uploads/lock-test', async () => {
        events.push(`${label} in`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        events.push(`${label} out`);
      });
    const failing = repository.withBlobLock('search-uploads/lock-test', async () => {
      throw new Error('a failed holder releases the lock too');
    });
    await Promise.all([hold('a'), failing.catch(() => undefined), hold('b')]);
    // The lock promises one holder at a time, not arrival order (PostgreSQL's advisory locks
    // are granted in any order), so each holder's in and out must be adjacent.
    expect([
      ['a in', 'a out', 'b in', 'b out'],
      ['b in', 'b out', 'a in', 'a out'],
    ]).toContainEqual(events);
  });

  describe('resolveImageUrl', () => {
    let uploadedUrl: string;
    beforeAll(async () => {
      uploadedUrl = (await put('target.jpg', blue)).json().url;
    });

    it('accepts the URL with a query string or fragment added', async () => {
      await expect(t.services.uploads.resolveImageUrl(keyOnly(t), `${uploadedUrl}?cache=1`)).resolves.toHaveLength(118);
      await expect(t.services.uploads.resolveImageUrl(keyOnly(t), `${uploadedUrl}#top`)).resolves.toHaveLength(118);
    });

    it.each([
      ['a foreign URL', 'http://example.com/x.jpg'],
      ['another host, same path', 'http://elsewhere.test/v3/search/by-image/uploads/target.jpg'],
      ['another scheme', 'https://stockroom.test/v3/search/by-image/uploads/target.jpg'],
      ['another port', 'http://stockroom.test:8080/v3/search/by-image/uploads/target.jpg'],
      ['another path on this server', `${PUBLIC_URL}/v3/images/target.jpg`],
      ['a deeper path', `${UPLOADS}/target.jpg/more`],
      ['a climbing path', `${UPLOADS}/../../images/target.jpg`],
      ['an empty name', `${UPLOADS}/`],
      ['a relative URL', '/v3/search/by-image/uploads/target.jpg'],
      ['no URL at all', 'target.jpg'],
      ['a file URL', 'file:///etc/passwd'],
      ['a very long URL', `${UPLOADS}/${'z'.repeat(3000)}`],
    ])('refuses %s without fetching it', async (_case, imageUrl) => {
      const error = await apiErrorOf(t.services.uploads.resolveImageUrl(keyOnly(t), imageUrl));
      expect(error.statusCode).toBe(400);
      expect(error.code).toBe('InvalidParameterValue');
      expect(error.message).toContain("'image_url'");
      expect(error.message).toContain('must be a URL returned by PUT /v3/search/by-image/uploads/{file-name}');
    });

    it('refuses a name nobody uploaded', async () => {
      const error = await apiErrorOf(t.services.uploads.resolveImageUrl(keyOnly(t), `${UPLOADS}/never-sent.jpg`));
      expect(error.message).toContain("no upload named 'never-sent.jpg' of this API key sent without a token");
    });
  });
});

describe('uploads under a public URL with a path', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: 'https://media.example.org/stock/' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('hands out and resolves URLs under that path', async () => {
    const response = await t.app.inject({
      method: 'PUT',
      url: '/v3/search/by-image/uploads/photo.jpg',
      headers: { 'api-key': t.apiKey, 'content-type': 'image/jpeg' },
      payload: await makeJpeg(64, 64),
    });
    expect(response.statusCode).toBe(200);
    const { url } = response.json();
    expect(url).toBe('https://media.example.org/stock/v3/search/by-image/uploads/photo.jpg');
    await expect(t.services.uploads.resolveImageUrl(keyOnly(t), url)).resolves.toHaveLength(118);
    const error = await apiErrorOf(t.services.uploads.resolveImageUrl(keyOnly(t), 'https://media.example.org/v3/search/by-image/uploads/photo.jpg'));
    expect(error.code).toBe('InvalidParameterValue');
  });
});
