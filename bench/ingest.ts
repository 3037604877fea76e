/*
 * `npm run bench -- ingest [--assets N] [--seed S]`: `stockroom ingest` over a metadata-only
 * manifest at catalogue scale, beside the benchmarks' bulk loader writing the same rows, in one run.
 *
 * Method
 * 1. Catalogue. The synthetic catalogue of the search benchmark (bench/fixtures/synthetic-catalogue.ts;
 *    default 1,000,000 images and their 20,000 events) is written as a manifest, one JSON line per
 *    record, events first (bench/fixtures/synthetic-manifest.ts).
 * 2. Bulk loader. The same records go into a fresh store (created and migrated by the real code)
 *    through bench/fixtures/store-loader.ts: better-sqlite3 prepared statements, 20,000 assets a
 *    transaction, indexes dropped while loading and rebuilt after, no journal. It runs in this
 *    process; its RSS is read between its transactions.
 * 3. Ingest. The real command, `node bin/stockroom.js ingest manifest.jsonl`, a child process on
 *    another fresh store (SQLite, as a single node keeps it). Its RSS is read from /proc every
 *    200 ms; start, middle and end are the samples at its first progress line, at the one nearest
 *    half-way, and at its last, so the process's start-up is not in them but its whole run is.
 *    Seconds are spawn → exit. Its CPU time (user and system, every thread) is read from /proc
 *    with the RSS, the last reading at most 200 ms before its exit.
 * 4. Check. Both stores hold the same number of assets and events, and a sample of records spread
 *    over the catalogue reads back identical from both (CatalogRepository): the ingest stored what
 *    the bulk loader wrote.
 *
 * CPU seconds beside wall seconds: on a machine shared with other work, wall time measures the
 * neighbours as much as the run, and the two runs do not meet the same neighbours; the ratio of
 * rates per CPU second is the one that another run on this machine gives again.
 *
 * Targets (issue 27 §3): ingest at least half the bulk loader's rate, memory flat.
 * Knobs: --assets / BENCH_ASSETS, --seed / BENCH_SEED. BENCH_SMOKE=1: 2,000 assets.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createServices } from '../src/app.js';
import { CatalogRepository } from '../src/catalog/catalog.repository.js';
import { progressBar } from '../src/cli/progress.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/platform/db/database.js';
import { cleanUpOnInterrupt, table } from './harness.js';
import { memoryOf } from './search/measure.js';
import { SMOKE, flagValue, wholeNumber } from './sizes.js';
import { loadCatalogue } from './fixtures/store-loader.js';
import { SyntheticCatalogue } from './fixtures/synthetic-catalogue.js';
import { writeManifest } from './fixtures/synthetic-manifest.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_RATIO = 0.5;
const SAMPLE_MS = 200;
const CHECK_SAMPLE = SMOKE ? 50 : 500;

interface Options {
  assets: number;
  seed: number;
}

function options(argv: readonly string[]): Options {
  const flag = (name: string) => flagValue(argv, name);
  const number = wholeNumber;
  return {
    assets: number(flag('assets') ?? process.env.BENCH_ASSETS, SMOKE ? 2_000 : 1_000_000, 'assets'),
    seed: number(flag('seed') ?? process.env.BENCH_SEED, 1, 'seed'),
  };
}

/** One run's figures: records written, seconds, CPU seconds, and the RSS read at its start, middle, end and highest. */
interface Run {
  rows: number;
  seconds: number;
  cpuSeconds: number;
  start: number;
  middle: number;
  end: number;
  peak: number;
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024).toLocaleString('en-US')} MB`;
const count = (n: number) => Math.round(n).toLocaleString('en-US');
const started = performance.now();
const log = (message: string) => process.stderr.write(`[ingest bench ${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${message}\n`);

/** Makes an empty store in `dataDir` as the real code creates and migrates it; the environment of a command on it. */
async function freshStore(dataDir: string): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STOCKROOM_DATA_DIR: dataDir,
    STOCKROOM_SEED_DEMO: 'false',
    STOCKROOM_LOG_LEVEL: 'warn',
    STOCKROOM_NUDITY_CLASSIFIER: 'false',
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const services = await createServices(loadConfig(env));
  await services.close();
  return env;
}

/** Bulk-loads the catalogue, reading this process's RSS between its transactions. */
function bulkLoad(storeFile: string, catalogue: SyntheticCatalogue, rows: number): Run {
  const samples: Array<{ done: number; rss: number }> = [];
  const bar = progressBar('Bulk loader');
  const t = performance.now();
  const cpu = process.cpuUsage();
  const report = loadCatalogue(storeFile, catalogue, {
    onProgress: (done, total) => {
      samples.push({ done, rss: process.memoryUsage.rss() });
      bar.update(done, total);
    },
  });
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  bar.stop();
  if (report.assets !== catalogue.size) throw new Error(`the bulk loader wrote ${report.assets} assets of ${catalogue.size}`);
  return { rows, seconds, cpuSeconds: (used.user + used.system) / 1e6, ...positions(samples, catalogue.size) };
}

/** RSS at the first sample, the one nearest half-way, the last, and the highest. */
function positions(samples: ReadonlyArray<{ done: number; rss: number }>, total: number): Omit<Run, 'rows' | 'seconds' | 'cpuSeconds'> {
  if (samples.length === 0) return { start: 0, middle: 0, end: 0, peak: 0 };
  const nearest = samples.reduce((best, s) => (Math.abs(s.done - total / 2) < Math.abs(best.done - total / 2) ? s : best));
  return { start: samples[0]!.rss, middle: nearest.rss, end: samples[samples.length - 1]!.rss, peak: Math.max(...samples.map((s) => s.rss)) };
}

/** Runs `stockroom ingest` on the manifest as a child process, sampling its RSS; its progress lines are passed on. */
async function ingest(manifest: string, env: NodeJS.ProcessEnv, rows: number): Promise<Run> {
  const t = performance.now();
  const child = spawn(process.execPath, [path.join(root, 'bin/stockroom.js'), 'ingest', manifest], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let peak = 0;
  let latest = 0;
  let cpuSeconds = 0;
  const timer = setInterval(() => {
    cpuSeconds = cpuSecondsOf(child.pid!) ?? cpuSeconds;
    const memory = memoryOf(child.pid!);
    if (memory === undefined) return;
    latest = memory.rss;
    peak = Math.max(peak, memory.rss);
  }, SAMPLE_MS);
  const atProgress: Array<{ done: number; rss: number }> = [];
  const errors: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (line) => {
    const progress = /^Ingesting: (\d+)\/(\d+)/.exec(line);
    if (progress) {
      const rss = memoryOf(child.pid!)?.rss ?? latest;
      peak = Math.max(peak, rss);
      atProgress.push({ done: Number(progress[1]), rss });
      process.stderr.write(`${line}\n`);
    } else if (errors.length < 20) errors.push(line);
  });
  let summary = '';
  child.stdout!.on('data', (chunk: Buffer) => (summary += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearInterval(timer);
  const seconds = (performance.now() - t) / 1000;
  if (code !== 0) throw new Error(`stockroom ingest exited with ${code}: ${summary.trim()}\n${errors.join('\n')}`);
  log(`stockroom ingest: ${summary.trim()}`);
  return { rows, seconds, cpuSeconds, ...positions(atProgress, rows), peak };
}

/** Clock ticks a second, in which /proc/<pid>/stat counts CPU time (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The CPU time a process has used so far, user and system, all its threads; undefined once it is gone. */
function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces, within parentheses): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** What both stores hold: the counts must agree, and a sample of records spread over the catalogue must read back identical. */
async function compareStores(ingestFile: string, bulkFile: string, catalogue: SyntheticCatalogue): Promise<string> {
  const ingested = await openDatabase({ sqliteFile: ingestFile });
  const bulk = await openDatabase({ sqliteFile: bulkFile });
  try {
    const counts = async (db: typeof ingested) => {
      const assets = await db.db.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const events = await db.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return `${Number(assets.n)} assets, ${Number(events.n)} events`;
    };
    const [ingestCounts, bulkCounts] = [await counts(ingested), await counts(bulk)];
    if (ingestCounts !== bulkCounts) throw new Error(`the stores differ: ingest wrote ${ingestCounts}, the bulk loader ${bulkCounts}`);
    const step = Math.max(1, Math.floor(catalogue.size / CHECK_SAMPLE));
    const ids: string[] = [];
    let n = 0;
    for (const input of catalogue.assets()) if (n++ % step === 0) ids.push(input.id);
    const read = async (db: typeof ingested) =>
      new Map(
        // (when each row was written differs by nature)
        (await new CatalogRepository(db).findAssetsInAnyState('image', ids)).map(({ updated_at: _writtenAt, ...record }) => [record.id, canonical(record)]),
      );
    const [viaIngest, viaBulk] = [await read(ingested), await read(bulk)];
    const differing = ids.filter((id) => viaIngest.get(id) === undefined || viaIngest.get(id) !== viaBulk.get(id));
    if (differing.length > 0) {
      const id = differing[0]!;
      throw new Error(`${differing.length} of ${ids.length} records differ; the first:\n  ingest ${viaIngest.get(id)}\n  bulk   ${viaBulk.get(id)}`);
    }
    return `${ingestCounts} in each store; ${ids.length} records sampled read back identical`;
  } finally {
    await ingested.close();
    await bulk.close();
  }
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export async function ingestBenchmark(): Promise<void> {
  const o = options(process.argv.slice(3));
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-ingest-bench-'));
  const releaseInterrupt = cleanUpOnInterrupt(tempDir);
  try {
    const catalogue = new SyntheticCatalogue(o.assets, o.seed);
    const manifest = path.join(tempDir, 'manifest.jsonl');
    log(`writing the manifest of ${count(o.assets)} assets`);
    const t = performance.now();
    const written = await writeManifest(manifest, catalogue);
    log(`manifest: ${count(written.lines)} lines (${count(written.events)} events), ${mb(written.bytes)}, in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const bulkDir = path.join(tempDir, 'bulk');
    await freshStore(bulkDir);
    log('bulk loader');
    const bulk = bulkLoad(path.join(bulkDir, 'stockroom.sqlite'), catalogue, written.lines);

    const ingestDir = path.join(tempDir, 'ingest');
    const env = await freshStore(ingestDir);
    log('stockroom ingest');
    const ingested = await ingest(manifest, env, written.lines);

    const check = await compareStores(path.join(ingestDir, 'stockroom.sqlite'), path.join(bulkDir, 'stockroom.sqlite'), catalogue);
    log(check);

    const rate = (run: Run) => run.rows / run.seconds;
    const ratio = rate(ingested) / rate(bulk);
    const ratePerCpu = (run: Run) => run.rows / run.cpuSeconds;
    const cpuRatio = ratePerCpu(ingested) / ratePerCpu(bulk);
    const row = (name: string, run: Run, versus: string, versusPerCpu: string) => [
      name,
      count(run.rows),
      run.seconds.toFixed(1),
      count(rate(run)),
      versus,
      run.cpuSeconds.toFixed(1),
      count(ratePerCpu(run)),
      versusPerCpu,
      mb(run.peak),
      mb(run.start),
      mb(run.middle),
      mb(run.end),
    ];
    process.stdout.write(
      `\nIngest at scale: ${count(o.assets)} assets and ${count(written.events)} events (seed ${o.seed}), ${os.cpus().length} CPUs, Node ${process.version}\n\n` +
        `${table(
          [
            'run',
            'rows',
            'seconds',
            'rows/s',
            'ingest ÷ bulk',
            'CPU s',
            'rows per CPU s',
            'ingest ÷ bulk (CPU)',
            'peak RSS (sampled)',
            'RSS at start',
            'RSS at middle',
            'RSS at end',
          ],
          [
            row('bulk loader (this process)', bulk, '—', '—'),
            row('stockroom ingest (child)', ingested, `${(ratio * 100).toFixed(0)}%`, `${(cpuRatio * 100).toFixed(0)}%`),
          ],
        )}\n\n` +
        `Target: ingest at least ${TARGET_RATIO * 100}% of the bulk loader's rate: ${ratio >= TARGET_RATIO ? 'met' : 'missed'} by wall time, ` +
        `${cpuRatio >= TARGET_RATIO ? 'met' : 'missed'} by CPU time (load average ${os.loadavg()[0]!.toFixed(1)} at the end). ` +
        `Ingest's RSS from start to end: ${mb(ingested.start)} → ${mb(ingested.end)}.\n${check}.\n`,
    );
  } finally {
    releaseInterrupt();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}
