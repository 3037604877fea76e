import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseManifestLine } from '../../src/catalog/ingest/ingest.schemas.js';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { insertUser } from '../licensing/licensing-fixtures.js';

/*
 * The catalogue's life cycle through the editing service, seen from outside: a draft is nothing
 * a client can find, read, license or be told of; publishing shows it everywhere, an edit while
 * published is an Update, a withdrawal takes it out of search, boards and downloads (the feed
 * says Delete), and bringing it back announces it New. Edits are ingest's, refusals and all.
 */

const CREATIVE = { asset_family: 'creative', license_model: 'royaltyfree', product_types: ['creditpack', 'premiumaccess'] };

describe.each(STORES)('catalogue editing on $name', ({ url }) => {
  let t: TestApp;

  beforeEach(async () => {
    t = await createTestApp({ databaseUrl: url, env: { STOCKROOM_SEARCH_SNAPSHOT: 'false' } });
  });
  afterEach(async () => {
    await t.close();
  });

  const get = (target: string, token?: string) =>
    t.app.inject({ method: 'GET', url: target, headers: { 'api-key': t.apiKey, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  const found = async (phrase: string) => {
    await t.services.changeFeed.poll();
    await t.services.search.settled();
    return ((await get(`/v3/search/images?phrase=${encodeURIComponent(phrase)}&fields=id`)).json().images as Array<{ id: string }>).map((image) => image.id);
  };
  async function draft(id: string, title: string, fields: Record<string, unknown> = CREATIVE) {
    await t.services.ingest.applyRecord({ asset_type: 'image', id, file: `${id}.jpg`, title, ...fields }, await makeJpeg(640, 480), { publication: 'draft' });
  }
  async function customer() {
    const userId = await insertUser(t.services.database.db);
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 });
    await t.services.products.grant({ userId, type: 'creditpack', credits: 10 });
    return { userId, token };
  }

  it('rule: a draft is found, read, licensed and announced nowhere; publishing shows it; its state comes with it to the editor', async () => {
    await t.services.search.build();
    const channel = await t.services.assetChanges.createChannel({ clientId: t.clientId, assetFamily: 'both', assetType: 'image' });
    await draft('d1', 'Quokka on a jetty');
    const { token } = await customer();

    expect(await found('quokka')).toEqual([]);
    expect((await get('/v3/images/d1')).json().code).toBe('ImageNotFound');
    const refused = await t.app.inject({ method: 'POST', url: '/v3/downloads/images/d1?auto_download=false', headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}` } });
    expect([refused.statusCode, refused.json().code]).toEqual([404, 'ImageNotFound']);
    expect(refused.json().message).not.toMatch(/withdrawn/);
    expect(await t.services.catalog.findOriginal('d1')).toBeUndefined();
    expect(await t.services.assetChanges.handOut(t.clientId, channel.id, 100)).toBeUndefined();
    const queue = await t.services.catalogEditing.list({ publication: 'draft', page: 1, pageSize: 50 });
    expect(queue.assets.map((asset) => [asset.id, asset.publication, asset.fields.title])).toEqual([['d1', 'draft', 'Quokka on a jetty']]);
    expect((await t.services.catalogEditing.read('d1')).asset.original).not.toBeNull();

    expect(await t.services.catalogEditing.publish(['d1', 'nobody'])).toEqual([
      { id: 'd1', asset_type: 'image', before: 'draft', after: 'published', changed: true },
      { id: 'nobody', asset_type: undefined, before: undefined, after: undefined, changed: false, refusal: "asset 'nobody' does not exist" },
    ]);
    expect(await found('quokka')).toEqual(['d1']);
    expect((await get('/v3/images/d1?fields=id,title')).json().images[0]).toEqual({ id: 'd1', title: 'Quokka on a jetty' });
    const set = await t.services.assetChanges.handOut(t.clientId, channel.id, 100);
    expect(set!.changed_assets.map((notice) => [notice.id, notice.asset_lifecycle])).toEqual([['d1', 'New']]);
  });

  it('rule: an edit is ingest’s: the same messages, each under its field, and nothing stored of a refused edit', async () => {
    await draft('d2', 'Harbour');
    const bad = { caption: 42, product_types: ['lightbox'], date_created: '2024-02-30', titel: 'x' };
    const result = await t.services.catalogEditing.update('d2', bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const fields = result.problems.map((problem) => problem.field).sort();
    expect(fields).toEqual(['caption', 'date_created', 'product_types', 'titel']);
    // The messages are the manifest's own, word for word.
    const line = parseManifestLine({ asset_type: 'image', id: 'd2', ...bad });
    expect(line.ok).toBe(false);
    for (const problem of result.problems.slice(0, 3)) expect(line.ok ? '' : line.reason).toContain(problem.message);
    expect(result.problems.find((problem) => problem.field === 'titel')!.message).toMatch(/unknown field 'titel' \(did you mean 'title'\?\)/);
    expect((await t.services.catalogEditing.read('d2')).asset.fields.caption).toBeNull();
    // The identity is not a field to edit; a rule ingest applies beyond the schema is filed under its field.
    const identity = await t.services.catalogEditing.update('d2', { id: 'other' });
    expect(identity).toEqual({ ok: false, problems: [{ field: 'id', message: "id is the asset's identity and cannot be edited" }] });
    const derived = await t.services.catalogEditing.update('d2', { max_dimensions: { width: 10, height: 10 } });
    expect(derived.ok ? [] : derived.problems.map((problem) => problem.field)).toEqual(['max_dimensions']);
    await expect(t.services.catalogEditing.read('nobody')).rejects.toMatchObject({ statusCode: 404, code: 'AssetNotFound' });
  });

  it('rule: an edit while published is an Update; withdraw takes it out of search, boards and downloads (Delete); bring back is New', async () => {
    await t.services.search.build();
    const channel = await t.services.assetChanges.createChannel({ clientId: t.clientId, assetFamily: 'both', assetType: 'image' });
    await draft('p1', 'Lighthouse at dusk');
    await t.services.catalogEditing.publish(['p1']);
    const { userId, token } = await customer();
    const download = () => t.app.inject({ method: 'POST', url: '/v3/downloads/images/p1?auto_download=false', headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}` } });
    expect((await download()).statusCode).toBe(200);
    const board = await t.services.boards.create(userId, { name: 'Coast' });
    await t.services.boards.addAsset(userId, board.id, 'p1');

    const edited = await t.services.catalogEditing.update('p1', { title: 'Lighthouse in a storm', keywords: ['lighthouse', 'storm'] });
    expect(edited.ok && edited.changes.map((change) => change.field).sort()).toEqual(['keywords', 'title']);
    expect(edited.ok && edited.changes.find((change) => change.field === 'title')).toEqual({ field: 'title', from: 'Lighthouse at dusk', to: 'Lighthouse in a storm' });
    expect(await found('storm')).toEqual(['p1']);
    expect(await found('dusk')).toEqual([]);

    expect((await t.services.catalogEditing.withdraw(['p1']))[0]).toMatchObject({ before: 'published', after: 'withdrawn', changed: true });
    expect(await found('storm')).toEqual([]);
    expect((await get('/v3/images/p1')).statusCode).toBe(404);
    // Licensed before the withdrawal: the licence stands, the file is no longer delivered, and the refusal says why.
    const again = await download();
    expect([again.statusCode, again.json().code]).toEqual([404, 'ImageNotFound']);
    expect(again.json().message).toMatch(/^Image p1 was withdrawn from the catalogue/);
    // Boards drop it as they follow the change feed, on their own time: waited for, up to two seconds.
    for (let tries = 0; tries < 40 && (await t.services.boards.get(userId, board.id)).assets.length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await t.services.boards.get(userId, board.id)).assets).toEqual([]);
    // A royalty statement still knows the asset it sold.
    expect(await t.services.catalog.assetTypesOf(['p1'], { includeWithdrawn: true })).toEqual(new Map([['p1', 'image']]));

    // Withdrawn twice: nothing moves, and it says why not.
    expect((await t.services.catalogEditing.publish(['p1']))[0]).toMatchObject({ changed: false, refusal: "asset 'p1' is withdrawn; only draft assets can be published" });
    expect((await t.services.catalogEditing.restore(['p1']))[0]).toMatchObject({ before: 'withdrawn', after: 'published', changed: true });
    expect(await found('storm')).toEqual(['p1']);
    expect((await download()).statusCode).toBe(200);

    const notices = (await t.services.assetChanges.handOut(t.clientId, channel.id, 100))!.changed_assets.map((notice) => notice.asset_lifecycle);
    expect(notices).toEqual(['Delete', 'New']);
  });

  it('edits a selection: a field set on each, keywords added and removed, each asset all or nothing with its own result', async () => {
    await draft('b1', 'One', { ...CREATIVE, keywords: ['sea', 'boat'] });
    await draft('b2', 'Two', { asset_family: 'editorial', license_model: 'rightsmanaged', keywords: ['Sea'] });
    const added = await t.services.catalogEditing.updateMany(['b1', 'b2', 'b1'], { kind: 'add_keywords', keywords: ['harbour', 'Boat'] });
    expect(added.map((result) => [result.id, result.ok])).toEqual([['b1', true], ['b2', true]]);
    const keywords = async (id: string) => ((await t.services.catalogEditing.read(id)).asset.fields.keywords as Array<{ text: string }>).map((k) => k.text);
    expect(await keywords('b1')).toEqual(['sea', 'boat', 'harbour']);
    expect(await keywords('b2')).toEqual(['Sea', 'harbour', 'Boat']);
    await t.services.catalogEditing.updateMany(['b1', 'b2'], { kind: 'remove_keywords', keywords: ['SEA'] });
    expect(await keywords('b2')).toEqual(['harbour', 'Boat']);

    const set = await t.services.catalogEditing.updateMany(['b1', 'b2', 'ghost'], { kind: 'set', field: 'product_types', value: ['creditpack'] });
    expect(set.map((result) => [result.id, result.ok])).toEqual([['b1', true], ['b2', true], ['ghost', false]]);
    // Stored, as ingest stores it, with ingest's warning beside the field: a credit pack never licenses an editorial picture.
    const b2 = set[1]!;
    expect(b2.ok && b2.warnings).toEqual([{ field: 'product_types', message: expect.stringMatching(/^asset 'b2' lists product type creditpack, which can never license it: creditpack licenses creative assets only/) }]);
    const refused = await t.services.catalogEditing.updateMany(['b1'], { kind: 'set', field: 'license_model', value: 'rightsready' });
    expect(refused[0]).toMatchObject({ ok: false, problems: [{ field: 'license_model' }] });
    expect((await t.services.catalogEditing.read('b1')).asset.fields.license_model).toBe('royaltyfree');
  });

  it('replaces the file: what derives from it is made again, the fields stay, the state stays', async () => {
    await draft('f1', 'Field');
    const before = (await t.services.catalogEditing.read('f1')).asset;
    const result = await t.services.catalogEditing.update('f1', {}, { name: 'wider.jpg', data: await makeJpeg(1200, 400, '#a33') });
    expect(result.ok).toBe(true);
    const after = (await t.services.catalogEditing.read('f1')).asset;
    expect(after.original!.key).not.toBe(before.original!.key);
    expect(after.fields.max_dimensions).toEqual({ width: 1200, height: 400 });
    expect([after.fields.title, after.publication]).toEqual(['Field', 'draft']);
    const unreadable = await t.services.catalogEditing.update('f1', {}, { name: 'broken.jpg', data: Buffer.from('not a picture') });
    expect(unreadable.ok ? [] : unreadable.problems.map((problem) => problem.field)).toEqual(['file']);
    expect((await t.services.catalogEditing.read('f1')).asset.original!.key).toBe(after.original!.key);
  });
});
