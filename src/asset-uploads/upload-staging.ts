import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fs from 'node:fs';
import type { FileStore } from '@tus/file-store';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Store } from '@tus/s3-store';
import type { DataStore } from '@tus/utils';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import { FilesystemBlobStore } from '../platform/blobs/filesystem-blob-store.js';
import { S3BlobStore } from '../platform/blobs/s3-blob-store.js';
import { s3ClientSdk } from '../platform/blobs/s3-sdk.js';
import { uploadStagingPrefix } from '../platform/blobs/s3-location.js';
import { uploadsNeedFolderOrBucket } from './asset-uploads.errors.js';

/*
 * Where the bytes of an upload wait until it is finished and ingested: a folder beside the blob
 * folder (tus's file store), or, when the blobs are in a bucket, the same bucket under a staging
 * prefix (tus's S3 store, a multipart upload per file), so that an upload begun through one node
 * goes on through any other.
 */

/** An upload's id as its URL carries it: 32 hex digits. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;
/** The parts of a staged upload in a bucket: 8 MiB, as the blob store's (S3 wants 5 MiB at least). */
const S3_PART_BYTES = 8 * 1024 * 1024;

export function isUploadId(text: string): boolean {
  return UPLOAD_ID.test(text);
}

export function newUploadId(): string {
  return randomBytes(16).toString('hex');
}

export interface UploadStaging {
  /**
   * tus's store of the staged bytes, made at the first upload: tus's store packages are loaded
   * then, not at start (a node that never takes an upload does not hold them).
   */
  datastore(): Promise<DataStore>;
  /** Where it is, for the log and the docs. */
  readonly description: string;
  /** The store's id of an upload (an object key in a bucket). */
  storeId(uploadId: string): string;
  /** The upload's id of a store id. */
  uploadIdOf(storeId: string): string;
  /** Runs `work` with a finished upload's bytes as a local file (copied out of a bucket as a stream first). */
  withLocalFile<T>(uploadId: string, work: (file: string) => Promise<T>): Promise<T>;
  /** Removes an upload's staged bytes, finished or not; nothing when they are gone already. */
  remove(uploadId: string): Promise<void>;
}

/** The staging that goes with a blob store: a folder beside a folder store, a prefix beside a bucket's. */
export function stagingFor(blobs: BlobStore): UploadStaging {
  if (blobs instanceof S3BlobStore) return new BucketStaging(blobs);
  if (blobs instanceof FilesystemBlobStore) return new FolderStaging(path.join(path.dirname(path.resolve(blobs.root)), 'upload-staging'));
  return new NoStaging();
}

/**
 * A blob store uploads cannot be staged beside (neither a folder nor a bucket: only a test's
 * stand-in is): the node starts and serves all else, and an upload is refused with a 503 that
 * says what to configure.
 */
class NoStaging implements UploadStaging {
  readonly description = 'nowhere (the blob store is neither a folder nor an S3 bucket)';

  datastore(): Promise<DataStore> {
    return Promise.reject(uploadsNeedFolderOrBucket());
  }

  storeId(uploadId: string): string {
    return uploadId;
  }

  uploadIdOf(storeId: string): string {
    return storeId;
  }

  withLocalFile<T>(): Promise<T> {
    return Promise.reject(uploadsNeedFolderOrBucket());
  }

  async remove(): Promise<void> {
    // Nothing was ever staged.
  }
}

const isGone = (error: unknown) => (error as { status_code?: number }).status_code === 404 || (error as NodeJS.ErrnoException).code === 'ENOENT';

class FolderStaging implements UploadStaging {
  readonly description: string;
  private store: Promise<FileStore> | undefined;

  constructor(private readonly directory: string) {
    this.description = directory;
  }

  /**
   * Made at the first upload, not when the module is built: a command that never serves one
   * leaves no folder, and tus's store (which makes its folder in a callback it lets throw) never
   * races a test or a command that removes the data folder as it closes.
   */
  datastore(): Promise<FileStore> {
    if (this.store === undefined) {
      const made = this.makeStore();
      // A folder that cannot be made now is tried again at the next upload.
      made.catch(() => {
        if (this.store === made) this.store = undefined;
      });
      this.store = made;
    }
    return this.store;
  }

  private async makeStore(): Promise<FileStore> {
    const { FileStore } = await import('@tus/file-store');
    // The folder holds what staff send before anyone reviewed it: the owner's alone, as the blobs are.
    fs.mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    return new FileStore({ directory: this.directory });
  }

  storeId(uploadId: string): string {
    return uploadId;
  }

  uploadIdOf(storeId: string): string {
    return storeId;
  }

  withLocalFile<T>(uploadId: string, work: (file: string) => Promise<T>): Promise<T> {
    return work(path.join(this.directory, uploadId));
  }

  async remove(uploadId: string): Promise<void> {
    try {
      await (await this.datastore()).remove(uploadId);
    } catch (error) {
      if (!isGone(error)) throw error;
    }
  }
}

/** tus's S3 store, able to forget what it holds in memory of an upload (see stagingS3Store). */
type StagingS3Store = S3Store & { forget(storeId: string): Promise<void> };

/**
 * tus's S3 store made able to forget what it holds in memory of an upload. It keeps an upload's
 * `.info` once read, and forgets it only when its own removal gets through; a finished upload's
 * removal does not (no multipart upload is left to abort), so without this the node would go on
 * answering a HEAD of the removed upload with 200 from memory. The class is made once its
 * package is loaded, at the first upload.
 */
async function stagingS3Store(options: ConstructorParameters<typeof S3Store>[0]): Promise<StagingS3Store> {
  const { S3Store } = await import('@tus/s3-store');
  class ForgettingS3Store extends S3Store {
    forget(storeId: string): Promise<void> {
      return this.clearCache(storeId);
    }
  }
  return new ForgettingS3Store(options);
}

class BucketStaging implements UploadStaging {
  readonly description: string;
  private store: Promise<StagingS3Store> | undefined;
  private readonly clientConfig: S3BlobStore['clientConfig'];
  private readonly prefix: string;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(blobs: S3BlobStore) {
    this.client = blobs.client;
    this.bucket = blobs.location.bucket;
    this.prefix = uploadStagingPrefix(blobs.location);
    this.clientConfig = blobs.clientConfig;
    this.description = `s3://${blobs.location.bucket}/${this.prefix}/`;
  }

  datastore(): Promise<StagingS3Store> {
    this.store ??= stagingS3Store({ partSize: S3_PART_BYTES, s3ClientConfig: { ...this.clientConfig, bucket: this.bucket } });
    return this.store;
  }

  storeId(uploadId: string): string {
    return `${this.prefix}/${uploadId}`;
  }

  uploadIdOf(storeId: string): string {
    return storeId.slice(storeId.lastIndexOf('/') + 1);
  }

  async withLocalFile<T>(uploadId: string, work: (file: string) => Promise<T>): Promise<T> {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'stockroom-upload-'));
    try {
      const file = path.join(dir, 'upload');
      // A stream from the bucket to the disk: a video of several GB never sits in memory.
      await pipeline((await (await this.datastore()).read(this.storeId(uploadId))) as Readable, fs.createWriteStream(file));
      return await work(file);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  }

  async remove(uploadId: string): Promise<void> {
    const key = this.storeId(uploadId);
    const datastore = await this.datastore();
    try {
      // An unfinished upload: its multipart upload is aborted, with the parts it holds.
      await datastore.remove(key);
    } catch (error) {
      if (!isGone(error)) throw error;
    }
    // tus's store deletes the object and its info but not the bytes short of a part that the last
    // PATCH left (`.part`), and a finished upload has no multipart upload left to abort (the store
    // then stops short of deleting anything): the three objects are deleted here, whichever it was.
    // Deleting what is not there succeeds.
    const { DeleteObjectCommand } = s3ClientSdk();
    for (const object of [key, `${key}.info`, `${key}.part`]) await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: object }));
    await datastore.forget(key);
  }
}
