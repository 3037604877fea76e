import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServices } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { addAssets, creativeImageFields, creativeVideoFields, fakeDeliveryUri, insertUser } from '../licensing/licensing-fixtures.js';

// Each test runs the real command several times, each a process that loads the whole app: a
// hang guard for a loaded machine, not a measure.
vi.setConfig({ testTimeout: 120_000 });

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');

interface Failure {
  code: number;
  stderr: string;
}

/*
 * `stockroom report usage` on a known data set: purchases and usage batches made through the
 * services at known times, then the command run as an operator would.
 */
describe('stockroom report usage', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let alpha: number;
  let beta: number;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-cli-report-'));
    env = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' };
    const clock = { now: new Date('2024-03-05T10:00:00Z') };
    const config = loadConfig({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' });
    const services = await createServices(config, { clock: () => clock.now, deliveryUri: fakeDeliveryUri });
    try {
      await addAssets(services, 'image', ['i1', 'i2'], creativeImageFields({ artist: 'Ada Lens' }));
      await addAssets(services, 'image', ['i3'], creativeImageFields({ artist: 'Frame, Bo' }));
      await addAssets(services, 'image', ['i4'], creativeImageFields());
      await addAssets(services, 'video', ['v1'], creativeVideoFields({ artist: 'Ada Lens' }));
      alpha = (await services.clients.create({ name: 'Alpha app', usageReporting: true })).client.id;
      beta = (await services.clients.create({ name: '=Beta, app', usageReporting: true })).client.id;
      const userId = await insertUser(services.database.db);
      await services.products.grant({ userId, type: 'creditpack', credits: 100 });
      const grant = (clientId: number) => ({ clientId, userId, issuedAt: clock.now });
      const buy = (clientId: number, assetId: string) =>
        services.downloads.download({ grant: grant(clientId), assetType: 'image', assetId, useTeamCredits: false });
      await buy(alpha, 'i1');
      await buy(alpha, 'i2');
      await buy(beta, 'i3');
      // Again under the same product: free, no purchase.
      await buy(alpha, 'i1');
      clock.now = new Date('2024-04-02T10:00:00Z');
      // After the window.
      await buy(alpha, 'i4');
      const usage = (asset_id: string, quantity: number, usage_date: string) => ({ asset_id, quantity, usage_date });
      await services.usage.report({
        grant: grant(alpha),
        transactionId: 'alpha-1',
        body: { asset_usages: [usage('i1', 3, '2024-03-09'), usage('i1', 2, '10 March 2024'), usage('i3', 5, '2024-03-31T23:00:00Z'), usage('i2', 1, '2024-04-01')] },
      });
      await services.usage.report({ grant: grant(beta), transactionId: 'beta-1', body: { asset_usages: [usage('i3', 4, '2024-03-15'), usage('v1', 7, '2024-02-29')] } });
    } finally {
      await services.close();
    }
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const stockroom = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });
  const failure = (...args: string[]) => stockroom(...args).then(() => undefined, (error: Failure) => error);
  const window = ['--from', '2024-03-01', '--to', '2024-03-31'];

  it('per asset (the default), as CSV: licensed downloads beside reported usage, each asset once', async () => {
    const { stdout } = await stockroom('report', 'usage', ...window);
    expect(stdout.split('\r\n')).toEqual([
      'asset_id,asset_type,artist,licensed_downloads,reported_usages,reported_quantity',
      'i1,image,Ada Lens,1,2,5',
      'i2,image,Ada Lens,1,0,0',
      'i3,image,"Frame, Bo",1,2,9',
      '',
    ]);
  });

  it('per artist and per client, as JSON', async () => {
    const byArtist = JSON.parse((await stockroom('report', 'usage', ...window, '--by', 'artist', '--format', 'json')).stdout) as unknown;
    expect(byArtist).toEqual({
      from: '2024-03-01',
      to: '2024-03-31',
      by: 'artist',
      rows: [
        { artist: 'Ada Lens', assets: 2, licensed_downloads: 2, reported_usages: 2, reported_quantity: 5 },
        { artist: 'Frame, Bo', assets: 1, licensed_downloads: 1, reported_usages: 2, reported_quantity: 9 },
      ],
    });
    const byClient = JSON.parse((await stockroom('report', 'usage', ...window, '--by', 'client', '--format', 'json')).stdout) as { rows: unknown };
    expect(byClient.rows).toEqual([
      { client_id: alpha, client_name: 'Alpha app', licensed_downloads: 2, reported_usages: 3, reported_quantity: 10 },
      { client_id: beta, client_name: '=Beta, app', licensed_downloads: 1, reported_usages: 1, reported_quantity: 4 },
    ]);
  });

  it('keeps a name a spreadsheet would run as a formula as text in CSV', async () => {
    const { stdout } = await stockroom('report', 'usage', ...window, '--by', 'client');
    expect(stdout).toContain(`${beta},"'=Beta, app",1,1,4`);
  });

  it('counts a whole window: February and April bring the rest', async () => {
    const { stdout } = await stockroom('report', 'usage', '--from', '2024-02-01', '--to', '2024-04-30', '--by', 'artist', '--format', 'json');
    const rows = (JSON.parse(stdout) as { rows: unknown[] }).rows;
    expect(rows).toEqual([
      { artist: 'Ada Lens', assets: 3, licensed_downloads: 2, reported_usages: 4, reported_quantity: 13 },
      { artist: 'Frame, Bo', assets: 1, licensed_downloads: 1, reported_usages: 2, reported_quantity: 9 },
      // i4 names no artist.
      { artist: null, assets: 1, licensed_downloads: 1, reported_usages: 0, reported_quantity: 0 },
    ]);
  });

  it('refuses a day that is not one, a window that ends before it starts, and an unknown grouping', async () => {
    expect((await failure('report', 'usage', '--from', '2024-02-30', '--to', '2024-03-31'))?.stderr).toContain('YYYY-MM-DD');
    expect((await failure('report', 'usage', '--from', '2024-04-01', '--to', '2024-03-01'))?.stderr).toContain('is after --to');
    expect((await failure('report', 'usage', ...window, '--by', 'week'))?.stderr).toContain('asset, artist, client, day, month');
    expect((await failure('report', 'usage', '--from', '2000-01-01', '--to', '2024-12-31', '--by', 'day'))?.stderr).toContain('at most 3660 days');
  });

  it('per month and per day: every period of the window in order, those without sales too', async () => {
    const byMonth = JSON.parse((await stockroom('report', 'usage', '--from', '2024-02-01', '--to', '2024-04-30', '--by', 'month', '--format', 'json')).stdout) as { rows: unknown };
    expect(byMonth.rows).toEqual([
      { period: '2024-02', licensed_downloads: 0, reported_usages: 1, reported_quantity: 7 },
      { period: '2024-03', licensed_downloads: 3, reported_usages: 4, reported_quantity: 14 },
      { period: '2024-04', licensed_downloads: 1, reported_usages: 1, reported_quantity: 1 },
    ]);
    const { stdout } = await stockroom('report', 'usage', ...window, '--by', 'day');
    const lines = stdout.split('\r\n');
    expect(lines[0]).toBe('period,licensed_downloads,reported_usages,reported_quantity');
    // A header, 31 days, and the empty string after the last line's end.
    expect(lines).toHaveLength(33);
    expect(lines.filter((line) => !line.endsWith(',0,0,0')).slice(1, -1)).toEqual([
      '2024-03-05,3,0,0',
      '2024-03-09,0,1,3',
      '2024-03-10,0,1,2',
      '2024-03-15,0,1,4',
      '2024-03-31,0,1,5',
    ]);
  });
});

describe('stockroom admin client: usage reporting and order metadata', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-cli-flags-'));
    env = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' };
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const stockroom = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });
  const listed = async () =>
    (JSON.parse((await stockroom('admin', 'client', 'list', '--json')).stdout) as { clients: Array<{ id: number; usage_reporting: boolean; order_metadata: boolean }> }).clients;

  it('creates a client enabled for them, changes them on an existing one, and lists them', async () => {
    const created = await stockroom('admin', 'client', 'create', '--name', 'Partner DAM', '--usage-reporting');
    expect(created.stdout).toContain('Enabled for: usage reporting');
    const plain = await stockroom('admin', 'client', 'create', '--name', 'Plain', '--json');
    const key = (JSON.parse(plain.stdout) as { api_key: string }).api_key;
    expect((await listed()).map((c) => [c.usage_reporting, c.order_metadata])).toEqual([
      [true, false],
      [false, false],
    ]);

    expect((await stockroom('admin', 'client', 'set', key, '--order-metadata', 'yes', '--usage-reporting', 'yes')).stdout).toContain(
      'enabled for: usage reporting, order metadata',
    );
    expect((await stockroom('admin', 'client', 'set', '1', '--usage-reporting', 'no')).stdout).toContain('enabled for: none');
    expect((await listed()).map((c) => [c.usage_reporting, c.order_metadata])).toEqual([
      [false, false],
      [true, true],
    ]);
    expect((await stockroom('admin', 'client', 'list')).stdout).toContain('enabled for: usage reporting, order metadata');

    const unknown = await stockroom('admin', 'client', 'set', '99', '--order-metadata', 'yes').then(() => undefined, (error: Failure) => error);
    expect(unknown?.stderr).toContain('no client has the id 99');
    const nothing = await stockroom('admin', 'client', 'set', '1').then(() => undefined, (error: Failure) => error);
    expect(nothing?.stderr).toContain('--usage-reporting yes|no');
    const bad = await stockroom('admin', 'client', 'set', '1', '--order-metadata', 'maybe').then(() => undefined, (error: Failure) => error);
    expect(bad?.stderr).toContain('must be yes or no');
  });
});
