import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { BlobRange, BlobStore } from '../../src/platform/blobs/blob-store.js';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';

/** A blob store in a fresh temporary folder, and a way to remove it. */
export function temporaryBlobStore(): { blobs: FilesystemBlobStore; cleanUp: () => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-media-'));
  return { blobs: new FilesystemBlobStore(root), cleanUp: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** Wraps a blob store and records every key read and written, to tell a render from a cache hit. */
export class RecordingBlobStore implements BlobStore {
  readonly gets: string[] = [];
  readonly puts: string[] = [];
  constructor(private readonly inner: BlobStore) {}
  async put(key: string, data: Buffer): Promise<void> {
    this.puts.push(key);
    await this.inner.put(key, data);
  }
  get(key: string) {
    this.gets.push(key);
    return this.inner.get(key);
  }
  async putFile(key: string, localPath: string): Promise<void> {
    this.puts.push(key);
    await this.inner.putFile(key, localPath);
  }
  stream(key: string, range?: BlobRange) {
    return this.inner.stream(key, range);
  }
  size(key: string) {
    return this.inner.size(key);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
}

/** A plain photo-like JPEG: a horizontal colour ramp, so resizing has something to do. */
export async function makeJpeg(width: number, height: number, options: { density?: number } = {}): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: '#3b6ea5' } }).composite([
    {
      input: Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
          '<defs><linearGradient id="g"><stop offset="0" stop-color="#f4d35e"/><stop offset="1" stop-color="#0d3b66"/></linearGradient></defs>' +
          `<rect width="${width}" height="${height}" fill="url(#g)"/></svg>`,
      ),
    },
  ]);
  if (options.density !== undefined) image.withMetadata({ density: options.density });
  return image.jpeg({ quality: 90 }).toBuffer();
}
