import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import { STORES, openTestStore, type TestStore } from '../helpers/test-store.js';

describe.each(STORES)('a scan of the whole catalogue on $name', ({ url }) => {
  let store: TestStore;
  let catalog: CatalogService;

  beforeEach(async () => {
    store = await openTestStore(url);
    catalog = new CatalogService(new CatalogRepository(store.database), { displaySizes: () => [] });
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

  it("gives each asset's keywords in their own order, as a read of the asset does, whatever their ids' order", async () => {
    // 'zebra' and 'apple' are new keywords (later ids) listed before the older ones; a relevance may be absent
    await catalog.upsertAsset({
      asset_type: 'image',
      id: 'f',
      fields: { title: 'title f', keywords: [{ text: 'zebra', relevance: 2 }, { text: 'shared' }, { text: 'apple', relevance: 5 }, { text: 'own a', relevance: 1 }] },
    });
    const scanned = new Map<string, unknown>();
    for await (const page of catalog.scanAssets(4)) for (const record of page) scanned.set(record.id, record.fields.keywords);
    const read = await catalog.findAssets('image', ['a', 'b', 'c', 'd', 'e', 'f']);
    expect(read.found).toHaveLength(6);
    for (const record of read.found) expect(scanned.get(record.id)).toEqual(record.fields.keywords);
    const texts = (scanned.get('f') as Array<{ text: string; relevance: number | null }>).map(({ text, relevance }) => [text, relevance]);
    expect(texts).toEqual([['zebra', 2], ['shared', null], ['apple', 5], ['own a', 1]]);
  });

  it('gives each asset the record a read of it gives, column for column (the scan reads its rows as arrays)', async () => {
    await catalog.upsertAsset({
      asset_type: 'image',
      id: 'g',
      fields: {
        title: 'title g',
        caption: 'a caption',
        asset_family: 'editorial',
        license_model: 'rightsmanaged',
        orientation: 'Vertical',
        quality_rank: 2,
        date_created: '2024-05-06T07:08:09Z',
        date_submitted: '2024-05-07T00:00:00Z',
        max_dimensions: { width: 3000, height: 4000 },
        artist: 'An Artist',
        collection_code: 'ABC',
        collection_name: 'A Collection',
        people: ['Someone'],
        keywords: [{ text: 'shared', relevance: 3 }],
      },
    });
    const scanned = new Map<string, unknown>();
    for await (const page of catalog.scanAssets(3)) for (const record of page) scanned.set(record.id, record);
    const read = await catalog.findAssets('image', ['a', 'b', 'c', 'd', 'e', 'g']);
    expect(read.found).toHaveLength(6);
    for (const record of read.found) expect(scanned.get(record.id)).toEqual(record);
    const g = scanned.get('g') as { fields: Record<string, unknown>; width: number; height: number };
    expect([g.fields.artist, g.fields.collection_code, g.fields.collection_name, g.fields.orientation, g.width, g.height]).toEqual([
      'An Artist',
      'ABC',
      'A Collection',
      'Vertical',
      3000,
      4000,
    ]);
  });

  it("lists a keyword with the same relevance as one object in a scan's records, and as each record's own in any other read", async () => {
    type Listed = Array<{ text: string }>;
    const sharedOf = (keywords: unknown) => (keywords as Listed).find((keyword) => keyword.text === 'shared');
    const scanned: unknown[] = [];
    for await (const page of catalog.scanAssets(2)) for (const record of page) scanned.push(sharedOf(record.fields.keywords));
    expect(scanned).toHaveLength(5);
    for (const listed of scanned) expect(listed).toBe(scanned[0]);
    const read = await catalog.findAssets('image', ['a', 'b']);
    const [first, second] = read.found.map((record) => sharedOf(record.fields.keywords));
    expect(first).toEqual(second);
    expect(first).not.toBe(second);
  });

  it.runIf(url !== undefined)('gathers the planner statistics of the tables it reads when none were ever gathered (a bulk-written store, before autovacuum), and leaves them alone after', async () => {
    const analyzed = async () => {
      const { rows } = await sql<{ relname: string }>`
        select relname from pg_stat_user_tables
        where schemaname = current_schema() and relname in ('assets', 'asset_keywords', 'keywords')
          and (last_analyze is not null or last_autoanalyze is not null)
        order by relname`.execute(store.database.db);
      return rows.map((row) => row.relname);
    };
    expect(await analyzed()).toEqual([]);
    for await (const page of catalog.scanAssets(2)) expect(page.length).toBeGreaterThan(0);
    expect(await analyzed()).toEqual(['asset_keywords', 'assets', 'keywords']);
    const lastAnalyze = async () =>
      (await sql<{ at: Date }>`select last_analyze as at from pg_stat_user_tables where schemaname = current_schema() and relname = 'assets'`.execute(store.database.db)).rows[0]!.at.getTime();
    const before = await lastAnalyze();
    for await (const page of catalog.scanAssets(10)) expect(page.length).toBe(5);
    expect(await lastAnalyze()).toBe(before);
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

describe("the part of a SQLite store's file a scan reads", () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-extent-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("ends with the last leaf of the assets', links' and keys' trees, before what was written after them", async () => {
    const file = path.join(dir, 'store.sqlite');
    const store = await openTestStore(undefined, file);
    try {
      const repository = new CatalogRepository(store.database);
      const catalog = new CatalogService(repository, { displaySizes: () => [] });
      for (let i = 0; i < 60; i++) {
        const id = `asset-${String(i).padStart(3, '0')}`;
        const keywords = Array.from({ length: 12 }, (_, k) => ({ text: `keyword ${i} ${k} ${'x'.repeat(40)}` }));
        await catalog.upsertAsset({ asset_type: 'image', id, fields: { title: `title ${i} ${'y'.repeat(300)}`, keywords } });
      }
      // what a bulk load makes after its rows: an index the scan never reads, and more besides
      await sql`create index assets_title_after on assets (title)`.execute(store.database.db);
      await sql`create table filler (body text)`.execute(store.database.db);
      await sql`insert into filler values (${'z'.repeat(200_000)})`.execute(store.database.db);
      // the file holds the pages (a scan of a store written long before finds them there, not in the log)
      await sql`pragma wal_checkpoint(truncate)`.execute(store.database.db);

      const { rows } = await sql<{ page: number }>`
        select max(pageno) as page from dbstat
        where pagetype = 'leaf' and name in (
          'assets', 'asset_keywords', 'asset_events',
          'sqlite_autoindex_assets_1', 'sqlite_autoindex_asset_keywords_1', 'sqlite_autoindex_asset_events_1')`.execute(store.database.db);
      const { rows: size } = await sql<{ page_size: number }>`pragma page_size`.execute(store.database.db);
      const extent = await repository.wholeReadExtent();
      expect(extent).toBe(rows[0]!.page * size[0]!.page_size);
      expect(extent).toBeLessThan(fs.statSync(file).size - 40 * size[0]!.page_size);
    } finally {
      await store.drop();
    }
  });

  it('is not known for a store in memory', async () => {
    const store = await openTestStore(undefined);
    try {
      expect(await new CatalogRepository(store.database).wholeReadExtent()).toBeUndefined();
    } finally {
      await store.drop();
    }
  });
});
