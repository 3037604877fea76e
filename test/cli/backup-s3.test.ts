import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/platform/blobs/s3-blob-store.js';
import { CLI, processScratch } from '../helpers/server-processes.js';
import { S3_TEST_CREDENTIALS, startS3TestServer, type S3TestServer } from '../platform/blobs/s3-test-server.js';

/** Backups of an installation whose blobs are in a bucket: they are read from it and restored into one. */

const run = promisify(execFile);
const scratch = processScratch('stockroom-backup-s3-');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('stockroom backup and restore with STOCKROOM_BLOBS on S3', () => {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3TestServer();
  });
  afterAll(async () => {
    await s3.close();
  });
  const bucketAt = (prefix: string) =>
    new S3BlobStore({ bucket: s3.bucket, prefix }, { pathStyle: true, client: { endpoint: s3.endpoint, region: 'us-east-1', credentials: S3_TEST_CREDENTIALS } });
  const digests = async (store: S3BlobStore) => {
    const found = new Map<string, string>();
    for await (const { key } of store.list()) found.set(key, sha256((await store.get(key))!));
    return found;
  };

  it('copies every object of the bucket into the backup and restores them into another prefix, each checked by SHA-256', { timeout: 120_000 }, async () => {
    const source = bucketAt('live');
    const written = new Map<string, string>();
    for (let n = 0; n < 12; n++) {
      const data = randomBytes(2000 + n * 3000);
      await source.put(`originals/${n}/file-${n}.jpg`, data);
      written.set(`originals/${n}/file-${n}.jpg`, sha256(data));
    }
    // One above the multipart threshold.
    const large = randomBytes(9 * 1024 * 1024);
    const largeFile = path.join(scratch.tempDir(), 'large.mp4');
    fs.writeFileSync(largeFile, large);
    await source.putFile('videos/large.mp4', largeFile);
    written.set('videos/large.mp4', sha256(large));

    const env = (prefix: string, dataDir: string) => ({
      ...process.env,
      ...s3.env(prefix),
      STOCKROOM_DATA_DIR: dataDir,
      STOCKROOM_LOG_LEVEL: 'silent',
      DATABASE_URL: '',
      REDIS_URL: '',
    });
    const sourceDir = scratch.tempDir();
    await run(process.execPath, [CLI, 'admin', 'client', 'create', '--name', 'Partner app'], { env: env('live', sourceDir) });
    const backup = path.join(scratch.tempDir(), 'backup');
    const { stdout } = await run(process.execPath, [CLI, 'backup', backup], { env: env('live', sourceDir) });
    expect(stdout).toMatch(/^Backed up the SQLite store \([\d.]+ MB\) and 13 blobs \(9\.\d MB\)/);
    const manifest = fs
      .readFileSync(path.join(backup, 'blobs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: string; sha256: string });
    expect(new Map(manifest.map((entry) => [entry.key, entry.sha256]))).toEqual(written);

    const restored = await run(process.execPath, [CLI, 'restore', backup], { env: env('restored', scratch.tempDir()) });
    expect(restored.stdout).toMatch(/^Restored the SQLite store and 13 blobs/);
    const target = bucketAt('restored');
    expect(await digests(target)).toEqual(written);
    // Restored objects carry their SHA-256, as every object the store writes does.
    expect((await target.storedChecksum('videos/large.mp4'))?.sha256).toBe(sha256(large));

    // A second restore into the same prefix finds blobs there.
    const refused = await run(process.execPath, [CLI, 'restore', backup], { env: env('restored', scratch.tempDir()) }).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/the target is not empty \(the blob store holds blobs\)/) });
    source.close();
    target.close();
  });
});
