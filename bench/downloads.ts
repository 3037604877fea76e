import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import sharp from 'sharp';
import type { AssetInput, OriginalFile } from '../src/catalog/catalog.records.js';
import type { BlobStore } from '../src/platform/blobs/blob-store.js';
import { loadConfig } from '../src/config/config.js';
import { createServices } from '../src/app.js';
import { progressBar } from '../src/cli/progress.js';
import { load, serverEnvironment, startServer, stop, table, type LoadResult } from './harness.js';
import { PICTURE_SIZES, SyntheticCatalogue } from './fixtures/synthetic-catalogue.js';
import { checkAgainstRepository, loadCatalogue } from './fixtures/store-loader.js';
import { size } from './sizes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = size('BENCH_SECONDS', 5, 1);
const ROUNDS = size('BENCH_ROUNDS', 3, 1);
const CONNECTIONS = size('BENCH_CONNECTIONS', 10, 2);
const ASSETS = size('BENCH_ASSETS', 200_000, 2_000);

/**
 * One real JPEG of each picture size the catalogue uses, in the blob store: every image names
 * the one of its size as its original, so that it can be licensed (an image without a file is
 * refused before any payment). The benchmark signs delivery URLs; it does not fetch them.
 */
async function storeOriginals(blobs: BlobStore): Promise<Map<string, OriginalFile>> {
  const originals = new Map<string, OriginalFile>();
  for (const { width, height } of PICTURE_SIZES) {
    const jpeg = await sharp({ create: { width, height, channels: 3, background: { r: 120, g: 140, b: 160 } } })
      .jpeg({ quality: 60 })
      .toBuffer();
    const key = `originals/${createHash('sha256').update(jpeg).digest('hex')}.jpg`;
    await blobs.put(key, jpeg);
    originals.set(`${width}x${height}`, { key, media_type: 'image/jpeg', width, height, dpi: 300, bytes: jpeg.length });
  }
  return originals;
}

/**
 * POST /v3/downloads/images/{id} through HTTP — the bearer token checked, the product chosen,
 * the download allowance debited with its ledger row and download record in one transaction,
 * a signed delivery URL made — beside GET /v3/images/{id} on the same server, in the same run.
 *
 * The store holds BENCH_ASSETS synthetic images, each naming a stored original of its size
 * (storeOriginals: no file is delivered, the URL is the product); the customer holds a premiumaccess product with a download limit the run
 * cannot reach, so every download pays. Downloads walk the licensable images in order, none
 * twice, so that none is a free download again under the same product.
 */
export async function downloadsBenchmark(): Promise<void> {
  const { dataDir, port, env } = await serverEnvironment('downloads', {
    STOCKROOM_SEARCH_SNAPSHOT: 'false',
    STOCKROOM_LOG_LEVEL: process.env.STOCKROOM_LOG_LEVEL ?? 'warn',
  });
  const children = [];
  try {
    // 1. A client the load cannot throttle, a customer with a large download allowance, a catalogue.
    const services = await createServices(loadConfig(env));
    const { apiKey, apiSecret } = await services.clients.create({
      name: 'downloads bench',
      grantTypes: ['password'],
      queriesPerSecond: 1_000_000_000,
      queriesPerDay: 1_000_000_000,
    });
    const password = 'bench-password-1';
    const user = await services.users.create({ username: 'bench-customer', password });
    const product = await services.products.grant({ userId: user.id, type: 'premiumaccess', downloads: 100_000_000, period: 'year' });
    const originals = await storeOriginals(services.blobs);
    await services.close();
    const bar = progressBar('Writing the catalogue');
    const catalogue = new SyntheticCatalogue(ASSETS, 1);
    const originalOf = (input: AssetInput) => {
      const { width, height } = input.fields.max_dimensions as { width: number; height: number };
      return originals.get(`${width}x${height}`);
    };
    loadCatalogue(path.join(dataDir, 'stockroom.sqlite'), catalogue, { onProgress: bar.update, originalOf });
    bar.stop();
    await checkAgainstRepository(catalogue, path.join(dataDir, 'stockroom.sqlite'), path.join(dataDir, 'fidelity'), Math.min(50, ASSETS), { originalOf });
    fs.rmSync(path.join(dataDir, 'fidelity'), { recursive: true, force: true });
    const store = new SqliteDatabase(path.join(dataDir, 'stockroom.sqlite'), { readonly: true });
    const licensable = (
      store.prepare(`select id from assets where asset_type = 'image' and details like '%"premiumaccess"%' order by id`).all() as Array<{ id: string }>
    ).map((row) => row.id);
    store.close();

    // 2. Stockroom in its own process, as `npm start` runs it; a token for the customer.
    const stockroom = await startServer(process.execPath, [path.join(root, 'bin/stockroom.js'), 'serve'], env, `http://127.0.0.1:${port}/v3/openapi.json`);
    children.push(stockroom);
    const base = `http://127.0.0.1:${port}`;
    const tokenResponse = await fetch(`${base}/auth/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: user.username, password, client_id: apiKey, client_secret: apiSecret! }),
    });
    if (tokenResponse.status !== 200) throw new Error(`the token request answered ${tokenResponse.status}: ${await tokenResponse.text()}`);
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const keyOnly = { 'api-key': apiKey };
    const withToken = { 'api-key': apiKey, authorization: `Bearer ${token}` };
    const probe = await fetch(`${base}/v3/downloads/images/${licensable[0]}?auto_download=false`, { method: 'POST', headers: withToken });
    if (probe.status !== 200) throw new Error(`a download answered ${probe.status}: ${await probe.text()}`);

    // 3. Load, alternating for several rounds; each row reports its median round.
    const downloadPaths = licensable.slice(1).map((id) => `/v3/downloads/images/${id}?auto_download=false`);
    const readPaths = licensable.map((id) => `/v3/images/${id}`);
    const rounds: Record<'read' | 'download', LoadResult[]> = { read: [], download: [] };
    let downloadsBefore = 1;
    for (let round = 0; round < ROUNDS; round++) {
      rounds.read.push(await load({ url: base, paths: readPaths, headers: keyOnly, seconds: SECONDS, connections: CONNECTIONS }));
      rounds.download.push(
        await load({
          url: base,
          paths: downloadPaths.slice(downloadsBefore),
          headers: withToken,
          method: 'POST',
          order: 'once',
          seconds: SECONDS,
          connections: CONNECTIONS,
        }),
      );
      // The next round starts past every image this one (and its warm-up) downloaded.
      downloadsBefore += Math.ceil(rounds.download.at(-1)!.requestsPerSecond * (SECONDS + 3));
    }
    const median = (list: LoadResult[]) => [...list].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(list.length / 2)]!;
    const read = median(rounds.read);
    const download = median(rounds.download);

    // 4. The ledger once the server has stopped (requests still in flight when the load ends
    //    commit after it): every download paid once, every payment a download.
    await stop(stockroom);
    children.length = 0;
    const check = new SqliteDatabase(path.join(dataDir, 'stockroom.sqlite'), { readonly: true });
    const downloads = check.prepare('select count(*) as n, count(distinct asset_id) as assets from downloads').get() as { n: number; assets: number };
    const debits = check
      .prepare(`select count(*) as n, coalesce(-sum(amount), 0) as total from download_ledger where reason = 'download' and unit = 'download'`)
      .get() as { n: number; total: number };
    const used = (check.prepare('select downloads_used from products where id = ?').get(product.id) as { downloads_used: number }).downloads_used;
    check.close();
    if (downloadsBefore > downloadPaths.length) process.stdout.write('note: the catalogue ran out of unlicensed images; some downloads were free repeats\n');

    const rows = [
      ['GET /v3/images/{id} (Api-Key)', read],
      ['POST /v3/downloads/images/{id} (token, debit, signed URL)', download],
    ].map(([name, r]) => {
      const result = r as LoadResult;
      return [
        name as string,
        Math.round(result.requestsPerSecond).toLocaleString('en-US'),
        result.p50.toFixed(1),
        result.p99.toFixed(1),
        `${Math.round((100 * result.requestsPerSecond) / read.requestsPerSecond)}%`,
        String(result.errors + result.non2xx),
      ];
    });
    process.stdout.write(
      `\ndownloads benchmark: ${ASSETS.toLocaleString('en-US')} synthetic images (${licensable.length.toLocaleString('en-US')} licensable by the product), SQLite, ` +
        `${CONNECTIONS} connections, median of ${ROUNDS} alternating rounds of ${SECONDS} s, node ${process.version}, ${os.cpus().length} cores\n\n` +
        `${table(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'vs metadata', 'errors'], rows)}\n\n` +
        `downloads recorded: ${downloads.n.toLocaleString('en-US')} for ${downloads.assets.toLocaleString('en-US')} images; ` +
        `ledger: ${debits.n.toLocaleString('en-US')} debits of ${debits.total.toLocaleString('en-US')} downloads; the product counts ${used.toLocaleString('en-US')} used — ` +
        `${debits.total === used && debits.n === downloads.assets ? 'balanced' : 'NOT balanced'}\n`,
    );
  } finally {
    for (const child of children.reverse()) await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
