import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, migrateToLatest } from '../../src/platform/db/database.js';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import {
  SIGNATURE_VERSION,
  computeVisualSignature,
  decodeStoredSignature,
  encodeStoredSignature,
  signatureDistance,
} from '../../src/media/visual-signature.js';
import { landscapeImage, stripedImage } from '../search/visual/visual-fixtures.js';

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function newStore() {
  const database = await openDatabase({ sqliteFile: ':memory:' });
  await migrateToLatest(database);
  cleanups.push(() => database.close());
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-signature-'));
  cleanups.push(() => fs.rmSync(blobDir, { recursive: true, force: true }));
  const repository = new CatalogRepository(database);
  const blobs = new FilesystemBlobStore(blobDir);
  /** A catalogue with a cold cache, as another process would read the store. */
  const freshCatalog = () => new CatalogService(repository, { displaySizes: () => [] });
  const catalog = freshCatalog();
  return { database, blobs, catalog, freshCatalog, ingest: new IngestService({ catalog, blobs }) };
}

const dusk = () => landscapeImage({ skyTop: '#1d2b64', skyBottom: '#f8a055', sun: '#ffd27a', farHill: '#3b4a6b', nearHill: '#22303f' });

async function storedSignature(catalog: CatalogService, assetType: 'image' | 'video', id: string): Promise<string | null> {
  const record = (await catalog.findAssets(assetType, [id])).found[0];
  if (!record) throw new Error(`${assetType} ${id} is not stored`);
  return record.visual_signature;
}

describe('ingest: visual signatures', () => {
  it('stores the v1 signature of the original given with a record', async () => {
    const { catalog, ingest } = await newStore();
    const picture = await dusk();

    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-1', file: 'dusk.png', title: 'Dusk' }, picture);

    const stored = await storedSignature(catalog, 'image', 'sig-1');
    expect(stored).toMatch(new RegExp(`^v${SIGNATURE_VERSION}:[A-Za-z0-9+/]+=*$`));
    expect(stored).toBe(encodeStoredSignature(await computeVisualSignature(picture)));
  });

  it('gives a video its poster still’s signature', async () => {
    const { catalog, ingest } = await newStore();
    const poster = await dusk();

    await ingest.ingestRecord({ asset_type: 'video', id: 'sig-v', file: 'poster.png', title: 'Clip' }, poster);

    expect(await storedSignature(catalog, 'video', 'sig-v')).toBe(encodeStoredSignature(await computeVisualSignature(poster)));
  });

  it('keeps the signature when a record comes again without a file', async () => {
    const { catalog, freshCatalog, ingest } = await newStore();
    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-2', file: 'dusk.png', title: 'Old' }, await dusk());
    const before = await storedSignature(catalog, 'image', 'sig-2');

    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-2', title: 'New' });

    const reader = freshCatalog();
    expect((await reader.findAssets('image', ['sig-2'])).found[0]!.fields.title).toBe('New');
    expect(await storedSignature(reader, 'image', 'sig-2')).toBe(before);
  });

  it('keeps a stored signature of the current version as it is, without recomputing it', async () => {
    const { database, freshCatalog, blobs, ingest } = await newStore();
    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-k', file: 'dusk.png' }, await dusk());
    // A valid signature that the original does not give: only keeping it leaves it there.
    const planted = encodeStoredSignature(await computeVisualSignature(await stripedImage('vertical', 4, ['#000000', '#ffffff'])));
    await database.db.updateTable('assets').set({ visual_signature: planted }).where('id', '=', 'sig-k').execute();

    await new IngestService({ catalog: freshCatalog(), blobs }).ingestRecord({ asset_type: 'image', id: 'sig-k', title: 'Retitled' });

    expect(await storedSignature(freshCatalog(), 'image', 'sig-k')).toBe(planted);
  });

  it('recomputes, from the stored original, a signature of another version or none at all', async () => {
    const { database, freshCatalog, blobs, ingest } = await newStore();
    const picture = await dusk();
    const expected = encodeStoredSignature(await computeVisualSignature(picture));
    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-3', file: 'dusk.png' }, picture);
    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-4', file: 'dusk.png' }, picture);
    await database.db.updateTable('assets').set({ visual_signature: 'v0:AAAA' }).where('id', '=', 'sig-3').execute();
    await database.db.updateTable('assets').set({ visual_signature: null }).where('id', '=', 'sig-4').execute();

    const again = new IngestService({ catalog: freshCatalog(), blobs });
    await again.ingestRecord({ asset_type: 'image', id: 'sig-3', title: 'Again' });
    await again.ingestRecord({ asset_type: 'image', id: 'sig-4', title: 'Again' });

    expect(await storedSignature(freshCatalog(), 'image', 'sig-3')).toBe(expected);
    expect(await storedSignature(freshCatalog(), 'image', 'sig-4')).toBe(expected);
  });

  it('replaces the signature when a new file is given', async () => {
    const { freshCatalog, ingest } = await newStore();
    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-5', file: 'dusk.png' }, await dusk());
    const stripes = await stripedImage('vertical', 8, ['#101010', '#f0f0f0']);

    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-5', file: 'stripes.png' }, stripes);

    expect(await storedSignature(freshCatalog(), 'image', 'sig-5')).toBe(encodeStoredSignature(await computeVisualSignature(stripes)));
  });

  it('gives different pictures different signatures', async () => {
    const { catalog, ingest } = await newStore();
    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-a', file: 'a.png' }, await dusk());
    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-b', file: 'b.png' }, await stripedImage('horizontal', 6, ['#2e7d32', '#fff59d']));

    const a = decodeStoredSignature((await storedSignature(catalog, 'image', 'sig-a'))!)!;
    const b = decodeStoredSignature((await storedSignature(catalog, 'image', 'sig-b'))!)!;
    expect(signatureDistance(a, b)).toBeGreaterThan(0.5);
  });

  it('stores no signature for a record without a file or an original', async () => {
    const { catalog, ingest } = await newStore();

    await ingest.ingestRecord({ asset_type: 'image', id: 'sig-none', title: 'Metadata only' });

    expect(await storedSignature(catalog, 'image', 'sig-none')).toBeNull();
  });
});
