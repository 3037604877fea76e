import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { seedDemo } from '../src/catalog/demo/demo-catalog.js';
import { progressBar } from '../src/cli/progress.js';
import { loadConfig } from '../src/config/config.js';
import { BENCH_DEMO, freePort, serverEnvironment, startServer, stop, table } from './harness.js';
import { size } from './sizes.js';

const ROUNDS = size('BENCH_ROUNDS', 1500, 5);
/** Fresh servers started for the cold first page, each on its own copy of the seeded store. */
const COLD_RUNS = size('BENCH_COLD_RUNS', 8, 1);
/** A browser opens at most six connections to one host over HTTP/1.1. */
const BROWSER_CONNECTIONS = 6;
const WARM_UP = size('BENCH_WARM_UP', 200, 2);

/** The searches both sides run: the page's URL and the JSON search it wraps, with the same parameters, facets and fields. */
const PHRASES = ['', 'city', 'harbour', 'marathon', 'festival', 'coffee', 'summit', 'mountain lake', 'people working', 'night'];
const CARD_FIELDS = 'id,title,artist,asset_family,comp,thumb';

interface Pair {
  name: string;
  page: string;
  json: string;
}

function pairs(): Pair[] {
  const list: Pair[] = [];
  for (const phrase of PHRASES) {
    const q = encodeURIComponent(phrase);
    list.push({
      name: `creative "${phrase}"`,
      page: `/?phrase=${q}`,
      json: `/v3/search/images/creative?phrase=${q}&page=1&page_size=30&include_facets=true&facet_fields=artists&facet_max_count=12&fields=${CARD_FIELDS}`,
    });
    list.push({
      name: `editorial "${phrase}"`,
      page: `/?phrase=${q}&kind=editorial`,
      json: `/v3/search/images/editorial?phrase=${q}&page=1&page_size=30&include_facets=true&facet_fields=artists,events,specific_people&facet_max_count=12&fields=${CARD_FIELDS}`,
    });
  }
  return list;
}

const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)}`;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * The search page's server time beside the JSON search it wraps: the same queries (creative and
 * editorial, ten phrases, facets, 30 results with the card's fields), one after the other in the
 * same process, through Fastify's whole request pipeline (app.inject: routing, hooks, the
 * handler, serialization; no network, so the two cores' load generator costs neither side).
 * The page adds what is its own: reading the query, the HTML, the headers.
 */
export async function webBenchmark(): Promise<void> {
  const { dataDir, env } = await serverEnvironment('web', { STOCKROOM_LOG_LEVEL: 'silent' });
  const { app, services } = await buildApp(loadConfig(env), { logger: false });
  try {
    const bar = progressBar('Seeding');
    // As `stockroom seed-demo` and `stockroom ingest` do: each original's display files are made as it is stored.
    await seedDemo({ catalog: services.catalog, blobs: services.blobs, displayFiles: services.media }, { ...BENCH_DEMO, onProgress: bar.update });
    bar.stop();
    await services.changeFeed.poll();
    await services.search.settled();
    const { apiKey } = await services.clients.create({ name: 'bench', queriesPerSecond: 1_000_000_000, queriesPerDay: 1_000_000_000 });
    const headers = { 'api-key': apiKey };
    const list = pairs();
    for (const pair of list) {
      const page = await app.inject({ url: pair.page });
      const json = await app.inject({ url: pair.json, headers });
      if (page.statusCode !== 200 || json.statusCode !== 200) throw new Error(`${pair.name}: page ${page.statusCode}, JSON ${json.statusCode} ${json.body.slice(0, 200)}`);
    }
    const time = async (url: string, requestHeaders?: Record<string, string>) => {
      const start = process.hrtime.bigint();
      const cpuStart = process.cpuUsage();
      const response = await app.inject({ url, headers: requestHeaders });
      const cpu = process.cpuUsage(cpuStart);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`);
      return { ms, cpuMs: (cpu.user + cpu.system) / 1000, bytes: response.rawPayload.length };
    };
    for (let i = 0; i < WARM_UP; i++) {
      const pair = list[i % list.length]!;
      await time(pair.page);
      await time(pair.json, headers);
    }
    const pageTimes: number[] = [];
    const jsonTimes: number[] = [];
    const pageCpu: number[] = [];
    const jsonCpu: number[] = [];
    let pageBytes = 0;
    let jsonBytes = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const pair = list[i % list.length]!;
      // Alternating which goes first, so that neither always meets a warm cache the other left.
      const first = i % 2 === 0;
      const a = first ? await time(pair.page) : await time(pair.json, headers);
      const b = first ? await time(pair.json, headers) : await time(pair.page);
      const [page, json] = first ? [a, b] : [b, a];
      pageTimes.push(page.ms);
      jsonTimes.push(json.ms);
      pageCpu.push(page.cpuMs);
      jsonCpu.push(json.cpuMs);
      pageBytes += page.bytes;
      jsonBytes += json.bytes;
    }
    const row = (name: string, times: number[], bytes: number, reference?: number[]) => {
      const sorted = [...times].sort((x, y) => x - y);
      const ref = reference ? [...reference].sort((x, y) => x - y) : undefined;
      return [
        name,
        String(times.length),
        percentile(sorted, 50).toFixed(2),
        percentile(sorted, 95).toFixed(2),
        percentile(sorted, 99).toFixed(2),
        ref ? signed(percentile(sorted, 50) - percentile(ref, 50)) : '—',
        ref ? signed(percentile(sorted, 95) - percentile(ref, 95)) : '—',
        String(Math.round(bytes / times.length)),
      ];
    };
    process.stdout.write(
      `\nSearch page vs the JSON search it wraps: ${list.length} searches (creative and editorial, ${PHRASES.length} phrases, facets, 30 results), ` +
        `${ROUNDS} of each, alternating, in one process through app.inject; ${BENCH_DEMO.images} images, ${BENCH_DEMO.videos} videos.\n\n`,
    );
    process.stdout.write(
      `${table(
        ['request', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'p50 added', 'p95 added', 'bytes'],
        [
          row('JSON search, wall time', jsonTimes, jsonBytes),
          row('search page, wall time', pageTimes, pageBytes, jsonTimes),
          row('JSON search, CPU time', jsonCpu, jsonBytes),
          row('search page, CPU time', pageCpu, pageBytes, jsonCpu),
        ],
      )}\n`,
    );
    process.stdout.write(
      `\nJSON search: GET /v3/search/images/{creative|editorial}; search page: GET /?phrase=…[&kind=editorial]. ` +
        `Wall time includes waiting for a core (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores during the run); ` +
        `CPU time is what the process spent on the request (its threads, garbage collection included).\n`,
    );
  } finally {
    await app.close();
  }
  try {
    await coldFirstPage(dataDir, env);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

interface PageLoad {
  ms: number;
  pictures: number;
}

/**
 * The first search page as a browser loads it from a server that has just started: a fresh
 * `stockroom serve` process on a fresh copy of the seeded store, then GET / and every picture
 * the page shows, over at most six connections, until the last byte of the last picture. Then
 * the same page again on that server (warm). Once with the display files made at ingest, and
 * once with them removed from the copy, as a store ingested before they were made at ingest
 * is (each made on its first request).
 */
async function coldFirstPage(seededDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  const results = { ingest: [] as PageLoad[], warm: [] as PageLoad[], onRequest: [] as PageLoad[] };
  const bar = progressBar('Cold servers');
  const total = COLD_RUNS * 2;
  for (let run = 0; run < total; run++) {
    const prepared = run % 2 === 0;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-bench-web-cold-'));
    try {
      fs.cpSync(seededDir, dataDir, { recursive: true });
      if (!prepared) fs.rmSync(path.join(dataDir, 'blobs', 'renditions'), { recursive: true, force: true });
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const server = await startServer(
        process.execPath,
        [path.join(root, 'bin/stockroom.js'), 'serve'],
        { ...env, STOCKROOM_DATA_DIR: dataDir, PORT: String(port), STOCKROOM_PUBLIC_URL: base },
        `${base}/healthz`,
      );
      try {
        (prepared ? results.ingest : results.onRequest).push(await loadPage(base));
        if (prepared) results.warm.push(await loadPage(base));
      } finally {
        await stop(server);
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    bar.update(run + 1, total);
  }
  bar.stop();
  const row = (name: string, loads: readonly PageLoad[]) => {
    const sorted = loads.map((load) => load.ms).sort((x, y) => x - y);
    return [name, String(loads.length), String(loads[0]?.pictures ?? 0), percentile(sorted, 50).toFixed(0), percentile(sorted, 95).toFixed(0), sorted.at(-1)!.toFixed(0)];
  };
  process.stdout.write(
    `\nThe first search page (GET /) and all its pictures, as a browser loads them (${BROWSER_CONNECTIONS} connections), ` +
      `from a server process started a moment before on a fresh copy of the seeded store; ${COLD_RUNS} servers each.\n\n`,
  );
  process.stdout.write(
    `${table(
      ['first page', 'n', 'pictures', 'p50 ms', 'p95 ms', 'max ms'],
      [
        row('cold server, display files made at ingest', results.ingest),
        row('warm: the same page again on that server', results.warm),
        row('cold server, each picture made on its first request', results.onRequest),
      ],
    )}\n`,
  );
}

/** GET / and then every picture it shows (its `<img src>` under /display/), BROWSER_CONNECTIONS at a time; the time to the last byte. */
async function loadPage(base: string): Promise<PageLoad> {
  const start = process.hrtime.bigint();
  const page = await fetch(`${base}/`);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`GET / answered ${page.status}`);
  const pictures = [...html.matchAll(/<img[^>]*\ssrc="([^"]+)"/g)]
    .map((match) => match[1]!.replaceAll('&amp;', '&'))
    .filter((src) => src.includes('/display/'))
    .map((src) => new URL(src, base));
  let next = 0;
  const fetchNext = async (): Promise<void> => {
    while (next < pictures.length) {
      const url = pictures[next++]!;
      const response = await fetch(`${base}${url.pathname}${url.search}`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${url.pathname} answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: BROWSER_CONNECTIONS }, fetchNext));
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, pictures: pictures.length };
}
