import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { progressBar } from '../src/cli/progress.js';
import { loadConfig } from '../src/config/config.js';
import { S3BlobStore } from '../src/platform/blobs/s3-blob-store.js';
import { parseS3Location } from '../src/platform/blobs/s3-location.js';
import { SHARED_MANIFEST_KEY, type SnapshotManifest } from '../src/search/shared-snapshots.js';
import { startS3TestServer } from '../test/platform/blobs/s3-test-server.js';
import { catalogueStoreIn, prepareCatalogueStore } from './fixtures/kept-store.js';
import { SyntheticCatalogue } from './fixtures/synthetic-catalogue.js';
import { cleanUpOnInterrupt, freePort, table } from './harness.js';
import { bootServer, deployedNodeEnvironment, HttpClient, memoryOf, stopServer } from './search/measure.js';
import { pathOf, queryClasses } from './search/queries.js';
import { flagValue, size } from './sizes.js';

/**
 * `npm run bench -- node-join` (BENCH_ASSETS, default 1,000,000; 2,000 under BENCH_SMOKE=1;
 * `--store <dir>` or BENCH_STORE keeps the catalogue's store there for a later run, see
 * fixtures/kept-store.ts)
 *
 * A node added to a cluster (issue 27, §4). The synthetic catalogue is written into a store; the
 * first `stockroom serve` builds its index from the store, publishes its snapshot into the blob
 * store (an S3-protocol server, s3rver, on this machine) and stops; then a node with an empty
 * data folder starts on the same store and bucket. Each start is timed from spawn to its first
 * 200 on a search. The new node must answer every search with the first node's result counts.
 *
 * The store is SQLite (the benchmarks' bulk loader writes SQLite): a node's join reads a
 * handful of rows from it whichever store it is, and the nodes run one after the other, the
 * second on a link to the first one's store file.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = performance.now();
const log = (message: string) => process.stderr.write(`[node-join bench ${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${message}\n`);
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024).toLocaleString('en-US')} MB`;
const seconds = (s: number) => `${s.toFixed(s < 10 ? 2 : 1)} s`;

export async function nodeJoinBenchmark(): Promise<void> {
  const assets = size('BENCH_ASSETS', 1_000_000, 2_000);
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-node-join-bench-'));
  const keptDir = flagValue(process.argv.slice(3), 'store') ?? (process.env.BENCH_STORE || undefined);
  const { dataDir: firstDir, storeFile } = catalogueStoreIn(keptDir && path.resolve(keptDir), tempDir);
  const joinerDir = path.join(tempDir, 'joiner');
  const children = new Set<ChildProcess>();
  const s3 = await startS3TestServer('stockroom-node-join');
  const savedEnv = { ...process.env };
  const releaseInterrupt = cleanUpOnInterrupt(tempDir, children);
  let bucket: S3BlobStore | undefined;
  try {
    const blobEnv = s3.env('cluster');
    // This process reads the bucket too (the manifest), with the SDK's variables as the nodes have them.
    for (const [name, value] of Object.entries(blobEnv)) if (name.startsWith('AWS_')) process.env[name] = value;
    const location = parseS3Location(blobEnv.STOCKROOM_BLOBS!);
    if (typeof location === 'string') throw new Error(location);
    bucket = new S3BlobStore(location, { pathStyle: true });
    const port = await freePort();
    const env = (dataDir: string): NodeJS.ProcessEnv => ({
      ...process.env,
      ...blobEnv,
      // each node runs as the systemd unit runs it (glibc's malloc settings, see operations.md, Memory)
      ...deployedNodeEnvironment(),
      STOCKROOM_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      STOCKROOM_SEED_DEMO: 'false',
      STOCKROOM_LOG_LEVEL: process.env.STOCKROOM_LOG_LEVEL ?? 'warn',
      STOCKROOM_THROTTLE_PER_SECOND: '1000000000',
      STOCKROOM_THROTTLE_PER_DAY: '1000000000',
      // A SQLite store publishes only when told; in a cluster (PostgreSQL) every 30 minutes by default.
      STOCKROOM_SEARCH_SNAPSHOT_PUBLISH_MINUTES: '30',
    });

    // 1. The store, created and migrated by the real code, then the catalogue by the bulk loader (or kept from an earlier run).
    log(`temp dir ${tempDir}`);
    const catalogue = new SyntheticCatalogue(assets, 1);
    const bar = progressBar('Writing the catalogue');
    const { apiKey, written, reused } = await prepareCatalogueStore({
      keptDir: keptDir && path.resolve(keptDir),
      store: { dataDir: firstDir, storeFile },
      catalogue,
      config: loadConfig(env(firstDir)),
      clientName: 'node-join bench',
      log,
      onProgress: bar.update,
      // the first node's start is not what this measures: from a kept store it may load its own snapshot
      keepServerSnapshot: true,
    });
    bar.stop();
    log(`store written in ${seconds(written.seconds)}${reused ? ' (by an earlier run)' : ''}`);

    const searches = queryClasses(catalogue.words, 3).flatMap((c) => c.searches.map(pathOf));
    const headers = { 'api-key': apiKey };
    const serverArgs = [path.join(root, 'bin/stockroom.js'), 'serve'];
    const countsOf = async () => {
      const client = new HttpClient(port, headers);
      const counts: number[] = [];
      for (const search of searches) counts.push(await client.search(search));
      return counts;
    };

    // 2. The first node: builds from the store (or loads the snapshot a kept folder holds), then publishes.
    const ownSnapshot = fs.existsSync(path.join(firstDir, 'search', 'index.snapshot'));
    log(`starting the first node (${ownSnapshot ? 'from the snapshot an earlier run left in the kept folder' : 'building its index from the store'})`);
    const first = await bootServer(process.execPath, serverArgs, env(firstDir), port, searches[0]!, headers, (child) => children.add(child));
    log(`first node serving in ${seconds(first.bootSeconds)}; waiting for its snapshot in the bucket`);
    const publishStarted = performance.now();
    let manifest: SnapshotManifest | undefined;
    while (!manifest) {
      const bytes = await bucket.get(SHARED_MANIFEST_KEY);
      if (bytes) manifest = JSON.parse(bytes.toString('utf8')) as SnapshotManifest;
      else if ((performance.now() - publishStarted) / 1000 > 3600) throw new Error('no snapshot was published within an hour');
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const publishSeconds = (performance.now() - publishStarted) / 1000;
    log(`published in ${seconds(publishSeconds)} after the node served: ${mb(manifest.size)}, change ${manifest.seq}`);
    const expected = await countsOf();
    await stopServer(first.child);
    children.delete(first.child);

    // 3. The new node: an empty data folder, the same store and bucket.
    fs.mkdirSync(joinerDir);
    fs.symlinkSync(storeFile, path.join(joinerDir, 'stockroom.sqlite'));
    log('starting a new node (an empty data folder)');
    // Its log (info) into a file, to read what its start did; `exec`: the server is the child itself.
    const joinerLog = path.join(tempDir, 'joiner.log');
    const shell = ['-c', `exec "$0" "$@" > "${joinerLog}"`, process.execPath, ...serverArgs];
    const joinerEnv = { ...env(joinerDir), STOCKROOM_LOG_LEVEL: 'info' };
    const joiner = await bootServer('/bin/sh', shell, joinerEnv, port, searches[0]!, headers, (child) => children.add(child));
    const rss = memoryOf(joiner.child.pid!)?.rss ?? 0;
    log(`new node serving in ${seconds(joiner.bootSeconds)}, RSS ${mb(rss)}`);
    const startLines = fs
      .readFileSync(joinerLog, 'utf8')
      .split('\n')
      .map((line) => (line.startsWith('{') ? (JSON.parse(line) as { msg?: string }).msg ?? '' : ''))
      .filter((message) => message.includes('search snapshot') || message.includes('search index'));
    const fetched = startLines.find((message) => message.startsWith('shared search snapshot') && message.includes('fetched'));
    if (!fetched) throw new Error(`the new node did not load the shared snapshot: ${startLines.join(' | ') || 'its log says nothing of it'}`);
    const fetchSeconds = Number(/ in ([\d.]+) s$/.exec(fetched)?.[1]);
    for (const message of startLines) log(`new node: ${message}`);
    const answered = await countsOf();
    const different = answered.filter((count, n) => count !== expected[n]).length;
    await stopServer(joiner.child);
    children.delete(joiner.child);
    if (different > 0) throw new Error(`the new node answered ${different} of ${searches.length} searches with other result counts than the first`);

    process.stdout.write(
      `\nA node added at ${assets.toLocaleString('en-US')} assets (${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}); snapshot ${mb(manifest.size)} in s3rver\n\n` +
        `${table(
          ['start', 'spawn → first search answered', 'what it read'],
          [
            ownSnapshot
              ? ['first node, its own snapshot (kept folder), no shared one', seconds(first.bootSeconds), 'its snapshot, then the log since']
              : ['first node, empty data folder, no shared snapshot', seconds(first.bootSeconds), 'the catalogue tables whole'],
            ['… then its snapshot published (after it served)', seconds(publishSeconds), `${mb(manifest.size)} uploaded with its SHA-256`],
            ['new node, empty data folder', seconds(joiner.bootSeconds), `the shared snapshot (checksum checked), then the log since change ${manifest.seq}`],
            ['… of which fetching the snapshot from the bucket', seconds(fetchSeconds), `${mb(manifest.size)} streamed into its data folder`],
          ],
        )}\n` +
        `The new node answered all ${searches.length} searches with the first node's result counts; its RSS after the start ${mb(rss)}.\n`,
    );
  } finally {
    for (const child of children) child.kill('SIGKILL');
    bucket?.close();
    await s3.close();
    process.env = savedEnv;
    releaseInterrupt();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}
