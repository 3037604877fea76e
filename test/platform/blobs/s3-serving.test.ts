import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../../src/platform/blobs/s3-blob-store.js';
import { addImage } from '../../helpers/catalog-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { creativeVideoFields, insertUser } from '../../licensing/licensing-fixtures.js';
import { startS3TestServer, type S3TestServer } from './s3-test-server.js';

/**
 * The whole application with STOCKROOM_BLOBS on an S3-protocol server: originals go to the bucket,
 * display files are rendered from it and cached in it, and a ranged download is a ranged GET of the
 * object — never the whole video.
 */

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');
const PREFIX = 'node-blobs';
const VIDEO_KEY = 'originals/clip-on-s3.mp4';
/** A movie file's first box, then 3 MB: enough that a whole read would be plain to see. */
const VIDEO_BYTES = Buffer.concat([Buffer.from('000000186674797069736f6d0000020069736f6d', 'hex'), randomBytes(3_000_000)]);

describe('a server whose blobs are in an S3 bucket', () => {
  let s3: S3TestServer;
  let t: TestApp;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    s3 = await startS3TestServer();
    // The AWS SDK reads its endpoint, region and credentials from the environment, as in production.
    const { STOCKROOM_BLOBS, STOCKROOM_BLOBS_PATH_STYLE, ...awsEnv } = s3.env(PREFIX);
    Object.assign(process.env, awsEnv);
    t = await createTestApp({ env: { STOCKROOM_BLOBS: STOCKROOM_BLOBS!, STOCKROOM_BLOBS_PATH_STYLE: STOCKROOM_BLOBS_PATH_STYLE! } });
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
    process.env = savedEnv;
  });

  const objectKeys = async () => {
    const keys: string[] = [];
    for await (const blob of (t.services.blobs as S3BlobStore).list()) keys.push(blob.key);
    return keys;
  };

  it('opens the configured bucket', () => {
    expect(t.services.blobs).toBeInstanceOf(S3BlobStore);
    expect(String(t.services.blobs)).toBe(`s3://${s3.bucket}/${PREFIX}`);
  });

  it('serves a display image rendered from the original in the bucket, and caches the rendition there', async () => {
    await addImage(t.services, 'harbour-s3', { width: 1200, height: 800 });
    const original = await t.services.catalog.findOriginal('harbour-s3');
    expect(await objectKeys()).toEqual([original!.originalKey]);

    const detail = (await t.app.inject({ method: 'GET', url: '/v3/images/harbour-s3?fields=display_set', headers: { 'api-key': t.apiKey } })).json<{
      images: Array<{ display_sizes: Array<{ name: string; uri: string; width: number; height: number }> }>;
    }>().images[0]!;
    const thumb = detail.display_sizes.find((size) => size.name === 'thumb')!;
    const uri = new URL(thumb.uri);
    const response = await t.app.inject({ method: 'GET', url: `${uri.pathname}${uri.search}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/jpeg');
    const { width, height } = await sharp(response.rawPayload).metadata();
    expect([width, height]).toEqual([thumb.width, thumb.height]);
    // The rendition went into the bucket beside the original.
    expect((await objectKeys()).length).toBe(2);
  });

  it('answers a ranged download of a video with a ranged GET of the object', async () => {
    await t.services.blobs.put(VIDEO_KEY, VIDEO_BYTES);
    await t.services.catalog.upsertAsset({
      asset_type: 'video',
      id: 'clip-s3',
      fields: creativeVideoFields(),
      original: { key: VIDEO_KEY, media_type: 'video/mp4', width: 1920, height: 1080, dpi: 72, bytes: VIDEO_BYTES.length },
    });
    const userId = await insertUser(t.services.database.db);
    const { token } = await t.services.tokens.issue({ clientId: t.clientId, userId, grantType: 'password', lifetimeSeconds: 1800 });
    await t.services.products.grant({ userId, type: 'premiumaccess' });
    const licensed = await t.app.inject({
      method: 'POST',
      url: '/v3/downloads/videos/clip-s3',
      headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(licensed.statusCode).toBe(200);
    const delivery = new URL((licensed.json() as { uri: string }).uri);

    const before = s3.requests.length;
    const ranged = await t.app.inject({ method: 'GET', url: `${delivery.pathname}${delivery.search}`, headers: { range: 'bytes=1000000-1000099' } });
    expect(ranged.statusCode).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 1000000-1000099/${VIDEO_BYTES.length}`);
    expect(ranged.rawPayload.equals(VIDEO_BYTES.subarray(1_000_000, 1_000_100))).toBe(true);
    const objectGets = s3.requests.slice(before).filter((request) => request.method === 'GET' && request.url.includes('clip-on-s3.mp4'));
    expect(objectGets).toEqual([expect.objectContaining({ range: 'bytes=1000000-1000099' })]);

    const whole = await t.app.inject({ method: 'GET', url: `${delivery.pathname}${delivery.search}` });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(VIDEO_BYTES)).toBe(true);
  });
});

describe('a bucket that cannot be used', () => {
  let s3: S3TestServer;
  let dataDir: string;
  beforeAll(async () => {
    s3 = await startS3TestServer();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-s3-start-'));
  });
  afterAll(async () => {
    await s3.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const startFailure = (env: Record<string, string>) =>
    run(process.execPath, [CLI, 'admin', 'client', 'create', '--name', 'x'], {
      env: { ...process.env, STOCKROOM_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', ...env },
    }).then(
      () => {
        throw new Error('the command started');
      },
      (error: { code: number; stderr: string }) => error,
    );

  it.each([
    ['a bucket that does not exist', { STOCKROOM_BLOBS: 's3://no-such-bucket' }, /^stockroom: STOCKROOM_BLOBS: cannot use s3:\/\/no-such-bucket \(bucket 'no-such-bucket' does not exist at the endpoint http:\/\/127\.0\.0\.1:\d+/],
    ['an endpoint where nothing listens', { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1' }, /^stockroom: STOCKROOM_BLOBS: cannot use s3:\/\/stockroom-test \(.*ECONNREFUSED/],
    ['a URL that is not s3://', { STOCKROOM_BLOBS: 'https://bucket.example.com' }, /^stockroom: STOCKROOM_BLOBS must be s3:\/\/bucket or s3:\/\/bucket\/prefix, got 'https:\/\/bucket\.example\.com'$/],
    ['a bucket name S3 does not allow', { STOCKROOM_BLOBS: 's3://Not_A_Bucket/x' }, /^stockroom: STOCKROOM_BLOBS names a bucket that S3 does not allow/],
  ])('stops the start with one line naming STOCKROOM_BLOBS: %s', async (_case, extra, message) => {
    const failure = await startFailure({ ...s3.env(), ...extra });
    expect(failure.code).toBeGreaterThan(0);
    expect(failure.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
  });
});
