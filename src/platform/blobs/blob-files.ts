import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from './blob-store.js';

export interface CopiedBlob {
  size: number;
  sha256: string;
}

export interface BlobCopyOptions {
  /** Told the bytes received so far, as they come. */
  onProgress?: ((bytes: number) => void) | undefined;
  /** Throws to refuse the copy (its size or checksum is not the expected one) before it takes the target's name. */
  check?: ((copied: CopiedBlob) => void) | undefined;
}

/**
 * Streams a stored object into a local file, computing its size and SHA-256 on the way, through
 * a temporary file renamed into place: a copy that fails or is refused by `check` leaves the
 * target as it was. Undefined when the object is not there. Never the whole object in memory.
 */
export async function copyBlobToFile(store: BlobStore, key: string, target: string, options: BlobCopyOptions = {}): Promise<CopiedBlob | undefined> {
  const source = await store.stream(key);
  if (source === undefined) return undefined;
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.${randomBytes(6).toString('hex')}.partial`;
  const hash = createHash('sha256');
  let size = 0;
  try {
    await pipeline(
      source,
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          size += chunk.length;
          options.onProgress?.(size);
          callback(null, chunk);
        },
      }),
      fs.createWriteStream(temporary, { flags: 'wx' }),
    );
    const copied = { size, sha256: hash.digest('hex') };
    options.check?.(copied);
    await fsp.rename(temporary, target);
    return copied;
  } catch (error) {
    await fsp.rm(temporary, { force: true });
    throw error;
  }
}
