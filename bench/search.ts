/*
 * `npm run bench -- search [--assets N] [--seed S]`: search at catalogue scale, three ways side
 * by side in one run, on the same data and the same concrete queries.
 *
 * Method
 * 1. Catalogue. A deterministic synthetic catalogue (bench/fixtures/synthetic-catalogue.ts; default 1,000,000
 *    metadata-only images, Zipf-distributed made-up vocabulary) is written into a fresh SQLite
 *    store that the real code created and migrated. The rows are those CatalogRepository.upsertAsset
 *    writes, bulk-loaded with prepared statements (bench/fixtures/store-loader.ts); a sample written
 *    one by one through the repository itself must read back identical, and is timed too.
 * 2. Index, directly. The same records, as the repository returns them, become search documents
 *    through the real assetDocument() and go into a SearchIndex(ASSET_INDEX_SCHEMA) in this
 *    process, a page of 2,000 at a time as the server's build does.
 * 3. Reference. The same documents go into SQLite FTS5 (bench/search/fts5.ts): bm25 with the
 *    same field weights, filter and facet columns beside it; page, COUNT(*) and GROUP BY facets.
 * 4. HTTP. The real server (`node bin/stockroom.js serve`) runs on the store as a child
 *    process; boot = spawn → first 200 on a search (the index is built before it listens). Its
 *    RSS is read from /proc. It is stopped with SIGTERM and started again on the same data
 *    directory: the second boot may load the index snapshot the first one left. Each server's
 *    warnings (a snapshot not used or not written, and why) are printed with the progress.
 * 5. Queries. Each class is a list of concrete searches (bench/search/queries.ts), written once
 *    as an HTTP query string; the index runs exactly the query the route makes of it, FTS5 the
 *    same filters, page and facets, and for each word the terms it matches in the index (its
 *    stem, synonym and prefix variants in enhanced search, the default), OR-ed: both find the
 *    same documents (their mean result counts are printed side by side). Each engine runs a
 *    class one search after another (one client; HTTP over one keep-alive connection): first
 *    untimed, each distinct search once and then on for BENCH_WARMUP_SECONDS (2) — compiled
 *    code, warm caches: the steady state of a server, as V8 fully optimizes hot code only after
 *    some thousand calls — then the timed runs; p50/p99 over those, requests/s = 1000 / mean.
 *    The restarted server's first searches are timed cold. HTTP also runs each class with
 *    autocannon at BENCH_CONNECTIONS (8) connections. Before its first class, each engine
 *    serves every class's searches in turn, untimed, for BENCH_SETTLE_SECONDS (10): a server
 *    that has been up a while, not one just out of its build — the build leaves a gigabyte of
 *    garbage whose collection and the heap's shrinking run on for seconds, and the class timed
 *    first (the rare word, whose searches take microseconds) took twice its later time.
 *
 * Knobs (env): BENCH_ASSETS, BENCH_SEED, BENCH_QUERIES (distinct searches per class, 200),
 * BENCH_SAMPLES (timed runs per class for the index and HTTP, 400), BENCH_FTS_SAMPLES (100) and
 * BENCH_FTS_SECONDS (30, per class), BENCH_WARMUP_SECONDS (2, per class and engine; 0: one
 * untimed run per distinct search only), BENCH_SETTLE_SECONDS (10, per engine), BENCH_SECONDS
 * (5) and BENCH_CONNECTIONS (8) for autocannon. BENCH_SMOKE=1: every default tiny (2,000 assets, no
 * warm-up), to prove that the benchmark still runs through (npm run bench:smoke).
 * `--store <dir>` (BENCH_STORE): the catalogue's store is kept in that folder, and a later run of
 * the same size and seed reuses it rather than writing it again (bench/fixtures/kept-store.ts).
 * `--server-only` (BENCH_SERVER_ONLY=1): steps 2 and 3 are skipped, the server alone is measured
 * (at ten million assets the in-process index and FTS5 take an hour more).
 * `--in-process-only` (BENCH_IN_PROCESS_ONLY=1): steps 1 and 4 are skipped, the index in process and
 * FTS5 alone are measured, built from the generated records (at ten million assets writing the
 * store takes 20 minutes, the server's boot from it 11 more).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AssetRecord } from '../src/catalog/catalog.records.js';
import { progressBar } from '../src/cli/progress.js';
import { loadConfig } from '../src/config/config.js';
import { keepRequestGarbageYoung } from '../src/platform/serving-heap.js';
import { SearchIndex } from '../src/search/engine/search-index.js';
import { ASSET_INDEX_SCHEMA, assetDocument } from '../src/search/search-documents.js';
import { cleanUpOnInterrupt, freePort, load, table, type LoadResult } from './harness.js';
import { SMOKE, flagValue, wholeNumber } from './sizes.js';
import { SyntheticCatalogue } from './fixtures/synthetic-catalogue.js';
import { Fts5Reference } from './search/fts5.js';
import { bootServer, deployedNodeEnvironment, fixedWorkLatency, HttpClient, memoryOf, runUntimed, stopServer, timeSequential, warningsIn, type Latency, type RunPlan } from './search/measure.js';
import { ftsQueryOf, HEADLINE_CLASS, indexQueryOf, pathOf, queryClasses, type QueryClass } from './search/queries.js';
import { analyzeStore, checkAgainstRepository, recordOf, type LoadReport } from './fixtures/store-loader.js';
import { catalogueStoreIn, prepareCatalogueStore } from './fixtures/kept-store.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Issue 27's targets: a million assets, and above that the ten-million ones (a store boot must also fit).
const MILLION_TARGETS = { headlineP99Ms: 15, ftsRatio: 20, snapshotBootSeconds: 10, rssBytes: 1.5 * 1024 ** 3, storeBootSeconds: undefined };
const TEN_MILLION_TARGETS = { headlineP99Ms: 50, ftsRatio: 20, snapshotBootSeconds: 30, rssBytes: 3 * 1024 ** 3, storeBootSeconds: 15 * 60 };
const targetsFor = (assets: number) => (assets > 1_000_000 ? TEN_MILLION_TARGETS : MILLION_TARGETS);

interface Options {
  assets: number;
  seed: number;
  queries: number;
  samples: number;
  ftsSamples: number;
  ftsSeconds: number;
  warmupSeconds: number;
  settleSeconds: number;
  loadSeconds: number;
  connections: number;
  analyze: boolean;
  /** the server alone: no index in this process and no FTS5 reference (BENCH_SERVER_ONLY=1, `--server-only`) */
  serverOnly: boolean;
  /** the index in process and FTS5 alone: no server (BENCH_IN_PROCESS_ONLY=1, `--in-process-only`) */
  inProcessOnly: boolean;
  /** a folder the catalogue store is kept in between runs (see kept-store.ts) */
  store: string | undefined;
}

function options(argv: readonly string[]): Options {
  const flag = (name: string) => flagValue(argv, name);
  const number = wholeNumber;
  const seconds = (value: string | undefined, fallback: number, name: string): number => {
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number of seconds ≥ 0, got '${value}'`);
    return n;
  };
  const env = process.env;
  // a smoke run (BENCH_SMOKE=1) only proves that every step still runs, at tiny sizes
  const or = (normal: number, tiny: number) => (SMOKE ? tiny : normal);
  const serverOnly = argv.includes('--server-only') || env.BENCH_SERVER_ONLY === '1';
  const inProcessOnly = argv.includes('--in-process-only') || env.BENCH_IN_PROCESS_ONLY === '1';
  if (serverOnly && inProcessOnly) throw new Error('--server-only and --in-process-only leave nothing to measure together: give one of them');
  return {
    assets: number(flag('assets') ?? env.BENCH_ASSETS, or(1_000_000, 2_000), 'assets'),
    seed: number(flag('seed') ?? env.BENCH_SEED, 1, 'seed'),
    queries: number(env.BENCH_QUERIES, or(200, 3), 'BENCH_QUERIES'),
    samples: number(env.BENCH_SAMPLES, or(400, 3), 'BENCH_SAMPLES'),
    ftsSamples: number(env.BENCH_FTS_SAMPLES, or(100, 3), 'BENCH_FTS_SAMPLES'),
    ftsSeconds: number(env.BENCH_FTS_SECONDS, or(30, 1), 'BENCH_FTS_SECONDS'),
    warmupSeconds: seconds(env.BENCH_WARMUP_SECONDS, or(2, 0), 'BENCH_WARMUP_SECONDS'),
    settleSeconds: seconds(env.BENCH_SETTLE_SECONDS, or(10, 0), 'BENCH_SETTLE_SECONDS'),
    loadSeconds: number(env.BENCH_SECONDS, or(5, 1), 'BENCH_SECONDS'),
    connections: number(env.BENCH_CONNECTIONS, or(8, 2), 'BENCH_CONNECTIONS'),
    analyze: env.BENCH_ANALYZE === '1',
    serverOnly,
    inProcessOnly,
    store: (flag('store') ?? env.BENCH_STORE) ? path.resolve(flag('store') ?? env.BENCH_STORE!) : undefined,
  };
}

/** A full collection before reading a heap figure or timing; run-ts gives no way to pass --expose-gc. */
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024).toLocaleString('en-US')} MB`;
const seconds = (s: number) => `${s.toFixed(s < 10 ? 2 : 1)} s`;
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0));
const count = (n: number) => Math.round(n).toLocaleString('en-US');
const started = performance.now();
const loadAtStart = os.loadavg()[0]!;
const log = (message: string) => process.stderr.write(`[search bench ${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${message}\n`);

interface ClassResult {
  /** absent in a run of the server alone */
  index?: Latency;
  fts?: Latency;
  /** absent in a run of the index in process alone */
  http?: Latency;
  loaded?: LoadResult;
}

export async function searchBenchmark(): Promise<void> {
  const o = options(process.argv.slice(3));
  const gc = collector();
  // the index in this process runs with the server's setting for per-search garbage
  keepRequestGarbageYoung();
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-search-bench-'));
  const { dataDir, storeFile } = catalogueStoreIn(o.store, tempDir);
  const children = new Set<ChildProcess>();
  const releaseInterrupt = cleanUpOnInterrupt(tempDir, children);
  try {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // the server runs as the systemd unit runs it (glibc's malloc settings, see operations.md, Memory)
      ...deployedNodeEnvironment(),
      STOCKROOM_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      STOCKROOM_SEED_DEMO: 'false',
      STOCKROOM_LOG_LEVEL: process.env.STOCKROOM_LOG_LEVEL ?? 'warn',
      STOCKROOM_THROTTLE_PER_SECOND: '1000000000',
      STOCKROOM_THROTTLE_PER_DAY: '1000000000',
    };

    // 1. The store, created and migrated by the real code, and a client the load cannot throttle:
    // for the server. The index in process and FTS5 are built from the generated records, so a
    // run of those alone writes no store (at ten million assets, 20 minutes and 24 GB).
    log(`temp dir ${tempDir}`);
    const catalogue = new SyntheticCatalogue(o.assets, o.seed);
    const store = o.inProcessOnly ? undefined : await writeStore(o, catalogue, { dataDir, storeFile }, env, tempDir);

    const classes = queryClasses(catalogue.words, o.queries);
    const results = new Map<string, Partial<ClassResult>>(classes.map((c) => [c.name, {}]));
    // 2–3. The index in this process and the FTS5 reference (not in a run of the server alone)
    const inProcess = o.serverOnly ? undefined : await measureInProcess(o, catalogue, classes, results, tempDir, gc);
    const server = o.inProcessOnly
      ? undefined
      : await measureServer({ o, classes, results, env, port, apiKey: store!.apiKey, dataDir, tempDir, children, indexTotals: inProcess?.indexTotals });

    // 6. The report.
    print({
      o,
      classes,
      results: results as Map<string, ClassResult>,
      inProcess,
      store,
      server,
    });
  } finally {
    for (const child of children) await stopServer(child, 30);
    releaseInterrupt();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

/** Phases 4 and 5: the real server on the store, booted from the store, then again from its snapshot. */
async function measureServer(m: {
  o: Options;
  classes: QueryClass[];
  results: Map<string, Partial<ClassResult>>;
  env: NodeJS.ProcessEnv;
  port: number;
  apiKey: string;
  dataDir: string;
  tempDir: string;
  children: Set<ChildProcess>;
  /** the index's result count of each search (absent in a run of the server alone) */
  indexTotals: Map<string, number> | undefined;
}): Promise<ServerReport> {
  const { o, classes, results, env, port, apiKey, dataDir, tempDir, children } = m;
  const indexTotals = m.indexTotals ?? new Map<string, number>();
  const { samePlan } = plansOf(o);
  const mixed = <T>(lists: ReadonlyArray<readonly T[]>) => interleaved(lists, o.queries);

  // 4. HTTP: the real server on the store, booted from the store.
  const serverArgs = [path.join(root, 'bin/stockroom.js'), 'serve'];
  const headers = { 'api-key': apiKey };
  const probe = pathOf(classes[0]!.searches[0]!);
  log('booting the server (building its index from the store)');
  // the servers' warnings (a snapshot not used, and why) are shown; the rest of their log is kept aside
  const serverLog = path.join(tempDir, 'server.log');
  // an hour, or a millisecond an asset (ten million: 2.8 hours) for a build from the store whose speed is measured, not assumed
  const bootTimeout = Math.max(3600, o.assets / 1000);
  const showWarnings = (which: string) => {
    for (const warning of warningsIn(serverLog)) log(`${which} server warned: ${warning}`);
    fs.rmSync(serverLog, { force: true });
  };
  const first = await bootServer(process.execPath, serverArgs, env, port, probe, headers, (child) => children.add(child), serverLog, bootTimeout);
  showWarnings('the first');
  const rssAfterBoot = memoryOf(first.child.pid!)!;
  log(`server up in ${seconds(first.bootSeconds)}, RSS ${mb(rssAfterBoot.rss)}`);
  let rssMax = rssAfterBoot.rss;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, memoryOf(first.child.pid!)?.rss ?? 0);
  }, 250);
  const client = new HttpClient(port, headers);
  const mismatches: string[] = [];
  const headlineTotals = new Map<string, number>();
  try {
    await runUntimed(mixed(classes.map((c) => c.searches.map(pathOf))), o.settleSeconds, (p) => client.search(p));
    for (const c of classes) {
      const paths = c.searches.map(pathOf);
      const latency = await timeSequential(paths, samePlan, async (p) => {
        const total = await client.search(p);
        if (indexTotals.has(p) && indexTotals.get(p) !== total && mismatches.length < 5) {
          mismatches.push(`${p}: HTTP ${total}, index ${indexTotals.get(p)}`);
        }
        if (c.name === HEADLINE_CLASS) headlineTotals.set(p, total);
        return total;
      });
      results.get(c.name)!.http = latency;
      log(`HTTP    ${c.name}: p50 ${ms(latency.p50)} ms, p99 ${ms(latency.p99)} ms`);
    }
    for (const c of classes) {
      const loaded = await load({ url: `http://127.0.0.1:${port}`, paths: c.searches.map(pathOf), headers, seconds: o.loadSeconds, connections: o.connections });
      if (loaded.errors + loaded.non2xx > 0) throw new Error(`${c.name} under load: ${loaded.errors} errors, ${loaded.non2xx} non-2xx answers`);
      results.get(c.name)!.loaded = loaded;
      log(`HTTP x${o.connections} ${c.name}: ${count(loaded.requestsPerSecond)} req/s, p99 ${loaded.p99} ms`);
    }
  } finally {
    clearInterval(sampler);
    client.close();
  }
  const rssAfterLoad = memoryOf(first.child.pid!)!;
  rssMax = Math.max(rssMax, rssAfterLoad.rss);
  const firstStop = await stopServer(first.child);
  children.delete(first.child);
  const snapshotFile = path.join(dataDir, 'search', 'index.snapshot');
  const snapshotBytes = fs.existsSync(snapshotFile) ? fs.statSync(snapshotFile).size : undefined;
  log(`server stopped in ${seconds(firstStop)}; snapshot ${snapshotBytes === undefined ? 'absent' : mb(snapshotBytes)}`);

  // 5. The second boot, on the same data directory.
  log('booting the server again (from the snapshot, when there is one)');
  showWarnings('the first');
  const second = await bootServer(process.execPath, serverArgs, env, port, probe, headers, (child) => children.add(child), serverLog, bootTimeout);
  showWarnings('the second');
  const rssAfterSecondBoot = memoryOf(second.child.pid!)!;
  log(`server up in ${seconds(second.bootSeconds)}, RSS ${mb(rssAfterSecondBoot.rss)}`);
  const again = new HttpClient(port, headers);
  let differentAfterRestart = 0;
  let headlineAfterRestart: Latency;
  try {
    const headline = classes.find((c) => c.name === HEADLINE_CLASS)!;
    headlineAfterRestart = await timeSequential(headline.searches.map(pathOf), { ...samePlan, warmup: 0, warmupSeconds: 0 }, async (p) => {
      const total = await again.search(p);
      if (headlineTotals.get(p) !== total) differentAfterRestart++;
      return total;
    });
  } finally {
    again.close();
  }
  const rssAfterSecondLoad = memoryOf(second.child.pid!)!;
  const secondStop = await stopServer(second.child);
  children.delete(second.child);

  return {
    firstBoot: first.bootSeconds,
    secondBoot: second.bootSeconds,
    firstStop,
    secondStop,
    snapshotBytes,
    rssAfterBoot: rssAfterBoot.rss,
    rssAfterLoad: rssAfterLoad.rss,
    rssMax,
    peak: Math.max(rssAfterLoad.peak, first.bootPeak),
    rssAfterSecondBoot: rssAfterSecondBoot.rss,
    rssAfterSecondLoad: rssAfterSecondLoad.rss,
    secondPeak: Math.max(rssAfterSecondLoad.peak, second.bootPeak),
    headlineAfterRestart,
    differentAfterRestart,
    mismatches,
  };
}

/**
 * How each engine runs a class: every distinct search once, untimed, first — the timed runs see
 * compiled code and warm caches (SQLite's pages, the server's records), a server's steady state.
 */
function plansOf(o: Options): { samePlan: RunPlan; ftsPlan: RunPlan } {
  return {
    samePlan: { warmup: o.queries, warmupSeconds: o.warmupSeconds, samples: o.samples, seconds: 600, minSamples: o.samples },
    ftsPlan: { warmup: o.queries, warmupSeconds: o.warmupSeconds, samples: o.ftsSamples, seconds: o.ftsSeconds, minSamples: 20 },
  };
}

/** `queries` rounds of one search of each list in turn (an engine's settling run serves every class so). */
function interleaved<T>(lists: ReadonlyArray<readonly T[]>, queries: number): T[] {
  return Array.from({ length: queries }, (_, i) => lists.map((list) => list[i % list.length]!)).flat();
}

/** Phases 2 and 3: the index built in this process and FTS5 from the same documents, each class timed on both. */
async function measureInProcess(
  o: Options,
  catalogue: SyntheticCatalogue,
  classes: QueryClass[],
  results: Map<string, Partial<ClassResult>>,
  tempDir: string,
  gc: () => void,
): Promise<{ build: InProcessBuild; noise: { p50: number; p99: number }; indexTotals: Map<string, number> }> {
  // 2. The index (in this process) and the FTS5 reference, from the same documents.
  log('building the index and the FTS5 reference');
  gc();
  const heapBefore = process.memoryUsage();
  let index: SearchIndex | undefined = new SearchIndex(ASSET_INDEX_SCHEMA);
  const fts = new Fts5Reference(path.join(tempDir, 'fts5.sqlite'));
  let indexMs = 0;
  let ftsMs = 0;
  let recordsMs = 0;
  const buildBar = progressBar('Index and FTS5');
  let page: AssetRecord[] = [];
  let done = 0;
  const flush = () => {
    let t = performance.now();
    const docs = page.map(assetDocument);
    index!.upsertMany(docs);
    indexMs += performance.now() - t;
    t = performance.now();
    fts.add(docs);
    ftsMs += performance.now() - t;
    done += page.length;
    page = [];
    buildBar.update(done, o.assets);
  };
  let t0 = performance.now();
  for (const input of catalogue.assets()) {
    page.push(recordOf(input));
    if (page.length === 2000) {
      recordsMs += performance.now() - t0;
      flush();
      t0 = performance.now();
    }
  }
  recordsMs += performance.now() - t0;
  if (page.length > 0) flush();
  let t = performance.now();
  index.compact();
  indexMs += performance.now() - t;
  t = performance.now();
  fts.optimize();
  ftsMs += performance.now() - t;
  buildBar.stop();
  gc();
  const heapAfter = process.memoryUsage();
  const indexBytes = index.byteSize();
  const ftsBytes = fs.statSync(path.join(tempDir, 'fts5.sqlite')).size;
  log(`index built in ${seconds(indexMs / 1000)} (typed arrays ${mb(indexBytes)}, JS heap ${mb(heapAfter.heapUsed)}), FTS5 in ${seconds(ftsMs / 1000)}`);

  // 3. The queries: the index directly, then FTS5.
  // Every engine first runs each distinct search of a class once, untimed: the timed runs see
  // compiled code, warm caches (SQLite's pages, the server's records) — a server's steady state.
  const { samePlan, ftsPlan } = plansOf(o);
  const indexTotals = new Map<string, number>();
  // Each engine first serves every class in turn, untimed (see BENCH_SETTLE_SECONDS).
  const mixed = <T>(lists: ReadonlyArray<readonly T[]>) => interleaved(lists, o.queries);
  gc();
  await runUntimed(
    mixed(classes.map((c) => c.searches.map(indexQueryOf))),
    o.settleSeconds,
    (query) => index!.search(query).total,
  );
  gc();
  const noise = fixedWorkLatency(o.samples);
  log(`machine noise: a fixed computation of p50 ${(noise.p50 * 1000).toFixed(1)} µs, p99 ${(noise.p99 * 1000).toFixed(1)} µs`);
  for (const c of classes) {
    const searches = c.searches.map((s) => ({ path: pathOf(s), query: indexQueryOf(s) }));
    // no garbage of an earlier phase left for a collection to land among the timed runs
    gc();
    const latency = await timeSequential(searches, samePlan, (s) => {
      const total = index!.search(s.query).total;
      indexTotals.set(s.path, total);
      return total;
    });
    results.get(c.name)!.index = latency;
    log(`index   ${c.name}: p50 ${ms(latency.p50)} ms, p99 ${ms(latency.p99)} ms`);
  }
  // FTS5 looks for the terms each word matches in the index (its variants): the same documents
  const ftsSearches = new Map(classes.map((c) => [c.name, c.searches.map((s) => ftsQueryOf(s, (word) => index!.matchingTerms(word)))]));
  index = undefined;
  gc();
  await runUntimed(mixed([...ftsSearches.values()]), o.settleSeconds, (q) => fts.search(q).total);
  for (const c of classes) {
    const searches = ftsSearches.get(c.name)!;
    gc();
    const latency = await timeSequential(searches, ftsPlan, (q) => fts.search(q).total);
    results.get(c.name)!.fts = latency;
    log(`FTS5    ${c.name}: p50 ${ms(latency.p50)} ms, p99 ${ms(latency.p99)} ms (${latency.samples} runs)`);
  }
  fts.close();
  fs.rmSync(path.join(tempDir, 'fts5.sqlite'), { force: true });

  return {
    build: {
      indexMs,
      ftsMs,
      recordsMs,
      indexBytes,
      ftsBytes,
      heapGrowth: heapAfter.heapUsed + heapAfter.arrayBuffers - heapBefore.heapUsed - heapBefore.arrayBuffers,
    },
    noise,
    indexTotals,
  };
}

interface InProcessBuild {
  indexMs: number;
  ftsMs: number;
  recordsMs: number;
  indexBytes: number;
  ftsBytes: number;
  heapGrowth: number;
}

interface Report {
  o: Options;
  classes: QueryClass[];
  results: Map<string, ClassResult>;
  /** the in-process part (absent in a run of the server alone): noise, a fixed computation timed like the index's searches just before them */
  inProcess: { build: InProcessBuild; noise: { p50: number; p99: number } } | undefined;
  /** absent in a run of the index in process alone */
  store: StoreReport | undefined;
  /** absent in a run of the index in process alone */
  server: ServerReport | undefined;
}

interface ServerReport {
    firstBoot: number;
    secondBoot: number;
    firstStop: number;
    secondStop: number;
    snapshotBytes: number | undefined;
    rssAfterBoot: number;
    rssAfterLoad: number;
    rssMax: number;
    /** The server's VmHWM, or the server and its builder child sampled together during the boot, whichever is higher. */
    peak: number;
    rssAfterSecondBoot: number;
    rssAfterSecondLoad: number;
    secondPeak: number;
    headlineAfterRestart: Latency;
    differentAfterRestart: number;
    mismatches: string[];
}

interface StoreReport {
  apiKey: string;
  written: LoadReport;
  fidelity: Awaited<ReturnType<typeof checkAgainstRepository>>;
  analyzeSeconds: number | undefined;
}

/** The catalogue written into the store (or a kept one reused), checked against the repository's own writes. */
async function writeStore(o: Options, catalogue: SyntheticCatalogue, files: { dataDir: string; storeFile: string }, env: NodeJS.ProcessEnv, tempDir: string): Promise<StoreReport> {
  const writeBar = progressBar('Writing the catalogue');
  const { apiKey, written, reused } = await prepareCatalogueStore({
    keptDir: o.store,
    store: files,
    catalogue,
    config: loadConfig(env),
    clientName: 'search bench',
    log,
    onProgress: writeBar.update,
  });
  writeBar.stop();
  const fidelity = await checkAgainstRepository(catalogue, files.storeFile, path.join(tempDir, 'scratch'), Math.min(SMOKE ? 50 : 300, o.assets));
  // (it throws, naming what differs, when the bulk loader and the repository disagree)
  fs.rmSync(path.join(tempDir, 'scratch'), { recursive: true, force: true });
  log(`store written in ${seconds(written.seconds)}${reused ? ' (by an earlier run)' : ''}`);
  const analyzeSeconds = o.analyze ? analyzeStore(files.storeFile) : undefined;
  return { apiKey, written, fidelity, analyzeSeconds };
}

function storeLines(o: Options, { written, fidelity, analyzeSeconds }: StoreReport): string[] {
  return [
    `catalogue write: ${seconds(written.seconds)} for ${count(written.assets)} assets, ${count(written.assetKeywords)} asset keywords, ` +
      `${count(written.keywords)} keywords, ${count(written.artists)} artists, ${count(written.events)} events (bulk loader, record generation included); store ${mb(written.bytes)}`,
    `  check: ${fidelity.identical} of ${fidelity.sample} sample records read back identical through CatalogRepository; ` +
      `CatalogRepository.upsertAsset one by one: ${count(fidelity.repositoryAssetsPerSecond)} assets/s (${seconds(o.assets / fidelity.repositoryAssetsPerSecond)} for this catalogue)`,
    analyzeSeconds === undefined
      ? '  planner statistics: none, as the ingest leaves the store (BENCH_ANALYZE=1 runs ANALYZE before the server starts)'
      : `  planner statistics: ANALYZE run on the store before the server started (BENCH_ANALYZE=1), ${seconds(analyzeSeconds)}; the ingest never runs it`,
  ];
}

function print({ o, classes, results, inProcess, store, server }: Report): void {
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(a / b < 10 ? 1 : 0)}×` : '—');
  // Mean result counts over the searches FTS5 ran (it runs fewer than the index).
  const meanOver = (totals: Map<number, number>, positions: Iterable<number>) => {
    const list = [...positions].map((p) => totals.get(p) ?? 0);
    return list.reduce((sum, n) => sum + n, 0) / Math.max(1, list.length);
  };
  const none = '—';
  const rows = classes.map((c) => {
    const r = results.get(c.name)!;
    const { index, fts } = r;
    return [
      c.name,
      index && fts ? `${count(meanOver(index.totals, fts.totals.keys()))} / ${count(meanOver(fts.totals, fts.totals.keys()))}` : none,
      index ? ms(index.p50) : none,
      index ? ms(index.p99) : none,
      r.http ? ms(r.http.p50) : none,
      r.http ? ms(r.http.p99) : none,
      r.http ? count(r.http.perSecond) : none,
      r.loaded ? count(r.loaded.requestsPerSecond) : none,
      r.loaded ? ms(r.loaded.p99) : none,
      fts ? ms(fts.p50) : none,
      fts ? ms(fts.p99) : none,
      fts && r.http ? ratio(fts.p99, r.http.p99) : none,
      fts && index ? ratio(fts.p99, index.p99) : none,
    ];
  });
  const ftsRuns = [...results.values()].map((r) => r.fts?.samples ?? 0);
  const out: string[] = [
    '',
    `search benchmark: ${count(o.assets)} synthetic images (seed ${o.seed}), node ${process.version}, ${os.cpus().length} cores, ` +
      `${mb(os.totalmem())} RAM, load average ${loadAtStart.toFixed(1)} at the start and ${os.loadavg()[0]!.toFixed(1)} at the end`,
    `one client, sequential: index and HTTP ${o.samples} timed runs per class over ${o.queries} distinct searches, after ${o.warmupSeconds} s untimed (and, before the first class, every class in turn for ${o.settleSeconds} s); ` +
      `FTS5 ${Math.min(...ftsRuns)}–${Math.max(...ftsRuns)} runs (at most ${o.ftsSamples} or ${o.ftsSeconds} s per class); ` +
      `HTTP ×${o.connections}: autocannon, ${o.connections} connections, ${o.loadSeconds} s. Times in ms.`,
    '',
    table(
      [
        'query class',
        'matches index / FTS5',
        'index p50',
        'index p99',
        'HTTP p50',
        'HTTP p99',
        'HTTP req/s',
        `HTTP ×${o.connections} req/s`,
        `HTTP ×${o.connections} p99`,
        'FTS5 p50',
        'FTS5 p99',
        'FTS5 p99 ÷ HTTP p99',
        'FTS5 p99 ÷ index p99',
      ],
      rows,
    ),
    '',
    inProcess === undefined
      ? 'the server alone (--server-only): no index in this process, no FTS5 reference'
      : `machine noise at the index's scale: a fixed computation (no memory traffic) timed ${o.samples} times as the searches are, ` +
        `just before them: p50 ${(inProcess.noise.p50 * 1000).toFixed(1)} µs, p99 ${(inProcess.noise.p99 * 1000).toFixed(1)} µs`,
    ...(store === undefined ? ['the index in process alone (--in-process-only): no store written (the index and FTS5 are built from the generated records)'] : storeLines(o, store)),
    ...(inProcess === undefined
      ? []
      : [
          `index build (assetDocument + upsertMany + compact, in process): ${seconds(inProcess.build.indexMs / 1000)}; typed arrays ${mb(inProcess.build.indexBytes)}; ` +
            `JS heap + array buffers +${mb(inProcess.build.heapGrowth)} (record generation, ${seconds(inProcess.build.recordsMs / 1000)}, not counted)`,
          `FTS5 build (inserts + optimize): ${seconds(inProcess.build.ftsMs / 1000)}; file ${mb(inProcess.build.ftsBytes)}`,
        ]),
    ...(server === undefined ? ['the index in process alone (--in-process-only): no server'] : serverLines(server, inProcess !== undefined)),
    '',
  ];
  out.push(...verdicts(o, classes, results, inProcess, server));
  process.stdout.write(out.join('\n'));
}

function serverLines(server: ServerReport, countsChecked: boolean): string[] {
  return [
    `server boot, building the index from the store (spawn → first 200 on a search): ${seconds(server.firstBoot)}`,
    `server boot from the snapshot (second start, same data dir): ${seconds(server.secondBoot)}; snapshot file ${
      server.snapshotBytes === undefined ? 'absent after the first stop' : mb(server.snapshotBytes)
    }; stops (SIGTERM → exit) ${seconds(server.firstStop)} and ${seconds(server.secondStop)}`,
    `server RSS: ${mb(server.rssAfterBoot)} after boot, ${mb(server.rssAfterLoad)} after the load, ${mb(server.rssMax)} highest sampled under load, ` +
      `peak (VmHWM, boot included, with the index builder child sampled beside it) ${mb(server.peak)}; after the snapshot boot ${mb(server.rssAfterSecondBoot)}, ${mb(server.rssAfterSecondLoad)} after ` +
      `its run, peak ${mb(server.secondPeak)}`,
    `after the restart, first queries (caches cold): ${HEADLINE_CLASS} p50 ${ms(server.headlineAfterRestart.p50)} ms, p99 ${ms(server.headlineAfterRestart.p99)} ms; ` +
      `result counts ${server.differentAfterRestart === 0 ? 'identical to the first boot' : `DIFFERENT in ${server.differentAfterRestart} runs`}`,
    countsChecked
      ? `HTTP result_count = index total for every search: ${server.mismatches.length === 0 ? 'yes' : `NO, e.g. ${server.mismatches.join('; ')}`}`
      : 'HTTP result_count = index total: not checked (the server alone)',
  ];
}

/** Each target of the issue at this size, PASS or MISS; what a partial run did not measure, said so. */
function verdicts(o: Options, classes: QueryClass[], results: Map<string, ClassResult>, inProcess: Report['inProcess'], server: ServerReport | undefined): string[] {
  const headline = results.get(HEADLINE_CLASS)!;
  const TARGETS: { headlineP99Ms: number; ftsRatio: number; snapshotBootSeconds: number; rssBytes: number; storeBootSeconds?: number } = targetsFor(o.assets);
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const speedups = classes.map((c) => {
    const r = results.get(c.name)!;
    return { name: c.name, http: (r.fts?.p99 ?? NaN) / (r.http?.p99 ?? NaN), index: (r.fts?.p99 ?? NaN) / (r.index?.p99 ?? NaN) };
  });
  const slowHttp = speedups.filter((x) => x.http < TARGETS.ftsRatio);
  const slowIndex = speedups.filter((x) => x.index < TARGETS.ftsRatio);
  const listed = (list: typeof speedups, key: 'http' | 'index') =>
    list.length === 0 ? 'every class' : `short in ${list.map((x) => `${x.name} ${x[key].toFixed(1)}×`).join(', ')}`;
  const ftsLines =
    inProcess === undefined
      ? [`----  every class ≥ ${TARGETS.ftsRatio}× faster than FTS5 at p99: not measured (the server alone)`]
      : server === undefined
        ? [`${verdict(slowIndex.length === 0)}  every class ≥ ${TARGETS.ftsRatio}× faster than FTS5 at p99, the index directly: ${listed(slowIndex, 'index')}`]
        : [
            `${verdict(slowHttp.length === 0)}  every class ≥ ${TARGETS.ftsRatio}× faster than FTS5 at p99, through HTTP: ${listed(slowHttp, 'http')}`,
            `      the index directly: ${listed(slowIndex, 'index')}`,
          ];
  if (server === undefined || headline.http === undefined) {
    return [...ftsLines, '----  the server\'s targets (HTTP p99, boots, RSS): not measured (the index in process alone)', ''];
  }
  const rssHighest = Math.max(server.rssMax, server.rssAfterSecondBoot, server.rssAfterSecondLoad);
  return [
    `${verdict(headline.http.p99 <= TARGETS.headlineP99Ms)}  HTTP "${HEADLINE_CLASS}" p99 ≤ ${TARGETS.headlineP99Ms} ms (one client): ${ms(headline.http.p99)} ms`,
    ...ftsLines,
    `${verdict(server.secondBoot <= TARGETS.snapshotBootSeconds)}  boot from a snapshot ≤ ${TARGETS.snapshotBootSeconds} s: ${seconds(server.secondBoot)}` +
      (server.snapshotBytes === undefined ? ' (no snapshot was written: this boot rebuilt from the store)' : ''),
    ...(TARGETS.storeBootSeconds === undefined
      ? []
      : [`${verdict(server.firstBoot <= TARGETS.storeBootSeconds)}  boot from the store alone ≤ ${TARGETS.storeBootSeconds / 60} min: ${seconds(server.firstBoot)}`]),
    `${verdict(rssHighest <= TARGETS.rssBytes)}  server RSS ≤ ${mb(TARGETS.rssBytes)}: ${mb(rssHighest)} at most (sampled after boots and under load; boot peak ${mb(Math.max(server.peak, server.secondPeak))})`,
    '',
  ];
}
