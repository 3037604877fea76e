import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../helpers/network.js';

// Each test runs the real command several times, each a process that loads the whole app: a
// hang guard for a loaded machine, not a measure.
vi.setConfig({ testTimeout: 120_000 });

const run = promisify(execFile);

const CLI = path.resolve('bin/stockroom.js');

describe('the stockroom command', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-cli-'));
    env = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' };
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const stockroom = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });

  it('lists its commands in --help', async () => {
    const { stdout } = await stockroom('--help');
    for (const command of ['serve', 'seed-demo', 'ingest', 'admin']) expect(stdout).toContain(command);
  });

  it('prints the version of package.json with --version', async () => {
    const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
    expect((await stockroom('--version')).stdout.trim()).toBe(version);
  });

  it('creates a client and prints its key and secret once as JSON', async () => {
    const { stdout } = await stockroom('admin', 'client', 'create', '--name', 'Partner app', '--qps', '7', '--per-day', '700', '--json');
    const credentials = JSON.parse(stdout);
    expect(credentials).toEqual({ api_key: expect.stringMatching(/^[a-z0-9]{24}$/), api_secret: expect.any(String) });
  });

  it('disables a client by its key and says so; an unknown key is an error', async () => {
    const { stdout } = await stockroom('admin', 'client', 'create', '--name', 'Doomed', '--json');
    const { api_key } = JSON.parse(stdout);
    expect((await stockroom('admin', 'client', 'disable', api_key)).stdout).toContain('Disabled');
    await expect(stockroom('admin', 'client', 'disable', 'no-such-key')).rejects.toMatchObject({ code: 1 });
  });

  it('stops with one line naming a bad setting', async () => {
    const failure = await run(process.execPath, [CLI, 'admin', 'client', 'create', '--name', 'x'], {
      env: { ...env, PORT: 'eighty' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr.trim().split('\n')).toEqual([expect.stringMatching(/^stockroom: PORT must be/)]);
  });

  it.each([
    ['a word that names no host', { HOST: 'not-a-host' }, /^stockroom: HOST must be an IP address .*got 'not-a-host'$/],
    ['an address of another machine', { HOST: '192.0.2.1' }, /^stockroom: HOST: 192\.0\.2\.1 is not an address of this machine$/],
  ])('serve stops with one line naming HOST for %s', async (_case, extra, message) => {
    const failure = await run(process.execPath, [CLI, 'serve'], { env: { ...env, STOCKROOM_SEED_DEMO: 'false', PORT: '0', ...extra } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
  });

  it('serve stops with one line naming PORT, and status 2, when the port is busy', async () => {
    const port = await freePort();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const failure = await run(process.execPath, [CLI, 'serve'], { env: { ...env, STOCKROOM_SEED_DEMO: 'false', HOST: '127.0.0.1', PORT: String(port) } }).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure).toMatchObject({ code: 2 });
      expect((failure as { stderr: string }).stderr.trim().split('\n')).toEqual([`stockroom: PORT: ${port} is in use on 127.0.0.1`]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it.each([
    ['DATABASE_URL', { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }],
    ['STOCKROOM_DATA_DIR', { STOCKROOM_DATA_DIR: path.resolve('package.json') }],
  ])('names %s when the store cannot be opened', async (setting, extra) => {
    const failure = await run(process.execPath, [CLI, 'admin', 'client', 'create', '--name', 'x'], { env: { ...env, ...extra } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^stockroom: ${setting}: `))]);
  });

  it('ingests a manifest: plain progress lines (no control characters) off a terminal, each failure and warning by line, a summary counting them', async () => {
    const manifest = path.join(dataDir, 'manifest.jsonl');
    const lines = [
      { asset_type: 'image', id: 'cli-1', title: 'Licensable', product_types: ['premiumaccess'] },
      { asset_type: 'image', id: 'cli-2', title: 'Nothing licenses me' },
      { asset_type: 'image', id: 'cli-3', titel: 'Typo' },
    ];
    fs.writeFileSync(manifest, lines.map((line) => JSON.stringify(line)).join('\n'));
    const failure = await stockroom('ingest', manifest).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1, stdout: '2 inserted, 0 updated, 1 failed, 1 that no product can license\n' });
    const { stderr } = failure as { stderr: string };
    expect(stderr).not.toContain('\x1b');
    expect(stderr).not.toContain('\r');
    // Lines done of all, and the rate; the first two lines are written together (a batch), the third, refused, alone.
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Ingesting: 2\/3 \(66%\), \d+ lines\/s$/),
      expect.stringMatching(/^Ingesting: 3\/3 \(100%\), \d+ lines\/s$/),
      "line 2: warning: asset 'cli-2' lists no product_types, so no product can license it",
      "line 3: unknown field 'titel' (did you mean 'title'?)",
    ]);
  });

  it('names a missing manifest in one line', async () => {
    const failure = await stockroom('ingest', 'no-such-manifest.jsonl').catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr.trim().split('\n')).toEqual([
      'stockroom: cannot read the manifest no-such-manifest.jsonl: there is no such file',
    ]);
  });

  it('refuses a demo larger than it can plan', async () => {
    await expect(stockroom('seed-demo', '--images', '99999999999')).rejects.toMatchObject({ code: 1 });
  });

  it('refuses a malformed option value', async () => {
    await expect(stockroom('admin', 'client', 'create', '--name', 'x', '--qps', 'many')).rejects.toMatchObject({ code: 1 });
  });
});

describe('stockroom serve on an empty store', () => {
  /** Starts serve and waits for its banner (the line 'Try:' comes after the demo's credentials). */
  const startServe = async (dataDir: string, port: number) => {
    const child = spawn(process.execPath, [CLI, 'serve'], {
      env: { ...process.env, STOCKROOM_DATA_DIR: dataDir, PORT: String(port), STOCKROOM_LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const started = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Try:')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
    });
    const stop = async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    };
    try {
      await started;
    } catch (error) {
      await stop();
      throw error;
    }
    return { output: () => output, stop };
  };

  it('seeds the demo, prints the base URL and demo credentials once, and the printed key works', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-serve-'));
    const port = await freePort();
    let server: Awaited<ReturnType<typeof startServe>> | undefined;
    try {
      server = await startServe(dataDir, port);
      const output = server.output();
      const key = /demo API key:\s+(\S+)/.exec(output)?.[1];
      expect(key).toBeDefined();
      expect(output).toMatch(/demo API secret:\s+\S+/);
      expect(output).toMatch(/demo user:\s+\S+ \/ \S+/);
      expect(output).toContain(`serving the Stock Media Licensing API v3 at http://127.0.0.1:${port}/v3`);
      const response = await fetch(`http://127.0.0.1:${port}/v3/images?ids=1000001,1000002&fields=title,thumb`, {
        headers: { 'api-key': key! },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { images: Array<{ title: string; display_sizes: Array<{ uri: string }> }> };
      expect(body.images).toHaveLength(2);
      const thumb = await fetch(body.images[0]!.display_sizes[0]!.uri);
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toBe('image/jpeg');

      // The printed token request works as printed: the demo application may use the password grant.
      const curl = /curl -u '([^:']+):([^']+)' -d grant_type=password -d username=(\S+) -d 'password=([^']+)' '([^']+)'/.exec(output);
      expect(curl?.[1]).toBe(key);
      const tokenResponse = await fetch(curl![5]!, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${curl![1]}:${curl![2]}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'password', username: curl![3]!, password: curl![4]! }),
      });
      expect(tokenResponse.status).toBe(200);
      const { access_token: accessToken } = (await tokenResponse.json()) as { access_token: string };
      const withToken = await fetch(`http://127.0.0.1:${port}/v3/images/1000001?fields=download_sizes`, {
        headers: { 'api-key': key!, authorization: `Bearer ${accessToken}` },
      });
      expect(withToken.status).toBe(200);
      const signIn = /^\s+(http\S+\/oauth2\/auth\?\S+)$/m.exec(output)?.[1];
      const page = await fetch(signIn!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<form');

      // The plain credentials are kept in the data folder, for its owner's eyes only.
      const file = path.join(dataDir, 'demo-access.json');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { api_key: string; api_secret: string; username: string; password: string; admin_username: string; admin_password: string };
      // The demo's administrator of the back office, printed once in the banner too.
      const admin = /demo admin:\s+(\S+) \/ (\S+) \(signs in to the back office/.exec(output);
      expect(admin?.[1]).toBe('demo-admin');
      expect(kept).toEqual({ api_key: key, api_secret: curl![2], username: curl![3], password: curl![4], admin_username: 'demo-admin', admin_password: admin![2] });
      await server.stop();

      // A later start prints the key and where the secret and password are, never them.
      fs.chmodSync(file, 0o644);
      server = await startServe(dataDir, port);
      const later = server.output();
      expect(later).toContain(`serving the Stock Media Licensing API v3 at http://127.0.0.1:${port}/v3`);
      expect(/demo API key:\s+(\S+)/.exec(later)?.[1]).toBe(key);
      expect(later).toContain(`the demo API secret and the demo user's password are in ${file}`);
      expect(later).not.toContain(kept.api_secret);
      expect(later).not.toContain(kept.password);
      expect(later).toContain(`curl -u '${key}:<api_secret>'`);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await server?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    // The first start seeds the whole demo (real pictures and clips, two in 4K, EPS files, the
    // nudity classifier, each original's display files): a minute or more of one core. This
    // bound only catches a hang; it measures nothing.
  }, 420_000);
});
