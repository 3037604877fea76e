import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, migrateToLatest } from '../../src/platform/db/database.js';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { MediaService, PREPARED_DISPLAY_FILES, renditionBlobKey } from '../../src/media/media.service.js';
import { UrlSigner } from '../../src/media/url-signer.js';
import { landscapeImage } from '../search/visual/visual-fixtures.js';

/*
 * A cold server's first results page waits for no picture: ingest makes each original's grid,
 * thumb and comp as it stores it (when given media's display files), where media looks first.
 */

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function newStore() {
  const database = await openDatabase({ sqliteFile: ':memory:' });
  await migrateToLatest(database);
  cleanups.push(() => database.close());
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-display-files-'));
  cleanups.push(() => fs.rmSync(blobDir, { recursive: true, force: true }));
  const blobs = new FilesystemBlobStore(blobDir);
  const catalog = new CatalogService(new CatalogRepository(database), { displaySizes: () => [] });
  const media = new MediaService({ blobs, signer: new UrlSigner('display-secret-for-tests', 'http://127.0.0.1:3000', 3600), findOriginal: (id) => catalog.findOriginal(id) });
  return { blobs, catalog, media };
}

const picture = () => landscapeImage({ skyTop: '#1d2b64', skyBottom: '#f8a055', sun: '#ffd27a', farHill: '#3b4a6b', nearHill: '#22303f' });

describe('ingest: display files made as the original is stored', () => {
  it('stores the grid picture, thumb and comp of a new original, and media serves those very files', async () => {
    const { blobs, catalog, media } = await newStore();
    const ingest = new IngestService({ catalog, blobs, displayFiles: media });
    await ingest.ingestRecord({ asset_type: 'image', id: 'warm-1', file: 'dusk.png', title: 'Dusk' }, await picture());

    const { originalKey } = (await catalog.findOriginal('warm-1'))!;
    expect(PREPARED_DISPLAY_FILES).toEqual(['grid.jpg', 'thumb.jpg', 'comp.jpg']);
    for (const file of PREPARED_DISPLAY_FILES) {
      const stored = await blobs.get(renditionBlobKey(originalKey, file));
      expect(stored, file).toBeDefined();
      expect((await media.render('warm-1', file))!.body.equals(stored!), file).toBe(true);
    }
    // Already stored (by this ingest, another node or a request): nothing is made again.
    expect(await media.prepareDisplayFiles(originalKey)).toBe(0);
  });

  it('without media’s display files, ingest leaves them to their first request', async () => {
    const { blobs, catalog, media } = await newStore();
    await new IngestService({ catalog, blobs }).ingestRecord({ asset_type: 'image', id: 'cold-1', file: 'dusk.png' }, await picture());
    const { originalKey } = (await catalog.findOriginal('cold-1'))!;
    for (const file of PREPARED_DISPLAY_FILES) expect(await blobs.size(renditionBlobKey(originalKey, file)), file).toBeUndefined();
    expect(await media.prepareDisplayFiles(originalKey)).toBe(PREPARED_DISPLAY_FILES.length);
    for (const file of PREPARED_DISPLAY_FILES) expect(await blobs.size(renditionBlobKey(originalKey, file)), file).toBeGreaterThan(0);
  });

  it('makes none for an original missing from the store, and a dry run makes none', async () => {
    const { blobs, catalog, media } = await newStore();
    expect(await media.prepareDisplayFiles('originals/missing.jpg')).toBe(0);
    const ingest = new IngestService({ catalog, blobs, displayFiles: media });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-display-dry-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'dusk.png'), await picture());
    fs.writeFileSync(path.join(dir, 'manifest.jsonl'), `${JSON.stringify({ asset_type: 'image', id: 'dry-1', file: 'dusk.png' })}\n`);
    await ingest.ingestFile(path.join(dir, 'manifest.jsonl'), { dryRun: true });
    expect(fs.existsSync(path.join(blobs.root, 'renditions'))).toBe(false);
  });
});
