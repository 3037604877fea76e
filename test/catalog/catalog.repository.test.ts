import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogConflictError, CatalogRepository } from '../../src/catalog/catalog.repository.js';
import type { AssetRecord, StoredKeyword } from '../../src/catalog/catalog.records.js';
import { KeywordMemo } from '../../src/catalog/keyword-details.js';
import { readChangesAfter } from '../../src/platform/db/change-log.js';
import { getOrCreateSetting } from '../../src/platform/db/settings.js';
import { fullImageFields } from '../helpers/catalog-fixtures.js';
import { STORES, openTestStore, type TestStore } from '../helpers/test-store.js';

const original = { key: 'originals/abc.jpg', media_type: 'image/jpeg', width: 1200, height: 800, dpi: 300, bytes: 123456 };

describe.each(STORES)('catalogue store on $name', ({ url }) => {
  let store: TestStore;
  let repository: CatalogRepository;

  beforeEach(async () => {
    store = await openTestStore(url);
    repository = new CatalogRepository(store.database);
  });
  afterEach(async () => {
    await store.drop();
  });

  it('stores every image_detail field and reads it back', async () => {
    const fields = fullImageFields('1001');
    await repository.upsertAsset({ asset_type: 'image', id: '1001', fields, original });
    const [record] = await repository.findAssets('image', ['1001']);
    expect(record).toBeDefined();
    const { keywords, max_dimensions, ...rest } = record!.fields;
    for (const [name, value] of Object.entries(fields)) {
      if (name === 'keywords') continue;
      expect(rest[name], name).toEqual(value);
    }
    expect(max_dimensions).toEqual({ width: 1200, height: 800 });
    expect(keywords).toEqual([
      { keyword_id: expect.any(String), text: 'harbour', type: 'Concept', relevance: 5, entity_uris: [], entity_types: [], translations: { de: 'Hafen', fr: 'port' } },
      { keyword_id: expect.any(String), text: 'boat', type: 'Object', relevance: 3, entity_uris: ['https://example.org/boat'], entity_types: ['thing'], translations: {} },
    ]);
    expect(record!.original).toEqual({ key: original.key, media_type: 'image/jpeg' });
  });

  it('keeps collections and artists as records shared by their assets', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: fullImageFields('1') });
    await repository.upsertAsset({ asset_type: 'image', id: '2', fields: { ...fullImageFields('2'), collection_id: undefined } });
    const collections = await repository.listCollections();
    expect(collections).toEqual([
      { id: 7, code: 'NWS', name: 'News Wire', asset_family: 'editorial', license_model: 'rightsmanaged', product_types: ['editorialsubscription', 'premiumaccess'] },
    ]);
    const artists = await store.database.db.selectFrom('artists').selectAll().execute();
    expect(artists.map((a) => a.name)).toEqual(['Ada Lens']);
    const records = await repository.findAssets('image', ['1', '2']);
    expect(records.map((r) => r.fields.collection_id)).toEqual([7, 7]);
  });

  it('gives one keyword one id across assets', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: { keywords: [{ text: 'boat' }] } });
    await repository.upsertAsset({ asset_type: 'image', id: '2', fields: { keywords: [{ text: 'boat' }, { text: 'sea' }] } });
    const [one, two] = await repository.findAssets('image', ['1', '2']).then((list) => list.sort((a, b) => a.id.localeCompare(b.id)));
    const idOf = (record: typeof one, text: string) =>
      (record!.fields.keywords as Array<{ keyword_id: string; text: string }>).find((k) => k.text === text)!.keyword_id;
    expect(idOf(one, 'boat')).toBe(idOf(two, 'boat'));
    expect(idOf(two, 'sea')).not.toBe(idOf(two, 'boat'));
  });

  it('replaces an asset on re-write, keywords and events included', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: fullImageFields('1') });
    const { operation } = await repository.upsertAsset({
      asset_type: 'image',
      id: '1',
      fields: { title: 'New title', keywords: [{ text: 'lighthouse' }], event_ids: [5] },
    });
    expect(operation).toBe('update');
    const [record] = await repository.findAssets('image', ['1']);
    expect(record!.fields.title).toBe('New title');
    expect((record!.fields.keywords as Array<{ text: string }>).map((k) => k.text)).toEqual(['lighthouse']);
    expect(record!.fields.event_ids).toEqual([5]);
    expect(record!.fields.caption).toBeNull();
  });

  it('numbers every change in a monotonic log: insert, update, delete', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'a' } });
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'b' } });
    await repository.upsertAsset({ asset_type: 'video', id: 'v1', fields: { title: 'c' } });
    await repository.upsertEvent({ id: 44, name: 'Harbour festival' });
    expect(await repository.deleteAsset('1')).toBe(true);
    const changes = await readChangesAfter(store.database.db, 0);
    expect(changes.map((c) => [c.entity_type, c.entity_id, c.operation])).toEqual([
      ['image', '1', 'insert'],
      ['image', '1', 'update'],
      ['video', 'v1', 'insert'],
      ['event', '44', 'insert'],
      ['image', '1', 'delete'],
    ]);
    const seqs = changes.map((c) => c.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await readChangesAfter(store.database.db, seqs[2]!)).toHaveLength(2);
  });

  it('writes nothing of a record that conflicts with the store', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: { collection_code: 'NWS', collection_id: 7 } });
    const before = await readChangesAfter(store.database.db, 0);
    await expect(
      repository.upsertAsset({ asset_type: 'image', id: '2', fields: { collection_code: 'NWS', collection_id: 8, keywords: [{ text: 'x' }] } }),
    ).rejects.toBeInstanceOf(CatalogConflictError);
    expect(await repository.findAssets('image', ['2'])).toEqual([]);
    expect(await readChangesAfter(store.database.db, 0)).toHaveLength(before.length);
    const keywords = await store.database.db.selectFrom('keywords').selectAll().execute();
    expect(keywords).toEqual([]);
  });

  it('refuses to turn an image id into a video', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: {} });
    await expect(repository.upsertAsset({ asset_type: 'video', id: '1', fields: {} })).rejects.toThrow(/is a image/);
  });

  it('counts the images and child events of an event', async () => {
    await repository.upsertEvent({ id: 10, name: 'Festival', start_date: '2024-06-01T00:00:00Z', editorial_segments: ['entertainment'], location: { city: 'Porto', venue: 'Park' } });
    await repository.upsertEvent({ id: 11, name: 'Day one', parent_id: 10 });
    await repository.upsertEvent({ id: 12, name: 'Day two', parent_id: 10 });
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: { event_ids: [10] } });
    await repository.upsertAsset({ asset_type: 'image', id: '2', fields: { event_ids: [10, 11] } });
    await repository.upsertAsset({ asset_type: 'video', id: 'v1', fields: { event_ids: [10] } });
    const [festival] = await repository.findEvents([10]);
    expect(festival).toMatchObject({
      id: 10,
      name: 'Festival',
      child_event_count: 2,
      image_count: 2,
      editorial_segments: ['entertainment'],
      location: { city: 'Porto', venue: 'Park', country: null, state_province: null },
    });
  });

  it('refuses a keyword id that names another keyword, and changes only what a record states', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: { keywords: [{ keyword_id: 5, text: 'scenics', type: 'Concept', translations: { de: 'Landschaft' } }] } });
    await expect(
      repository.upsertAsset({ asset_type: 'image', id: '2', fields: { keywords: [{ keyword_id: 5, text: 'other' }] } }),
    ).rejects.toBeInstanceOf(CatalogConflictError);
    // A bare mention keeps the type and translations.
    await repository.upsertAsset({ asset_type: 'image', id: '3', fields: { keywords: [{ keyword_id: 5, text: 'scenics' }] } });
    const [record] = await repository.findAssets('image', ['1']);
    expect(record!.fields.keywords).toMatchObject([{ keyword_id: '5', text: 'scenics', type: 'Concept', translations: { de: 'Landschaft' } }]);
  });

  it('logs a change to a shared keyword', async () => {
    await repository.upsertAsset({ asset_type: 'image', id: '1', fields: { keywords: [{ text: 'nature', type: 'Concept', translations: { de: 'Natur' } }] } });
    const quiet = await repository.upsertAsset({ asset_type: 'image', id: '2', fields: { keywords: [{ text: 'nature', type: 'Concept' }] } });
    expect(quiet.keywordsChanged).toBe(false);
    const loud = await repository.upsertAsset({ asset_type: 'image', id: '3', fields: { keywords: [{ text: 'nature', type: 'Concept', translations: { de: 'Die Natur' } }] } });
    expect(loud.keywordsChanged).toBe(true);
    const changes = await readChangesAfter(store.database.db, 0);
    expect(changes.filter((c) => c.entity_type === 'keyword').map((c) => c.operation)).toEqual(['update']);
  });

  it('lets concurrent writers create collections and keywords without colliding', async () => {
    const writers = Array.from({ length: 8 }, (_, i) =>
      repository.upsertAsset({
        asset_type: 'image',
        id: `c${i}`,
        fields: { collection_code: `C${i}`, collection_name: `Collection ${i}`, keywords: [{ text: `kw${i}` }, { text: 'shared' }] },
      }),
    );
    await Promise.all(writers);
    expect(await repository.listCollections()).toHaveLength(8);
    const keywords = await store.database.db.selectFrom('keywords').selectAll().execute();
    expect(keywords).toHaveLength(9);
  });

  it('scans every asset and event a page at a time, in id order', async () => {
    for (const id of ['b', 'a', 'd', 'c', 'e']) {
      await repository.upsertAsset({ asset_type: id === 'c' ? 'video' : 'image', id, fields: { title: id, keywords: [{ text: `k${id}` }] } });
    }
    for (const id of [3, 1, 2]) await repository.upsertEvent({ id, name: `event ${id}` });
    const first = await repository.scanAssets(null, 2);
    const rest = await repository.scanAssets(first[1]!.id, 10);
    expect([...first, ...rest].map((r) => [r.id, r.asset_type])).toEqual([
      ['a', 'image'],
      ['b', 'image'],
      ['c', 'video'],
      ['d', 'image'],
      ['e', 'image'],
    ]);
    expect((rest[0]!.fields.keywords as Array<{ text: string }>)[0]!.text).toBe('kc');
    expect((await repository.scanEvents(1, 10)).map((e) => e.id)).toEqual([2, 3]);
  });

  it('a scan keeps one memo of keywords across its pages, and reads the same records when the memo must forget between pages', async () => {
    const keywordsOf = (n: number) => [
      { text: 'shared', type: 'Concept', translations: { de: 'geteilt' }, relevance: n % 3 },
      { text: `own ${n}`, type: 'Object', entity_uris: [`https://example.org/${n}`], entity_types: ['thing'] },
      { text: `pair ${n >> 1}` },
    ];
    const ids = Array.from({ length: 9 }, (_, n) => `a${n}`);
    for (const [n, id] of ids.entries()) await repository.upsertAsset({ asset_type: 'image', id, fields: { title: id, keywords: keywordsOf(n) } });
    const one = (await repository.findAssets('image', ids)).sort((a, b) => a.id.localeCompare(b.id));
    const scan = async (memo: KeywordMemo, pageSize: number) => {
      const records: AssetRecord[] = [];
      for (let page = await repository.scanAssets(null, pageSize, memo); page.length > 0; page = await repository.scanAssets(page.at(-1)!.id, pageSize, memo)) {
        records.push(...page);
      }
      return records;
    };
    // room for all of them; then room for fewer than a page needs, so the memo forgets between pages
    for (const [capacity, pageSize] of [[1000, 2], [4, 3], [1, 1]] as const) {
      const memo = new KeywordMemo(capacity);
      expect(await scan(memo, pageSize), `capacity ${capacity}, pages of ${pageSize}`).toEqual(one);
    }
    const shared = (record: AssetRecord) => (record.fields.keywords as StoredKeyword[])[0]!;
    expect(shared(one[0]!)).toEqual({ keyword_id: expect.any(String), text: 'shared', type: 'Concept', relevance: 0, entity_uris: [], entity_types: [], translations: { de: 'geteilt' } });
    expect(shared(one[1]!).relevance).toBe(1);
  });

  it('a scan reads each keyword link as a read of the asset does: in order, a draft between published assets, no relevance, a fractional relevance', async () => {
    const ids = ['k1', 'k2', 'k3', 'k4'];
    for (const [n, id] of ids.entries()) {
      await repository.upsertAsset({
        asset_type: 'image',
        id,
        fields: { title: id, keywords: [{ text: `z ${n}`, relevance: 7 }, { text: 'shared' }, { text: `a ${n}`, relevance: n }] },
        publication: id === 'k2' ? 'draft' : 'published',
      });
    }
    const scanned = async (pageSize: number) => {
      const records: AssetRecord[] = [];
      for (let page = await repository.scanAssets(null, pageSize); page.length > 0; page = await repository.scanAssets(page.at(-1)!.id, pageSize)) records.push(...page);
      return records;
    };
    const one = await repository.findAssets('image', ids);
    expect(one.map((r) => r.id)).toEqual(['k1', 'k3', 'k4']);
    expect((one[0]!.fields.keywords as StoredKeyword[]).map((k) => [k.text, k.relevance])).toEqual([['z 0', 7], ['shared', null], ['a 0', 0]]);
    for (const pageSize of [1, 2, 10]) expect(await scanned(pageSize), `pages of ${pageSize}`).toEqual(one);
    if (store.database.dialect === 'sqlite') {
      // SQLite keeps a fraction written to its integer column as a real: the scan, which reads the links as text, reads it exactly too
      await store.database.db.updateTable('asset_keywords').set({ relevance: 0.1 + 0.2 }).where('asset_id', '=', 'k3').where('relevance', '=', 7).execute();
      const again = await repository.findAssets('image', ids);
      expect((again[1]!.fields.keywords as StoredKeyword[])[0]!.relevance).toBe(0.1 + 0.2);
      for (const pageSize of [1, 2, 10]) expect(await scanned(pageSize), `pages of ${pageSize}, a fraction`).toEqual(again);
    }
  });

  it('creates a setting once and returns the same value to every caller', async () => {
    const first = await getOrCreateSetting(store.database.db, 'k', () => 'one');
    const second = await getOrCreateSetting(store.database.db, 'k', () => 'two');
    expect([first, second]).toEqual(['one', 'one']);
  });
});
