import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { drawDemoEps } from '../../src/media/draw-demo-eps.js';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { creativeImageFields, insertUser, ledgerOf } from './licensing-fixtures.js';

/*
 * An image's EPS original from end to end: ingest stores it (eps_file), search finds it with
 * file_types=eps, the image's download_sizes list it as `vector` with its own download link,
 * and POST /v3/downloads/images/{id}?file_type=eps delivers exactly its bytes as
 * application/postscript, paid like any download. Without an EPS, file_type=eps is refused
 * before any payment.
 */

describe.each(STORES)('EPS originals, on $name', ({ url }) => {
  let t: TestApp;
  let eps: Buffer;
  const { max_dimensions: _size, download_sizes: _sizes, ...fields } = creativeImageFields();

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url });
    const ingest = new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs });
    const jpeg = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#2a6' } }).jpeg().toBuffer();
    eps = drawDemoEps({ seed: 3, width: 800, height: 600, title: 'Compass rose', palette: ['#fff', '#036', '#c30'] });
    await ingest.ingestRecord({ asset_type: 'image', id: 'vec', file: 'rose.jpg', eps_file: 'rose.eps', ...fields, title: 'Compass rose', graphical_style: 'Vector' }, jpeg, eps);
    await ingest.ingestRecord({ asset_type: 'image', id: 'plain', file: 'plain.jpg', ...fields, title: 'Compass photograph' }, jpeg);
    await t.services.search.build();
  });
  afterAll(async () => {
    await t.close();
  });

  async function customerToken() {
    const userId = await insertUser(t.services.database.db);
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 });
    return { userId, token };
  }
  const call = (method: 'GET' | 'POST', target: string, token?: string) =>
    t.app.inject({ method, url: target, headers: { 'api-key': t.apiKey, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

  it('search finds the image with an EPS by file_types=eps, and only it', async () => {
    const body = (await call('GET', '/v3/search/images?phrase=compass&file_types=eps&fields=id')).json();
    expect(body.images.map((image: { id: string }) => image.id)).toEqual(['vec']);
    expect((await call('GET', '/v3/search/images?phrase=compass&fields=id')).json().result_count).toBe(2);
  });

  it('lists the EPS as the download size `vector` (application/postscript), its link asking for file_type=eps', async () => {
    const { userId, token } = await customerToken();
    await t.services.products.grant({ userId, type: 'creditpack', credits: 5 });
    const [image] = (await call('GET', '/v3/images?ids=vec&fields=downloads,largest_downloads', token)).json().images;
    const vector = image.download_sizes.find((size: { name: string }) => size.name === 'vector');
    expect(vector).toMatchObject({ media_type: 'application/postscript', width: 800, height: 600, bytes: eps.length });
    expect(vector.downloads).toEqual([expect.objectContaining({ product_type: 'creditpack', uri: expect.stringMatching(/\/v3\/downloads\/images\/vec\?file_type=eps&product_id=\d+&product_type=creditpack$/) })]);
    // The largest download is the largest picture, not the EPS.
    expect(image.largest_downloads).toEqual([expect.objectContaining({ width: 1600, height: 1200, media_type: 'image/jpeg' })]);
    const [plain] = (await call('GET', '/v3/images?ids=plain&fields=download_sizes', token)).json().images;
    expect(plain.download_sizes.map((size: { name: string }) => size.name)).not.toContain('vector');
  });

  it('delivers the EPS file itself with file_type=eps, charged like any download', async () => {
    const { userId, token } = await customerToken();
    const pack = await t.services.products.grant({ userId, type: 'creditpack', credits: 5 });
    const response = await call('POST', '/v3/downloads/images/vec?file_type=eps&auto_download=false', token);
    expect(response.statusCode, response.body).toBe(200);
    const uri = new URL(response.json().uri);
    expect(uri.pathname).toMatch(/\/stockroom-vec-vector\.eps$/);
    const file = await t.app.inject({ method: 'GET', url: `${uri.pathname}${uri.search}` });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/postscript');
    expect(file.headers['content-disposition']).toBe('attachment; filename="stockroom-vec-vector.eps"');
    expect(file.rawPayload).toEqual(eps);
    expect((await ledgerOf(t.services.database.db, { productId: pack.id })).debits.map((row) => row.amount)).toEqual([-1]);
    const history = (await call('GET', '/v3/downloads', token)).json();
    expect(history.downloads[0]).toMatchObject({ id: 'vec', size_name: 'vector', dimensions: { width: 800, height: 600 } });
    // A JPEG of the same image is another size, and it is already licensed under the pack: free again.
    const jpeg = await call('POST', '/v3/downloads/images/vec?auto_download=false', token);
    expect(new URL(jpeg.json().uri).pathname).toMatch(/\/stockroom-vec-1600x1200\.jpg$/);
  });

  it('refuses file_type=eps on an image without an EPS (400 FileTypeNotAvailable) and with a height, before any payment', async () => {
    const { userId, token } = await customerToken();
    const pack = await t.services.products.grant({ userId, type: 'creditpack', credits: 5 });
    const missing = await call('POST', '/v3/downloads/images/plain?file_type=eps', token);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'FileTypeNotAvailable', message: expect.stringContaining('image plain has no EPS file') });
    const sized = await call('POST', '/v3/downloads/images/vec?file_type=eps&height=1200', token);
    expect(sized.statusCode).toBe(400);
    expect(sized.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining('height') });
    expect((await ledgerOf(t.services.database.db, { productId: pack.id })).debits).toEqual([]);
  });

  it('licenses the EPS only under a product that licenses the largest picture (a vector scales to any size)', async () => {
    const { userId, token } = await customerToken();
    await t.services.products.grant({ userId, type: 'imagepack', downloads: 5, imagepackResolution: 'small' });
    const response = await call('POST', '/v3/downloads/images/vec?file_type=eps&product_type=imagepack', token);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'UnauthorizedDownloadSize' });
    expect((await call('POST', '/v3/downloads/images/vec?product_type=imagepack&auto_download=false', token)).statusCode).toBe(200);
  });
});
