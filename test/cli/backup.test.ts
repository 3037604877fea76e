import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { CLI, freshPostgresDatabase, processScratch, serve, stop } from '../helpers/server-processes.js';
import { POSTGRES_URL } from '../helpers/test-store.js';

/**
 * `stockroom backup` and `stockroom restore`, end to end through the real command: a round trip
 * compares every table row by row and every blob by SHA-256.
 */

const run = promisify(execFile);
const SMALL_DEMO = ['--images', '30', '--videos', '4', '--events', '3'];
const SMALL_DEMO_ASSETS = 34;
const scratch = processScratch('stockroom-backup-');

type Env = NodeJS.ProcessEnv;
const baseEnv = (extra: Env = {}): Env => ({ ...process.env, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '', STOCKROOM_BLOBS: '', ...extra });
const stockroom = (env: Env, ...args: string[]) => run(process.execPath, [CLI, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
const failureOf = (promise: Promise<unknown>) => promise.then(
  () => {
    throw new Error('the command succeeded');
  },
  (error: { code: number; stdout: string; stderr: string }) => error,
);

/** Every row of every table, each as text, sorted: two stores are equal when these are. */
type TableRows = Map<string, string[]>;

/** Blobs turn into text as hex; anything else as JSON does. */
const rowText = (row: unknown) => JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? `hex:${value.toString('hex')}` : value));

function sqliteRows(file: string): TableRows {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    // sqlite_sequence (SQLite's own counters) is left out: the other tables hold what they count.
    const tables = db.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`).all() as Array<{ name: string }>;
    return new Map(tables.map(({ name }) => [name, (db.prepare(`select * from "${name}"`).all() as unknown[]).map(rowText).sort()]));
  } finally {
    db.close();
  }
}

async function postgresRows(url: string): Promise<TableRows> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
    );
    const rows: TableRows = new Map();
    for (const { table_name: name } of tables.rows) {
      const result = await client.query<{ row: string }>(`select row_to_json(t)::text as row from "${name}" t`);
      rows.set(name, result.rows.map((row) => row.row).sort());
    }
    return rows;
  } finally {
    await client.end();
  }
}

async function blobDigests(folder: string): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  const store = new FilesystemBlobStore(folder);
  for await (const { key } of store.list()) digests.set(key, createHash('sha256').update(fs.readFileSync(store.pathOf(key))).digest('hex'));
  return digests;
}

function tableSizes(rows: TableRows): Record<string, number> {
  return Object.fromEntries([...rows].map(([name, list]) => [name, list.length]));
}

describe('stockroom backup and restore on SQLite', () => {
  it('backs up online while a server process writes; the restore holds a consistent snapshot: every row and blob as they were', { timeout: 240_000 }, async () => {
    const source = scratch.tempDir();
    const env = baseEnv();
    // A small demo catalogue (with its blobs and a demo application), then the server on it.
    await stockroom({ ...env, STOCKROOM_DATA_DIR: source }, 'seed-demo', ...SMALL_DEMO);
    const server = await serve(env, source);
    scratch.cleanups.push(() => stop(server));
    const access = JSON.parse(fs.readFileSync(path.join(source, 'demo-access.json'), 'utf8')) as { api_key: string; api_secret: string };

    // The writer: every token the server issues is a row written by the server process.
    let issued = 0;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const response = await fetch(`http://127.0.0.1:${server.port}/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'client_credentials', client_id: access.api_key, client_secret: access.api_secret }).toString(),
        });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        issued++;
      }
    })();
    const waitForIssued = async (count: number) => {
      while (issued < count) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await waitForIssued(10);
    const issuedBeforeBackup = issued;
    const backup = path.join(scratch.tempDir(), 'backup');
    const { stdout } = await stockroom({ ...env, STOCKROOM_DATA_DIR: source }, 'backup', backup);
    expect(stdout).toMatch(/^Backed up the SQLite store \([\d.]+ MB\) and \d+ blobs \([\d.]+ MB\) to /);
    const issuedAfterBackup = issued;
    await waitForIssued(issuedAfterBackup + 10);
    writing = false;
    await writer;
    await stop(server);

    const target = scratch.tempDir();
    const restored = await stockroom({ ...env, STOCKROOM_DATA_DIR: target }, 'restore', backup);
    expect(restored.stdout).toMatch(/^Restored the SQLite store and \d+ blobs .*; every file matched its SHA-256$/m);
    // The restored store holds the signing keys: the owner's alone, as a new one is.
    expect(fs.statSync(path.join(target, 'stockroom.sqlite')).mode & 0o777).toBe(0o600);

    const before = sqliteRows(path.join(source, 'stockroom.sqlite'));
    const after = sqliteRows(path.join(target, 'stockroom.sqlite'));
    expect([...after.keys()]).toEqual([...before.keys()]);
    // Every restored row is a row of the source; the only rows missing are the writer's, written after the snapshot.
    const differing: string[] = [];
    for (const [table, rows] of before) {
      const restoredRows = after.get(table)!;
      const sourceRows = new Set(rows);
      expect(restoredRows.filter((row) => !sourceRows.has(row)), `rows of ${table} the source never had`).toEqual([]);
      if (restoredRows.length !== rows.length) differing.push(table);
    }
    expect(differing).toEqual(['access_tokens']);
    const tokens = (rows: TableRows) => rows.get('access_tokens')!.length;
    // The snapshot fell inside the writes: more tokens than before the backup began, fewer than in the end.
    expect(tokens(after) - tokens(before) + issued).toBeGreaterThanOrEqual(issuedBeforeBackup);
    expect(tokens(after)).toBeLessThan(tokens(before));
    expect(tokens(before) - tokens(after)).toBeLessThanOrEqual(issued - issuedBeforeBackup);
    expect(tokens(before) - tokens(after)).toBeGreaterThanOrEqual(issued - issuedAfterBackup);

    const sourceBlobs = await blobDigests(path.join(source, 'blobs'));
    expect(sourceBlobs.size).toBeGreaterThan(SMALL_DEMO_ASSETS);
    expect(await blobDigests(path.join(target, 'blobs'))).toEqual(sourceBlobs);

    // The restored store is a working one.
    const client = await stockroom({ ...env, STOCKROOM_DATA_DIR: target }, 'admin', 'client', 'create', '--name', 'After restore', '--json');
    expect(JSON.parse(client.stdout)).toHaveProperty('api_key');
  });

  it('refuses a non-empty target without --force, a folder that is not a finished backup, a damaged backup, and a non-empty backup folder', { timeout: 120_000 }, async () => {
    const source = scratch.tempDir();
    const env = baseEnv({ STOCKROOM_DATA_DIR: source });
    await stockroom(env, 'admin', 'client', 'create', '--name', 'Only client');
    fs.mkdirSync(path.join(source, 'blobs', 'originals'), { recursive: true });
    fs.writeFileSync(path.join(source, 'blobs', 'originals', 'one.jpg'), 'not really a picture');
    const backup = path.join(scratch.tempDir(), 'backup');
    await stockroom(env, 'backup', backup);

    const occupied = await failureOf(stockroom(env, 'restore', backup));
    expect(occupied.code).toBe(1);
    expect(occupied.stderr.trim().split('\n').at(-1)).toMatch(/^stockroom: the target is not empty \(the SQLite store .* exists; the blob store holds blobs\): .* --force/);
    await expect(stockroom(env, 'restore', '--force', backup)).resolves.toMatchObject({ stdout: expect.stringMatching(/^Restored the SQLite store and 1 blobs/) });

    const again = await failureOf(stockroom(env, 'backup', backup));
    expect(again.stderr).toMatch(/is not empty: give a new or empty folder for the backup/);
    const notBackup = await failureOf(stockroom(env, 'restore', source));
    expect(notBackup.stderr).toMatch(/is not a finished Stockroom backup \(no backup\.json\)/);

    fs.writeFileSync(path.join(backup, 'blobs', 'originals', 'one.jpg'), 'tampered with');
    const empty = scratch.tempDir();
    const damaged = await failureOf(stockroom(baseEnv({ STOCKROOM_DATA_DIR: empty }), 'restore', backup));
    expect(damaged.stderr).toMatch(/^originals\/one\.jpg: 13 bytes with SHA-256 [0-9a-f]{64}, but the manifest says 20 bytes/m);
    expect(damaged.stderr).toMatch(/stockroom: 1 blobs of the backup do not match its manifest: nothing restored/);
    expect(fs.existsSync(path.join(empty, 'stockroom.sqlite'))).toBe(false);
  });
});

describe.skipIf(!POSTGRES_URL)('stockroom backup and restore on PostgreSQL (pg_dump / pg_restore)', () => {
  it('round trip: every table row by row, every blob, and the restored database takes new rows', { timeout: 240_000 }, async () => {
    const sourceDatabase = await freshPostgresDatabase(POSTGRES_URL!, 'stockroom_backup');
    scratch.cleanups.push(() => sourceDatabase.drop());
    const targetDatabase = await freshPostgresDatabase(POSTGRES_URL!, 'stockroom_restore');
    scratch.cleanups.push(() => targetDatabase.drop());
    const source = scratch.tempDir();
    const sourceEnv = baseEnv({ DATABASE_URL: sourceDatabase.url, STOCKROOM_DATA_DIR: source });
    await stockroom(sourceEnv, 'seed-demo', ...SMALL_DEMO);
    await stockroom(sourceEnv, 'admin', 'client', 'create', '--name', 'Partner app');

    const backup = path.join(scratch.tempDir(), 'backup');
    const { stdout } = await stockroom(sourceEnv, 'backup', backup);
    expect(stdout).toMatch(/^Backed up the PostgreSQL store \([\d.]+ MB\) and \d+ blobs/);
    expect(fs.existsSync(path.join(backup, 'database.pgdump'))).toBe(true);

    const target = scratch.tempDir();
    const targetEnv = baseEnv({ DATABASE_URL: targetDatabase.url, STOCKROOM_DATA_DIR: target });
    await stockroom(targetEnv, 'restore', backup);
    const before = await postgresRows(sourceDatabase.url);
    expect(before.get('assets')?.length).toBe(SMALL_DEMO_ASSETS);
    expect(tableSizes(await postgresRows(targetDatabase.url))).toEqual(tableSizes(before));
    expect(await postgresRows(targetDatabase.url)).toEqual(before);
    const sourceBlobs = await blobDigests(path.join(source, 'blobs'));
    expect(sourceBlobs.size).toBeGreaterThan(SMALL_DEMO_ASSETS);
    expect(await blobDigests(path.join(target, 'blobs'))).toEqual(sourceBlobs);

    // Sequences came back too: a new row takes a fresh id.
    await stockroom(targetEnv, 'admin', 'client', 'create', '--name', 'After restore');

    // Over a database that has tables: refused, then replaced whole with --force.
    const occupied = await failureOf(stockroom(targetEnv, 'restore', backup));
    expect(occupied.stderr).toMatch(/the target is not empty \(the PostgreSQL database has tables; the blob store holds blobs\)/);
    // The search snapshot the nodes share describes the store before the restore: its manifest goes.
    const sharedManifest = path.join(target, 'blobs', 'search-snapshots', 'manifest.json');
    fs.mkdirSync(path.dirname(sharedManifest), { recursive: true });
    fs.writeFileSync(sharedManifest, '{}');
    await stockroom(targetEnv, 'restore', '--force', backup);
    expect(await postgresRows(targetDatabase.url)).toEqual(before);
    expect(fs.existsSync(sharedManifest)).toBe(false);
  });

  it('names pg_dump when it is not installed', async () => {
    const database = await freshPostgresDatabase(POSTGRES_URL!, 'stockroom_backup');
    scratch.cleanups.push(() => database.drop());
    const env = baseEnv({ DATABASE_URL: database.url, STOCKROOM_DATA_DIR: scratch.tempDir(), PATH: scratch.tempDir() });
    const failure = await failureOf(stockroom(env, 'backup', path.join(scratch.tempDir(), 'backup')));
    expect(failure.code).toBe(1);
    expect(failure.stderr.trim()).toMatch(/^stockroom: pg_dump is not installed or not on PATH: install the PostgreSQL client programs/);
  });
});
