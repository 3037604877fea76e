import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import { IngestService, type WriteOptions } from '../../src/catalog/ingest/ingest.service.js';
import { openTestStore, STORES } from '../helpers/test-store.js';

/*
 * Ingest never loses what is stored: a field a line leaves out keeps its stored value, a field
 * given as null is cleared, --replace writes a line exactly as given, and a dry run says what
 * would change and writes nothing. On both stores.
 */

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-keep-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
}

const EDITORIAL = {
  asset_type: 'image',
  id: 'keep-1',
  title: 'Harbour at dawn',
  caption: 'Boats at their moorings',
  asset_family: 'editorial',
  license_model: 'royaltyfree',
  collection_code: 'NWS',
  collection_name: 'News Wire',
  product_types: ['editorialsubscription'],
  keywords: ['harbour', { text: 'boat', relevance: 4 }],
  artist: 'Maren Holt',
  event_ids: [700],
  max_dimensions: { width: 6000, height: 4000 },
};

describe.each(STORES)('ingest keeps what is stored ($name)', ({ url }) => {
  async function newStore() {
    const store = await openTestStore(url);
    cleanups.push(() => store.drop());
    const catalog = new CatalogService(new CatalogRepository(store.database), { displaySizes: () => [] });
    const blobDir = tempDir();
    const blobs = new FilesystemBlobStore(blobDir);
    const dir = tempDir();
    const ingest = new IngestService({ catalog, blobs });
    let manifests = 0;
    /** Ingests lines as a manifest of their own. */
    const run = (lines: unknown[], options: WriteOptions = {}) => {
      const file = path.join(dir, `m${(manifests += 1)}.jsonl`);
      fs.writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
      return ingest.ingestFile(file, { mediaDir: dir, ...options });
    };
    /** The asset as a fresh catalogue reads it (no cache in between). */
    const stored = async (id: string) => {
      const fresh = new CatalogService(new CatalogRepository(store.database), { displaySizes: () => [] });
      return (await fresh.findAssets('image', [id])).found[0]!;
    };
    return { run, stored, dir, blobDir, catalog, database: store.database };
  }

  it('a line that leaves fields out keeps them; only the fields it names change', async () => {
    const { run, stored } = await newStore();
    expect((await run([{ asset_type: 'event', id: 700, name: 'Regatta' }, EDITORIAL])).failed).toEqual([]);

    const report = await run([{ asset_type: 'image', id: 'keep-1', title: 'Harbour at first light' }]);

    expect(report).toMatchObject({ inserted: 0, updated: 1, unchanged: 0, failed: [], unlicensable: [] });
    const { fields } = await stored('keep-1');
    expect(fields).toMatchObject({
      title: 'Harbour at first light',
      caption: 'Boats at their moorings',
      asset_family: 'editorial',
      license_model: 'royaltyfree',
      collection_code: 'NWS',
      collection_name: 'News Wire',
      product_types: ['editorialsubscription'],
      artist: 'Maren Holt',
      event_ids: [700],
      max_dimensions: { width: 6000, height: 4000 },
    });
    expect((fields.keywords as Array<{ text: string; relevance: number | null }>).map(({ text, relevance }) => [text, relevance])).toEqual([
      ['harbour', null],
      ['boat', 4],
    ]);

    // The same line again changes nothing, and says so.
    expect(await run([{ asset_type: 'image', id: 'keep-1', title: 'Harbour at first light' }])).toMatchObject({ updated: 1, unchanged: 1 });
  });

  it('null clears a field; a new collection replaces the stored one whole; --replace writes the line as given', async () => {
    const { run, stored } = await newStore();
    await run([{ asset_type: 'event', id: 700, name: 'Regatta' }, EDITORIAL]);

    expect((await run([{ asset_type: 'image', id: 'keep-1', caption: null, collection_code: 'SPT' }])).failed).toEqual([]);
    const cleared = (await stored('keep-1')).fields;
    expect(cleared).toMatchObject({ caption: null, collection_code: 'SPT', collection_name: 'SPT', asset_family: 'editorial', title: 'Harbour at dawn' });

    const replaced = await run([{ asset_type: 'image', id: 'keep-1', title: 'Only this' }], { replace: true });
    expect(replaced).toMatchObject({ updated: 1, failed: [], unlicensable: [{ line: 1, id: 'keep-1' }] });
    expect((await stored('keep-1')).fields).toMatchObject({
      title: 'Only this',
      asset_family: null,
      license_model: null,
      collection_code: null,
      keywords: [],
      event_ids: [],
      max_dimensions: null,
    });
    expect((await stored('keep-1')).fields.product_types).toBeUndefined();
  });

  it('keeps an event’s fields the same way', async () => {
    const { run, database } = await newStore();
    await run([
      { asset_type: 'event', id: 701, name: 'Harbour Regatta', type: 'Sport', start_date: '2024-03-09', location: { city: 'Sydney', venue: 'The Harbour' }, keywords: ['sailing'] },
    ]);
    await run([{ asset_type: 'event', id: 701, name: 'Harbour Regatta 2024' }]);
    const events = await new CatalogRepository(database).findEvents([701]);
    expect(events[0]).toMatchObject({
      name: 'Harbour Regatta 2024',
      type: 'Sport',
      start_date: '2024-03-09T00:00:00Z',
      location: { city: 'Sydney', venue: 'The Harbour', country: null, state_province: null },
      keywords: [{ text: 'sailing' }],
    });
  });

  it('a dry run lists each change, old → new, and writes no row and no blob', async () => {
    const { run, stored, dir, blobDir, database } = await newStore();
    await run([{ asset_type: 'event', id: 700, name: 'Regatta' }, EDITORIAL]);
    const before = await stored('keep-1');
    const changeCount = async () => Number((await database.db.selectFrom('change_log').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const changesBefore = await changeCount();
    fs.writeFileSync(path.join(dir, 'new.jpg'), await sharp({ create: { width: 60, height: 40, channels: 3, background: '#357' } }).jpeg().toBuffer());

    const report = await run(
      [
        { asset_type: 'image', id: 'keep-1', asset_family: 'creative', product_types: ['premiumaccess', 'creditpack'], keywords: ['harbour'] },
        { asset_type: 'image', id: 'keep-2', file: 'new.jpg', title: 'New' },
        { asset_type: 'image', id: 'keep-1', title: 'Harbour at dawn' },
      ],
      { dryRun: true },
    );

    expect(report).toMatchObject({ inserted: 1, updated: 2, unchanged: 1, failed: [] });
    expect(report.planned).toEqual([
      {
        line: 1,
        id: 'keep-1',
        operation: 'update',
        changes: [
          { field: 'asset_family', from: 'editorial', to: 'creative' },
          { field: 'keywords', from: ['harbour', 'boat'], to: ['harbour'] },
          { field: 'product_types', from: ['editorialsubscription'], to: ['premiumaccess', 'creditpack'] },
        ],
      },
      { line: 2, id: 'keep-2', operation: 'insert', changes: [] },
    ]);
    expect(await stored('keep-1')).toEqual(before);
    expect((await new CatalogService(new CatalogRepository(database), { displaySizes: () => [] }).findAssets('image', ['keep-2'])).found).toEqual([]);
    expect(await changeCount()).toBe(changesBefore);
    expect(filesUnder(blobDir)).toEqual([]);
  });

  it('warns of a product type that can never license the asset, saying why', async () => {
    const { run } = await newStore();
    const report = await run([{ asset_type: 'image', id: 'fit-1', asset_family: 'editorial', product_types: ['editorialsubscription', 'creditpack'] }]);
    expect(report.unfit).toEqual([
      { line: 1, id: 'fit-1', productType: 'creditpack', reason: 'creditpack licenses creative assets only, and the asset is editorial' },
    ]);
    // The stored family counts: a later line naming only the product types is checked against it.
    const later = await run([{ asset_type: 'image', id: 'fit-1', product_types: ['imagepack', 'royaltyfreesubscription'] }]);
    expect(later.unfit).toEqual([
      { line: 1, id: 'fit-1', productType: 'royaltyfreesubscription', reason: 'royaltyfreesubscription licenses creative assets only, and the asset is editorial' },
    ]);
  });
});
