import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { assertSafeBlobKey, type BlobRange, type ListableBlobStore, type ListedBlob } from './blob-store.js';

/** How writeThroughTemporary names its temporary files; a listing leaves them out. */
const TEMPORARY_FILE = /\.[0-9a-f]{12}\.tmp$/;

/** Blobs as files below one folder; writes go through a temporary file and a rename, so no reader sees half a blob. */
export class FilesystemBlobStore implements ListableBlobStore {
  constructor(readonly root: string) {}

  /** The file that holds a key's blob (which may not exist). */
  pathOf(key: string): string {
    assertSafeBlobKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.writeThroughTemporary(key, (temporary) => fsp.writeFile(temporary, data));
  }

  async putFile(key: string, localPath: string): Promise<void> {
    await this.writeThroughTemporary(key, (temporary) => fsp.copyFile(localPath, temporary));
  }

  private async writeThroughTemporary(key: string, write: (temporary: string) => Promise<void>): Promise<void> {
    const target = this.pathOf(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await write(temporary);
      await fsp.rename(temporary, target);
    } catch (error) {
      await fsp.rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await fsp.readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async stream(key: string, range?: BlobRange): Promise<Readable | undefined> {
    const file = this.pathOf(key);
    if ((await this.size(key)) === undefined) return undefined;
    return fs.createReadStream(file, range === undefined ? undefined : { start: range.start, end: range.end });
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

  async *list(): AsyncIterable<ListedBlob> {
    yield* this.listFolder(this.root, []);
  }

  private async *listFolder(folder: string, parts: string[]): AsyncIterable<ListedBlob> {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(folder, { withFileTypes: true });
    } catch (error) {
      // A store nothing was ever written to has no folder yet; a folder may go while the walk runs.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const entryParts = [...parts, entry.name];
      if (entry.isDirectory()) {
        yield* this.listFolder(path.join(folder, entry.name), entryParts);
      } else if (entry.isFile() && !TEMPORARY_FILE.test(entry.name)) {
        const key = entryParts.join('/');
        const size = await this.size(key).catch(() => undefined);
        if (size !== undefined) yield { key, size };
      }
    }
  }
}
