import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { assertSafeBlobKey, type BlobStore } from './blob-store.js';

/** Blobs as files below one folder; writes go through a temporary file and a rename, so no reader sees half a blob. */
export class FilesystemBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    assertSafeBlobKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.pathOf(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await fsp.writeFile(temporary, data);
    await fsp.rename(temporary, target);
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await fsp.readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async stream(key: string): Promise<Readable | undefined> {
    const file = this.pathOf(key);
    return (await this.size(key)) === undefined ? undefined : fs.createReadStream(file);
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await fsp.stat(this.pathOf(key))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }
}
