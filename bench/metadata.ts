import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/config.js';
import { createServices } from '../src/app.js';
import { seedDemo } from '../src/catalog/demo/demo-catalog.js';
import { progressBar } from '../src/cli/progress.js';
import { BENCH_DEMO, load, serverEnvironment, startProcess, startServer, stop, table, type LoadResult } from './harness.js';
import { size } from './sizes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = size('BENCH_SECONDS', 5, 1);
const ROUNDS = size('BENCH_ROUNDS', 3, 1);
const CONNECTIONS = size('BENCH_CONNECTIONS', 50, 4);


/**
 * GET /v3/images/{id} and GET /v3/images?ids=(30 ids) on a seeded store, each beside a bare
 * node:http server answering a JSON body of the same size, in the same run.
 */
export async function metadataBenchmark(): Promise<void> {
  const { dataDir, port, env } = await serverEnvironment('metadata', { STOCKROOM_LOG_LEVEL: process.env.STOCKROOM_LOG_LEVEL ?? 'info' });
  const children = [];
  try {
    // 1. A seeded store and a client whose limits the load cannot reach.
    const services = await createServices(loadConfig(env));
    const bar = progressBar('Seeding');
    await seedDemo({ catalog: services.catalog, blobs: services.blobs }, { ...BENCH_DEMO, onProgress: bar.update });
    bar.stop();
    const { apiKey } = await services.clients.create({ name: 'bench', queriesPerSecond: 1_000_000_000, queriesPerDay: 1_000_000_000 });
    const imageIds = (
      await services.database.db.selectFrom('assets').select('id').where('asset_type', '=', 'image').orderBy('id').execute()
    ).map((row) => row.id);
    await services.close();

    // 2. Stockroom in its own process, as `npm start` runs it (request log to a discarded stdout).
    const stockroom = await startServer(process.execPath, [path.join(root, 'bin/stockroom.js'), 'serve'], env, `http://127.0.0.1:${port}/v3/openapi.json`);
    children.push(stockroom);
    const base = `http://127.0.0.1:${port}`;
    const headers = { 'api-key': apiKey };
    const singlePaths = imageIds.map((id) => `/v3/images/${id}`);
    const batches: string[] = [];
    for (let i = 0; i + 30 <= imageIds.length; i += 30) batches.push(`/v3/images?ids=${imageIds.slice(i, i + 30).join(',')}`);

    // 3. The reference answers the same responses: the same body, and the same header lines.
    //    The load generator parses every header line in JavaScript (autocannon reads responses
    //    with http-parser-js), so a reference with fewer lines would measure the client, not the
    //    server: with only its content type and length, the bare server let the client take
    //    Stockroom's twelve lines at 70% of the server's core, the rest idle.
    const sample = async (url: string) => {
      const answer = await fetch(url, { headers });
      const body = await answer.text();
      // Node's server writes these itself, for both.
      const own = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
      return { body, headers: [...answer.headers].filter(([name]) => !own.has(name)) };
    };
    const single = await sample(`${base}${singlePaths[0]}`);
    const batch = await sample(`${base}${batches[0]}`);
    const bodiesFile = path.join(dataDir, 'bare-bodies.json');
    fs.writeFileSync(bodiesFile, JSON.stringify({ '/single': single, '/batch': batch }));
    let barePort = 0;
    const bare = await startProcess(process.execPath, [path.join(root, 'bin/run-ts.js'), path.join(root, 'bench/bare-server.ts'), bodiesFile], process.env, (line) => {
      barePort = (JSON.parse(line) as { port: number }).port;
      return true;
    });
    children.push(bare);
    const bareBase = `http://127.0.0.1:${barePort}`;

    // 4. Load, one after another so they do not share the two cores. The reference and Stockroom
    //    alternate for several rounds and each row reports its median round, so that a noisy
    //    moment on the machine does not land on one side only.
    const run = (url: string, paths: readonly string[], extraHeaders?: Record<string, string>) =>
      load({ url, paths, headers: extraHeaders, seconds: SECONDS, connections: CONNECTIONS });
    const rounds: Record<'bareSingle' | 'single' | 'bareBatch' | 'batch', LoadResult[]> = { bareSingle: [], single: [], bareBatch: [], batch: [] };
    for (let round = 0; round < ROUNDS; round++) {
      rounds.bareSingle.push(await run(bareBase, ['/single']));
      rounds.single.push(await run(base, singlePaths, headers));
      rounds.bareBatch.push(await run(bareBase, ['/batch']));
      rounds.batch.push(await run(base, batches, headers));
    }
    const median = (list: LoadResult[]) => [...list].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(list.length / 2)]!;
    const bareSingle = median(rounds.bareSingle);
    const bareBatch = median(rounds.bareBatch);
    const results: Array<[string, number, LoadResult, LoadResult | undefined]> = [
      ['bare node:http, same response as one image', single.body.length, bareSingle, undefined],
      ['GET /v3/images/{id}', single.body.length, median(rounds.single), bareSingle],
      ['bare node:http, same response as 30 images', batch.body.length, bareBatch, undefined],
      ['GET /v3/images?ids=(30 ids)', batch.body.length, median(rounds.batch), bareBatch],
    ];

    const rows = results.map(([name, bytes, r, reference]) => [
      name,
      String(bytes),
      Math.round(r.requestsPerSecond).toLocaleString('en-US'),
      r.p50.toFixed(1),
      r.p99.toFixed(1),
      reference ? `${Math.round((100 * r.requestsPerSecond) / reference.requestsPerSecond)}%` : '—',
      String(r.errors + r.non2xx),
    ]);
    process.stdout.write(
      `\nmetadata benchmark: ${imageIds.length} seeded images, ${CONNECTIONS} connections, median of ${ROUNDS} alternating rounds of ${SECONDS} s, node ${process.version}, ${os.cpus().length} cores\n\n` +
        `${table(['scenario', 'body bytes', 'req/s', 'p50 ms', 'p99 ms', 'vs bare', 'errors'], rows)}\n\n`,
    );
    const ratio = results[1]![2].requestsPerSecond / bareSingle.requestsPerSecond;
    process.stdout.write(
      `target: GET /v3/images/{id} at ≥ 50% of the bare server's requests/s — ${ratio >= 0.5 ? 'met' : 'NOT met'} (${Math.round(ratio * 100)}%)\n`,
    );
  } finally {
    for (const child of children.reverse()) await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
