import type { Readable } from 'node:stream';

/** Inclusive byte positions, as in an HTTP Range. */
export interface BlobRange {
  start: number;
  end: number;
}

/** Where original files and cached renditions live: a local folder by default. */
export interface BlobStore {
  put(key: string, data: Buffer): Promise<void>;
  /** Stores a local file's bytes under a key without holding them in memory (videos, transcodes). */
  putFile(key: string, localPath: string): Promise<void>;
  /** The whole blob, or undefined when there is none under that key. */
  get(key: string): Promise<Buffer | undefined>;
  /** A stream of the blob (or of the inclusive byte range asked), or undefined when there is none. */
  stream(key: string, range?: BlobRange): Promise<Readable | undefined>;
  size(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
}

/** A blob a store holds, as its listing says. */
export interface ListedBlob {
  key: string;
  size: number;
}

/** A store that can say what it holds: migrations and backups walk it. */
export interface ListableBlobStore extends BlobStore {
  /** Every blob, in no particular order; a blob written while the listing runs may or may not be in it. */
  list(): AsyncIterable<ListedBlob>;
}

export function isListable(store: BlobStore): store is ListableBlobStore {
  return typeof (store as Partial<ListableBlobStore>).list === 'function';
}

/** Keys are slash-separated words; nothing that could climb out of the store. */
export function assertSafeBlobKey(key: string): void {
  if (!/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`unsafe blob key: ${key}`);
  }
}
