import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { BlobRange, BlobStore } from '../../platform/blobs/blob-store.js';

/**
 * The blob store of a dry run: it reads what the real store holds and writes nothing. A blob
 * "written" during the run is remembered by its size only, so that the run's own checks
 * (is this original already stored?) answer as they would on a real run.
 */
export class UnwrittenBlobStore implements BlobStore {
  private readonly sizes = new Map<string, number>();

  constructor(private readonly real: BlobStore) {}

  put(key: string, data: Buffer): Promise<void> {
    this.sizes.set(key, data.length);
    return Promise.resolve();
  }

  async putFile(key: string, localPath: string): Promise<void> {
    const { size } = await fsp.stat(localPath);
    this.sizes.set(key, size);
  }

  get(key: string): Promise<Buffer | undefined> {
    return this.real.get(key);
  }

  stream(key: string, range?: BlobRange): Promise<Readable | undefined> {
    return this.real.stream(key, range);
  }

  async size(key: string): Promise<number | undefined> {
    return this.sizes.get(key) ?? this.real.size(key);
  }

  delete(key: string): Promise<void> {
    this.sizes.delete(key);
    return Promise.resolve();
  }
}
