import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { assertSafeBlobKey, type BlobStore, type ListableBlobStore } from './blob-store.js';
import { copyBlobToFile } from './blob-files.js';
import { S3BlobStore, sha256OfFile } from './s3-blob-store.js';

/** One line of a backup's blob manifest. */
export interface BackedUpBlob {
  key: string;
  size: number;
  sha256: string;
}

export interface BlobCopyReport {
  count: number;
  bytes: number;
}

export interface BlobRestoreReport extends BlobCopyReport {
  /** Blobs whose file in the backup no longer matches its manifest line: not restored. */
  damaged: Array<{ key: string; reason: string }>;
}

/** Blobs copied or checked at once: a bucket answers each request with some delay, a disk does not mind. */
const BLOBS_AT_ONCE = 4;

async function* each<T>(items: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

/** Runs `run` on every item, a few at once; the first failure fails the whole. */
async function forEachAtOnce<T>(items: AsyncIterable<T> | Iterable<T>, run: (item: T) => Promise<void>): Promise<void> {
  const iterator = each(items);
  const worker = async () => {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) await run(next.value);
  };
  await Promise.all(Array.from({ length: BLOBS_AT_ONCE }, worker));
}

/** The file of a key under a backup's blob folder. */
function fileUnder(folder: string, key: string): string {
  assertSafeBlobKey(key);
  return path.join(folder, ...key.split('/'));
}

/**
 * Copies every blob of a store into a folder (one file per key, as the folder store keeps them),
 * computing each one's SHA-256 as it streams, and writes the manifest — one JSON line per blob:
 * key, size, SHA-256 — as it goes. A blob that goes away between the listing and its copy is
 * left out, as is one `leaveOut` names (a cache the store also holds). Returns what was copied.
 */
export async function backUpBlobs(
  store: ListableBlobStore,
  folder: string,
  manifestFile: string,
  onProgress?: (done: number, total: number) => void,
  leaveOut: (key: string) => boolean = () => false,
): Promise<BlobCopyReport> {
  const keys: string[] = [];
  for await (const blob of store.list()) if (!leaveOut(blob.key)) keys.push(blob.key);
  const manifest = fs.createWriteStream(manifestFile, { flags: 'wx' });
  const report: BlobCopyReport = { count: 0, bytes: 0 };
  try {
    let done = 0;
    onProgress?.(0, keys.length);
    await forEachAtOnce(keys, async (key) => {
      const copied = await copyBlobToFile(store, key, fileUnder(folder, key));
      if (copied) {
        if (!manifest.write(`${JSON.stringify({ key, ...copied })}\n`)) await new Promise<void>((resolve) => manifest.once('drain', () => resolve()));
        report.count++;
        report.bytes += copied.size;
      }
      onProgress?.(++done, keys.length);
    });
  } finally {
    await new Promise<void>((resolve, reject) => manifest.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  return report;
}

export async function* readBlobManifest(manifestFile: string): AsyncIterable<BackedUpBlob> {
  const lines = readline.createInterface({ input: fs.createReadStream(manifestFile), crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (line.trim() === '') continue;
    let entry: BackedUpBlob;
    try {
      entry = JSON.parse(line) as BackedUpBlob;
    } catch {
      throw new Error(`${manifestFile} line ${number}: not JSON`);
    }
    if (typeof entry.key !== 'string' || typeof entry.size !== 'number' || typeof entry.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(entry.sha256)) {
      throw new Error(`${manifestFile} line ${number}: not a blob entry (key, size, sha256)`);
    }
    assertSafeBlobKey(entry.key);
    yield entry;
  }
}

/**
 * Checks every blob file of a backup against its manifest line (size and SHA-256), reading each
 * one whole, before a restore touches anything.
 */
export async function verifyBackedUpBlobs(folder: string, manifestFile: string, onProgress?: (done: number, total: number) => void): Promise<BlobRestoreReport> {
  const total = await countManifest(manifestFile);
  const report: BlobRestoreReport = { count: 0, bytes: 0, damaged: [] };
  let done = 0;
  onProgress?.(0, total);
  await forEachAtOnce(readBlobManifest(manifestFile), async (entry) => {
    const file = fileUnder(folder, entry.key);
    const size = await fsp.stat(file).then((stat) => stat.size, () => undefined);
    const sha256 = size === undefined ? undefined : await sha256OfFile(file);
    if (size !== entry.size || sha256 !== entry.sha256) {
      report.damaged.push({
        key: entry.key,
        reason: size === undefined ? 'missing from the backup' : `${size} bytes with SHA-256 ${sha256}, but the manifest says ${entry.size} bytes with SHA-256 ${entry.sha256}`,
      });
    } else {
      report.count++;
      report.bytes += size;
    }
    onProgress?.(++done, total);
  });
  report.damaged.sort((a, b) => (a.key < b.key ? -1 : 1));
  return report;
}

async function countManifest(manifestFile: string): Promise<number> {
  let total = 0;
  for await (const _entry of readBlobManifest(manifestFile)) total++;
  return total;
}

/** Puts the blobs of a verified backup into a store (replacing what it holds under the same keys). */
export async function restoreBlobs(folder: string, manifestFile: string, store: BlobStore, onProgress?: (done: number, total: number) => void): Promise<BlobCopyReport> {
  const total = await countManifest(manifestFile);
  const report: BlobCopyReport = { count: 0, bytes: 0 };
  let done = 0;
  onProgress?.(0, total);
  await forEachAtOnce(readBlobManifest(manifestFile), async (entry) => {
    const file = fileUnder(folder, entry.key);
    // The SHA-256 checked by verifyBackedUpBlobs goes with the object, as the S3 store records it.
    if (store instanceof S3BlobStore) await store.putFileWithChecksum(entry.key, file, entry.sha256);
    else await store.putFile(entry.key, file);
    report.count++;
    report.bytes += entry.size;
    onProgress?.(++done, total);
  });
  return report;
}
