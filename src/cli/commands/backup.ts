import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../../config/config.js';
import { backUpBlobs, restoreBlobs, verifyBackedUpBlobs } from '../../platform/blobs/blob-backup.js';
import { isListable, type BlobStore } from '../../platform/blobs/blob-store.js';
import { S3BlobStore, sha256OfFile } from '../../platform/blobs/s3-blob-store.js';
import { openConfiguredBlobs } from '../../platform/platform.js';
import { PRIVATE_FILE_MODE } from '../../platform/private-files.js';
import { SHARED_MANIFEST_KEY, isSharedSnapshotBlob } from '../../search/shared-snapshots.js';
import { progressBar } from '../progress.js';

/**
 * `stockroom backup DIR` and `stockroom restore DIR`. A backup folder holds:
 * - `database.sqlite` (an online copy of the SQLite store) or `database.pgdump` (pg_dump's custom format);
 * - `blobs/`, one file per blob, and `blobs.jsonl`, one line per blob: key, size, SHA-256;
 * - `backup.json`, written last: what the backup holds, with the database file's SHA-256. A folder
 *   without it is not a finished backup.
 */

const MANIFEST = 'backup.json';
const BLOB_MANIFEST = 'blobs.jsonl';
const BLOB_FOLDER = 'blobs';
const SQLITE_FILE = 'database.sqlite';
const PG_DUMP_FILE = 'database.pgdump';
const FORMAT = 'stockroom-backup';

interface BackupManifest {
  format: typeof FORMAT;
  version: 1;
  created_at: string;
  database: { kind: 'sqlite' | 'postgres'; file: string; size: number; sha256: string };
  blobs: { manifest: string; folder: string; count: number; bytes: number };
}

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

function sqliteStoreOf(config: Config): string {
  return path.join(config.dataDir, 'stockroom.sqlite');
}

/** A folder to write a backup into: made if absent, refused unless empty (a backup never mixes with another). */
function emptyFolderFor(dir: string): string {
  const folder = path.resolve(dir);
  if (fs.existsSync(folder)) {
    if (!fs.statSync(folder).isDirectory()) throw new Error(`${folder} is not a folder`);
    if (fs.readdirSync(folder).length > 0) throw new Error(`${folder} is not empty: give a new or empty folder for the backup`);
  }
  fs.mkdirSync(folder, { recursive: true });
  return folder;
}

/**
 * An online copy of the SQLite store through SQLite's backup API, while the server goes on
 * writing. A write by another connection restarts a backup between steps, so after the first
 * step every remaining page is copied in one step (under one read transaction: a consistent
 * snapshot, and WAL readers do not hold up writers). The copy is made self-contained (no WAL)
 * and checked with integrity_check.
 */
async function backUpSqlite(source: string, target: string): Promise<void> {
  if (!fs.existsSync(source)) throw new Error(`STOCKROOM_DATA_DIR: no SQLite store at ${source}`);
  const live = new SqliteDatabase(source, { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 10000');
    await live.backup(target, { progress: ({ remainingPages }) => Math.max(remainingPages, 100) });
  } finally {
    live.close();
  }
  const copy = new SqliteDatabase(target);
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new Error(`the copy of the SQLite store fails integrity_check: ${String(check)}`);
  } finally {
    copy.close();
  }
}

/** A connection string for the PostgreSQL tools, its password moved to PGPASSWORD (out of the process list). */
function postgresTarget(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (parsed.password) {
    env.PGPASSWORD = decodeURIComponent(parsed.password);
    parsed.password = '';
  }
  return { dbname: parsed.toString(), env };
}

/** Runs pg_dump or pg_restore; a missing program is an error that names it and says how to get it. */
function runPostgresTool(tool: 'pg_dump' | 'pg_restore', args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new Error(`${tool} is not installed or not on PATH: install the PostgreSQL client programs of the server's major version or newer (Debian: apt-get install postgresql-client)`)
          : new Error(`${tool} could not start: ${error.message}`),
      );
    });
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${tool} failed (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`));
    });
  });
}

async function dumpPostgres(url: string, target: string): Promise<void> {
  const { dbname, env } = postgresTarget(url);
  // The custom format: compressed, and pg_restore can restore it in one transaction.
  await runPostgresTool('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${target}`, `--dbname=${dbname}`], env);
}

async function postgresTableCount(url: string): Promise<number> {
  // Loaded here, not at start: every command's module is loaded by the CLI, `serve` included.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(`select count(*) as count from information_schema.tables where table_schema = current_schema()`);
    return Number(result.rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

async function hasAnyBlob(store: BlobStore): Promise<boolean> {
  if (!isListable(store)) return false;
  for await (const _blob of store.list()) return true;
  return false;
}

function closeBlobs(store: BlobStore): void {
  if (store instanceof S3BlobStore) store.close();
}

function readManifest(folder: string): BackupManifest {
  const file = path.join(folder, MANIFEST);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as BackupManifest;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(`${folder} is not a finished Stockroom backup (${missing ? `no ${MANIFEST}` : `${MANIFEST} is not JSON`})`);
  }
  if (manifest.format !== FORMAT || manifest.version !== 1) throw new Error(`${file} is not a Stockroom backup of a version this program reads`);
  return manifest;
}

export function addBackupCommands(program: Command): void {
  program
    .command('backup')
    .description(
      'back up the store (SQLite: an online copy while the server serves; PostgreSQL: pg_dump) and every blob, with SHA-256 checksums, into a new folder',
    )
    .argument('<dir>', 'a new or empty folder')
    .action(async (dir: string) => {
      const config = loadConfig();
      const folder = emptyFolderFor(dir);
      // The database first, then the blobs: every blob the copied rows name is then in the backup
      // (blobs are only added under new keys, so blobs written meanwhile are extra, never missing).
      const kind = config.databaseUrl ? 'postgres' : 'sqlite';
      const databaseFile = path.join(folder, kind === 'postgres' ? PG_DUMP_FILE : SQLITE_FILE);
      if (config.databaseUrl) await dumpPostgres(config.databaseUrl, databaseFile);
      else await backUpSqlite(sqliteStoreOf(config), databaseFile);
      const blobs = await openConfiguredBlobs(config);
      try {
        if (!isListable(blobs)) throw new Error('the configured blob store cannot list its blobs');
        const bar = progressBar('Backing up blobs');
        let copied;
        try {
          // The search snapshot the nodes share is a cache of the store, gigabytes of it: not backed up.
          copied = await backUpBlobs(blobs, path.join(folder, BLOB_FOLDER), path.join(folder, BLOB_MANIFEST), bar.update, isSharedSnapshotBlob);
        } finally {
          bar.stop();
        }
        const databaseSize = (await fsp.stat(databaseFile)).size;
        const manifest: BackupManifest = {
          format: FORMAT,
          version: 1,
          created_at: new Date().toISOString(),
          database: { kind, file: path.basename(databaseFile), size: databaseSize, sha256: await sha256OfFile(databaseFile) },
          blobs: { manifest: BLOB_MANIFEST, folder: BLOB_FOLDER, count: copied.count, bytes: copied.bytes },
        };
        await fsp.writeFile(path.join(folder, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
        process.stdout.write(
          `Backed up the ${kind === 'postgres' ? 'PostgreSQL' : 'SQLite'} store (${megabytes(databaseSize)}) and ${copied.count} blobs (${megabytes(copied.bytes)}) to ${folder}\n`,
        );
      } finally {
        closeBlobs(blobs);
      }
    });

  program
    .command('restore')
    .description('restore a backup made by `stockroom backup` into the configured store and blob store (stop the server first); refuses a store that is not empty unless --force')
    .argument('<dir>', 'the backup folder')
    .option('--force', 'replace what the store and the blob store hold')
    .action(async (dir: string, options: { force?: boolean }) => {
      const config = loadConfig();
      const folder = path.resolve(dir);
      const manifest = readManifest(folder);
      const kind = config.databaseUrl ? 'postgres' : 'sqlite';
      if (manifest.database.kind !== kind) {
        throw new Error(
          manifest.database.kind === 'sqlite'
            ? 'this backup holds a SQLite store: unset DATABASE_URL to restore it'
            : 'this backup holds a PostgreSQL store: set DATABASE_URL to the database to restore it into',
        );
      }
      const databaseFile = path.join(folder, path.basename(manifest.database.file));
      const blobManifest = path.join(folder, path.basename(manifest.blobs.manifest));
      const blobFolder = path.join(folder, path.basename(manifest.blobs.folder));

      const blobs = await openConfiguredBlobs(config);
      try {
        const occupied: string[] = [];
        if (kind === 'sqlite' && fs.existsSync(sqliteStoreOf(config)) && fs.statSync(sqliteStoreOf(config)).size > 0) occupied.push(`the SQLite store ${sqliteStoreOf(config)} exists`);
        if (kind === 'postgres' && (await postgresTableCount(config.databaseUrl!)) > 0) occupied.push('the PostgreSQL database has tables');
        if (await hasAnyBlob(blobs)) occupied.push('the blob store holds blobs');
        if (occupied.length > 0 && !options.force) throw new Error(`the target is not empty (${occupied.join('; ')}): restore into an empty one, or pass --force to replace it`);

        // Everything is checked before anything is written: a damaged backup restores nothing.
        if ((await sha256OfFile(databaseFile).catch(() => undefined)) !== manifest.database.sha256) {
          throw new Error(`${databaseFile} is missing or does not match the SHA-256 in ${MANIFEST}: the backup is damaged`);
        }
        const bar = progressBar('Checking blobs');
        let verified;
        try {
          verified = await verifyBackedUpBlobs(blobFolder, blobManifest, bar.update);
        } finally {
          bar.stop();
        }
        if (verified.damaged.length > 0) {
          for (const { key, reason } of verified.damaged) process.stderr.write(`${key}: ${reason}\n`);
          throw new Error(`${verified.damaged.length} blobs of the backup do not match its manifest: nothing restored`);
        }

        if (kind === 'sqlite') {
          const store = sqliteStoreOf(config);
          fs.mkdirSync(path.dirname(store), { recursive: true });
          const temporary = `${store}.${randomBytes(6).toString('hex')}.restoring`;
          await fsp.copyFile(databaseFile, temporary);
          // The store holds the signing keys: the restored file is the owner's alone, as a new store is.
          await fsp.chmod(temporary, PRIVATE_FILE_MODE);
          // The old store's write-ahead log must not be replayed into the restored file.
          for (const leftover of [`${store}-wal`, `${store}-shm`]) await fsp.rm(leftover, { force: true });
          await fsp.rename(temporary, store);
        } else {
          const { dbname, env } = postgresTarget(config.databaseUrl!);
          // One transaction: a restore that fails leaves the database as it was.
          const args = ['--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', `--dbname=${dbname}`];
          if (occupied.length > 0) args.push('--clean', '--if-exists');
          await runPostgresTool('pg_restore', [...args, databaseFile], env);
        }
        // This node's search snapshot describes the store as it was; the next start rebuilds it.
        await fsp.rm(path.join(config.dataDir, 'search', 'index.snapshot'), { force: true });

        const restoreBar = progressBar('Restoring blobs');
        let restored;
        try {
          restored = await restoreBlobs(blobFolder, blobManifest, blobs, restoreBar.update);
        } finally {
          restoreBar.stop();
        }
        // Nor does the snapshot shared through the blob store (a backup holds none; the blob store
        // may keep a later one): the next node to start builds and publishes anew.
        await blobs.delete(SHARED_MANIFEST_KEY);
        process.stdout.write(
          `Restored the ${kind === 'postgres' ? 'PostgreSQL' : 'SQLite'} store and ${restored.count} blobs (${megabytes(restored.bytes)}) from ${folder} (made ${manifest.created_at}); every file matched its SHA-256\n`,
        );
      } finally {
        closeBlobs(blobs);
      }
    });
}
