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
 * A run of 10,000 lines or more reads its lines in a worker thread while it writes the batch
 * before (manifest-reader.ts). Its report is the one the run gets reading them itself: each
 * refused line with its number and its reason; and a run that stops is continued after its last
 * checkpoint, each asset stored once — on both stores.
 */

const LINES = 25_000;

/** Lines the ingest refuses, each of another kind: not JSON, refused by the check, a file missing, a conflict. */
const BAD_LINES = [
  '{"asset_type":"image","id":"broken",',
  JSON.stringify({ asset_type: 'image', id: 'bad-date', date_created: '2021-02-30' }),
  JSON.stringify({ asset_type: 'image', id: 'no-file', file: 'missing.jpg' }),
  JSON.stringify({ asset_type: 'image', id: 'clash-1', title: 'Not a video' }),
  JSON.stringify({ asset_type: 'image', id: 'bad-keyword', keywords: [{ keyword_id: 41, text: 'not harbour' }] }),
];
/** Where each bad line goes: some before the stopped run's last checkpoint, the rest after. */
const BAD_AT = [700, 2_400, 9_000, 12_500, 24_999];

function manifestLines(): string[] {
  const lines: string[] = [];
  for (let n = 1; lines.length < LINES; n++) {
    const bad = BAD_AT.indexOf(lines.length + 1);
    if (bad !== -1) {
      lines.push(BAD_LINES[bad]!);
      continue;
    }
    lines.push(
      JSON.stringify({
        asset_type: 'image',
        id: `ra-${n}`,
        title: `Picture ${n}`,
        artist: `Artist ${n % 50}`,
        date_created: '2019-03-01T12:00:00+01:00',
        caption: n % 3 === 0 ? null : `Caption ${n}`,
        keywords: [{ keyword_id: 41, text: 'harbour' }, `word ${n % 9}`],
      }),
    );
  }
  return lines;
}

describe.each(STORES)('an ingest that reads ahead in a worker thread ($name)', ({ url }) => {
  let store: TestStore;
  let catalog: CatalogService;
  let ingest: IngestService;
  let folder: string;

  beforeAll(async () => {
    store = await openTestStore(url);
    catalog = new CatalogService(new CatalogRepository(store.database.db, store.database.dialect), { displaySizes: () => [] });
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-ingest-read-ahead-'));
    ingest = new IngestService({ catalog, blobs: new FilesystemBlobStore(path.join(folder, 'blobs')), checkpoints: new IngestCheckpointRepository(store.database.db) });
    await ingest.ingestRecord({ asset_type: 'video', id: 'clash-1', title: 'A video already' });
    await ingest.ingestRecord({ asset_type: 'image', id: 'keyword-owner', keywords: [{ keyword_id: 41, text: 'harbour' }] });
  });
  afterAll(async () => {
    await store?.drop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('reports each refused line as a short run does, and continues a stopped run after its checkpoint, each asset once', async () => {
    // The reasons a run reading its lines itself (fewer than 10,000) gives the bad lines.
    const short = path.join(folder, 'short.jsonl');
    fs.writeFileSync(short, `${BAD_LINES.join('\n')}\n`);
    // (in line order: a batch reports a line over a stored asset of the other type after the others)
    const reasons = (await ingest.ingestFile(short)).failed.sort((a, b) => a.line - b.line).map(({ reason }) => reason);
    expect(reasons).toHaveLength(BAD_LINES.length);
    expect(reasons[0]).toMatch(/^not valid JSON: /);

    const manifest = path.join(folder, 'long.jsonl');
    fs.writeFileSync(manifest, `${manifestLines().join('\n')}\n`);
    // Stopped part way (as by a kill): once past 12,000 lines, after a checkpoint of 5,000 lines or more.
    const stop = new Error('stopped');
    await expect(
      ingest.ingestFile(manifest, {
        onProgress: (done) => {
          if (done > 12_000) throw stop;
        },
      }),
    ).rejects.toBe(stop);
    const [checkpoint] = await store.database.db.selectFrom('ingest_checkpoints').selectAll().execute();
    const through = checkpoint!.through_line;
    expect(through).toBeGreaterThanOrEqual(5_000);
    // Enough left for the continued run to read ahead too.
    expect(LINES - through).toBeGreaterThanOrEqual(10_000);
    const failedBefore = BAD_AT.filter((line) => line <= through).length;
    expect(failedBefore).toBeGreaterThanOrEqual(2);

    const progress: number[] = [];
    const report = await ingest.ingestFile(manifest, { onProgress: (done) => progress.push(done) });
    expect(report.resumed).toEqual({ afterLine: through, failed: failedBefore });
    const expected = BAD_AT.map((line, index) => ({ line, reason: reasons[index]! })).filter(({ line }) => line > through);
    expect([...report.failed].sort((a, b) => a.line - b.line)).toEqual(expected);
    expect(report.inserted + report.updated).toBe(LINES - BAD_LINES.length);
    expect(progress.at(-1)).toBe(LINES);

    const { db } = store.database;
    const count = async (table: 'assets' | 'artists') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    // The manifest's assets once each, beside the two stored before it.
    expect(await count('assets')).toBe(LINES - BAD_LINES.length + 2);
    expect(await count('artists')).toBe(50);
    const [first, third] = (await catalog.findAssets('image', ['ra-1', 'ra-3'])).found.sort((a, b) => a.id.localeCompare(b.id));
    expect(first!.fields).toMatchObject({ title: 'Picture 1', caption: 'Caption 1', date_created: '2019-03-01T11:00:00Z' });
    expect(third!.fields.caption).toBeNull();
    expect(await db.selectFrom('ingest_checkpoints').selectAll().execute()).toEqual([]);
  }, 300_000);
});
