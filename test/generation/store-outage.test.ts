import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobRange, BlobStore } from '../../src/platform/blobs/blob-store.js';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { DrawingEngine } from './drawing-engine.js';
import { createGenerationApp, settle, type GenerationTestApp } from './generation-fixtures.js';

/** A folder store whose next writes of generated results fail as a store that cannot be reached does. */
class FlakyResultStore implements BlobStore {
  failingWrites = 0;
  private readonly inner: FilesystemBlobStore;
  constructor(root: string) {
    this.inner = new FilesystemBlobStore(root);
  }
  async put(key: string, data: Buffer): Promise<void> {
    if (key.startsWith('generation/results/') && this.failingWrites > 0) {
      this.failingWrites -= 1;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    }
    await this.inner.put(key, data);
  }
  putFile(key: string, localPath: string) {
    return this.inner.putFile(key, localPath);
  }
  get(key: string) {
    return this.inner.get(key);
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

// A PostgreSQL restart or a bucket that stops answering while a job saves its results: the job is
// not at fault, so it must neither fail nor be charged twice, and the node must carry on.
describe('a generation job that cannot reach its stores', () => {
  let t: GenerationTestApp;
  let blobs: FlakyResultStore;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-outage-'));

  beforeAll(async () => {
    blobs = new FlakyResultStore(root);
    t = await createGenerationApp(undefined, { builtin: new DrawingEngine() }, { STOCKROOM_GENERATION_WAIT_MS: '300' }, { blobs });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('is left to its lease, runs again once the store is back, and is charged once', async () => {
    const person = await t.person();
    const product = await t.services.products.grant({ userId: person.userId, type: 'aigen', generations: 5, period: 'month' });
    blobs.failingWrites = 1;
    const first = await t.call('POST', '/v3/ai/image-generations', { token: person.token, body: { prompt: 'a lighthouse at dusk' } });
    expect(first.statusCode, first.body).toBe(202);
    const id = first.json<{ generation_request_id: string }>().generation_request_id;

    // The failed save left the job running under this node's lease: still pending, not failed.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(blobs.failingWrites).toBe(0);
    expect((await t.call('GET', `/v3/ai/image-generations/${id}`, { token: person.token })).statusCode).toBe(202);

    // Once the lease has lapsed, a runner claims it again and it completes.
    t.tick(61_000);
    const done = await settle(t, id, person.token, 15_000);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json<{ results: unknown[] }>().results.length).toBeGreaterThan(0);

    const history = await t.call('GET', '/v3/ai/generation-history', { token: person.token });
    expect(history.json<{ generations: Array<{ status: string }> }>().generations.map((item) => item.status)).toEqual(['done']);
    const products = (await t.call('GET', '/v3/products', { token: person.token })).json<{ products: Array<{ id: number; downloads_remaining: number | null }> }>().products;
    expect(products.find((listed) => listed.id === product.id)?.downloads_remaining).toBe(4);
  });
});
