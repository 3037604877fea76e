import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { loadConfig } from '../src/config/config.js';
import { createServices } from '../src/app.js';
import { progressBar } from '../src/cli/progress.js';
import { openDatabase } from '../src/platform/db/database.js';
import { UsageRepository, type NewUsage } from '../src/reporting/usage.repository.js';
import { serverEnvironment, startServer, stop, table } from './harness.js';
import { SyntheticCatalogue } from './fixtures/synthetic-catalogue.js';
import { checkAgainstRepository, loadCatalogue } from './fixtures/store-loader.js';
import { size } from './sizes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = size('BENCH_SECONDS', 5, 1);
const ROUNDS = size('BENCH_ROUNDS', 3, 1);
const CONNECTIONS = size('BENCH_CONNECTIONS', 4, 2);
const ASSETS = size('BENCH_ASSETS', 50_000, 2_000);
const ENTRIES = 1000;
/** Distinct batch bodies the load rotates over (each sent under a new transaction id). */
const BODIES = 64;

interface Measured {
  batchesPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

/** A deterministic stream of numbers, so that every run reports the same batches. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** 1,000 usages of assets drawn from the whole catalogue, with dates in the forms partners send. */
function usages(ids: readonly string[], random: () => number): NewUsage[] {
  return Array.from({ length: ENTRIES }, () => {
    const day = new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * 365) * 86_400_000).toISOString().slice(0, 10);
    return { assetId: ids[Math.floor(random() * ids.length)]!, assetType: 'image', quantity: 1 + Math.floor(random() * 20), usageDate: day };
  });
}

function bodyOf(batch: readonly NewUsage[]): string {
  const forms = [(day: string) => day, (day: string) => `${day}T10:00:00Z`];
  return JSON.stringify({ asset_usages: batch.map((usage, n) => ({ asset_id: usage.assetId, quantity: usage.quantity, usage_date: forms[n % 2]!(usage.usageDate) })) });
}

/** Runs `once` from `connections` loops for `seconds` (after a one-second warm-up); batches per second and latency. */
async function measure(connections: number, seconds: number, once: (n: number) => Promise<boolean>): Promise<Measured> {
  let counter = 0;
  const drive = async (until: number, latencies: number[] | undefined) => {
    let failures = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          if (!(await once(counter++))) failures++;
          latencies?.push(performance.now() - started);
        }
      }),
    );
    return failures;
  };
  await drive(performance.now() + 1000, undefined);
  const latencies: number[] = [];
  const started = performance.now();
  const failures = await drive(started + seconds * 1000, latencies);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { batchesPerSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), failures };
}

/**
 * PUT /v3/usage-batches/{id} with 1,000 usages through HTTP — token and client permission
 * checked, every entry validated and its date read, the 1,000 asset ids looked up in the
 * catalogue, the batch and its rows written in one transaction — beside the same rows written
 * by the repository alone (no HTTP, no checks) and by a plain prepared insert, in the same run.
 *
 * The store holds BENCH_ASSETS synthetic images; each batch names assets drawn from all of them,
 * so most lookups miss the record cache as a partner's real batches would.
 */
export async function usageBenchmark(): Promise<void> {
  const { dataDir, port, env } = await serverEnvironment('usage', {
    STOCKROOM_SEARCH_SNAPSHOT: 'false',
    STOCKROOM_LOG_LEVEL: process.env.STOCKROOM_LOG_LEVEL ?? 'warn',
  });
  const children = [];
  const file = path.join(dataDir, 'stockroom.sqlite');
  try {
    // 1. A reporting client the load cannot throttle, a user, a catalogue.
    const services = await createServices(loadConfig(env));
    const { apiKey, apiSecret, client } = await services.clients.create({
      name: 'usage bench',
      grantTypes: ['password'],
      queriesPerSecond: 1_000_000_000,
      queriesPerDay: 1_000_000_000,
      usageReporting: true,
    });
    const password = 'bench-password-1';
    const user = await services.users.create({ username: 'bench-reporter', password });
    await services.close();
    const bar = progressBar('Writing the catalogue');
    const catalogue = new SyntheticCatalogue(ASSETS, 1);
    loadCatalogue(file, catalogue, { onProgress: bar.update });
    bar.stop();
    await checkAgainstRepository(catalogue, file, path.join(dataDir, 'fidelity'), Math.min(50, ASSETS));
    fs.rmSync(path.join(dataDir, 'fidelity'), { recursive: true, force: true });
    const reader = new SqliteDatabase(file, { readonly: true });
    const ids = (reader.prepare(`select id from assets where asset_type = 'image' order by id`).all() as Array<{ id: string }>).map((row) => row.id);
    reader.close();
    const random = seeded(14);
    const batches = Array.from({ length: BODIES }, () => usages(ids, random));
    const bodies = batches.map(bodyOf);

    // 2. Stockroom in its own process; a token for the user.
    const stockroom = await startServer(process.execPath, [path.join(root, 'bin/stockroom.js'), 'serve'], env, `http://127.0.0.1:${port}/v3/openapi.json`);
    children.push(stockroom);
    const base = `http://127.0.0.1:${port}`;
    const tokenResponse = await fetch(`${base}/auth/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: user.username, password, client_id: apiKey, client_secret: apiSecret! }),
    });
    if (tokenResponse.status !== 200) throw new Error(`the token request answered ${tokenResponse.status}: ${await tokenResponse.text()}`);
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const headers = { 'api-key': apiKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    let sent = 0;
    const send = (id: number, n: number) => fetch(`${base}/v3/usage-batches/http-${id}`, { method: 'PUT', headers, body: bodies[n % BODIES] });
    const put = async (n: number) => {
      const id = sent++;
      // A kept-alive connection left idle through the in-process rounds may be closed by the
      // server just as a new round reuses it: that request never reached it, and is sent again.
      const response = await send(id, n).catch(() => send(id, n));
      const answer = (await response.json()) as { total_asset_usages_processed?: number };
      return response.status === 201 && answer.total_asset_usages_processed === ENTRIES;
    };
    if (!(await put(0))) throw new Error('a usage batch was not stored whole');

    // 3. The same rows by the repository alone and by a prepared insert, in this process.
    const database = await openDatabase({ sqliteFile: file });
    const repository = new UsageRepository(database.db);
    let stored = 0;
    const viaRepository = async (n: number) => {
      await repository.insertBatch({ clientId: client.id, transactionId: `repository-${stored++}`, userId: user.id, receivedAt: new Date().toISOString(), usages: batches[n % BODIES]! });
      return true;
    };
    const plain = new SqliteDatabase(file);
    plain.pragma('busy_timeout = 5000');
    const insertBatch = plain.prepare('insert into usage_batches (client_id, transaction_id, user_id, usage_count, received_at) values (?, ?, ?, ?, ?)');
    const insertUsage = plain.prepare('insert into asset_usages (batch_id, client_id, asset_id, asset_type, quantity, usage_date) values (?, ?, ?, ?, ?, ?)');
    let inserted = 0;
    const writeBatch = plain.transaction((batch: readonly NewUsage[]) => {
      const batchId = insertBatch.run(client.id, `plain-${inserted++}`, user.id, batch.length, new Date().toISOString()).lastInsertRowid;
      for (const usage of batch) insertUsage.run(batchId, client.id, usage.assetId, usage.assetType, usage.quantity, usage.usageDate);
    });
    const viaPlainInsert = async (n: number) => {
      writeBatch(batches[n % BODIES]!);
      return true;
    };

    // 4. Alternating rounds; each row reports its median round.
    const rounds: Record<'http' | 'repository' | 'plain', Measured[]> = { http: [], repository: [], plain: [] };
    for (let round = 0; round < ROUNDS; round++) {
      rounds.http.push(await measure(CONNECTIONS, SECONDS, put));
      rounds.repository.push(await measure(1, SECONDS, viaRepository));
      rounds.plain.push(await measure(1, SECONDS, viaPlainInsert));
    }
    await database.close();
    plain.close();
    await stop(stockroom);
    children.length = 0;
    const median = (list: Measured[]) => [...list].sort((a, b) => a.batchesPerSecond - b.batchesPerSecond)[Math.floor(list.length / 2)]!;
    const plainInsert = median(rounds.plain);
    const check = new SqliteDatabase(file, { readonly: true });
    const counts = check.prepare('select (select count(*) from usage_batches) as batches, (select count(*) from asset_usages) as usages').get() as { batches: number; usages: number };
    check.close();

    const rows = (
      [
        [`PUT /v3/usage-batches/{id}, ${ENTRIES.toLocaleString('en-US')} usages (HTTP, ${CONNECTIONS} connections)`, median(rounds.http)],
        ['the same rows by UsageRepository.insertBatch (no HTTP, no checks)', median(rounds.repository)],
        ['the same rows by a prepared insert in one transaction', plainInsert],
      ] as const
    ).map(([name, result]) => [
      name,
      result.batchesPerSecond.toFixed(1),
      Math.round(result.batchesPerSecond * ENTRIES).toLocaleString('en-US'),
      result.p50.toFixed(1),
      result.p99.toFixed(1),
      `${Math.round((100 * result.batchesPerSecond) / plainInsert.batchesPerSecond)}%`,
      String(result.failures),
    ]);
    process.stdout.write(
      `\nusage benchmark: ${ASSETS.toLocaleString('en-US')} synthetic images, batches of ${ENTRIES.toLocaleString('en-US')} usages over all of them, SQLite, ` +
        `median of ${ROUNDS} alternating rounds of ${SECONDS} s, node ${process.version}, ${os.cpus().length} cores\n\n` +
        `${table(['scenario', 'batches/s', 'usages/s', 'p50 ms', 'p99 ms', 'vs plain insert', 'failures'], rows)}\n\n` +
        `stored: ${counts.batches.toLocaleString('en-US')} batches, ${counts.usages.toLocaleString('en-US')} usages — ` +
        `${counts.usages === counts.batches * ENTRIES ? 'every batch whole' : 'NOT every batch whole'}\n`,
    );
  } finally {
    for (const child of children.reverse()) await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
