import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogRepository, visibleOperation } from '../../src/catalog/catalog.repository.js';
import { readChangesAfter } from '../../src/platform/db/change-log.js';
import { STORES, openTestStore, type TestStore } from '../helpers/test-store.js';

const original = { key: 'originals/abc.jpg', media_type: 'image/jpeg', width: 1200, height: 800, dpi: 300, bytes: 123456 };

/*
 * The publication state at the catalogue's read boundary: every read a client's answer is made
 * from sees published assets only, and the change log says what a client sees change.
 */
describe.each(STORES)('asset publication on $name', ({ url }) => {
  let store: TestStore;
  let repository: CatalogRepository;
  const log = async () => (await readChangesAfter(store.database.db, 0)).map((c) => [c.entity_type, c.entity_id, c.operation, c.asset_family]);

  beforeEach(async () => {
    store = await openTestStore(url);
    repository = new CatalogRepository(store.database);
  });
  afterEach(async () => {
    await store.drop();
  });

  it('publishes a new asset unless told otherwise, and keeps a stored asset in its state on a rewrite', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: 'p1', fields: { title: 'published' } });
    await repository.upsertAsset({ asset_type: 'image', id: 'd1', fields: { title: 'draft' }, publication: 'draft' });
    await repository.upsertAsset({ asset_type: 'image', id: 'd1', fields: { title: 'draft, edited' } });
    const states = await repository.findAssetsInAnyState(undefined, ['p1', 'd1']);
    expect(Object.fromEntries(states.map((r) => [r.id, [r.publication, r.fields.title]]))).toEqual({
      p1: ['published', 'published'],
      d1: ['draft', 'draft, edited'],
    });
    // The draft and its edit are nothing a client sees: no entry.
    expect(await log()).toEqual([['image', 'p1', 'insert', null]]);
  });

  it('shows a draft and a withdrawn asset to no client read: records, scan, types, original, downloads, event counts', async () => {
    await repository.upsertEvent({ id: 10, name: 'Festival' });
    for (const [id, publication] of [['p', 'published'], ['d', 'draft'], ['w', 'published']] as const) {
      await repository.upsertAsset({ asset_type: 'image', id, fields: { title: id, event_ids: [10] }, original: { ...original, key: `originals/${id}.jpg` }, publication });
    }
    const change = await repository.changePublication('w', 'withdrawn', ['published']);
    expect(change).toEqual({ asset_type: 'image', before: 'published', changed: true });

    expect((await repository.findAssets('image', ['p', 'd', 'w'])).map((r) => r.id)).toEqual(['p']);
    expect((await repository.scanAssets(null, 100)).map((r) => r.id)).toEqual(['p']);
    expect((await repository.assetTypes(['p', 'd', 'w'])).map((r) => r.id)).toEqual(['p']);
    expect((await repository.assetTypes(['p', 'd', 'w'], ['published', 'withdrawn'])).map((r) => r.id).sort()).toEqual(['p', 'w']);
    expect(await repository.findOriginalKey('d')).toBeUndefined();
    expect(await repository.findOriginalKey('w')).toBeUndefined();
    expect(await repository.findOriginalKey('p')).toBe('originals/p.jpg');
    expect(await repository.findOriginalKeyInAnyState('d')).toBe('originals/d.jpg');
    expect(await repository.countDownload('image', 'w')).toBe(false);
    expect(await repository.countDownload('image', 'd')).toBe(false);
    expect(await repository.countDownload('image', 'p')).toBe(true);
    expect((await repository.findEvents([10]))[0]!.image_count).toBe(1);
    // The store is not empty for all that (a first start seeds only an empty store).
    expect(await repository.countAssets()).toBe(3);
  });

  it('logs publish as insert, an edit while published as update, withdraw as delete (with the family it had), restore as insert', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: 'a', fields: { asset_family: 'editorial' }, publication: 'draft' });
    expect(await repository.changePublication('a', 'published', ['draft'])).toMatchObject({ changed: true, before: 'draft' });
    await repository.upsertAsset({ asset_type: 'image', id: 'a', fields: { asset_family: 'editorial', title: 'edited' } });
    expect(await repository.changePublication('a', 'withdrawn', ['published', 'draft'])).toMatchObject({ changed: true, before: 'published' });
    // Edited while withdrawn: nothing a client sees.
    await repository.upsertAsset({ asset_type: 'image', id: 'a', fields: { asset_family: 'creative', title: 'fixed' } });
    expect(await repository.changePublication('a', 'published', ['withdrawn'])).toMatchObject({ changed: true, before: 'withdrawn' });
    expect(await log()).toEqual([
      ['image', 'a', 'insert', 'editorial'],
      ['image', 'a', 'update', 'editorial'],
      ['image', 'a', 'delete', 'editorial'],
      ['image', 'a', 'insert', 'creative'],
    ]);
  });

  it('changes nothing when the asset is not in a state it may change from, or already there', async () => {
    await repository.upsertAsset({ asset_type: 'video', id: 'v', fields: {}, publication: 'draft' });
    expect(await repository.changePublication('v', 'published', ['withdrawn'])).toEqual({ asset_type: 'video', before: 'draft', changed: false });
    expect(await repository.changePublication('v', 'draft', ['draft'])).toEqual({ asset_type: 'video', before: 'draft', changed: false });
    expect(await repository.changePublication('nobody', 'published', ['draft'])).toBeUndefined();
    expect((await repository.findAssetsInAnyState('video', ['v']))[0]!.publication).toBe('draft');
    expect(await log()).toEqual([]);
  });

  it('withdraws through a rewrite too, and a draft rejected (withdrawn) was never announced', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: 'r', fields: {}, publication: 'draft' });
    await repository.changePublication('r', 'withdrawn', ['draft', 'published']);
    await repository.upsertAsset({ asset_type: 'image', id: 'p', fields: { asset_family: 'creative' } });
    await repository.upsertAsset({ asset_type: 'image', id: 'p', fields: { asset_family: 'creative' }, publication: 'withdrawn' });
    expect(await log()).toEqual([
      ['image', 'p', 'insert', 'creative'],
      ['image', 'p', 'delete', 'creative'],
    ]);
  });

  it('media facts of a draft are stored without an entry; of a published asset, with one', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: 'd', fields: {}, original, publication: 'draft' });
    const facts = { version: 1, colors: [], color_type: 'color' as const, black_and_white: false } as never;
    expect(await repository.saveMediaFacts('d', original.key, facts)).toBe(true);
    expect(await log()).toEqual([]);
    await repository.changePublication('d', 'published', ['draft']);
    expect(await repository.saveMediaFacts('d', original.key, facts)).toBe(true);
    expect((await log()).map((entry) => entry[2])).toEqual(['insert', 'update']);
  });

  it('lists one state a page at a time in id order, by id or words of the title', async () => {
    for (let n = 1; n <= 5; n++) {
      await repository.upsertAsset({ asset_type: n === 5 ? 'video' : 'image', id: `d${n}`, fields: { title: n % 2 ? 'Harbour at 50% dusk' : 'Mountain' }, publication: 'draft' });
    }
    await repository.upsertAsset({ asset_type: 'image', id: 'p1', fields: { title: 'Harbour' } });
    const page = await repository.listInState({ publication: 'draft', offset: 1, limit: 2 });
    expect(page.total).toBe(5);
    expect(page.records.map((r) => r.id)).toEqual(['d2', 'd3']);
    expect(page.records.every((r) => r.publication === 'draft')).toBe(true);
    expect((await repository.listInState({ publication: 'draft', text: 'harbour', offset: 0, limit: 10 })).records.map((r) => r.id)).toEqual(['d1', 'd3', 'd5']);
    expect((await repository.listInState({ publication: 'draft', text: '50%', offset: 0, limit: 10 })).total).toBe(3);
    expect((await repository.listInState({ publication: 'draft', text: '0_', offset: 0, limit: 10 })).total).toBe(0);
    expect((await repository.listInState({ publication: 'draft', text: 'd4', offset: 0, limit: 10 })).records.map((r) => r.id)).toEqual(['d4']);
    expect((await repository.listInState({ publication: 'draft', assetType: 'video', offset: 0, limit: 10 })).records.map((r) => r.id)).toEqual(['d5']);
    expect((await repository.listInState({ publication: 'published', offset: 0, limit: 10 })).records.map((r) => r.id)).toEqual(['p1']);
  });
});

describe('what a client sees change', () => {
  it('is the passage into, within and out of published', () => {
    expect(visibleOperation(undefined, 'published')).toBe('insert');
    expect(visibleOperation('draft', 'published')).toBe('insert');
    expect(visibleOperation('withdrawn', 'published')).toBe('insert');
    expect(visibleOperation('published', 'published')).toBe('update');
    expect(visibleOperation('published', 'withdrawn')).toBe('delete');
    expect(visibleOperation('published', 'draft')).toBe('delete');
    expect(visibleOperation(undefined, 'draft')).toBeUndefined();
    expect(visibleOperation('draft', 'draft')).toBeUndefined();
    expect(visibleOperation('draft', 'withdrawn')).toBeUndefined();
  });
});
