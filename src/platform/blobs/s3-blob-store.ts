import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { assertSafeBlobKey, type BlobRange, type ListableBlobStore, type ListedBlob } from './blob-store.js';
import { formatS3Location, uploadStagingPrefix, type S3Location } from './s3-location.js';
import { s3ClientSdk, s3StorageSdk } from './s3-sdk.js';

/** The object metadata entry (x-amz-meta-sha256) holding the hex SHA-256 of the bytes, written with every blob. */
const SHA256_METADATA = 'sha256';
/** Parts of a multipart upload: 8 MiB each, 4 in flight, so a file of any size takes about 32 MiB of memory. */
const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;
/** How long the start-up check may wait for the store before giving up. */
const REACHABLE_TIMEOUT_MS = 15_000;

export interface S3BlobStoreOptions {
  /** Path-style addressing (`endpoint/bucket/key`), which MinIO, s3rver and many other servers need. */
  pathStyle: boolean;
  /** Overrides for the client; endpoint, region and credentials otherwise come from the AWS SDK's usual environment. */
  client?: S3ClientConfig;
}

/** The size and SHA-256 an object was stored with. */
export interface StoredChecksum {
  size: number;
  /** Hex SHA-256 from the object's metadata; undefined for an object not written by Stockroom. */
  sha256: string | undefined;
}

const hexSha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

export async function sha256OfFile(localPath: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(localPath), hash);
  return hash.digest('hex');
}

/** Whether an SDK error says the object is not there (not: the bucket is not there). */
function isMissingObject(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (failure.name === 'NoSuchBucket') return false;
  return failure.name === 'NoSuchKey' || failure.name === 'NotFound' || failure.$metadata?.httpStatusCode === 404;
}

/**
 * Blobs as objects of an S3-compatible bucket, under a prefix. A PUT or a completed multipart
 * upload replaces an object at once, so no reader sees half a blob; ranged reads are ranged
 * GETs, so nothing is ever held whole in memory but what `get` asks for.
 */
export class S3BlobStore implements ListableBlobStore {
  readonly client: S3Client;
  /** What the client was made with: another client of the same bucket (the back office's upload staging) is made alike. */
  readonly clientConfig: S3ClientConfig;
  private readonly pathStyle: boolean;
  /** The SDK, loaded with the first bucket a process makes, not at start (see s3-sdk.ts). */
  private readonly sdk = s3ClientSdk();

  constructor(
    readonly location: S3Location,
    options: S3BlobStoreOptions,
  ) {
    this.pathStyle = options.pathStyle;
    this.clientConfig = {
      region: process.env.AWS_REGION?.trim() || 'us-east-1',
      forcePathStyle: options.pathStyle,
      // Flexible checksums (CRC trailers on aws-chunked uploads) are refused by many S3-compatible
      // servers; each blob carries its own SHA-256 in its metadata instead.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // No request timeout: a slow client of a video download pauses the object's stream for as long as it likes.
      requestHandler: { connectionTimeout: 5000, httpAgent: { keepAlive: true, maxSockets: 256 }, httpsAgent: { keepAlive: true, maxSockets: 256 } },
      ...options.client,
    };
    this.client = new this.sdk.S3Client(this.clientConfig);
  }

  toString(): string {
    return formatS3Location(this.location);
  }

  private objectKey(key: string): string {
    assertSafeBlobKey(key);
    return this.location.prefix ? `${this.location.prefix}/${key}` : key;
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.client.send(
      new this.sdk.PutObjectCommand({
        Bucket: this.location.bucket,
        Key: this.objectKey(key),
        Body: data,
        ContentLength: data.length,
        Metadata: { [SHA256_METADATA]: hexSha256(data) },
      }),
    );
  }

  async putFile(key: string, localPath: string): Promise<void> {
    await this.putFileWithChecksum(key, localPath, await sha256OfFile(localPath));
  }

  /** putFile for a caller that has already read the file's SHA-256 (a migration, a restore). */
  async putFileWithChecksum(key: string, localPath: string, sha256: string): Promise<void> {
    const objectKey = this.objectKey(key);
    const { size } = await fsp.stat(localPath);
    const params = { Bucket: this.location.bucket, Key: objectKey, Metadata: { [SHA256_METADATA]: sha256 } };
    if (size <= PART_SIZE) {
      await this.client.send(new this.sdk.PutObjectCommand({ ...params, Body: await fsp.readFile(localPath), ContentLength: size }));
      return;
    }
    // Multipart: the object appears only when every part is in, and a failed upload is aborted.
    const upload = new (s3StorageSdk().Upload)({
      client: this.client,
      params: { ...params, Body: fs.createReadStream(localPath, { highWaterMark: 1024 * 1024 }) },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async get(key: string): Promise<Buffer | undefined> {
    const body = await this.getObject(key);
    return body === undefined ? undefined : Buffer.from(await body.transformToByteArray());
  }

  async stream(key: string, range?: BlobRange): Promise<Readable | undefined> {
    const body = await this.getObject(key, range);
    return body as Readable | undefined;
  }

  private async getObject(key: string, range?: BlobRange) {
    try {
      const answer = await this.client.send(
        new this.sdk.GetObjectCommand({
          Bucket: this.location.bucket,
          Key: this.objectKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return answer.Body;
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw error;
    }
  }

  async size(key: string): Promise<number | undefined> {
    return (await this.storedChecksum(key))?.size;
  }

  /** The size and the SHA-256 recorded when the object was written, without reading it; undefined when missing. */
  async storedChecksum(key: string): Promise<StoredChecksum | undefined> {
    try {
      const head = await this.client.send(new this.sdk.HeadObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
      return { size: head.ContentLength ?? 0, sha256: head.Metadata?.[SHA256_METADATA] };
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    // Deleting an object that is not there succeeds on S3, as on the folder store.
    await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
  }

  async *list(): AsyncIterable<ListedBlob> {
    const prefix = this.location.prefix ? `${this.location.prefix}/` : '';
    // At the bucket's top the back office's upload staging is among the objects: not blobs.
    const staging = `${uploadStagingPrefix(this.location)}/`;
    let continuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new this.sdk.ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: prefix, ...(continuationToken ? { ContinuationToken: continuationToken } : {}) }),
      );
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(prefix.length);
        if (key === undefined || !isSafeKey(key) || (prefix === '' && key.startsWith(staging))) continue;
        yield { key, size: object.Size ?? 0 };
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken);
  }

  /** Throws an error naming the setting to look at unless the bucket answers. */
  async checkReachable(setting = 'STOCKROOM_BLOBS'): Promise<void> {
    try {
      await this.client.send(new this.sdk.HeadBucketCommand({ Bucket: this.location.bucket }), { abortSignal: AbortSignal.timeout(REACHABLE_TIMEOUT_MS) });
    } catch (error) {
      throw new Error(`${setting}: cannot use ${formatS3Location(this.location)} (${describeFailure(error, this.location, this.pathStyle)})`);
    }
  }

  close(): void {
    this.client.destroy();
  }
}

function isSafeKey(key: string): boolean {
  try {
    assertSafeBlobKey(key);
    return true;
  } catch {
    return false;
  }
}

const endpointSetting = () => {
  const endpoint = process.env.AWS_ENDPOINT_URL_S3?.trim() || process.env.AWS_ENDPOINT_URL?.trim();
  return endpoint ? `the endpoint ${endpoint} (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)` : 'AWS S3 (no AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL set)';
};

/** Why the bucket did not answer, in words that point at the setting to change. */
function describeFailure(error: unknown, location: S3Location, pathStyle: boolean): string {
  const failure = error as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = failure.$metadata?.httpStatusCode;
  if (failure.name === 'CredentialsProviderError') {
    return 'no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or another source the AWS SDK reads';
  }
  if (status === 404 || failure.name === 'NoSuchBucket') return `bucket '${location.bucket}' does not exist at ${endpointSetting()}`;
  if (status === 403 || status === 401) return `access denied to bucket '${location.bucket}': check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`;
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') return `no answer within ${REACHABLE_TIMEOUT_MS / 1000} s from ${endpointSetting()}`;
  const detail = failure.message || failure.code || failure.name || String(error);
  const hint = !pathStyle && /ENOTFOUND|EAI_AGAIN/.test(detail) ? '; an S3-compatible server usually needs STOCKROOM_BLOBS_PATH_STYLE=true' : '';
  return `${detail}, reaching ${endpointSetting()}${hint}`;
}
