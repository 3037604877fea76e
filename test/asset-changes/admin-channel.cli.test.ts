import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');

interface Failure {
  code: number;
  stderr: string;
}

/** `stockroom admin channel` against a SQLite store of its own: create (by key or id), list, delete, and what it refuses. */
describe('stockroom admin channel', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let apiKey: string;
  let clientId: number;
  const stockroom = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });
  const failure = (...args: string[]) => stockroom(...args).then(() => undefined, (error: Failure) => error);

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-cli-channels-'));
    env = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' };
    apiKey = (JSON.parse((await stockroom('admin', 'client', 'create', '--name', 'Partner', '--json')).stdout) as { api_key: string }).api_key;
    clientId = (JSON.parse((await stockroom('admin', 'client', 'list', '--json')).stdout) as { clients: Array<{ id: number }> }).clients[0]!.id;
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rule: creates channels for a client named by key or id, lists them, deletes one; refuses an unknown client, family, type or channel', async () => {
    const byKey = JSON.parse((await stockroom('admin', 'channel', 'create', '--client', apiKey, '--asset-family', 'Creative', '--asset-type', 'video', '--metadata', 'main', '--json')).stdout);
    expect(byKey).toMatchObject({ client_id: clientId, asset_family: 'creative', asset_type: 'film', metadata: 'main' });
    expect((await stockroom('admin', 'channel', 'create', '--client', String(clientId), '--asset-family', 'both', '--asset-type', 'image')).stdout).toMatch(
      /^Created channel \d+ \(both image\) for client \d+ “Partner”\.\n$/,
    );
    const listed = JSON.parse((await stockroom('admin', 'channel', 'list', '--client', apiKey, '--json')).stdout) as { channels: Array<{ id: number }> };
    expect(listed.channels).toHaveLength(2);

    expect((await failure('admin', 'channel', 'create', '--client', apiKey, '--asset-family', 'news', '--asset-type', 'image'))?.stderr).toContain("asset family 'news'");
    expect((await failure('admin', 'channel', 'create', '--client', apiKey, '--asset-family', 'both', '--asset-type', 'music'))?.stderr).toContain("asset type 'music'");
    expect((await failure('admin', 'channel', 'create', '--client', 'unknown-key', '--asset-family', 'both', '--asset-type', 'image'))?.stderr).toContain('no enabled client');

    expect((await stockroom('admin', 'channel', 'delete', String(byKey.id))).stdout).toBe(`Deleted channel ${byKey.id}.\n`);
    const gone = await failure('admin', 'channel', 'delete', String(byKey.id));
    expect(gone?.code).toBe(1);
    expect(gone?.stderr).toContain(`no channel has the id ${byKey.id}`);
    expect((JSON.parse((await stockroom('admin', 'channel', 'list', '--json')).stdout) as { channels: unknown[] }).channels).toHaveLength(1);
  }, 60_000);
});
