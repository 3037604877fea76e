import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServices } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');

const modeOf = (target: string) => (fs.statSync(target).mode & 0o777).toString(8);

/*
 * The SQLite store holds the URL-signing and session-sealing keys: the data folder is the
 * owner's alone (0700), the store and its -wal and -shm files 0600, the blob folder 0700. An
 * install an earlier version left open is tightened at start, and the log says so.
 */
describe('file modes of the data folder, the store and the blobs', () => {
  let parent: string;
  let previousUmask: number;
  beforeEach(() => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-modes-'));
    // The usual umask of a service account: without the modes set here, files would be 0644.
    previousUmask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(previousUmask);
    fs.rmSync(parent, { recursive: true, force: true });
  });

  it('creates the data folder 0700, the store, its -wal and -shm 0600 and the blob folder 0700', async () => {
    const dataDir = path.join(parent, 'data');
    const services = await createServices(loadConfig({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' }));
    try {
      // A write, so that SQLite has its write-ahead log and shared-memory files open.
      await services.clients.create({ name: 'Modes' });
      const store = path.join(dataDir, 'stockroom.sqlite');
      expect(modeOf(dataDir)).toBe('700');
      expect(modeOf(store)).toBe('600');
      expect(fs.existsSync(`${store}-wal`)).toBe(true);
      expect(modeOf(`${store}-wal`)).toBe('600');
      expect(modeOf(`${store}-shm`)).toBe('600');
      expect(modeOf(path.join(dataDir, 'blobs'))).toBe('700');
    } finally {
      await services.close();
    }
  });

  it('tightens an existing install at start and says so in the log', async () => {
    const dataDir = path.join(parent, 'data');
    const blobsDir = path.join(dataDir, 'blobs');
    const store = path.join(dataDir, 'stockroom.sqlite');
    fs.mkdirSync(blobsDir, { recursive: true });
    // As an earlier version left them: the store made by SQLite under umask 022, a world-open blob folder.
    const earlier = new SqliteDatabase(store);
    earlier.pragma('journal_mode = WAL');
    earlier.exec('create table left_by_an_earlier_version (x integer)');
    earlier.close();
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(store, 0o644);
    fs.chmodSync(blobsDir, 0o775);

    const { stdout } = await run(process.execPath, [CLI, 'admin', 'client', 'create', '--name', 'After the upgrade', '--json'], {
      env: { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', STOCKROOM_BLOBS: '' },
    });
    expect(modeOf(dataDir)).toBe('700');
    expect(modeOf(store)).toBe('600');
    // A group the operator gave the blob folder is kept; others lose theirs.
    expect(modeOf(blobsDir)).toBe('770');
    const lines = stdout
      .split('\n')
      .filter((line) => line.startsWith('{"level"'))
      .map((line) => JSON.parse(line) as { msg: string; path: string; was: string; now: string });
    const said = lines.filter((line) => line.msg.includes('made a private file or folder private'));
    expect(said.map(({ path: changed, was, now }) => ({ path: changed, was, now }))).toEqual(
      expect.arrayContaining([
        { path: dataDir, was: '755', now: '700' },
        { path: store, was: '644', now: '600' },
        { path: blobsDir, was: '775', now: '770' },
      ]),
    );
  });
});
