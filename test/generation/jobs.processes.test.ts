import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { CLI, freshPostgresDatabase, processScratch, serve, stop, type Server } from '../helpers/server-processes.js';
import { POSTGRES_URL } from '../helpers/test-store.js';
import { startA1111Server } from './engines/model-servers/a1111-server.js';

/*
 * Generation jobs on two `stockroom serve` processes sharing one PostgreSQL, their engine an
 * AUTOMATIC1111 test server that counts what it is asked: many jobs queued at once through both
 * nodes, each run exactly once and charged once; a job whose node is killed mid-run is run again
 * by the other node, and charged nothing more.
 */

const run = promisify(execFile);
const PASSWORD = 'correct horse battery';
const SLOW_MS = 4000;

const { cleanups, tempDir } = processScratch('stockroom-jobs-');

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!POSTGRES_URL)('generation jobs on two server processes sharing one PostgreSQL', () => {
  it('runs each of many queued jobs once and charges it once; a job whose node is killed is run by the other', { timeout: 120_000 }, async () => {
    const a1111 = await startA1111Server({ delayMs: (body) => (String(body.prompt).includes('slow') ? SLOW_MS : 0) });
    cleanups.push(() => a1111.close());
    const database = await freshPostgresDatabase(POSTGRES_URL!, 'stockroom_jobs');
    cleanups.push(() => database.drop());
    const env = {
      ...process.env,
      STOCKROOM_SEED_DEMO: 'false',
      STOCKROOM_SEARCH_SNAPSHOT: 'false',
      STOCKROOM_LOG_LEVEL: 'warn',
      REDIS_URL: '',
      DATABASE_URL: database.url,
      STOCKROOM_GENERATION_SERVER: 'a1111',
      STOCKROOM_GENERATION_SERVER_URL: a1111.url,
      STOCKROOM_GENERATION_WAIT_MS: '0',
      STOCKROOM_GENERATION_MAX_PER_USER: '100',
      STOCKROOM_GENERATION_LEASE_SECONDS: '3',
    };
    const dataDir = tempDir();
    const cli = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env: { ...env, STOCKROOM_DATA_DIR: dataDir } })).stdout;
    const { api_key: apiKey, api_secret: apiSecret } = JSON.parse(
      await cli('admin', 'client', 'create', '--name', 'Studio', '--grants', 'password', '--qps', '100000', '--json'),
    ) as { api_key: string; api_secret: string };
    await cli('admin', 'user', 'create', '--username', 'painter', '--password', PASSWORD);
    const product = JSON.parse(await cli('admin', 'product', 'grant', '--user', 'painter', '--type', 'aigen', '--generations', '100', '--json')) as { id: number };

    const servers: Server[] = await Promise.all([serve(env, tempDir()), serve(env, tempDir())]);
    for (const server of servers) cleanups.push(() => stop(server, 'SIGKILL'));
    const tokenResponse = await fetch(`http://127.0.0.1:${servers[0]!.port}/v4/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: 'painter', password: PASSWORD, client_id: apiKey, client_secret: apiSecret }),
    });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const generate = (server: Server, prompt: string) =>
      fetch(`http://127.0.0.1:${server.port}/v3/ai/image-generations`, {
        method: 'POST',
        headers: { 'api-key': apiKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt, seed: 7 }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as { generation_request_id: string } }));

    const store: Database = await openDatabase({ url: database.url });
    cleanups.push(() => store.close());
    const requests = () => store.db.selectFrom('generation_requests').select(['id', 'prompt', 'status', 'attempts', 'claimed_by', 'charge']).execute();
    const charges = async () =>
      (await store.db.selectFrom('download_ledger').select(['generation_request_id', 'amount', 'reason']).where('generation_request_id', 'is not', null).execute()).filter(
        (row) => row.reason === 'generation',
      );

    // 30 jobs queued at once, every other one through the other node.
    const prompts = Array.from({ length: 30 }, (_, n) => `picture number ${n}`);
    const queued = await Promise.all(prompts.map((prompt, n) => generate(servers[n % 2]!, prompt)));
    expect(queued.map((answer) => answer.status).filter((status) => status !== 202 && status !== 200)).toEqual([]);
    await until('every job done', async () => ((await requests()).every((row) => row.status === 'done') ? true : undefined), 60_000);
    const calls = a1111.calls.filter((call) => call.endpoint === 'txt2img').map((call) => String(call.body.prompt));
    expect(calls.sort()).toEqual([...prompts].sort());
    expect((await requests()).every((row) => row.attempts === 1)).toBe(true);
    // Both nodes took their share.
    expect(new Set((await requests()).map((row) => servers.findIndex((server) => row.claimed_by?.includes(`-${server.child.pid}-`))))).toEqual(new Set([0, 1]));
    const charged = await charges();
    expect(charged).toHaveLength(30);
    expect(new Set(charged.map((row) => row.generation_request_id)).size).toBe(30);
    const results = await store.db.selectFrom('generation_results').select(['request_id']).execute();
    expect(results).toHaveLength(30 * 4);

    // A slow job: the node that runs it is killed mid-run, and the other one takes it over once the lease lapses.
    const slow = await generate(servers[0]!, 'a slow picture');
    expect(slow.status).toBe(202);
    const running = await until(
      'the slow job to be claimed',
      async () => (await requests()).find((row) => row.id === slow.body.generation_request_id && row.status === 'running' && row.claimed_by !== null),
      10_000,
    );
    const victim = servers.find((server) => running.claimed_by!.includes(`-${server.child.pid}-`))!;
    const survivor = servers.find((server) => server !== victim)!;
    await until('the engine to be asked', async () => (a1111.calls.some((call) => String(call.body.prompt).includes('slow')) ? true : undefined), 5_000);
    await stop(victim, 'SIGKILL');
    const done = await until(
      'the other node to finish the slow job',
      async () => (await requests()).find((row) => row.id === slow.body.generation_request_id && row.status === 'done'),
      30_000,
    );
    expect(done.attempts).toBe(2);
    expect(a1111.calls.filter((call) => String(call.body.prompt).includes('slow'))).toHaveLength(2);
    expect((await charges()).filter((row) => row.generation_request_id === slow.body.generation_request_id)).toHaveLength(1);
    expect(await store.db.selectFrom('generation_results').select('request_id').where('request_id', '=', slow.body.generation_request_id).execute()).toHaveLength(4);
    const polled = await fetch(`http://127.0.0.1:${survivor.port}/v3/ai/image-generations/${slow.body.generation_request_id}`, {
      headers: { 'api-key': apiKey, authorization: `Bearer ${token}` },
    });
    expect(polled.status).toBe(200);
    const products = (await (await fetch(`http://127.0.0.1:${survivor.port}/v3/products`, { headers: { 'api-key': apiKey, authorization: `Bearer ${token}` } })).json()) as {
      products: Array<{ id: number; downloads_remaining: number | null }>;
    };
    expect(products.products.find((item) => item.id === product.id)?.downloads_remaining).toBe(100 - 31);
  });
});
