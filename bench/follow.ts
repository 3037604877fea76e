import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServices } from '../src/app.js';
import type { AssetInput } from '../src/catalog/catalog.records.js';
import { loadConfig } from '../src/config/config.js';
import { latestChangeSeq, readChangesAfter, type Change } from '../src/platform/db/change-log.js';
import { openDatabase } from '../src/platform/db/database.js';
import { inputsOf, loadCatalogue } from './fixtures/store-loader.js';
import { SyntheticCatalogue } from './fixtures/synthetic-catalogue.js';
import { cleanUpOnInterrupt, table } from './harness.js';
import { size } from './sizes.js';

/**
 * `npm run bench -- follow` (BENCH_ASSETS in the store first, default 200,000; BENCH_FOLLOW
 * written after, default 50,000; 2,000 and 500 under BENCH_SMOKE=1)
 *
 * How fast a node's search index keeps up with an ingest (issue 27, §2: at least 5,000 assets a
 * second). The synthetic catalogue is bulk-loaded into a SQLite store and the search service
 * reads it whole, as a node's first boot does (the reference beside the follow: the same code
 * path per asset, without the change log). Then BENCH_FOLLOW new assets are written through the
 * catalogue's batch write (what `stockroom ingest` calls, a thousand a transaction), and written
 * again with a changed title (updates); each time the service follows the change log from
 * before the writes, a page of a thousand changes at a time as a running node's change feed hands
 * them over, and the follow is timed from the first page handed over until the last is in the
 * index. CPU time is the process's own, per asset.
 *
 * The writes and the follow are timed apart (on one node they share the machine; here each is
 * measured alone), so the follow figure is what the index can take, not what one writer sends.
 */

const TARGET_PER_SECOND = 5_000;
const WRITE_BATCH = 1_000;
const FEED_PAGE = 1_000;

const started = performance.now();
const log = (message: string) => process.stderr.write(`[follow bench ${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${message}\n`);
const count = (n: number) => Math.round(n).toLocaleString('en-US');

interface Step {
  name: string;
  assets: number;
  seconds: number;
  cpuMicros: number;
}

/** Wall and CPU time of one step (CPU of this whole process: the store is in it too). */
async function measured(name: string, assets: number, work: () => Promise<void>): Promise<Step> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { name, assets, seconds, cpuMicros: (used.user + used.system) / Math.max(1, assets) };
}

export async function followBenchmark(): Promise<void> {
  const base = size('BENCH_ASSETS', 200_000, 2_000);
  const followed = size('BENCH_FOLLOW', 50_000, 500);
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-follow-bench-'));
  const releaseInterrupt = cleanUpOnInterrupt(tempDir);
  const dataDir = path.join(tempDir, 'data');
  const storeFile = path.join(dataDir, 'stockroom.sqlite');
  const env: NodeJS.ProcessEnv = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_SEED_DEMO: 'false', STOCKROOM_LOG_LEVEL: 'warn', STOCKROOM_SEARCH_SNAPSHOT: 'false' };
  try {
    // The store, created and migrated by the real code, then bulk-loaded.
    await (await createServices(loadConfig(env))).close();
    // The same seed at a larger size draws the same first assets, so its tail is new to the store.
    const later: AssetInput[] = [];
    let drawn = 0;
    for (const input of inputsOf(new SyntheticCatalogue(base + followed, 1))) if (drawn++ >= base) later.push(input);
    log(`writing ${count(base)} assets into the store`);
    loadCatalogue(storeFile, new SyntheticCatalogue(base, 1));

    const services = await createServices(loadConfig(env));
    const database = await openDatabase({ sqliteFile: storeFile });
    try {
      const steps: Step[] = [];
      log('reading the whole store into the index (a first boot)');
      steps.push(await measured('whole read of the store (first boot; reference)', base, () => services.search.build()));

      const followWrites = async (name: string, inputs: readonly AssetInput[]) => {
        const from = await latestChangeSeq(database.db);
        log(`writing ${count(inputs.length)} ${name} through the catalogue's batch write`);
        steps.push(
          await measured(`write: ${name} (${WRITE_BATCH} a transaction)`, inputs.length, async () => {
            for (let i = 0; i < inputs.length; i += WRITE_BATCH) await services.catalog.upsertAssets(inputs.slice(i, i + WRITE_BATCH));
          }),
        );
        const pages: Change[][] = [];
        for (let seq = from; ; ) {
          const page = await readChangesAfter(database.db, seq, FEED_PAGE);
          if (page.length === 0) break;
          pages.push(page);
          seq = page[page.length - 1]!.seq;
        }
        log(`the index follows ${count(pages.reduce((sum, page) => sum + page.length, 0))} changes`);
        steps.push(
          await measured(`follow: ${name}`, inputs.length, async () => {
            for (const page of pages) services.search.applyChanges(page);
            await services.search.settled();
          }),
        );
      };
      await followWrites('new assets', later);
      await followWrites('the same assets again, each title changed', later.map((input) => ({ ...input, fields: { ...input.fields, title: `${String(input.fields.title ?? '')} (revised)` } })));

      const expected = base + followed;
      if (services.search.assetCount !== expected) throw new Error(`the index holds ${services.search.assetCount} assets after the follow, not ${expected}`);

      const rate = (step: Step) => step.assets / step.seconds;
      console.log(
        `\nFollowing the change log, ${count(base)} assets in the store, ${count(followed)} written (${os.cpus().length} cores, node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)})\n`,
      );
      console.log(
        table(
          ['step', 'assets', 'seconds', 'assets/s', 'CPU µs an asset'],
          steps.map((step) => [step.name, count(step.assets), step.seconds.toFixed(1), count(rate(step)), count(step.cpuMicros)]),
        ),
      );
      const follows = steps.filter((step) => step.name.startsWith('follow'));
      const slowest = Math.min(...follows.map(rate));
      console.log(`\n${slowest >= TARGET_PER_SECOND ? 'MET' : 'MISSED'}  the index follows at least ${count(TARGET_PER_SECOND)} assets a second: ${count(slowest)} at the slowest`);
    } finally {
      await database.close();
      await services.close();
    }
  } finally {
    releaseInterrupt();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}
