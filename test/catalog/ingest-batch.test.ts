import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { IngestCheckpointRepository } from '../../src/catalog/ingest/ingest-checkpoints.repository.js';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { openTestStore, STORES, type TestStore } from '../helpers/test-store.js';

/*
 * A long manifest's metadata-only lines are written five thousand at a time, in one transaction
 * each. What a line stores, and what the run reports of it, is what it would be were each line
 * written alone: the same id twice (the later line wins), a keyword a later line changes (every
 * asset of it shows the change), a line in conflict (refused with its reason, the others of its
 * batch stored), on both stores.
 */

// More than a batch: a keyword a line changes shows in the assets of the batches before it and after.
const LINES = 6_000;

describe.each(STORES)('ingest of a long manifest in batches ($name)', ({ url }) => {
  let store: TestStore;
  let catalog: CatalogService;
  let ingest: IngestService;
  let folder: string;

  beforeAll(async () => {
    store = await openTestStore(url);
    const repository = new CatalogRepository(store.database);
    catalog = new CatalogService(repository, { displaySizes: () => [] });
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-ingest-batch-'));
    ingest = new IngestService({ catalog, blobs: new FilesystemBlobStore(path.join(folder, 'blobs')), checkpoints: new IngestCheckpointRepository(store.database.db) });
  });
  afterAll(async () => {
    await store?.drop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('stores and reports each line as it would alone: a repeated id, a keyword changed on the way, a line in conflict', async () => {
    await ingest.ingestRecord({ asset_type: 'video', id: 'clash-1', title: 'A video already' });
    const lines: unknown[] = [];
    for (let n = 1; n <= LINES; n++) {
      lines.push({
        asset_type: 'image',
        id: `b-${n}`,
        title: `Picture ${n}`,
        artist: `Artist ${n % 7}`,
        collection_code: 'BAT',
        collection_id: 4100,
        collection_name: 'Batches',
        product_types: ['premiumaccess'],
        keywords: [{ keyword_id: 41, text: 'harbour', type: 'Concept' }, { keyword_id: 42 + (n % 3), text: `word ${n % 3}` }],
      });
    }
    // In the middle of the first batch: an image over the video's id; later, b-5 again; later still, keyword 41 translated.
    lines.splice(600, 0, { asset_type: 'image', id: 'clash-1', title: 'Not a video' });
    lines.splice(700, 0, { asset_type: 'image', id: 'b-5', title: 'Picture 5, again' });
    lines.splice(1500, 0, { asset_type: 'image', id: 'b-9999', keywords: [{ keyword_id: 41, text: 'harbour', type: 'Concept', translations: { de: 'Hafen' } }] });
    const manifest = path.join(folder, 'manifest.jsonl');
    fs.writeFileSync(manifest, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);

    const report = await ingest.ingestFile(manifest);

    expect(report.failed).toEqual([{ line: 601, reason: 'asset clash-1 is a video, not a image' }]);
    expect(report.inserted).toBe(LINES + 1);
    expect(report.updated).toBe(1);
    expect(report.resumed).toBeUndefined();
    const read = async (id: string) => (await catalog.findAssets('image', [id])).found[0]!;
    const [b5, b1, b2400, b5900] = [await read('b-5'), await read('b-1'), await read('b-2400'), await read('b-5900')];
    // The later line wins; the fields it leaves out keep what the earlier one stored.
    expect(b5.fields.title).toBe('Picture 5, again');
    expect(b5.fields.artist).toBe('Artist 5');
    // A keyword is one record: the translation a line gave shows in assets stored before it and after.
    for (const record of [b1, b2400, b5900]) {
      const harbour = (record.fields.keywords as Array<{ keyword_id: string; translations: Record<string, string> }>).find((k) => k.keyword_id === '41')!;
      expect(harbour.translations).toEqual({ de: 'Hafen' });
    }
    expect(b1.fields.collection_code).toBe('BAT');
    const { db } = store.database;
    expect(await db.selectFrom('artists').select('name').orderBy('name').execute()).toHaveLength(7);
    expect(await db.selectFrom('collections').select('id').execute()).toEqual([{ id: 4100 }]);
    expect((await catalog.findAssetsInAnyState('video', ['clash-1']))[0]!.fields.title).toBe('A video already');
    // Each line's change is logged, and the keyword's once (within a batch's transaction, in no promised order).
    const logged = await db.selectFrom('change_log').select(['entity_type', 'entity_id', 'operation']).where('entity_id', 'in', ['b-1', 'b-5', '41']).execute();
    expect(logged).toHaveLength(4);
    expect(logged).toEqual(
      expect.arrayContaining([
        { entity_type: 'image', entity_id: 'b-1', operation: 'insert' },
        { entity_type: 'image', entity_id: 'b-5', operation: 'insert' },
        { entity_type: 'image', entity_id: 'b-5', operation: 'update' },
        { entity_type: 'keyword', entity_id: '41', operation: 'update' },
      ]),
    );
    // A run that ended leaves nothing to continue.
    expect(await db.selectFrom('ingest_checkpoints').selectAll().execute()).toEqual([]);
  }, 120_000);

  it('continues a run that stopped from the line its checkpoint names, and counts that run’s lines too', async () => {
    const lines = Array.from({ length: 30 }, (_, n) => JSON.stringify({ asset_type: 'image', id: `r-${n + 1}`, title: `Resumed ${n + 1}` }));
    const manifest = path.join(folder, 'resumed.jsonl');
    fs.writeFileSync(manifest, `${lines.join('\n')}\n`);
    // What a run killed after line 10 leaves: its lines stored, and its checkpoint.
    const first = path.join(folder, 'first-ten.jsonl');
    fs.writeFileSync(first, `${lines.slice(0, 10).join('\n')}\n`);
    await ingest.ingestFile(first);
    const checkpoints = new IngestCheckpointRepository(store.database.db);
    const seen: Array<{ manifest: string }> = [];
    const spy = new IngestService({
      catalog,
      blobs: new FilesystemBlobStore(path.join(folder, 'blobs')),
      checkpoints: {
        find: async (key) => {
          seen.push({ manifest: key });
          return { manifest: key, throughLine: 10, inserted: 10, updated: 0, failed: 1 };
        },
        save: (checkpoint) => checkpoints.save(checkpoint),
        remove: (key) => checkpoints.remove(key),
      },
    });
    const resumedAt: number[] = [];
    const progress: Array<[number, number]> = [];
    const report = await spy.ingestFile(manifest, { onResume: (line) => resumedAt.push(line), onProgress: (done, total) => progress.push([done, total]) });
    expect(resumedAt).toEqual([10]);
    expect(report.resumed).toEqual({ afterLine: 10, failed: 1 });
    // Lines 11 to 30 are new here; 1 to 10 were counted by the run that stopped.
    expect(report.inserted).toBe(30);
    expect(report.updated).toBe(0);
    expect(progress.at(-1)).toEqual([30, 30]);
    expect((await catalog.findAssets('image', ['r-30'])).found[0]!.fields.title).toBe('Resumed 30');
    // Another manifest is another run; a dry run neither continues one nor saves its own.
    await spy.ingestFile(first);
    expect(new Set(seen.map((s) => s.manifest)).size).toBe(2);
    expect((await spy.ingestFile(manifest, { dryRun: true })).resumed).toBeUndefined();
    expect(seen).toHaveLength(2);
  });
});
