import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, migrateToLatest } from '../../src/platform/db/database.js';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { drawDemoEps } from '../../src/media/draw-demo-eps.js';
import { downloadSizesFor } from '../../src/media/image-probe.js';

/*
 * The ingest field eps_file: an image's EPS (vector) original beside its raster file, stored
 * content-addressed, offered as the download size `vector`, kept by a line that leaves it out,
 * taken away by null, and refused on its line when it is no EPS or has no raster file beside it.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-eps-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function newStore() {
  const database = await openDatabase({ sqliteFile: ':memory:' });
  await migrateToLatest(database);
  cleanups.push(() => database.close());
  const catalog = new CatalogService(new CatalogRepository(database), { displaySizes: () => [] });
  const blobs = new FilesystemBlobStore(tempDir());
  return { catalog, blobs, ingest: new IngestService({ catalog, blobs }) };
}

function writeManifest(dir: string, lines: ReadonlyArray<unknown>): string {
  const file = path.join(dir, `manifest-${Math.random().toString(36).slice(2)}.jsonl`);
  fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return file;
}

describe('ingest of an EPS original (eps_file)', () => {
  it('stores the EPS beside the raster original and lists it as the download size `vector`', async () => {
    const { catalog, blobs, ingest } = await newStore();
    const dir = tempDir();
    const jpeg = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#468' } }).jpeg().toBuffer();
    const eps = drawDemoEps({ seed: 1, width: 600, height: 400, title: 'Logo', palette: ['#fff', '#f60'] });
    fs.writeFileSync(path.join(dir, 'logo.jpg'), jpeg);
    fs.writeFileSync(path.join(dir, 'logo.eps'), eps);
    fs.writeFileSync(path.join(dir, 'fake.eps'), jpeg);
    const report = await ingest.ingestFile(
      writeManifest(dir, [
        { asset_type: 'image', id: 'vec-1', file: 'logo.jpg', eps_file: 'logo.eps', graphical_style: 'Vector' },
        { asset_type: 'image', id: 'vec-2', file: 'logo.jpg', eps_file: 'fake.eps' },
        { asset_type: 'image', id: 'vec-3', eps_file: 'logo.eps' },
        { asset_type: 'video', id: 'vec-4', eps_file: 'logo.eps' },
      ]),
      { mediaDir: dir },
    );
    expect(report.failed).toEqual([
      { line: 2, reason: expect.stringMatching(/^eps_file 'fake\.eps': not an EPS file: it must begin with a line such as '%!PS-Adobe-3\.0 EPSF-3\.0'/) },
      { line: 3, reason: expect.stringContaining("eps_file needs the image's raster file too (file)") },
      { line: 4, reason: expect.stringContaining('eps_file') },
    ]);
    const record = (await catalog.findAssets('image', ['vec-1'])).found[0]!;
    const key = `originals/${createHash('sha256').update(eps).digest('hex')}.eps`;
    expect(await blobs.get(key)).toEqual(eps);
    expect(await catalog.findEpsOriginal('vec-1')).toEqual({ key });
    expect(record.fields.eps_file).toBeUndefined();
    expect(record.fields.download_sizes).toEqual([
      ...downloadSizesFor({ width: 1200, height: 800, dpi: 72, bytes: jpeg.length, media_type: 'image/jpeg' }),
      { bytes: eps.length, height: 400, width: 600, media_type: 'application/postscript', name: 'vector', dpi: null },
    ]);
    // A failed line stores nothing.
    expect((await catalog.findAssets('image', ['vec-2', 'vec-3'])).found).toEqual([]);
  });

  it('keeps the stored EPS when a line leaves eps_file out, and takes it away with eps_file: null', async () => {
    const { catalog, ingest } = await newStore();
    const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#864' } }).jpeg().toBuffer();
    const eps = drawDemoEps({ seed: 2, width: 640, height: 480, title: 'Mark', palette: ['#000'] });
    await ingest.ingestRecord({ asset_type: 'image', id: 'vec-5', file: 'mark.jpg', eps_file: 'mark.eps' }, jpeg, eps);
    const sizeNames = async () => ((await catalog.findAssets('image', ['vec-5'])).found[0]!.fields.download_sizes as Array<{ name: string }>).map((size) => size.name);
    expect(await sizeNames()).toContain('vector');
    await ingest.ingestRecord({ asset_type: 'image', id: 'vec-5', title: 'Mark, renamed' });
    expect(await sizeNames()).toContain('vector');
    expect(await catalog.findEpsOriginal('vec-5')).toBeDefined();
    await ingest.ingestRecord({ asset_type: 'image', id: 'vec-5', eps_file: null });
    expect(await sizeNames()).not.toContain('vector');
    expect(await catalog.findEpsOriginal('vec-5')).toBeUndefined();
    await expect(ingest.ingestRecord({ asset_type: 'image', id: 'vec-5', eps_file: 'named.eps' })).rejects.toThrow(/eps_file 'named\.eps' is named but no file content was given/);
  });
});
