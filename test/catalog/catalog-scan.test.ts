import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import { STORES, openTestStore, type TestStore } from '../helpers/test-store.js';

describe.each(STORES)('a scan of the whole catalogue on $name', ({ url }) => {
  let store: TestStore;
  let catalog: CatalogService;

  beforeEach(async () => {
    store = await openTestStore(url);
    catalog = new CatalogService(new CatalogRepository(store.database.db, store.database.dialect), { displaySizes: () => [] });
    for (const id of ['e', 'c', 'a', 'd', 'b']) {
      await catalog.upsertAsset({ asset_type: 'image', id, fields: { title: `title ${id}`, keywords: [{ text: 'shared' }, { text: `own ${id}` }] } });
    }
  });
  afterEach(async () => {
    await store.drop();
  });

  it('hands over every published asset once, in id order, a page at a time, while the next page is read ahead', async () => {
    const pages: string[][] = [];
    for await (const page of catalog.scanAssets(2)) pages.push(page.map((record) => record.id));
    expect(pages).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('a caller that stops after the first page and closes the store leaves no failure behind from the page read ahead', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for await (const page of catalog.scanAssets(2)) {
        expect(page.map((record) => record.id)).toEqual(['a', 'b']);
        await store.database.close();
        break;
      }
      // the read ahead settles (or fails on the closed store) within a few turns of the loop
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
