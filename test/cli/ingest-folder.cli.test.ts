import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { contentId } from '../../src/catalog/ingest/folder-ingest.js';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import type { AssetRecord } from '../../src/catalog/catalog.records.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { freshPostgresDatabase } from '../helpers/server-processes.js';
import { STORES } from '../helpers/test-store.js';

/*
 * `stockroom ingest <folder>` as a library's editor runs it: the real command in a child
 * process, on SQLite and on PostgreSQL. A bare re-run keeps what the first run stored; only
 * --replace clears it; --dry-run says what would change and writes nothing. Unreadable files
 * fail the run, each named with its reason in words.
 */

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');
const cleanups: Array<() => Promise<void> | void> = [];

afterAll(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-ingest-cli-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Result {
  code: number;
  stdout: string;
  /** Standard error without the progress lines. */
  problems: string[];
}

function picture(width: number, height: number, colour: string, format: 'jpeg' | 'png' = 'jpeg'): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: colour } });
  return (format === 'png' ? image.png() : image.jpeg()).toBuffer();
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name).sort();
}

/** A data folder and a store (SQLite in the folder, or a PostgreSQL database of its own) for `stockroom` commands. */
async function setUp(store: 'sqlite' | 'postgres', databaseUrl: string | undefined) {
  const dataDir = tempDir();
  let url = '';
  if (store === 'postgres') {
    const database = await freshPostgresDatabase(databaseUrl!, 'stockroom_ingest');
    cleanups.push(() => database.drop());
    url = database.url;
  }
  const env = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: url, REDIS_URL: '', STOCKROOM_BLOBS: '' };
  const stockroom = async (...args: string[]): Promise<Result> => {
    const outcome = await run(process.execPath, [CLI, ...args], { env }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    const problems = outcome.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('Ingesting: '));
    return { code: outcome.code, stdout: outcome.stdout, problems };
  };
  /** Reads the store as a fresh process would: the assets by id, and how many changes are logged. */
  const read = async (ids: string[]): Promise<{ assets: Map<string, AssetRecord>; changes: number }> => {
    const database = await openDatabase(url ? { url } : { sqliteFile: path.join(dataDir, 'stockroom.sqlite') });
    try {
      const assets = await new CatalogRepository(database).findAssets('image', ids);
      const { n } = await database.db.selectFrom('change_log').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      return { assets: new Map(assets.map((asset) => [asset.id, asset])), changes: Number(n) };
    } finally {
      await database.close();
    }
  };
  return { dataDir, stockroom, read, blobs: () => filesUnder(path.join(dataDir, 'blobs')) };
}

describe.each(STORES)('stockroom ingest <folder> never loses data ($name)', ({ name, url }) => {
  it('a bare re-run keeps the first run’s flags; --dry-run lists each change and writes nothing; only --replace clears', async () => {
    const { dataDir, stockroom, read, blobs } = await setUp(name, url);
    const photos = path.join(dataDir, 'photos');
    fs.mkdirSync(photos);
    const dawn = await picture(300, 200, '#884422');
    const field = await picture(200, 300, '#224488', 'png');
    fs.writeFileSync(path.join(photos, 'harbour-at-dawn_0031.jpg'), dawn);
    fs.writeFileSync(path.join(photos, 'field.png'), field);
    const ids = [contentId(dawn), contentId(field)];
    const flags = ['--family', 'editorial', '--collection', 'NWS', '--license-model', 'royaltyfree', '--product-types', 'editorialsubscription'];

    const first = await stockroom('ingest', photos, ...flags);
    expect(first).toMatchObject({ code: 0, problems: [] });
    expect(first.stdout.split('\n')).toEqual([
      'field.png: the file names no title, so it is titled "Field" from its file name',
      'harbour-at-dawn_0031.jpg: the file names no title, so it is titled "Harbour at dawn 0031" from its file name',
      '2 created, 0 updated (0 changed), 0 failed, 0 skipped',
      '',
    ]);
    const kept = {
      asset_family: 'editorial',
      collection_code: 'NWS',
      license_model: 'royaltyfree',
      product_types: ['editorialsubscription'],
    };
    const stored = await read(ids);
    expect(stored.assets.get(contentId(dawn))!.fields).toMatchObject({ ...kept, title: 'Harbour at dawn 0031' });

    // A new file, and the command run again bare, to pick it up.
    const harbour = await picture(400, 100, '#336699');
    fs.writeFileSync(path.join(photos, 'pier.jpg'), harbour);
    const bare = await stockroom('ingest', photos);
    expect(bare.code).toBe(0);
    expect(bare.stdout.split('\n').at(-2)).toBe('1 created, 2 updated (0 changed), 0 failed, 0 skipped');
    // The new file alone lacks product types, and the run says so.
    expect(bare.problems).toEqual(['warning: 1 asset (pier.jpg) lists no product_types, so no product can license it: give --product-types']);
    const afterBare = await read(ids);
    for (const id of ids) expect(afterBare.assets.get(id)!.fields).toMatchObject(kept);
    expect(afterBare.assets.get(contentId(field))!.fields.title).toBe('Field');

    // A dry run: each change, old → new, and nothing written.
    const blobsBefore = blobs();
    const dry = await stockroom('ingest', photos, '--dry-run', '--family', 'creative', '--product-types', 'premiumaccess,creditpack');
    expect(dry.code).toBe(0);
    expect(dry.stdout.split('\n')).toEqual([
      `field.png (asset ${contentId(field)}): would change`,
      '  asset_family: "editorial" → "creative"',
      '  product_types: ["editorialsubscription"] → ["premiumaccess","creditpack"]',
      `harbour-at-dawn_0031.jpg (asset ${contentId(dawn)}): would change`,
      '  asset_family: "editorial" → "creative"',
      '  product_types: ["editorialsubscription"] → ["premiumaccess","creditpack"]',
      `pier.jpg (asset ${contentId(harbour)}): would change`,
      '  asset_family: (none) → "creative"',
      '  product_types: (none) → ["premiumaccess","creditpack"]',
      'dry run: 0 would be created, 3 would change, 0 unchanged, 0 failed, 0 skipped; nothing was written',
      '',
    ]);
    const afterDry = await read(ids);
    expect(afterDry.changes).toBe(afterBare.changes);
    for (const id of ids) expect(afterDry.assets.get(id)).toEqual(afterBare.assets.get(id));
    expect(blobs()).toEqual(blobsBefore);

    // Only --replace writes the records as this run's flags say: none.
    const replaced = await stockroom('ingest', photos, '--replace');
    expect(replaced.code).toBe(0);
    expect(replaced.stdout.split('\n').at(-2)).toBe('0 created, 3 updated (2 changed), 0 failed, 0 skipped');
    const afterReplace = await read(ids);
    for (const id of ids) {
      expect(afterReplace.assets.get(id)!.fields).toMatchObject({ asset_family: null, collection_code: null, license_model: null });
      expect(afterReplace.assets.get(id)!.fields.product_types).toBeUndefined();
    }
  }, 300_000);
});

describe('stockroom ingest <folder> says what it could not read, and why', () => {
  it('fails the run for unreadable files, each with its reason in words; names the duplicate kept; warns of a product type that can never license', async () => {
    const { dataDir, stockroom } = await setUp('sqlite', undefined);
    const photos = path.join(dataDir, 'photos');
    fs.mkdirSync(path.join(photos, 'b'), { recursive: true });
    const dawn = await picture(300, 200, '#884422');
    fs.writeFileSync(path.join(photos, 'a.jpg'), dawn);
    fs.writeFileSync(path.join(photos, 'b', 'a-copy.jpg'), dawn);
    fs.writeFileSync(path.join(photos, 'cut.jpg'), dawn.subarray(0, dawn.length / 2));
    fs.writeFileSync(path.join(photos, 'scan.jpg'), '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n');
    fs.writeFileSync(path.join(photos, 'empty.png'), '');
    fs.writeFileSync(path.join(photos, 'notes.txt'), 'shot list');
    // Root reads every file whatever its mode: the permission case needs an ordinary user.
    const unprivileged = process.getuid?.() !== 0;
    if (unprivileged) {
      fs.writeFileSync(path.join(photos, 'locked.jpg'), dawn);
      fs.chmodSync(path.join(photos, 'locked.jpg'), 0o000);
    }
    const sha256 = createHash('sha256').update(dawn).digest('hex');

    const result = await stockroom('ingest', photos, '--family', 'editorial', '--product-types', 'editorialsubscription,creditpack');

    expect(result.code).toBe(1);
    expect(result.problems).toEqual([
      'cut.jpg: failed: the file is cut short',
      'empty.png: failed: the file is empty',
      ...(unprivileged ? ['locked.jpg: failed: permission denied'] : []),
      'scan.jpg: failed: not an image or video file we can read (it looks like a PDF)',
      'notes.txt: skipped: not an image or video (.txt)',
      `kept a.jpg, skipped b/a-copy.jpg: the same content (sha256 ${sha256}); the first in path order is kept`,
      'warning: product type creditpack can never license 1 asset (a.jpg): creditpack licenses creative assets only, and the asset is editorial',
    ]);
    expect(result.stdout.split('\n')).toEqual([
      'a.jpg: the file names no title, so it is titled "A" from its file name',
      `1 created, 0 updated (0 changed), ${unprivileged ? 4 : 3} failed, 2 skipped (1 the same content as another file; 1 not an image or video)`,
      '',
    ]);
  }, 60_000);
});
