import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import type { ListedBlob } from './blob-store.js';
import type { FilesystemBlobStore } from './filesystem-blob-store.js';
import { sha256OfFile, type S3BlobStore } from './s3-blob-store.js';

/** What a migration did. */
export interface BlobMigrationReport {
  /** Blobs the folder held when the migration started. */
  total: number;
  copied: number;
  /** Already in the bucket with the same size and SHA-256 (an earlier, interrupted run). */
  alreadyThere: number;
  bytesCopied: number;
  failed: Array<{ key: string; reason: string }>;
}

export interface BlobMigrationOptions {
  /** Blobs copied at once. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

const DEFAULT_CONCURRENCY = 4;

/** The SHA-256 and length of an object as the bucket gives it back, read as a stream. */
async function digestOfStored(target: S3BlobStore, key: string): Promise<{ sha256: string; size: number } | undefined> {
  const stream = await target.stream(key);
  if (stream === undefined) return undefined;
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * Copies every blob of a folder store into a bucket. Each file's SHA-256 is computed as it is
 * read; a blob already in the bucket with the same size and SHA-256 is left as it is, so a run
 * that was interrupted picks up where it stopped; each copy is read back from the bucket and its
 * SHA-256 compared before it counts as copied. Nothing is deleted from the folder.
 */
export async function migrateBlobs(source: FilesystemBlobStore, target: S3BlobStore, options: BlobMigrationOptions = {}): Promise<BlobMigrationReport> {
  const blobs: ListedBlob[] = [];
  for await (const blob of source.list()) blobs.push(blob);
  const report: BlobMigrationReport = { total: blobs.length, copied: 0, alreadyThere: 0, bytesCopied: 0, failed: [] };
  let done = 0;
  options.onProgress?.(0, blobs.length);

  const copyOne = async ({ key }: ListedBlob) => {
    const file = source.pathOf(key);
    const { size } = await fsp.stat(file);
    const sha256 = await sha256OfFile(file);
    const stored = await target.storedChecksum(key);
    if (stored?.size === size && stored.sha256 === sha256) {
      report.alreadyThere++;
      return;
    }
    await target.putFileWithChecksum(key, file, sha256);
    const readBack = await digestOfStored(target, key);
    if (readBack?.sha256 !== sha256 || readBack.size !== size) {
      throw new Error(`the copy read back from the bucket differs (${readBack ? `${readBack.size} bytes, SHA-256 ${readBack.sha256}` : 'missing'}; expected ${size} bytes, SHA-256 ${sha256})`);
    }
    report.copied++;
    report.bytesCopied += size;
  };

  let next = 0;
  const worker = async () => {
    while (next < blobs.length) {
      const blob = blobs[next++]!;
      try {
        await copyOne(blob);
      } catch (error) {
        report.failed.push({ key: blob.key, reason: error instanceof Error ? error.message : String(error) });
      }
      options.onProgress?.(++done, blobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY) }, worker));
  report.failed.sort((a, b) => (a.key < b.key ? -1 : 1));
  return report;
}
