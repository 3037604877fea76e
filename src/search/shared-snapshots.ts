import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import { copyBlobToFile } from '../platform/blobs/blob-files.js';
import { openSnapshotFile, type SnapshotHeader } from './search-snapshot.js';
import type { PublishingHold, SnapshotPublishingLease } from './snapshot-lease.js';

/*
 * The search snapshot shared through the blob store, so that a node that joins a cluster loads
 * the index instead of reading the catalogue whole. Beside the snapshots, a small manifest
 * names the current one:
 *
 *   search-snapshots/manifest.json                 which snapshot, of which store, at which
 *                                                  change, its size and SHA-256
 *   search-snapshots/000000012345-1a2b3c4d.snapshot  the snapshot file's bytes, as a node writes
 *                                                  it to its own data folder (search-snapshot.ts)
 *
 * A publisher uploads a new object under a new key, then replaces the manifest (a blob is
 * replaced whole), then removes the snapshot the old manifest named: the manifest never names
 * a missing or half-written object. A reader streams the object into its data folder, checking
 * the size and SHA-256 as the bytes go by, and uses it only when both match.
 */

export const SHARED_SNAPSHOT_FOLDER = 'search-snapshots';
export const SHARED_MANIFEST_KEY = `${SHARED_SNAPSHOT_FOLDER}/manifest.json`;
const MANIFEST_FORMAT = 'stockroom-search-snapshot/1';

/** Whether a blob is part of the shared snapshot (its manifest or a snapshot): a cache of the store, which backups leave out. */
export function isSharedSnapshotBlob(key: string): boolean {
  return key.startsWith(`${SHARED_SNAPSHOT_FOLDER}/`);
}

/** What the manifest says of the current shared snapshot. */
export interface SnapshotManifest extends SnapshotHeader {
  format: typeof MANIFEST_FORMAT;
  /** The blob key of the snapshot's bytes. */
  key: string;
  size: number;
  /** Hex SHA-256 of the whole object. */
  sha256: string;
  publishedAt: string;
  /** The node that published it (its job runner's name). */
  publishedBy: string;
}

/** Why a shared snapshot was not used: said in the node's log, and the node falls back. */
export class SharedSnapshotRefused extends Error {
  override name = 'SharedSnapshotRefused';
}

/** How a try at publishing ended. */
export type PublishOutcome =
  | { published: true; manifest: SnapshotManifest; seconds: number }
  | { published: false; reason: 'another node is publishing' | 'not due' | 'the lease was lost' };

export interface SharedSnapshotsOptions {
  blobs: BlobStore;
  lease: SnapshotPublishingLease;
  /** This node's name, written into the manifest. */
  node: string;
  now: () => Date;
  /** Told what went wrong in a step that is not worth failing a publish for (removing an old snapshot). */
  log: (message: string) => void;
}

export class SharedSnapshots {
  constructor(private readonly options: SharedSnapshotsOptions) {}

  /** Where a key lives, for log lines: the bucket and prefix, or the folder. */
  describe(key: string): string {
    const { blobs } = this.options;
    const root = 'root' in blobs && typeof blobs.root === 'string' ? blobs.root : String(blobs);
    return `${root}/${key}`;
  }

  /** The current manifest; undefined when nothing has been published. Throws when it cannot be read as one. */
  async latest(): Promise<SnapshotManifest | undefined> {
    const bytes = await this.options.blobs.get(SHARED_MANIFEST_KEY);
    if (bytes === undefined) return undefined;
    let parsed: Partial<SnapshotManifest>;
    try {
      parsed = JSON.parse(bytes.toString('utf8')) as Partial<SnapshotManifest>;
    } catch {
      throw new SharedSnapshotRefused('its manifest is not JSON');
    }
    if (parsed.format !== MANIFEST_FORMAT) throw new SharedSnapshotRefused(`its manifest is of another format (${String(parsed.format)}, this node reads ${MANIFEST_FORMAT})`);
    const { storeId, seq, documents, key, size, sha256, publishedAt, publishedBy } = parsed;
    if (
      typeof storeId !== 'string' ||
      typeof documents !== 'string' ||
      typeof key !== 'string' ||
      typeof publishedAt !== 'string' ||
      typeof publishedBy !== 'string' ||
      typeof sha256 !== 'string' ||
      !Number.isSafeInteger(seq) ||
      !Number.isSafeInteger(size)
    ) {
      throw new SharedSnapshotRefused('its manifest lacks a field');
    }
    return { format: MANIFEST_FORMAT, storeId, seq: seq!, documents, key, size: size!, sha256, publishedAt, publishedBy };
  }

  /**
   * Streams the manifest's snapshot into `file` (through a temporary file and a rename),
   * computing its SHA-256 on the way; throws SharedSnapshotRefused, leaving `file` as it was,
   * when the object is missing or its size or checksum differ from the manifest's. `onProgress`
   * is told the bytes received so far, as they come.
   */
  async download(manifest: SnapshotManifest, file: string, onProgress?: (bytes: number) => void): Promise<void> {
    const copied = await copyBlobToFile(this.options.blobs, manifest.key, file, {
      onProgress,
      check: ({ size, sha256 }) => {
        if (size !== manifest.size) throw new SharedSnapshotRefused(`its file is ${size} bytes, the manifest says ${manifest.size}`);
        if (sha256 !== manifest.sha256) throw new SharedSnapshotRefused(`it fails its checksum (SHA-256 ${sha256} read, ${manifest.sha256} published)`);
      },
    });
    if (copied === undefined) throw new SharedSnapshotRefused(`its file ${manifest.key} is missing`);
  }

  /**
   * Publishes the snapshot file a node keeps in its data folder, when no other node is
   * publishing and `due` (asked again under the hold, of the manifest then current) says so.
   * The file is linked under another name first, so that the node may write its next snapshot
   * meanwhile; the header comes from that very file, so the manifest describes its bytes.
   */
  async publish(file: string, due: (current: SnapshotManifest | undefined, header: SnapshotHeader) => boolean): Promise<PublishOutcome> {
    const hold = await this.options.lease.take();
    if (!hold) return { published: false, reason: 'another node is publishing' };
    const started = performance.now();
    let lost = false;
    const renewing = setInterval(() => {
      void hold.renew().then(
        (still) => {
          if (!still) lost = true;
        },
        () => undefined,
      );
    }, Math.max(50, Math.floor(this.options.lease.leaseMs / 3)));
    const linked = `${file}.${randomBytes(6).toString('hex')}.publishing`;
    try {
      await fsp.link(file, linked);
      const header = headerOf(linked);
      const current = await this.latest().catch(() => undefined);
      if (!due(current, header)) return { published: false, reason: 'not due' };
      await this.removeLeftover(hold, current);
      const key = `${SHARED_SNAPSHOT_FOLDER}/${String(header.seq).padStart(12, '0')}-${randomBytes(4).toString('hex')}.snapshot`;
      if (!(await hold.uploading(key))) return { published: false, reason: 'the lease was lost' };
      const { size, sha256 } = await digestOf(linked);
      await this.options.blobs.putFile(key, linked);
      // The manifest is replaced only by the node that still holds the lease.
      if (lost || !(await hold.renew())) {
        await this.options.blobs.delete(key).catch(() => undefined);
        return { published: false, reason: 'the lease was lost' };
      }
      const manifest: SnapshotManifest = {
        format: MANIFEST_FORMAT,
        ...header,
        key,
        size,
        sha256,
        publishedAt: this.options.now().toISOString(),
        publishedBy: this.options.node,
      };
      await this.options.blobs.put(SHARED_MANIFEST_KEY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8'));
      if (current && current.key !== key) {
        await this.options.blobs.delete(current.key).catch((error: unknown) => this.options.log(`the replaced search snapshot ${this.describe(current.key)} was not removed (${messageOf(error)})`));
      }
      return { published: true, manifest, seconds: (performance.now() - started) / 1000 };
    } finally {
      clearInterval(renewing);
      await fsp.rm(linked, { force: true });
      await hold.release().catch(() => undefined);
    }
  }

  /** What a node that stopped mid-upload left: removed, unless the manifest came to name it after all. */
  private async removeLeftover(hold: PublishingHold, current: SnapshotManifest | undefined): Promise<void> {
    if (hold.leftover === null || hold.leftover === current?.key) return;
    await this.options.blobs.delete(hold.leftover).catch((error: unknown) => this.options.log(`a search snapshot left by a stopped upload, ${this.describe(hold.leftover!)}, was not removed (${messageOf(error)})`));
  }
}

function headerOf(file: string): SnapshotHeader {
  const opened = openSnapshotFile(file);
  if (!opened) throw new Error(`the search snapshot ${file} is gone`);
  opened.close();
  return opened.header;
}

async function digestOf(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
