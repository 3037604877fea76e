import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { migrateToLatest, openDatabase, type Database, type DatabaseOptions } from '../../src/platform/db/database.js';
import { indexExists } from '../../src/platform/db/deferred-indexes.js';
import { SyntheticCatalogue } from '../../bench/fixtures/synthetic-catalogue.js';
import { writeManifest, type WrittenManifest } from '../../bench/fixtures/synthetic-manifest.js';
import { POSTGRES_URL } from '../helpers/test-store.js';
import { freshPostgresDatabase } from '../helpers/server-processes.js';

/*
 * `stockroom ingest` over a long metadata-only manifest, killed in the middle (SIGKILL: no
 * chance to tidy up) and run again: the second run continues after the last line the first one
 * saved as done, and the store ends with each asset once and the same catalogue as a run never
 * stopped — on SQLite and on PostgreSQL. (The change log differs by design: lines the killed
 * run stored after its last checkpoint are stored again, and logged again.) On SQLite a run into
 * an empty store leaves the index by keyword out while it loads: the killed run leaves the store
 * without it, and the next start builds it again; a run never stopped builds it at its end.
 */

const KEYWORD_INDEX = 'asset_keywords_keyword_idx';
const LEFT_OUT = `index ${KEYWORD_INDEX} is left out while loading and built at the end`;

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');
const ASSETS = 12_000;

/** A store the command runs on: its environment, and how the test opens it. */
interface Store {
  env: Record<string, string>;
  options: DatabaseOptions;
  drop(): Promise<void>;
}

async function sqliteStore(folder: string): Promise<Store> {
  return { env: { STOCKROOM_DATA_DIR: folder, DATABASE_URL: '' }, options: { sqliteFile: path.join(folder, 'stockroom.sqlite') }, drop: async () => undefined };
}

async function postgresStore(folder: string): Promise<Store> {
  const database = await freshPostgresDatabase(POSTGRES_URL!, 'stockroom_ingest');
  return { env: { STOCKROOM_DATA_DIR: folder, DATABASE_URL: database.url }, options: { url: database.url }, drop: () => database.drop() };
}

const STORES: ReadonlyArray<[string, (folder: string) => Promise<Store>]> = [
  ['SQLite', sqliteStore],
  ...(POSTGRES_URL ? [['PostgreSQL', postgresStore] as [string, (folder: string) => Promise<Store>]] : []),
];

async function withStore<T>(store: Store, read: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase(store.options);
  try {
    return await read(database);
  } finally {
    await database.close();
  }
}

/** JSON with object keys sorted, so that two rows compare whatever order their columns came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The catalogue a store holds, without what differs by nature between two runs (times, numbers drawn). */
async function catalogueOf(store: Store, ids: readonly string[]): Promise<Record<string, string[]>> {
  return withStore(store, async (database) => {
    const repository = new CatalogRepository(database);
    const assets: string[] = [];
    for (let start = 0; start < ids.length; start += 1000) {
      for (const { updated_at: _updatedAt, ...record } of await repository.findAssetsInAnyState(undefined, ids.slice(start, start + 1000))) assets.push(canonical(record));
    }
    const rows = async (table: 'events' | 'keywords' | 'collections' | 'artists', key: 'id' | 'name') =>
      (await database.db.selectFrom(table).selectAll().orderBy(key).execute()).map((row) => {
        const { updated_at: _updatedAt, ...rest } = row as Record<string, unknown>;
        return canonical(table === 'artists' ? { name: rest.name } : rest);
      });
    return {
      assets: assets.sort(),
      events: await rows('events', 'id'),
      keywords: await rows('keywords', 'id'),
      collections: await rows('collections', 'id'),
      artists: await rows('artists', 'name'),
    };
  });
}

describe.each(STORES)('an ingest that was killed, run again (%s)', (name, makeStore) => {
  const onSqlite = name === 'SQLite';
  let scratch: string;
  let manifest: string;
  let written: WrittenManifest;
  const ids: string[] = [];
  const stores: Store[] = [];
  const env = (store: Store) => ({ ...process.env, STOCKROOM_LOG_LEVEL: 'silent', REDIS_URL: '', STOCKROOM_BLOBS: '', STOCKROOM_NUDITY_CLASSIFIER: 'false', ...store.env });

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-ingest-resume-'));
    manifest = path.join(scratch, 'catalogue.jsonl');
    const catalogue = new SyntheticCatalogue(ASSETS, 7);
    written = await writeManifest(manifest, catalogue);
    for (const input of catalogue.assets()) ids.push(input.id);
  });
  afterAll(async () => {
    for (const store of stores) await store.drop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('continues after the last line saved, and ends with each asset once and the catalogue of a run never stopped', async () => {
    const interrupted = await makeStore(path.join(scratch, 'interrupted'));
    stores.push(interrupted);
    // The first run is killed as soon as it has saved how far it came.
    const child = spawn(process.execPath, [CLI, 'ingest', manifest], { env: env(interrupted), stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const checkpoint = () =>
      withStore(interrupted, async ({ db }) => (await db.selectFrom('ingest_checkpoints').select('through_line').executeTakeFirst())?.through_line).catch(() => undefined);
    while ((await checkpoint()) === undefined && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    await exited;
    // (read once it is dead: it may have saved again since)
    const saved = await checkpoint();
    expect(saved, 'the first run ended before it could be stopped').toBeGreaterThan(0);
    const storedBefore = await withStore(interrupted, async ({ db }) => Number((await db.selectFrom('assets').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n));
    expect(storedBefore).toBeLessThan(ASSETS);
    // Left out by the killed run (SQLite), and built by the next start, before the run continues.
    expect(await withStore(interrupted, (database) => indexExists(database, KEYWORD_INDEX))).toBe(!onSqlite);
    const restarted = await withStore(interrupted, (database) => migrateToLatest(database));
    expect(restarted.rebuiltIndexes).toEqual(onSqlite ? [KEYWORD_INDEX] : []);
    expect(await withStore(interrupted, (database) => indexExists(database, KEYWORD_INDEX))).toBe(true);

    const again = await run(process.execPath, [CLI, 'ingest', manifest], { env: env(interrupted), maxBuffer: 16 * 1024 * 1024 });
    expect(again.stderr).toContain(`${manifest}: continuing the run that stopped after line ${saved}; the lines before were stored then`);
    // Its counts are the whole manifest's: the lines stored since the last checkpoint are stored again, as updates.
    const [inserted, updated, failed] = /^(\d+) inserted, (\d+) updated, (\d+) failed$/.exec(again.stdout.trim())!.slice(1).map(Number);
    expect(inserted! + updated!).toBe(written.lines);
    expect(failed).toBe(0);
    // Progress on standard error: lines done of all, and the rate.
    expect(again.stderr).toMatch(new RegExp(`^Ingesting: ${written.lines}/${written.lines} \\(100%\\), \\d+ lines/s$`, 'm'));
    // The store held assets: the continued run keeps the index.
    expect(again.stderr).not.toContain(LEFT_OUT);
    expect(await withStore(interrupted, (database) => indexExists(database, KEYWORD_INDEX))).toBe(true);
    // Finished: nothing left to continue.
    expect(await withStore(interrupted, ({ db }) => db.selectFrom('ingest_checkpoints').selectAll().execute())).toEqual([]);

    const clean = await makeStore(path.join(scratch, 'clean'));
    stores.push(clean);
    const once = await run(process.execPath, [CLI, 'ingest', manifest], { env: env(clean), maxBuffer: 16 * 1024 * 1024 });
    expect(once.stdout.trim()).toBe(`${written.lines} inserted, 0 updated, 0 failed`);
    expect(once.stderr).not.toContain('continuing');
    if (onSqlite) expect(once.stderr).toContain(LEFT_OUT);
    else expect(once.stderr).not.toContain(LEFT_OUT);
    expect(await withStore(clean, (database) => indexExists(database, KEYWORD_INDEX))).toBe(true);

    const [afterStop, neverStopped] = [await catalogueOf(interrupted, ids), await catalogueOf(clean, ids)];
    expect(afterStop.assets).toHaveLength(ASSETS);
    expect(afterStop.events).toHaveLength(written.events);
    for (const part of Object.keys(neverStopped)) expect(afterStop[part], part).toEqual(neverStopped[part]);
  }, 300_000);
});
