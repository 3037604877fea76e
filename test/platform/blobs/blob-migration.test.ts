import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateBlobs } from '../../../src/platform/blobs/blob-migration.js';
import { FilesystemBlobStore } from '../../../src/platform/blobs/filesystem-blob-store.js';
import { S3BlobStore } from '../../../src/platform/blobs/s3-blob-store.js';
import { S3_TEST_CREDENTIALS, startS3TestServer, type S3TestServer } from './s3-test-server.js';

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('stockroom blobs migrate', () => {
  let s3: S3TestServer;
  let scratch: string;
  let folder: FilesystemBlobStore;
  let bucket: S3BlobStore;
  const written = new Map<string, Buffer>();

  beforeAll(async () => {
    s3 = await startS3TestServer();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-migrate-'));
    folder = new FilesystemBlobStore(path.join(scratch, 'data', 'blobs'));
    // Originals of several sizes in nested folders, one big enough for a multipart upload.
    for (let n = 0; n < 24; n++) {
      const key = `originals/${n % 4}/${n}/asset-${n}.jpg`;
      const data = randomBytes(1000 + n * 5000);
      await folder.put(key, data);
      written.set(key, data);
    }
    const large = randomBytes(9 * 1024 * 1024);
    await folder.put('videos/large.mp4', large);
    written.set('videos/large.mp4', large);
    // A write the folder store had under way when it stopped: not a blob.
    fs.writeFileSync(path.join(scratch, 'data', 'blobs', 'videos', 'large.mp4.0123456789ab.tmp'), 'half');
    bucket = new S3BlobStore({ bucket: s3.bucket, prefix: 'prod' }, { pathStyle: true, client: { endpoint: s3.endpoint, region: 'us-east-1', credentials: S3_TEST_CREDENTIALS } });
  });
  afterAll(async () => {
    bucket.close();
    await s3.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const migrate = (...extra: string[]) =>
    run(process.execPath, [CLI, 'blobs', 'migrate', '--to', `s3://${s3.bucket}/prod`, ...extra], {
      env: { ...process.env, ...s3.env(), STOCKROOM_BLOBS: '', STOCKROOM_DATA_DIR: path.join(scratch, 'data'), STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' },
    });

  async function expectBucketHoldsEveryBlob() {
    const listed: string[] = [];
    for await (const blob of bucket.list()) listed.push(blob.key);
    expect(listed.sort()).toEqual([...written.keys()].sort());
    for (const [key, data] of written) {
      const copy = await bucket.get(key);
      expect(copy && sha256(copy), key).toBe(sha256(data));
      expect((await bucket.storedChecksum(key))?.sha256).toBe(sha256(data));
    }
  }

  it('copies every blob of the data folder into the bucket, with progress and a summary line', async () => {
    const { stdout, stderr } = await migrate();
    expect(stdout.trim()).toMatch(/^s3:\/\/stockroom-test\/prod: 25 copied \(10\.8 MB\), 0 already there, 0 failed, of 25 blobs in .*; every copy read back and its SHA-256 compared$/);
    // Off a terminal, progress is plain lines on standard error.
    expect(stderr).toMatch(/^Copying blobs: 25\/25 \(100%\)$/m);
    expect(stderr).not.toContain('\u001b');
    await expectBucketHoldsEveryBlob();
  });

  it('resumes: a second run copies only what is missing or differs', async () => {
    const keys = [...written.keys()];
    for (const key of keys.slice(0, 5)) await bucket.delete(key);
    // Same size, other bytes: caught by the checksum, not the size.
    const changed = keys[7]!;
    await bucket.put(changed, randomBytes(written.get(changed)!.length));
    const { stdout } = await migrate('--concurrency', '2');
    expect(stdout).toMatch(/: 6 copied \(.*\), 19 already there, 0 failed, of 25 blobs/);
    await expectBucketHoldsEveryBlob();
    const again = await migrate();
    expect(again.stdout).toMatch(/: 0 copied \(0\.0 MB\), 25 already there, 0 failed/);
  });

  it('counts a copy that reads back different as failed, naming the blob, and exits 1', async () => {
    await bucket.delete('originals/1/1/asset-1.jpg');
    s3.corruptReads = true;
    try {
      const report = await migrateBlobs(folder, bucket);
      expect(report.copied).toBe(0);
      expect(report.failed).toEqual([{ key: 'originals/1/1/asset-1.jpg', reason: expect.stringMatching(/^the copy read back from the bucket differs/) }]);
      await bucket.delete('originals/1/1/asset-1.jpg');
      const failure = await migrate().catch((error: { code: number; stdout: string; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 1 });
      expect((failure as { stderr: string }).stderr).toMatch(/^originals\/1\/1\/asset-1\.jpg: the copy read back from the bucket differs/m);
      expect((failure as { stdout: string }).stdout).toMatch(/: 0 copied .*, 24 already there, 1 failed/);
    } finally {
      s3.corruptReads = false;
    }
  });

  it('stops with one line naming --to when the bucket is not there', async () => {
    const failure = await run(process.execPath, [CLI, 'blobs', 'migrate', '--to', 's3://no-such-bucket'], {
      env: { ...process.env, ...s3.env(), STOCKROOM_BLOBS: '', STOCKROOM_DATA_DIR: path.join(scratch, 'data') },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^stockroom: --to: cannot use s3:\/\/no-such-bucket \(bucket 'no-such-bucket' does not exist/),
    ]);
  });

  it('refuses an --to that is not an s3:// URL', async () => {
    const failure = await run(process.execPath, [CLI, 'blobs', 'migrate', '--to', 'https://example.com/bucket'], { env: { ...process.env, STOCKROOM_DATA_DIR: scratch } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toMatch(/--to <s3-url>' argument 'https:\/\/example\.com\/bucket' is invalid\. must be s3:\/\/bucket/);
  });
});
