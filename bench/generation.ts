/**
 * `npm run bench -- generation`: background removals and object removals queued at once through
 * the API of a `stockroom serve` (SQLite, the built-in engine, its default of one job at a time),
 * beside the built-in engine called directly on the same pictures in the same run: throughput,
 * p50/p95 turnaround (queued to stored, from the store's own times) and peak memory (RSS).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createServices } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { BuiltinEngine } from '../src/generation/engines/builtin/builtin-engine.js';
import { encodePng, maskRaster } from '../src/generation/engines/builtin/raster.js';
import { cutOutCases, holeCases } from './fixtures/builtin-quality-set.js';
import type { EngineRequest } from '../src/generation/engines/engine.js';
import { downloadSizesFor } from '../src/media/image-probe.js';
import { openDatabase } from '../src/platform/db/database.js';
import { serverEnvironment, startServer, stop, table } from './harness.js';
import { size } from './sizes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const JOBS = size('BENCH_JOBS', 50, 1);
/** How often one request is sent again after a 503 with Retry-After before the run gives up. */
const MAX_ATTEMPTS = 120;
const PICTURES = size('BENCH_PICTURES', 10, 1);
const WIDTH = size('BENCH_WIDTH', 768, 256);
const HEIGHT = size('BENCH_HEIGHT', 512, 192);

interface Case {
  operation: 'remove_background' | 'remove_object';
  assetId: string;
  jpeg: Buffer;
  /** Object removal: the mask, white on the object. */
  mask?: Buffer;
}

interface Row {
  what: string;
  jobs: number;
  seconds: number;
  p50: number;
  p95: number;
  peakRssMb: number;
  failed: number;
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** The pictures: generated scenes with a subject (background removal) and with an object to remove and its mask. */
async function pictures(): Promise<Case[]> {
  const cases: Case[] = [];
  for (const [n, item] of cutOutCases(PICTURES, WIDTH, HEIGHT, 21).entries()) {
    cases.push({ operation: 'remove_background', assetId: `bench-cut-${n}`, jpeg: await sharp(await encodePng(item.picture)).jpeg({ quality: 95 }).toBuffer() });
  }
  for (const [n, item] of holeCases(PICTURES, WIDTH, HEIGHT, 22).entries()) {
    cases.push({
      operation: 'remove_object',
      assetId: `bench-hole-${n}`,
      jpeg: await sharp(await encodePng(item.picture)).jpeg({ quality: 95 }).toBuffer(),
      mask: await encodePng(maskRaster(item.mask, WIDTH, HEIGHT)),
    });
  }
  return cases;
}

/** The jobs in the order they are sent: the two operations interleaved, each picture in turn. */
function jobs(cases: readonly Case[]): Case[] {
  const byOperation = (operation: Case['operation']) => cases.filter((item) => item.operation === operation);
  const [cuts, holes] = [byOperation('remove_background'), byOperation('remove_object')];
  return Array.from({ length: JOBS }, (_, n) => [cuts[n % cuts.length]!, holes[n % holes.length]!]).flat();
}

/** A store with the pictures as licensed catalogue images of one customer, and that customer's token. */
async function prepareStore(dataDir: string, cases: readonly Case[]): Promise<{ apiKey: string; token: string }> {
  const services = await createServices(loadConfig({ ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_SEED_DEMO: 'false', STOCKROOM_LOG_LEVEL: 'warn' }));
  try {
    for (const item of cases) {
      const key = `originals/${createHash('sha256').update(item.jpeg).digest('hex')}.jpg`;
      await services.blobs.put(key, item.jpeg);
      const original = { key, media_type: 'image/jpeg', width: WIDTH, height: HEIGHT, dpi: 72, bytes: item.jpeg.length };
      await services.catalog.upsertAsset({
        asset_type: 'image',
        id: item.assetId,
        fields: {
          title: 'Benchmark picture',
          asset_family: 'creative',
          license_model: 'royaltyfree',
          product_types: ['premiumaccess'],
          graphical_style: 'photography',
          max_dimensions: { width: WIDTH, height: HEIGHT },
          download_sizes: downloadSizesFor(original),
        },
        original,
      });
    }
    const { apiKey, client } = await services.clients.create({ name: 'Generation benchmark', queriesPerSecond: 100_000, queriesPerDay: 10_000_000 });
    const user = await services.users.create({ username: 'bench', password: 'benchmark password', first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com' });
    await services.products.grant({ userId: user.id, type: 'premiumaccess', downloads: 10_000 });
    await services.products.grant({ userId: user.id, type: 'aigen', generations: 10_000 });
    const grant = { clientId: client.id, userId: user.id, issuedAt: new Date() };
    for (const item of cases) await services.downloads.download({ grant, assetType: 'image', assetId: item.assetId, useTeamCredits: false });
    const { token } = await services.tokens.issue({ clientId: client.id, userId: user.id, grantType: 'password', lifetimeSeconds: 86_400 });
    return { apiKey, token };
  } finally {
    await services.close();
  }
}

/** kB of a /proc/<pid>/status line (VmRSS now, VmHWM the peak). */
function procKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((text) => text.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0);
}

async function throughTheApi(cases: readonly Case[]): Promise<{ rows: Row[]; idleRssMb: number }> {
  const { dataDir, port, env } = await serverEnvironment('generation', {
    STOCKROOM_LOG_LEVEL: 'warn',
    STOCKROOM_GENERATION_WAIT_MS: '0',
    STOCKROOM_GENERATION_MAX_PER_USER: String(JOBS * 2 + 10),
  });
  const { apiKey, token } = await prepareStore(dataDir, cases);
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(process.execPath, [path.join(root, 'bin/stockroom.js'), 'serve'], env, `${base}/v3/openapi.json`);
  const headers = { 'api-key': apiKey, authorization: `Bearer ${token}` };
  try {
    const maskUrls = new Map<string, string>();
    for (const item of cases.filter((candidate) => candidate.mask)) {
      const response = await fetch(`${base}/v3/search/by-image/uploads/${item.assetId}.png`, { method: 'PUT', headers: { ...headers, 'content-type': 'image/png' }, body: item.mask });
      maskUrls.set(item.assetId, ((await response.json()) as { url: string }).url);
    }
    const idleRssMb = procKb(server.pid!, 'VmRSS') / 1024;
    const sent = jobs(cases);
    const ids = await Promise.all(
      sent.map(async (item) => {
        const operation = item.operation === 'remove_background' ? 'background-removal' : 'object-removal';
        const body = { reference_asset_id: item.assetId, ...(item.mask ? { mask_url: maskUrls.get(item.assetId) } : {}) };
        // As a client should: a 503 with Retry-After (the node is decoding as many sources as it
        // may, STOCKROOM_IMAGE_DECODES, with its queue full) is asked again after that wait.
        for (let attempt = 1; ; attempt++) {
          const response = await fetch(`${base}/v3/ai/image-generations/${operation}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
          const answer = (await response.json()) as { generation_request_id?: string; message?: string };
          if (answer.generation_request_id) return answer.generation_request_id;
          const retryAfter = Number(response.headers.get('retry-after'));
          if (response.status !== 503 || !Number.isFinite(retryAfter) || attempt >= MAX_ATTEMPTS) {
            throw new Error(`${operation} was refused: ${response.status} ${answer.message}`);
          }
          await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
        }
      }),
    );
    // The history says when every job is over; the store's own times give each one's turnaround.
    for (;;) {
      const history = (await (await fetch(`${base}/v3/ai/generation-history?page_size=1000`, { headers })).json()) as { generations: Array<{ status: string }> };
      if (history.generations.length >= ids.length && history.generations.every((item) => item.status === 'done' || item.status === 'failed')) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const peakRssMb = procKb(server.pid!, 'VmHWM') / 1024;
    const store = await openDatabase({ sqliteFile: path.join(dataDir, 'stockroom.sqlite') });
    try {
      const stored = await store.db.selectFrom('generation_requests').select(['id', 'generation_type', 'status', 'created_at', 'finished_at']).execute();
      const rows: Row[] = [];
      for (const [what, type] of [
        ['background removal', 'background_removal'],
        ['object removal', 'object_removal'],
        ['both', undefined],
      ] as const) {
        const mine = stored.filter((row) => type === undefined || row.generation_type === type);
        const turnaround = mine.map((row) => (Date.parse(row.finished_at!) - Date.parse(row.created_at)) / 1000).sort((a, b) => a - b);
        const first = Math.min(...mine.map((row) => Date.parse(row.created_at)));
        const last = Math.max(...mine.map((row) => Date.parse(row.finished_at!)));
        rows.push({ what: `API: ${what}`, jobs: mine.length, seconds: (last - first) / 1000, p50: quantile(turnaround, 0.5), p95: quantile(turnaround, 0.95), peakRssMb, failed: mine.filter((row) => row.status !== 'done').length });
      }
      return { rows, idleRssMb };
    } finally {
      await store.close();
    }
  } finally {
    await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The same jobs, one after another, on the built-in engine in this process: each one's time is its turnaround alone. */
async function direct(cases: readonly Case[]): Promise<Row[]> {
  const engine = new BuiltinEngine();
  const times = new Map<Case['operation'], number[]>([
    ['remove_background', []],
    ['remove_object', []],
  ]);
  let failed = 0;
  const started = performance.now();
  for (const item of jobs(cases)) {
    const request: EngineRequest =
      item.operation === 'remove_background'
        ? { operation: 'remove_background', source: { data: item.jpeg, mediaType: 'image/jpeg' } }
        : // Four fills, as the API asks for.
          { operation: 'remove_object', source: { data: item.jpeg, mediaType: 'image/jpeg' }, mask: { data: item.mask!, mediaType: 'image/png' }, seed: 0, count: 4 };
    const begun = performance.now();
    try {
      await engine.run(request);
    } catch {
      failed += 1;
    }
    times.get(item.operation)!.push((performance.now() - begun) / 1000);
  }
  const total = (performance.now() - started) / 1000;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const row = (what: string, values: number[], seconds: number): Row => {
    const sorted = [...values].sort((a, b) => a - b);
    return { what: `direct: ${what}`, jobs: values.length, seconds, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), peakRssMb, failed };
  };
  const cut = times.get('remove_background')!;
  const hole = times.get('remove_object')!;
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return [row('background removal', cut, sum(cut)), row('object removal', hole, sum(hole)), row('both', [...cut, ...hole], total)];
}

export async function generationBenchmark(): Promise<void> {
  const cases = await pictures();
  process.stdout.write(`${JOBS} background removals and ${JOBS} object removals of ${PICTURES} + ${PICTURES} generated ${WIDTH}×${HEIGHT} pictures\n`);
  const api = await throughTheApi(cases);
  const directRows = await direct(cases);
  const rows = [...api.rows, ...directRows].map((row) => [
    row.what,
    String(row.jobs),
    // One operation's share of a queue both fill has no throughput of its own.
    row.what.startsWith('API') && !row.what.endsWith('both') ? '—' : (row.jobs / row.seconds).toFixed(2),
    row.p50.toFixed(2),
    row.p95.toFixed(2),
    row.peakRssMb.toFixed(0),
    String(row.failed),
  ]);
  process.stdout.write(`${table(['run', 'jobs', 'jobs/s', 'p50 s', 'p95 s', 'peak RSS MB', 'failed'], rows)}\n`);
  process.stdout.write(`server RSS before the jobs: ${api.idleRssMb.toFixed(0)} MB. API turnaround: queued to stored; direct: one call of the engine.\n`);
}
