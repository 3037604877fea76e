import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createServices, type Services } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { backUpBlobs } from '../../src/platform/blobs/blob-backup.js';
import type { BlobStore, ListableBlobStore } from '../../src/platform/blobs/blob-store.js';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { latestChangeSeq, readChangesAfter } from '../../src/platform/db/change-log.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { getOrCreateSetting } from '../../src/platform/db/settings.js';
import { SearchService } from '../../src/search/search.service.js';
import { SHARED_MANIFEST_KEY, SharedSnapshots, isSharedSnapshotBlob, type SnapshotManifest } from '../../src/search/shared-snapshots.js';
import { SnapshotPublishingLease } from '../../src/search/snapshot-lease.js';
import { addAssets, creativeImageFields, creativeVideoFields } from '../licensing/licensing-fixtures.js';
import { startS3TestServer, type S3TestServer } from '../platform/blobs/s3-test-server.js';
import { POSTGRES_URL, openTestStore, type TestStore } from '../helpers/test-store.js';

/*
 * The search snapshot shared through the blob store (issue 27, §4): one node publishes it, a
 * node that joins loads it instead of reading the catalogue, and replays the change log from
 * its position. Two nodes are two whole applications on one store and one blob store — a
 * PostgreSQL schema and an S3-protocol server, or a SQLite file and a folder — each with its
 * own data folder and its own connection to the store.
 */

/** Counts the statements sent to a node's store and the rows they return: a Kysely plugin sees each one. */
class RowCounter implements KyselyPlugin {
  statements = 0;
  rows = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.statements += 1;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.rows += args.result.rows.length;
    return args.result;
  }
}

const GROUPS = [
  { prefix: 'hb', count: 160, title: 'Harbour at dawn', keyword: 'harbour' },
  { prefix: 'ml', count: 120, title: 'Mountain lake in autumn', keyword: 'lake' },
  { prefix: 'ct', count: 80, title: 'City lights at night', keyword: 'city' },
];
const IMAGES = GROUPS.reduce((sum, group) => sum + group.count, 0);
const VIDEOS = 12;
const ASSETS = IMAGES + VIDEOS;

const SEARCHES = [
  '/v3/search/images?phrase=harbour&fields=id&page_size=100',
  '/v3/search/images?phrase=lake%20autumn&fields=id&page_size=100',
  '/v3/search/images?phrase=city&sort_order=newest&fields=id&page_size=100',
  '/v3/search/images?phrase=dawn%20-city&fields=id&page_size=100',
  '/v3/search/images/creative?include_facets=true&facet_fields=artists&fields=id&page_size=50',
  '/v3/search/videos?phrase=harbour&fields=id&page_size=100',
];

interface Node {
  services: Services;
  app: Awaited<ReturnType<typeof buildApp>>['app'];
  counter: RowCounter;
  /** Statements and rows of the start alone: building the app, loading or building the index. */
  boot: { statements: number; rows: number };
  apiKey: string;
  close(): Promise<void>;
}

interface Cluster {
  dir: string;
  store: TestStore;
  storeId: string;
  /** The blob store the nodes share, as this test reads it. */
  blobs: BlobStore;
  s3: S3TestServer | undefined;
  startNode(name: string, env?: Record<string, string>): Promise<Node>;
  close(): Promise<void>;
}

const SETUPS = [
  ...(POSTGRES_URL ? [{ name: 'PostgreSQL and an S3 bucket', postgres: true }] : []),
  { name: 'SQLite and a blob folder', postgres: false },
];

/** A store with a catalogue and a shared blob store (a bucket or a folder), on which nodes are started. */
async function startClusterStore(postgres: boolean): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-shared-snapshot-'));
  const savedEnv = { ...process.env };
  const s3 = postgres ? await startS3TestServer('stockroom-snapshots') : undefined;
  const blobEnv: Record<string, string> = {};
  if (s3) {
    // The AWS SDK reads its endpoint and credentials from the process's environment, as in production.
    const { STOCKROOM_BLOBS, STOCKROOM_BLOBS_PATH_STYLE, ...awsEnv } = s3.env('nodes');
    Object.assign(process.env, awsEnv);
    Object.assign(blobEnv, { STOCKROOM_BLOBS: STOCKROOM_BLOBS!, STOCKROOM_BLOBS_PATH_STYLE: STOCKROOM_BLOBS_PATH_STYLE! });
  }
  const folderBlobs = s3 ? undefined : new FilesystemBlobStore(path.join(dir, 'shared-blobs'));
  const store = await openTestStore(postgres ? POSTGRES_URL : undefined, path.join(dir, 'store.sqlite'));
  const envOf = (name: string, extra: Record<string, string> = {}) => ({
    STOCKROOM_DATA_DIR: path.join(dir, name),
    STOCKROOM_LOG_LEVEL: 'silent',
    STOCKROOM_PUBLIC_URL: 'http://stockroom.test',
    STOCKROOM_SEED_DEMO: 'false',
    // Published by every node of these tests, SQLite's included (its default is never).
    STOCKROOM_SEARCH_SNAPSHOT_PUBLISH_MINUTES: '30',
    // The rows a start reads are counted in this process: a node with no snapshot builds here, not in a child.
    STOCKROOM_SEARCH_BUILD_IN_CHILD: 'false',
    // No job runner polls: the statements counted are the start's own.
    STOCKROOM_GENERATION_CONCURRENCY: '0',
    STOCKROOM_VIDEO_TRANSCODES: 'false',
    STOCKROOM_ASSET_UPLOAD_INGESTS: 'false',
    ...blobEnv,
    ...extra,
  });
  const overridesOf = (database: Database) => ({ database, ...(folderBlobs ? { blobs: folderBlobs } : {}), changeFeedIntervalMs: 3_600_000 });

  // The catalogue, written by a node that never serves (as `stockroom ingest` would).
  const writer = await createServices(loadConfig(envOf('writer')), overridesOf(store.database));
  for (const group of GROUPS) {
    const ids = Array.from({ length: group.count }, (_, n) => `${group.prefix}${n}`);
    await addAssets(writer, 'image', ids, creativeImageFields({ title: `${group.title} ${group.prefix}`, keywords: [{ text: group.keyword }] }));
  }
  await addAssets(writer, 'video', Array.from({ length: VIDEOS }, (_, n) => `vd${n}`), creativeVideoFields({ title: 'Harbour from the air' }));
  const storeId = await getOrCreateSetting(writer.database.db, 'store_id', () => 'unused');
  const blobs = folderBlobs ?? writer.blobs;

  const nodes: Node[] = [];
  return {
    dir,
    store,
    storeId,
    blobs,
    s3,
    async startNode(name, env = {}) {
      const counter = new RowCounter();
      const opened = await openDatabase(store.options);
      // the whole-catalogue scan reads its rows as arrays, beside Kysely's plugins: counted here too
      const readArrays: Database['readArrays'] = async (query) => {
        counter.statements += 1;
        const rows = await opened.readArrays(query);
        counter.rows += rows.length;
        return rows;
      };
      const database = { ...opened, db: opened.db.withPlugin(counter), readArrays };
      const { app, services } = await buildApp(loadConfig(envOf(name, env)), { ...overridesOf(database), logger: false });
      await app.ready();
      const boot = { statements: counter.statements, rows: counter.rows };
      const { apiKey } = await services.clients.create({ name: `Node ${name}`, queriesPerSecond: 100_000, queriesPerDay: 10_000_000 });
      const node: Node = { services, app, counter, boot, apiKey, close: () => app.close() };
      nodes.push(node);
      return node;
    },
    async close() {
      for (const node of nodes) await node.close().catch(() => undefined);
      await writer.close().catch(() => undefined);
      await store.drop().catch(() => undefined);
      await s3?.close();
      process.env = savedEnv;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function manifestOf(blobs: BlobStore): Promise<SnapshotManifest> {
  const bytes = await blobs.get(SHARED_MANIFEST_KEY);
  expect(bytes, 'the shared manifest').toBeDefined();
  return JSON.parse(bytes!.toString('utf8')) as SnapshotManifest;
}

async function search(node: Node, url: string): Promise<{ result_count: number; ids: string[] }> {
  const response = await node.app.inject({ method: 'GET', url, headers: { 'api-key': node.apiKey } });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<{ result_count: number; images?: Array<{ id: string }>; videos?: Array<{ id: string }> }>();
  return { result_count: body.result_count, ids: (body.images ?? body.videos ?? []).map((asset) => asset.id) };
}

describe.each(SETUPS)('a node that joins a cluster, on $name', ({ postgres }) => {
  let cluster: Cluster;
  let first: Node;
  let joiner: Node;

  beforeAll(async () => {
    cluster = await startClusterStore(postgres);
    first = await startNode('first');
    // The first node publishes as soon as it has built; a call while that runs waits for it.
    await first.services.search.publishSnapshot('schedule');
    // A change after the snapshot: the joiner must replay it from the log.
    await addAssets(first.services, 'image', ['late1'], creativeImageFields({ title: 'Harbour late arrival', keywords: [{ text: 'harbour' }] }));
    await first.services.changeFeed.poll();
    await first.services.search.settled();
    joiner = await startNode('joiner');
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  });

  const startNode = (name: string) => cluster.startNode(name);

  it('the first node read the catalogue whole and published its snapshot with its position and checksum', async () => {
    expect(first.boot.rows).toBeGreaterThanOrEqual(ASSETS);
    const manifest = await manifestOf(cluster.blobs);
    expect(manifest).toMatchObject({ storeId: cluster.storeId, size: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(manifest.seq).toBeGreaterThanOrEqual(ASSETS);
    expect(await cluster.blobs.size(manifest.key)).toBe(manifest.size);
  });

  it('the joining node did not read the catalogue tables whole: its whole start returned fewer rows than a tenth of the assets', () => {
    // (10 rows in a run of this test, beside 740 for the first node's start)
    expect(joiner.boot.rows).toBeLessThan(ASSETS / 10);
  });

  it('the joining node serves every search with the same results as the first, the change after the snapshot included', async () => {
    expect(joiner.services.search.assetCount).toBe(ASSETS + 1);
    for (const url of SEARCHES) {
      const [expected, answered] = [await search(first, url), await search(joiner, url)];
      expect(answered, url).toEqual(expected);
    }
    expect((await search(joiner, SEARCHES[0]!)).ids).toContain('late1');
    expect((await search(joiner, SEARCHES[0]!)).result_count).toBe(GROUPS[0]!.count + 1);
  });

  it('a backup of the blobs leaves the shared snapshot out: a cache of the store, gigabytes at scale', async () => {
    const folder = path.join(cluster.dir, 'backup');
    fs.mkdirSync(folder);
    const report = await backUpBlobs(cluster.blobs as ListableBlobStore, path.join(folder, 'blobs'), path.join(folder, 'blobs.jsonl'), undefined, isSharedSnapshotBlob);
    const keys = fs.readFileSync(path.join(folder, 'blobs.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { key: string }).key);
    expect(report.count).toBeGreaterThan(0);
    expect(keys.some((key) => key.startsWith('originals/'))).toBe(true);
    expect(keys.filter((key) => key.startsWith('search-snapshots/'))).toEqual([]);
  });

  it('keeps the fetched snapshot in its own data folder, so that its next start needs nothing from the blob store', () => {
    expect(fs.existsSync(path.join(cluster.dir, 'joiner', 'search', 'index.snapshot'))).toBe(true);
  });

  it('a node that stops publishes what it has that the shared snapshot lacks, and removes the snapshot it replaced', async () => {
    const before = await manifestOf(cluster.blobs);
    await addAssets(joiner.services, 'image', ['late2'], creativeImageFields({ title: 'Harbour later still' }));
    await joiner.services.changeFeed.poll();
    await joiner.services.search.settled();
    await joiner.services.search.close();
    const after = await manifestOf(cluster.blobs);
    expect(after.seq).toBeGreaterThan(before.seq);
    expect(after.key).not.toBe(before.key);
    expect(await cluster.blobs.size(before.key)).toBeUndefined();
    expect(await cluster.blobs.size(after.key)).toBe(after.size);
  });
});

describe.each(SETUPS)('a shared snapshot that cannot be used, on $name', ({ postgres }) => {
  let cluster: Cluster;
  let first: Node;
  let good: SnapshotManifest;
  let joiners = 0;

  beforeAll(async () => {
    cluster = await startClusterStore(postgres);
    first = await cluster.startNode('first');
    await first.services.search.publishSnapshot('schedule');
    good = await manifestOf(cluster.blobs);
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  });

  /** A node's search service on the cluster's store and blob store, with a data folder of its own (or of an earlier one, by name) and its log kept. */
  function joiningSearch(name?: string) {
    const messages: Array<{ level: string; message: string }> = [];
    const { db, dialect } = first.services.database;
    const node = name ?? `joiner-${++joiners}`;
    const now = () => new Date();
    const snapshots = new SharedSnapshots({
      blobs: first.services.blobs,
      lease: new SnapshotPublishingLease({ db, dialect, node, leaseMs: 60_000, now }),
      node,
      now,
      log: (message) => messages.push({ level: 'warn', message }),
    });
    const file = path.join(cluster.dir, node, 'search', 'index.snapshot');
    const service = new SearchService({
      catalog: first.services.catalog,
      changes: { after: (seq, limit) => readChangesAfter(db, seq, limit), latest: () => latestChangeSeq(db) },
      snapshot: { file, storeId: cluster.storeId },
      shared: { snapshots, publishEveryMs: 30 * 60 * 1000, now },
      log: (message, level = 'info') => messages.push({ level, message }),
    });
    return { service, messages, file };
  }

  async function withManifest(change: (manifest: SnapshotManifest) => SnapshotManifest, run: () => Promise<void>): Promise<void> {
    await cluster.blobs.put(SHARED_MANIFEST_KEY, Buffer.from(JSON.stringify(change({ ...good }))));
    try {
      await run();
    } finally {
      await cluster.blobs.put(SHARED_MANIFEST_KEY, Buffer.from(JSON.stringify(good)));
    }
  }

  /** Built from the store: the same answers as the first node, and one warning saying which snapshot and why. */
  async function expectRefusedAndBuilt(reason: RegExp) {
    const { service, messages, file } = joiningSearch();
    await service.build();
    const refusals = messages.filter((m) => m.level === 'warn');
    expect(refusals, JSON.stringify(messages)).toHaveLength(1);
    expect(refusals[0]!.message).toMatch(/^shared search snapshot \S+ refused: /);
    expect(refusals[0]!.message).toMatch(reason);
    expect(refusals[0]!.message).toMatch(/building the index from the store$/);
    expect(messages.some((m) => m.message.includes('fetched'))).toBe(false);
    for (const phrase of ['harbour', 'lake', 'city', '']) {
      expect(service.searchAssets({ phrase, limit: 100 })).toEqual(first.services.search.searchAssets({ phrase, limit: 100 }));
    }
    // Nothing half-downloaded is left in the node's folder.
    const folder = path.dirname(file);
    expect(fs.existsSync(folder) ? fs.readdirSync(folder).filter((name) => name.endsWith('.download')) : []).toEqual([]);
    return { service, messages };
  }

  it('a snapshot of another format version is refused before anything is downloaded', async () => {
    await withManifest(
      (manifest) => ({ ...manifest, documents: '0123456789abcdef' }),
      async () => {
        await expectRefusedAndBuilt(/it was made by another version \(format 0123456789abcdef, this node's is [0-9a-f]{16}\)/);
      },
    );
  });

  it("another store's snapshot is refused", async () => {
    await withManifest(
      (manifest) => ({ ...manifest, storeId: 'a-store-of-another-cluster' }),
      async () => {
        await expectRefusedAndBuilt(/it belongs to another store \(a-store-of-another-cluster, this node's is /);
      },
    );
  });

  it('a snapshot that fails its checksum is refused, and the next publish replaces it at once', async () => {
    const bytes = (await cluster.blobs.get(good.key))!;
    const damaged = Buffer.from(bytes);
    const middle = Math.floor(damaged.length / 2);
    damaged.writeUInt8(damaged.readUInt8(middle) ^ 0x01, middle);
    await cluster.blobs.put(good.key, damaged);
    try {
      const { service } = await expectRefusedAndBuilt(/it fails its checksum \(SHA-256 [0-9a-f]{64} read, [0-9a-f]{64} published\)/);
      // Published within the schedule's half hour: a broken shared snapshot is not left for other nodes to refuse.
      const outcome = await service.publishSnapshot('schedule');
      expect(outcome).toMatchObject({ published: true });
      good = await manifestOf(cluster.blobs);
      const { service: next, messages } = joiningSearch();
      await next.build();
      expect(messages.filter((m) => m.level === 'warn')).toEqual([]);
      expect(messages.some((m) => m.message.includes('fetched'))).toBe(true);
    } finally {
      if ((await cluster.blobs.size(good.key)) === undefined) await cluster.blobs.put(good.key, bytes);
    }
  });

  it('a snapshot whose file is missing is refused', async () => {
    await withManifest(
      (manifest) => ({ ...manifest, key: 'search-snapshots/000000000001-00000000.snapshot' }),
      async () => {
        await expectRefusedAndBuilt(/its file search-snapshots\/000000000001-00000000\.snapshot is missing/);
      },
    );
  });

  it.runIf(postgres)('a snapshot corrupted on its way from the bucket is refused', async () => {
    cluster.s3!.corruptReads = true;
    try {
      const { service, messages } = joiningSearch();
      await service.build();
      const refusals = messages.filter((m) => m.level === 'warn');
      expect(refusals).toHaveLength(1);
      expect(refusals[0]!.message).toMatch(/refused: (its manifest is not JSON|it fails its checksum)/);
      expect(service.searchAssets({ phrase: 'harbour', limit: 5 }).total).toBe(first.services.search.searchAssets({ phrase: 'harbour', limit: 5 }).total);
    } finally {
      cluster.s3!.corruptReads = false;
    }
  });

  it('a node whose own snapshot is as new as the shared one loads its own and downloads nothing', async () => {
    const fetching = joiningSearch('returning');
    await fetching.service.build();
    expect(fetching.messages.some((m) => m.message.includes('fetched'))).toBe(true);
    const written = fs.statSync(fetching.file).mtimeMs;
    const returning = joiningSearch('returning');
    await returning.service.build();
    expect(returning.messages.map((m) => m.message)).toEqual([expect.stringContaining('loaded from its snapshot')]);
    expect(fs.statSync(returning.file).mtimeMs).toBe(written);
  });
});

describe.each(SETUPS)('publishing, on $name', ({ postgres }) => {
  let cluster: Cluster;
  let first: Node;
  let second: Node;

  beforeAll(async () => {
    cluster = await startClusterStore(postgres);
    first = await cluster.startNode('first');
    await first.services.search.publishSnapshot('schedule');
    second = await cluster.startNode('second');
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  });

  function leaseOf(node: string, leaseMs = 60_000) {
    const { db, dialect } = first.services.database;
    return new SnapshotPublishingLease({ db, dialect, node, leaseMs, now: () => new Date() });
  }

  function sharedOf(node: string, lease = leaseOf(node)) {
    return new SharedSnapshots({ blobs: cluster.blobs, lease, node, now: () => new Date(), log: () => undefined });
  }

  it('one node at a time holds the right to publish; the other gets it once the first lets go', async () => {
    const [a, b] = [leaseOf('node-a'), leaseOf('node-b')];
    const taken = await Promise.all([a.take(), b.take(), a.take(), b.take()]);
    expect(taken.filter((hold) => hold !== undefined)).toHaveLength(1);
    await taken.find((hold) => hold !== undefined)!.release();
    const next = await b.take();
    expect(next).toBeDefined();
    expect(await a.take()).toBeUndefined();
    await next!.release();
  });

  it('a node that stops renewing loses the right to a node that asks after its lease', async () => {
    const stopped = await leaseOf('node-stopped', 200).take();
    expect(stopped).toBeDefined();
    expect(await leaseOf('node-waiting').take()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const taker = await leaseOf('node-waiting').take();
    expect(taker).toBeDefined();
    // Nothing the stopped node does counts any more.
    expect(await stopped!.renew()).toBe(false);
    expect(await stopped!.uploading('search-snapshots/late.snapshot')).toBe(false);
    await taker!.release();
  });

  it('two nodes that publish at once: one publishes, the other finds it publishing and writes nothing', async () => {
    const file = path.join(cluster.dir, 'first', 'search', 'index.snapshot');
    const before = await manifestOf(cluster.blobs);
    const outcomes = await Promise.all([sharedOf('node-a').publish(file, () => true), sharedOf('node-b').publish(file, () => true)]);
    expect(outcomes.map((outcome) => outcome.published).sort()).toEqual([false, true]);
    expect(outcomes.find((outcome) => !outcome.published)).toEqual({ published: false, reason: 'another node is publishing' });
    const after = await manifestOf(cluster.blobs);
    expect(after.key).not.toBe(before.key);
    expect(['node-a', 'node-b']).toContain(after.publishedBy);
  });

  it('a node that published nothing new since the shared snapshot does not publish on its schedule', async () => {
    expect(await second.services.search.publishSnapshot('schedule')).toEqual({ published: false, reason: 'not due' });
  });

  it('a node told never to publish (STOCKROOM_SEARCH_SNAPSHOT_PUBLISH_MINUTES=0) still loads the shared snapshot, and publishes nothing, not even when it stops', async () => {
    const before = await manifestOf(cluster.blobs);
    const reader = await cluster.startNode('reader', { STOCKROOM_SEARCH_SNAPSHOT_PUBLISH_MINUTES: '0' });
    expect(reader.boot.rows).toBeLessThan(ASSETS / 10);
    await addAssets(reader.services, 'image', ['reader1'], creativeImageFields({ title: 'Harbour seen by a reader' }));
    await reader.services.changeFeed.poll();
    await reader.services.search.settled();
    expect(await reader.services.search.publishSnapshot('shutdown')).toBeUndefined();
    await reader.services.search.close();
    expect(await manifestOf(cluster.blobs)).toEqual(before);
  });

  it('the next publisher removes what a node that stopped mid-upload left behind', async () => {
    const stopped = await leaseOf('node-crashed', 100).take();
    await cluster.blobs.put('search-snapshots/000000000099-deadbeef.snapshot', Buffer.from('half an upload'));
    expect(await stopped!.uploading('search-snapshots/000000000099-deadbeef.snapshot')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const file = path.join(cluster.dir, 'first', 'search', 'index.snapshot');
    expect(await sharedOf('node-next').publish(file, () => true)).toMatchObject({ published: true });
    expect(await cluster.blobs.size('search-snapshots/000000000099-deadbeef.snapshot')).toBeUndefined();
  });
});
