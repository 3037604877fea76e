import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, freshPostgresDatabase, processScratch, serve, stop } from '../helpers/server-processes.js';
import { POSTGRES_URL } from '../helpers/test-store.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import type { ChangeSet } from './asset-changes-fixtures.js';

/*
 * Consumers of one channel on two `stockroom serve` processes sharing PostgreSQL, while an
 * ingest adds to the catalogue: every notice is handed out in exactly one change set, a set is
 * the same wherever it is handed out, and none is handed out once its confirmation has returned.
 * The client, the channel and the catalogue are made with the CLI, as an operator would.
 */

const run = promisify(execFile);

const { cleanups, tempDir } = processScratch('stockroom-changes-');

/** A manifest of creative images, all standing on one small file. */
function manifest(dir: string, name: string, ids: readonly string[]): string {
  const file = path.join(dir, name);
  const line = (id: string) => JSON.stringify({ asset_type: 'image', id, file: 'one.jpg', title: `Asset ${id}`, asset_family: 'creative', license_model: 'royaltyfree' });
  fs.writeFileSync(file, `${ids.map(line).join('\n')}\n`);
  return file;
}

describe.skipIf(!POSTGRES_URL)('change-set consumers on two server processes sharing one PostgreSQL', () => {
  it('rule: every notice is handed out in exactly one set, a set is the same on both nodes, and none comes back once confirmed', async () => {
    const database = await freshPostgresDatabase(POSTGRES_URL!, 'stockroom_changes');
    cleanups.push(() => database.drop());
    const dataDir = tempDir();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      STOCKROOM_SEED_DEMO: 'false',
      STOCKROOM_SEARCH_SNAPSHOT: 'false',
      STOCKROOM_LOG_LEVEL: 'warn',
      REDIS_URL: '',
      DATABASE_URL: database.url,
      STOCKROOM_DATA_DIR: dataDir,
    };
    const cli = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env })).stdout;

    const { api_key: apiKey, api_secret: apiSecret } = JSON.parse(
      await cli('admin', 'client', 'create', '--name', 'Partner', '--grants', 'client_credentials', '--qps', '100000', '--per-day', '10000000', '--json'),
    ) as { api_key: string; api_secret: string };
    const channel = JSON.parse(await cli('admin', 'channel', 'create', '--client', apiKey, '--asset-family', 'creative', '--asset-type', 'image', '--json')) as {
      id: number;
      asset_family: string;
    };
    expect(channel.asset_family).toBe('creative');
    expect(JSON.parse(await cli('admin', 'channel', 'list', '--client', apiKey, '--json'))).toEqual({ channels: [expect.objectContaining({ id: channel.id })] });

    fs.writeFileSync(path.join(dataDir, 'one.jpg'), await makeJpeg(8, 6));
    const first = Array.from({ length: 300 }, (_, n) => `first${n}`);
    const later = Array.from({ length: 150 }, (_, n) => `later${n}`);
    expect(await cli('ingest', manifest(dataDir, 'first.jsonl', first), '--media', dataDir)).toContain('300 inserted');

    const servers = await Promise.all([serve(env, tempDir()), serve(env, tempDir())]);
    for (const server of servers) cleanups.push(() => stop(server));
    const tokenResponse = await fetch(`http://127.0.0.1:${servers[0]!.port}/v4/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: apiKey, client_secret: apiSecret }),
    });
    expect(tokenResponse.status).toBe(200);
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const headers = { 'api-key': apiKey, authorization: `Bearer ${token}` };

    /** Every hand-out: when it was sent, and what it answered. */
    const handOuts: Array<{ sentAt: number; set: ChangeSet | undefined }> = [];
    /** When each set's first confirmation had returned. */
    const confirmedAt = new Map<string, number>();
    let ingesting = true;

    const consumer = async (port: number) => {
      for (;;) {
        const sentAt = performance.now();
        const response = await fetch(`http://127.0.0.1:${port}/v3/asset-changes/change-sets?channel_id=${channel.id}&batch_size=37`, { method: 'PUT', headers });
        expect([200, 201]).toContain(response.status);
        const text = await response.text();
        const set = text === '' ? undefined : (JSON.parse(text) as ChangeSet);
        handOuts.push({ sentAt, set });
        if (!set) {
          if (!ingesting) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        const confirmation = await fetch(`http://127.0.0.1:${port}/v3/asset-changes/change-sets/${set.change_set_id}`, { method: 'DELETE', headers });
        expect(confirmation.status).toBe(200);
        if (!confirmedAt.has(set.change_set_id)) confirmedAt.set(set.change_set_id, performance.now());
      }
    };
    const ingest = cli('ingest', manifest(dataDir, 'later.jsonl', later), '--media', dataDir).finally(() => (ingesting = false));
    await Promise.all([consumer(servers[0]!.port), consumer(servers[1]!.port), consumer(servers[0]!.port), consumer(servers[1]!.port), ingest]);

    const sets = new Map<string, string[]>();
    for (const { sentAt, set } of handOuts) {
      if (!set) continue;
      const ids = set.changed_assets.map((notice) => `${notice.asset_lifecycle} ${notice.id}`);
      const earlier = sets.get(set.change_set_id);
      if (earlier) expect(ids).toEqual(earlier);
      sets.set(set.change_set_id, ids);
      const confirmed = confirmedAt.get(set.change_set_id);
      // A hand-out asked for after the set's confirmation had returned never gets that set.
      if (confirmed !== undefined) expect(sentAt).toBeLessThan(confirmed);
    }
    const notices = [...sets.values()].flat();
    expect(notices).toHaveLength(first.length + later.length);
    expect(new Set(notices)).toEqual(new Set([...first, ...later].map((id) => `New ${id}`)));
    expect([...sets.values()].every((ids) => ids.length <= 37)).toBe(true);
  }, 180_000);
});
