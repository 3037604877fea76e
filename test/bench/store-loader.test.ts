import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PICTURE_SIZES, SyntheticCatalogue } from '../../bench/fixtures/synthetic-catalogue.js';
import { checkAgainstRepository, loadCatalogue, type LoadOptions } from '../../bench/fixtures/store-loader.js';
import type { AssetInput } from '../../src/catalog/catalog.records.js';
import { migrateToLatest, openDatabase } from '../../src/platform/db/database.js';

/*
 * The benchmarks' bulk loader writes the rows CatalogRepository.upsertAsset writes, and its
 * check says so on a sample; a row that differs in any column makes the check fail, naming it.
 */

describe('the benchmarks’ bulk loader beside CatalogRepository', () => {
  let dir: string;
  let storeFile: string;
  const catalogue = new SyntheticCatalogue(120, 3);

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-loader-test-'));
    storeFile = path.join(dir, 'stockroom.sqlite');
    const database = await openDatabase({ sqliteFile: storeFile });
    await migrateToLatest(database);
    await database.close();
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const alter = (sql: string, ...params: unknown[]) => {
    const db = new SqliteDatabase(storeFile);
    const changed = db.prepare(sql).run(...params).changes;
    db.close();
    expect(changed).toBeGreaterThan(0);
  };
  const firstId = () => catalogue.assets().next().value!.id;

  it('writes what the repository writes, metadata-only records', async () => {
    const report = loadCatalogue(storeFile, catalogue);
    expect(report.assets).toBe(120);
    const fidelity = await checkAgainstRepository(catalogue, storeFile, path.join(dir, 'scratch'), 60);
    expect(fidelity).toMatchObject({ sample: 60, identical: 60 });
  });

  it('writes what the repository writes, records that name an original', async () => {
    const originalOf: LoadOptions['originalOf'] = (input: AssetInput) => {
      const { width, height } = input.fields.max_dimensions as { width: number; height: number };
      expect(PICTURE_SIZES).toContainEqual({ width, height });
      return { key: `originals/${width}x${height}.jpg`, media_type: 'image/jpeg', width, height, dpi: 300, bytes: 1000 };
    };
    loadCatalogue(storeFile, catalogue, { originalOf });
    const fidelity = await checkAgainstRepository(catalogue, storeFile, path.join(dir, 'scratch'), 40, { originalOf });
    expect(fidelity.identical).toBe(40);
    // and a store loaded without them is told apart
    fs.rmSync(path.join(dir, 'scratch'), { recursive: true, force: true });
    await expect(checkAgainstRepository(catalogue, storeFile, path.join(dir, 'scratch'), 40)).rejects.toThrow(/original_key/);
  });

  it('names a column the bulk loader left unwritten, even one no record shows', async () => {
    loadCatalogue(storeFile, catalogue);
    alter('update assets set nudity_score = 0.5 where id = ?', firstId());
    await expect(checkAgainstRepository(catalogue, storeFile, path.join(dir, 'scratch'), 30)).rejects.toThrow(
      new RegExp(`assets ${firstId()}: nudity_score is 0.5 in bulk, null through the repository`),
    );
  });

  it('names a change-log entry that differs', async () => {
    loadCatalogue(storeFile, catalogue);
    alter(`update change_log set asset_family = null where entity_id = ?`, firstId());
    await expect(checkAgainstRepository(catalogue, storeFile, path.join(dir, 'scratch'), 30)).rejects.toThrow(/change_log image \d+ insert: asset_family/);
  });

  it('names a record that reads back otherwise than the benchmark indexes it', async () => {
    loadCatalogue(storeFile, catalogue);
    alter(`update assets set details = json_set(details, '$.copyright', 'someone else') where id = ?`, firstId());
    await expect(checkAgainstRepository(catalogue, storeFile, path.join(dir, 'scratch'), 30)).rejects.toThrow(/1 of 30 records differ/);
  });
});
