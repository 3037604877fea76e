import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, freshPostgresDatabase, processScratch, serve, stop } from '../helpers/server-processes.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { POSTGRES_URL, STORES } from '../helpers/test-store.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';

/*
 * Nothing lost, nothing spent twice — with real processes: `stockroom serve` started as an
 * operator would, the client, user, product and catalogue made with the CLI, requests over HTTP.
 */

const run = promisify(execFile);
const PASSWORD = 'correct horse battery';


/** The client, user, credit pack and catalogue a burst needs, made with the CLI against the store of `env`. */
async function prepare(env: NodeJS.ProcessEnv, dataDir: string, options: { credits: number; assets: number }) {
  const cli = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env: { ...env, STOCKROOM_DATA_DIR: dataDir } })).stdout;
  const { api_key: apiKey, api_secret: apiSecret } = JSON.parse(
    await cli('admin', 'client', 'create', '--name', 'Burst', '--grants', 'password', '--qps', '100000', '--per-day', '10000000', '--json'),
  ) as { api_key: string; api_secret: string };
  await cli('admin', 'user', 'create', '--username', 'buyer', '--password', PASSWORD);
  const product = JSON.parse(await cli('admin', 'product', 'grant', '--user', 'buyer', '--type', 'creditpack', '--credits', String(options.credits), '--json')) as {
    id: number;
  };
  const manifest = path.join(dataDir, 'assets.jsonl');
  // One small file stands for every original: the burst is about the ledger, not the pixels.
  fs.writeFileSync(path.join(dataDir, 'burst.jpg'), await makeJpeg(8, 6));
  const ids = Array.from({ length: options.assets }, (_, n) => `burst${n}`);
  const line = (id: string) =>
    JSON.stringify({
      asset_type: 'image',
      id,
      file: 'burst.jpg',
      title: `Burst ${id}`,
      asset_family: 'creative',
      license_model: 'royaltyfree',
      product_types: ['creditpack'],
      partner_licenses: [{ license_type: 'Standard', credits: 1 }],
    });
  fs.writeFileSync(manifest, `${ids.map(line).join('\n')}\n`);
  expect(await cli('ingest', manifest, '--media', dataDir)).toContain(`${options.assets} inserted`);
  return { apiKey, apiSecret, productId: product.id, ids };
}

async function userToken(port: number, apiKey: string, apiSecret: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/v4/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', username: 'buyer', password: PASSWORD, client_id: apiKey, client_secret: apiSecret }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

function download(port: number, apiKey: string, token: string, id: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/v3/downloads/images/${id}?auto_download=false`, {
    method: 'POST',
    headers: { 'api-key': apiKey, authorization: `Bearer ${token}` },
  });
}

/** What the store holds for the product: credits left, the ledger's debits, the downloads, and whether each debit has its download and each paid download its debit. */
async function audit(database: Database, productId: number) {
  const { db } = database;
  const product = await db.selectFrom('products').select('credits_remaining').where('id', '=', productId).executeTakeFirstOrThrow();
  const ledger = await db.selectFrom('download_ledger').selectAll().where('product_id', '=', productId).where('unit', '=', 'credit').execute();
  const downloads = await db.selectFrom('downloads').selectAll().where('product_id', '=', productId).execute();
  const debits = ledger.filter((row) => row.amount < 0);
  const downloadIds = new Set(downloads.map((row) => row.id));
  const paid = downloads.filter((row) => row.credits_spent > 0);
  return {
    creditsRemaining: product.credits_remaining!,
    granted: ledger.filter((row) => row.amount > 0).reduce((sum, row) => sum + row.amount, 0),
    debited: -debits.reduce((sum, row) => sum + row.amount, 0),
    debits: debits.length,
    downloads: downloads.length,
    debitsWithoutDownload: debits.filter((row) => row.download_id === null || !downloadIds.has(row.download_id)).length,
    paidDownloadsWithoutOneDebit: paid.filter((row) => debits.filter((debit) => debit.download_id === row.id).length !== 1).length,
    unpaidDownloads: downloads.length - paid.length,
  };
}

const { cleanups, tempDir } = processScratch('stockroom-burst-');
const baseEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  STOCKROOM_SEED_DEMO: 'false',
  STOCKROOM_SEARCH_SNAPSHOT: 'false',
  STOCKROOM_LOG_LEVEL: 'warn',
  REDIS_URL: '',
  DATABASE_URL: '',
});


describe.skipIf(!POSTGRES_URL)('two server processes sharing one PostgreSQL', () => {
  it('200 concurrent downloads at a 10-credit pack: exactly 10 succeed, and the ledger balances', async () => {
    const database = await freshPostgresDatabase(POSTGRES_URL!);
    cleanups.push(() => database.drop());
    const env = { ...baseEnv(), DATABASE_URL: database.url };
    const { apiKey, apiSecret, productId, ids } = await prepare(env, tempDir(), { credits: 10, assets: 200 });
    const servers = await Promise.all([serve(env, tempDir()), serve(env, tempDir())]);
    for (const server of servers) cleanups.push(() => stop(server));
    const token = await userToken(servers[0]!.port, apiKey, apiSecret);
    // Both nodes warmed up (the token checked once on each), so that the burst meets two ready nodes.
    for (const server of servers) {
      const products = await fetch(`http://127.0.0.1:${server.port}/v3/products`, { headers: { 'api-key': apiKey, authorization: `Bearer ${token}` } });
      expect(products.status).toBe(200);
    }

    // Every other request to the other node, all at once.
    const responses = await Promise.all(ids.map((id, n) => download(servers[n % 2]!.port, apiKey, token, id)));
    const bodies = await Promise.all(responses.map(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, string> })));
    const succeeded = bodies.filter((b) => b.status === 200);
    expect(succeeded).toHaveLength(10);
    expect(bodies.filter((b) => b.status === 403).map((b) => b.body.code)).toEqual(Array(190).fill('InsufficientCredits'));
    // Each node answered every request sent to it; had each node its own view of the pack, 20 would have sold.
    for (const node of [0, 1]) expect(bodies.filter((b, n) => n % 2 === node && (b.status === 200 || b.status === 403))).toHaveLength(100);
    for (const { body } of succeeded) expect(body.uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/delivery\//);

    const store = await openDatabase({ url: database.url });
    try {
      expect(await audit(store, productId)).toEqual({
        creditsRemaining: 0,
        granted: 10,
        debited: 10,
        debits: 10,
        downloads: 10,
        debitsWithoutDownload: 0,
        paidDownloadsWithoutOneDebit: 0,
        unpaidDownloads: 0,
      });
    } finally {
      await store.close();
    }
  }, 180_000);
});

describe.each(STORES)('a server killed in the middle of a burst, on $name', ({ name }) => {
  it('leaves a consistent ledger: credits left + debits = credits granted, each debit with its download and each download with its debit', async () => {
    const credits = 100;
    let env = baseEnv();
    if (name === 'postgres') {
      const database = await freshPostgresDatabase(POSTGRES_URL!);
      cleanups.push(() => database.drop());
      env = { ...env, DATABASE_URL: database.url };
    }
    const dataDir = tempDir();
    const { apiKey, apiSecret, productId, ids } = await prepare(env, dataDir, { credits, assets: 150 });
    const open = () => (env.DATABASE_URL ? openDatabase({ url: env.DATABASE_URL }) : openDatabase({ sqliteFile: path.join(dataDir, 'stockroom.sqlite') }));

    const first = await serve(env, dataDir);
    cleanups.push(() => stop(first));
    const token = await userToken(first.port, apiKey, apiSecret);
    const watcher = await open();
    let recordedAtKill = 0;
    let outcomes: Array<number | 'lost'> = [];
    try {
      const burst = ids.map((id) =>
        download(first.port, apiKey, token, id).then(
          (response) => response.status,
          () => 'lost' as const,
        ),
      );
      // Killed once the store holds a few downloads, with many more in flight: committed but not yet answered,
      // half-way through their transaction, or not begun.
      for (;;) {
        const { count } = await watcher.db.selectFrom('downloads').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
        if (Number(count) >= 10) {
          first.child.kill('SIGKILL');
          recordedAtKill = Number(count);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      outcomes = await Promise.all(burst);
    } finally {
      await watcher.close();
    }
    await first.exited;
    const ok = outcomes.filter((o) => o === 200).length;
    expect(recordedAtKill).toBeGreaterThanOrEqual(10);
    expect(outcomes.filter((o) => o === 'lost').length).toBeGreaterThan(0);

    // Restarted, the server reads the same store and carries on from it.
    const second = await serve(env, dataDir);
    cleanups.push(() => stop(second));
    const products = (await (
      await fetch(`http://127.0.0.1:${second.port}/v3/products`, { headers: { 'api-key': apiKey, authorization: `Bearer ${token}` } })
    ).json()) as { products: Array<{ id: number; credits_remaining: number }> };
    const remaining = products.products.find((p) => p.id === productId)!.credits_remaining;

    const store = await open();
    try {
      const state = await audit(store, productId);
      expect(state.creditsRemaining).toBe(remaining);
      expect(state.granted).toBe(credits);
      expect(remaining + state.debited).toBe(credits);
      expect(state.debitsWithoutDownload).toBe(0);
      expect(state.paidDownloadsWithoutOneDebit).toBe(0);
      expect(state.unpaidDownloads).toBe(0);
      expect(state.downloads).toBe(state.debits);
      // Every answered download is recorded; some recorded ones may never have been answered.
      expect(state.downloads).toBeGreaterThanOrEqual(ok);

      // An asset whose download was lost can be downloaded now; one already paid for is free.
      const recorded = new Set((await store.db.selectFrom('downloads').select('asset_id').execute()).map((row) => row.asset_id));
      const fresh = ids.find((id) => !recorded.has(id))!;
      const paidBefore = ids.find((id) => recorded.has(id))!;
      expect((await download(second.port, apiKey, token, fresh)).status).toBe(200);
      expect((await download(second.port, apiKey, token, paidBefore)).status).toBe(200);
      const after = await audit(store, productId);
      expect(after.creditsRemaining).toBe(remaining - 1);
      expect(after.creditsRemaining + after.debited).toBe(credits);
    } finally {
      await store.close();
    }
  }, 180_000);
});
