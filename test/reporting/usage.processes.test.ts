import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { CLI, freshPostgresDatabase, processScratch, serve, stop } from '../helpers/server-processes.js';
import { POSTGRES_URL } from '../helpers/test-store.js';

/*
 * One transaction id, two nodes, many copies at once: one batch is stored, whole, and every other
 * copy is 409 — with two `stockroom serve` processes sharing one PostgreSQL, set up with the CLI.
 */

const run = promisify(execFile);
const PASSWORD = 'correct horse battery';

const { cleanups, tempDir } = processScratch('stockroom-usage-');

describe.skipIf(!POSTGRES_URL)('usage batches on two server processes sharing one PostgreSQL', () => {
  it('copies of one batch sent to both nodes at once: exactly one is stored, every other is 409 TransactionIdDuplicated', async () => {
    const database = await freshPostgresDatabase(POSTGRES_URL!, 'stockroom_usage');
    cleanups.push(() => database.drop());
    const env = {
      ...process.env,
      STOCKROOM_SEED_DEMO: 'false',
      STOCKROOM_SEARCH_SNAPSHOT: 'false',
      STOCKROOM_LOG_LEVEL: 'warn',
      REDIS_URL: '',
      DATABASE_URL: database.url,
    };
    const dataDir = tempDir();
    const cli = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env: { ...env, STOCKROOM_DATA_DIR: dataDir } })).stdout;
    const { api_key: apiKey, api_secret: apiSecret } = JSON.parse(
      await cli('admin', 'client', 'create', '--name', 'Partner DAM', '--grants', 'password', '--qps', '100000', '--usage-reporting', '--json'),
    ) as { api_key: string; api_secret: string };
    await cli('admin', 'user', 'create', '--username', 'reporter', '--password', PASSWORD);
    fs.writeFileSync(path.join(dataDir, 'used.jpg'), await makeJpeg(8, 6));
    const ids = Array.from({ length: 50 }, (_, n) => `used${n}`);
    const line = (id: string) => JSON.stringify({ asset_type: 'image', id, file: 'used.jpg', title: `Used ${id}`, asset_family: 'creative' });
    fs.writeFileSync(path.join(dataDir, 'assets.jsonl'), `${ids.map(line).join('\n')}\n`);
    expect(await cli('ingest', path.join(dataDir, 'assets.jsonl'), '--media', dataDir)).toContain('50 inserted');

    const servers = await Promise.all([serve(env, tempDir()), serve(env, tempDir())]);
    for (const server of servers) cleanups.push(() => stop(server));
    const tokenResponse = await fetch(`http://127.0.0.1:${servers[0]!.port}/v4/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: 'reporter', password: PASSWORD, client_id: apiKey, client_secret: apiSecret }),
    });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const put = (node: number, transactionId: string, quantity: number) =>
      fetch(`http://127.0.0.1:${servers[node % 2]!.port}/v3/usage-batches/${transactionId}`, {
        method: 'PUT',
        headers: { 'api-key': apiKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ asset_usages: ids.map((id) => ({ asset_id: id, quantity, usage_date: '2024-03-09' })) }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as { code?: string } }));

    // 30 copies of each of 5 batches, every other copy to the other node, all at once.
    const answers = await Promise.all(Array.from({ length: 150 }, (_, n) => put(n, `tx-${n % 5}`, 1 + (n % 30))));
    for (let batch = 0; batch < 5; batch++) {
      const copies = answers.filter((_, n) => n % 5 === batch);
      expect(copies.filter((answer) => answer.status === 201)).toHaveLength(1);
      expect(copies.filter((answer) => answer.status === 409).map((answer) => answer.body.code)).toEqual(Array(29).fill('TransactionIdDuplicated'));
    }

    const store = await openDatabase({ url: database.url });
    try {
      const batches = await store.db.selectFrom('usage_batches').select(['id', 'transaction_id', 'usage_count']).execute();
      expect(batches.map((batch) => batch.transaction_id).sort()).toEqual(['tx-0', 'tx-1', 'tx-2', 'tx-3', 'tx-4']);
      for (const batch of batches) {
        const rows = await store.db.selectFrom('asset_usages').select(['quantity']).where('batch_id', '=', batch.id).execute();
        // Whole, and of one copy only: one quantity throughout.
        expect(rows).toHaveLength(50);
        expect(new Set(rows.map((row) => row.quantity)).size).toBe(1);
      }
    } finally {
      await store.close();
    }
  }, 180_000);
});
