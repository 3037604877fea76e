/**
 * `node bin/run-ts.js bench/registration-memory.ts [--concurrent 6] [--width 6000] [--height 4000]`:
 * the memory a burst of file registrations of one large JPEG takes. The whole application on a
 * temporary SQLite store (through app.inject, no network); one user uploads the JPEG, then
 * registers it N times at once. The process's resident set is sampled every 10 ms and its
 * peak printed beside the figure before the burst, with how long the burst took and what the
 * registrations keep in the blob store. A measurement to read, not a test: machines differ.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const MB = 1024 * 1024;
const concurrent = option('concurrent', 6);
const width = option('width', 6000);
const height = option('height', 4000);

/** A photograph-like JPEG: smooth gradients with a fine pattern, so it compresses as photographs do. */
async function largeJpeg(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs>
      <linearGradient id="sky" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1d4e89"/><stop offset="0.6" stop-color="#f2a541"/><stop offset="1" stop-color="#2f6f3e"/></linearGradient>
      <pattern id="grain" width="7" height="5" patternUnits="userSpaceOnUse"><rect width="3" height="2" fill="#ffffff" opacity="0.05"/></pattern>
    </defs>
    <rect width="100%" height="100%" fill="url(#sky)"/><rect width="100%" height="100%" fill="url(#grain)"/>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer();
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-registration-memory-'));
try {
  const config = loadConfig({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', STOCKROOM_PUBLIC_URL: 'http://stockroom.test', STOCKROOM_SEED_DEMO: 'false' });
  const { app, services } = await buildApp(config, { logger: false });
  await app.ready();
  const { apiKey, client } = await services.clients.create({ name: 'Memory', queriesPerSecond: 100_000, queriesPerDay: 10_000_000 });
  const now = new Date().toISOString();
  const user = await services.database.db
    .insertInto('users')
    .values({ username: 'memory', password_hash: 'not-a-real-hash', first_name: 'M', last_name: 'M', email: null, team: null, partner_credit: 0, password_changed_at: now, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await services.products.grant({ userId: user.id, type: 'aigen' });
  const { token } = await services.tokens.issue({ clientId: client.id, userId: user.id, grantType: 'password', lifetimeSeconds: 3600 });
  const headers = { 'api-key': apiKey, authorization: `Bearer ${token}` };

  const jpeg = await largeJpeg();
  const uploaded = await app.inject({ method: 'PUT', url: '/v3/search/by-image/uploads/large.jpg', headers: { ...headers, 'content-type': 'image/jpeg' }, payload: jpeg });
  if (uploaded.statusCode !== 200) throw new Error(`the upload answered ${uploaded.statusCode}: ${uploaded.body}`);

  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: concurrent }, () =>
      app.inject({
        method: 'POST',
        url: '/beta/ai/file-registrations',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ url: 'http://stockroom.test/v3/search/by-image/uploads/large.jpg', rights_claimed: true, category: 'ImageReference' }),
      }),
    ),
  );
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);

  const statuses = answers.map((answer) => answer.statusCode).join(' ');
  const blobDir = path.join(dataDir, 'blobs', 'generation', 'registrations');
  const kept = fs.existsSync(blobDir) ? fs.readdirSync(blobDir).map((file) => fs.statSync(path.join(blobDir, file)).size) : [];
  const largest = kept.length ? Math.max(...kept) : 0;
  console.log(`JPEG ${width}×${height}: ${(jpeg.length / MB).toFixed(2)} MB; ${concurrent} registrations at once answered ${statuses} in ${seconds.toFixed(1)} s`);
  console.log(`resident set: ${(before / MB).toFixed(0)} MB before, ${(peak / MB).toFixed(0)} MB at the peak (+${((peak - before) / MB).toFixed(0)} MB)`);
  console.log(`kept in the blob store: ${kept.length} files, ${(kept.reduce((sum, size) => sum + size, 0) / MB).toFixed(1)} MB, the largest ${(largest / MB).toFixed(2)} MB`);
  await app.close();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
