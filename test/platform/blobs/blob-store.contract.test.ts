import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobRange, ListableBlobStore } from '../../../src/platform/blobs/blob-store.js';
import { FilesystemBlobStore } from '../../../src/platform/blobs/filesystem-blob-store.js';
import { S3BlobStore } from '../../../src/platform/blobs/s3-blob-store.js';
import { S3_TEST_CREDENTIALS, startS3TestServer, type S3TestServer } from './s3-test-server.js';

/**
 * One contract, two stores: every behaviour the application leans on, checked the same way
 * against the folder store and the S3 store (over an S3-protocol test server).
 */

interface StoreUnderTest {
  store: ListableBlobStore;
  /** Requests the S3 store sent, for the checks that only make sense there. */
  s3?: S3TestServer;
  close(): Promise<void>;
}

const STORES: Array<{ name: string; speaksS3: boolean; open(scratch: string): Promise<StoreUnderTest> }> = [
  {
    name: 'the folder store',
    speaksS3: false,
    async open(scratch) {
      return { store: new FilesystemBlobStore(path.join(scratch, 'blobs')), close: async () => undefined };
    },
  },
  {
    name: 'the S3 store',
    speaksS3: true,
    async open() {
      const s3 = await startS3TestServer();
      const store = new S3BlobStore(
        { bucket: s3.bucket, prefix: 'tenant/blobs' },
        { pathStyle: true, client: { endpoint: s3.endpoint, region: 'us-east-1', credentials: S3_TEST_CREDENTIALS } },
      );
      return {
        store,
        s3,
        async close() {
          store.close();
          await s3.close();
        },
      };
    },
  },
];

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function readAll(stream: Readable | undefined): Promise<Buffer | undefined> {
  if (stream === undefined) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A SHA-256 of a stream, reading it chunk by chunk (a 20 MB blob is never held whole here). */
async function streamedDigest(stream: Readable | undefined): Promise<{ sha256: string; bytes: number } | undefined> {
  if (stream === undefined) return undefined;
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

describe.each(STORES)('blob store contract: $name', ({ open, speaksS3 }) => {
  let scratch: string;
  let subject: StoreUnderTest;
  let store: ListableBlobStore;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-blob-contract-'));
    subject = await open(scratch);
    store = subject.store;
  });
  afterAll(async () => {
    await subject.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('gives back what was put, and its size', async () => {
    const data = randomBytes(70_000);
    await store.put('originals/ab/cd/photo.jpg', data);
    expect((await store.get('originals/ab/cd/photo.jpg'))?.equals(data)).toBe(true);
    expect(await store.size('originals/ab/cd/photo.jpg')).toBe(data.length);
    expect((await readAll(await store.stream('originals/ab/cd/photo.jpg')))?.equals(data)).toBe(true);
  });

  it('stores an empty blob', async () => {
    await store.put('empty/nothing.bin', Buffer.alloc(0));
    expect(await store.size('empty/nothing.bin')).toBe(0);
    expect((await store.get('empty/nothing.bin'))?.length).toBe(0);
  });

  it('stores a local file with putFile', async () => {
    const data = randomBytes(123_457);
    const file = path.join(scratch, 'local.bin');
    fs.writeFileSync(file, data);
    await store.putFile('files/local.bin', file);
    expect((await store.get('files/local.bin'))?.equals(data)).toBe(true);
  });

  describe('streams an inclusive byte range', () => {
    const data = randomBytes(50_000);
    beforeAll(async () => {
      await store.put('ranges/blob.bin', data);
    });
    it.each<[string, BlobRange]>([
      ['the first byte', { start: 0, end: 0 }],
      ['the last byte', { start: 49_999, end: 49_999 }],
      ['a middle stretch', { start: 12_345, end: 23_456 }],
      ['the whole blob', { start: 0, end: 49_999 }],
    ])('%s', async (_name, range) => {
      const got = await readAll(await store.stream('ranges/blob.bin', range));
      expect(got?.equals(data.subarray(range.start, range.end + 1))).toBe(true);
    });
    it('without a range, the whole blob', async () => {
      expect((await readAll(await store.stream('ranges/blob.bin')))?.equals(data)).toBe(true);
    });
  });

  it('answers undefined for a key it does not hold, and deleting one is no error', async () => {
    expect(await store.get('missing/key.bin')).toBeUndefined();
    expect(await store.stream('missing/key.bin')).toBeUndefined();
    expect(await store.stream('missing/key.bin', { start: 0, end: 9 })).toBeUndefined();
    expect(await store.size('missing/key.bin')).toBeUndefined();
    await expect(store.delete('missing/key.bin')).resolves.toBeUndefined();
  });

  it('deletes', async () => {
    await store.put('doomed/blob.bin', Buffer.from('bye'));
    await store.delete('doomed/blob.bin');
    expect(await store.get('doomed/blob.bin')).toBeUndefined();
    expect(await store.size('doomed/blob.bin')).toBeUndefined();
  });

  it('replaces a blob on a second put', async () => {
    await store.put('replaced/blob.bin', Buffer.from('first version, the longer one'));
    await store.put('replaced/blob.bin', Buffer.from('second'));
    expect((await store.get('replaced/blob.bin'))?.toString()).toBe('second');
    expect(await store.size('replaced/blob.bin')).toBe(6);
  });

  it('never lets a reader see half a blob while it is overwritten', async () => {
    // Two versions of different sizes and contents: any mix of them, or a cut, is caught.
    const versions = [Buffer.alloc(600_000, 'a'), Buffer.alloc(900_000, 'b')];
    const file = path.join(scratch, 'version-b.bin');
    fs.writeFileSync(file, versions[1]!);
    await store.put('racing/blob.bin', versions[0]!);
    const seen = new Set<string>();
    let writing = true;
    const writer = (async () => {
      for (let round = 0; round < 12; round++) {
        await store.put('racing/blob.bin', versions[0]!);
        await store.putFile('racing/blob.bin', file);
      }
      writing = false;
    })();
    const readers = [0, 1, 2].map(async (reader) => {
      while (writing) {
        const got = reader === 0 ? await store.get('racing/blob.bin') : await readAll(await store.stream('racing/blob.bin'));
        expect(got).toBeDefined();
        const whole = versions.findIndex((version) => version.equals(got!));
        expect(whole, `a read of ${got!.length} bytes matches neither version`).toBeGreaterThanOrEqual(0);
        seen.add(String(whole));
      }
    });
    await Promise.all([writer, ...readers]);
    expect(seen.size).toBeGreaterThan(0);
  });

  it.each(['../escape.bin', 'a/../../escape.bin', '/absolute.bin', 'a//b.bin', 'a/./b.bin', 'space here.bin', '', 'a/', 'back\\slash'])(
    'refuses the unsafe key %j for every operation',
    async (key) => {
      const file = path.join(scratch, 'unsafe-source.bin');
      fs.writeFileSync(file, 'x');
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/unsafe blob key/);
      await expect(store.putFile(key, file)).rejects.toThrow(/unsafe blob key/);
      await expect(store.get(key)).rejects.toThrow(/unsafe blob key/);
      await expect(store.stream(key)).rejects.toThrow(/unsafe blob key/);
      await expect(store.size(key)).rejects.toThrow(/unsafe blob key/);
      await expect(store.delete(key)).rejects.toThrow(/unsafe blob key/);
    },
  );

  it('lists what it holds with sizes, leaving out writes under way', async () => {
    const listed = new Map<string, number>();
    for await (const blob of store.list()) listed.set(blob.key, blob.size);
    expect(listed.get('originals/ab/cd/photo.jpg')).toBe(70_000);
    expect(listed.get('files/local.bin')).toBe(123_457);
    expect(listed.get('empty/nothing.bin')).toBe(0);
    expect(listed.has('doomed/blob.bin')).toBe(false);
    expect([...listed.keys()].every((key) => !key.endsWith('.tmp'))).toBe(true);
  });

  describe('a 20 MB file', () => {
    const SIZE = 20 * 1024 * 1024;
    let file: string;
    let digest: string;
    beforeAll(() => {
      file = path.join(scratch, 'large.bin');
      // Written in pieces, and hashed as it goes.
      const hash = createHash('sha256');
      const descriptor = fs.openSync(file, 'w');
      for (let written = 0; written < SIZE; written += 1024 * 1024) {
        const piece = randomBytes(1024 * 1024);
        hash.update(piece);
        fs.writeSync(descriptor, piece);
      }
      fs.closeSync(descriptor);
      digest = hash.digest('hex');
    });

    it('is stored by putFile and streamed back whole and in ranges', async () => {
      const before = subject.s3?.requests.length ?? 0;
      await store.putFile('videos/large.bin', file);
      expect(await store.size('videos/large.bin')).toBe(SIZE);
      expect(await streamedDigest(await store.stream('videos/large.bin'))).toEqual({ sha256: digest, bytes: SIZE });
      // Across the boundary of two upload parts (8 MiB), and the very end.
      const boundary = 8 * 1024 * 1024;
      const local = fs.readFileSync(file);
      const across = await readAll(await store.stream('videos/large.bin', { start: boundary - 100, end: boundary + 99 }));
      expect(across?.equals(local.subarray(boundary - 100, boundary + 100))).toBe(true);
      const tail = await readAll(await store.stream('videos/large.bin', { start: SIZE - 10, end: SIZE - 1 }));
      expect(tail?.equals(local.subarray(SIZE - 10))).toBe(true);
      expect(sha256(local)).toBe(digest);

      if (subject.s3) {
        const sent = subject.s3.requests.slice(before);
        // A multipart upload: three parts, none bigger than a part, instead of one 20 MB request.
        const parts = sent.filter((request) => request.method === 'PUT' && /[?&]partNumber=\d+/.test(request.url));
        expect(parts.length).toBe(3);
        expect(Math.max(...parts.map((part) => part.bodyBytes))).toBeLessThanOrEqual(8 * 1024 * 1024);
        expect(parts.reduce((sum, part) => sum + part.bodyBytes, 0)).toBe(SIZE);
      }
    });

    // Only a store behind a network has requests to count: defined for it alone, so no run skips it.
    if (speaksS3) {
      it('a ranged read is a ranged GET: only that range crosses the network', async () => {
        const s3 = subject.s3!;
        const before = s3.requests.length;
        await readAll(await store.stream('videos/large.bin', { start: 1_000_000, end: 1_000_099 }));
        const gets = s3.requests.slice(before).filter((request) => request.method === 'GET');
        expect(gets).toEqual([expect.objectContaining({ range: 'bytes=1000000-1000099' })]);
      });
    }
  });
});

describe('the S3 store', () => {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3TestServer();
  });
  afterAll(async () => {
    await s3.close();
  });
  const storeAt = (prefix: string, bucket = s3.bucket, endpoint = s3.endpoint) =>
    new S3BlobStore({ bucket, prefix }, { pathStyle: true, client: { endpoint, region: 'us-east-1', credentials: S3_TEST_CREDENTIALS, maxAttempts: 1 } });

  it('keeps each store under its prefix: two prefixes in one bucket do not see each other', async () => {
    const first = storeAt('first');
    const second = storeAt('second/nested');
    await first.put('shared/key.bin', Buffer.from('one'));
    await second.put('shared/key.bin', Buffer.from('two'));
    expect((await first.get('shared/key.bin'))?.toString()).toBe('one');
    expect((await second.get('shared/key.bin'))?.toString()).toBe('two');
    const keys = async (store: S3BlobStore) => {
      const found: string[] = [];
      for await (const blob of store.list()) found.push(blob.key);
      return found;
    };
    expect(await keys(first)).toEqual(['shared/key.bin']);
    expect(await keys(second)).toEqual(['shared/key.bin']);
    first.close();
    second.close();
  });

  it('records the SHA-256 of what it stores in the object metadata', async () => {
    const store = storeAt('checksums');
    const data = randomBytes(1000);
    await store.put('a.bin', data);
    expect(await store.storedChecksum('a.bin')).toEqual({ size: 1000, sha256: sha256(data) });
    expect(await store.storedChecksum('b.bin')).toBeUndefined();
    store.close();
  });

  it('checkReachable passes for a bucket that answers, and names the setting for one that does not exist or a server that is not there', async () => {
    const good = storeAt('');
    await expect(good.checkReachable()).resolves.toBeUndefined();
    good.close();
    const noBucket = storeAt('', 'no-such-bucket');
    await expect(noBucket.checkReachable()).rejects.toThrow(/^STOCKROOM_BLOBS: cannot use s3:\/\/no-such-bucket \(bucket 'no-such-bucket' does not exist/);
    noBucket.close();
    const noServer = storeAt('', s3.bucket, 'http://127.0.0.1:1');
    await expect(noServer.checkReachable()).rejects.toThrow(/^STOCKROOM_BLOBS: cannot use s3:\/\/stockroom-test \(.*ECONNREFUSED/);
    noServer.close();
  });
});
