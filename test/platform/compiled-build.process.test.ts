import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../helpers/network.js';
import { processScratch } from '../helpers/server-processes.js';

/*
 * `stockroom` runs the compiled build in dist/ when it is current (no tsx loader thread: about
 * 31 MB of RSS per node, issue 27) and the TypeScript sources through tsx otherwise. These tests
 * work on a copy of the installation in a temporary folder (bin/, src/, package.json,
 * tsconfig.json, node_modules linked), so that building, aging and removing its dist/ touches
 * nothing of the checkout.
 */

const scratch = processScratch('stockroom-compiled-');
const run = promisify(execFile);
let root = '';
const BANNER_DONE = 'back office:';
const COMPILED = 'code:  compiled JavaScript in dist/';
const FROM_SOURCE = 'code:  TypeScript sources through tsx';

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'stockroom-compiled-root-'));
  for (const file of ['bin/stockroom.js', 'bin/build.js', 'bin/build-state.js', 'package.json', 'tsconfig.json']) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.copyFileSync(path.resolve(file), path.join(root, file));
  }
  fs.cpSync(path.resolve('src'), path.join(root, 'src'), { recursive: true });
  fs.symlinkSync(fs.realpathSync('node_modules'), path.join(root, 'node_modules'), 'dir');
  await run(process.execPath, [path.join(root, 'bin/build.js')]);
}, 120_000);

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** `stockroom serve` of the copy on a fresh data folder, once its banner is out. */
async function serveCopy(extra: NodeJS.ProcessEnv = {}): Promise<{ port: number; output: string }> {
  const port = await freePort();
  const dataDir = scratch.tempDir();
  const child = spawn(process.execPath, [path.join(root, 'bin/stockroom.js'), 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      STOCKROOM_DATA_DIR: dataDir,
      PORT: String(port),
      STOCKROOM_PUBLIC_URL: `http://127.0.0.1:${port}`,
      STOCKROOM_LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      REDIS_URL: '',
      STOCKROOM_BLOBS: '',
      STOCKROOM_FROM_SOURCE: '',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  scratch.cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(BANNER_DONE)) resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`serve exited: ${output}`)));
  });
  return { port, output };
}

/** What the copy's bin/build-state.js says of its build. */
function buildIsCurrent(): boolean {
  const script = `const { buildIsCurrent } = await import(${JSON.stringify(path.join(root, 'bin/build-state.js'))}); process.stdout.write(String(buildIsCurrent()));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout === 'true';
}

it('the build compiles every source beside its folder-mates and copies the files the code reads', () => {
  expect(fs.existsSync(path.join(root, 'dist/main.js'))).toBe(true);
  expect(fs.existsSync(path.join(root, 'dist/search/snapshot-builder.js'))).toBe(true);
  // Worker entries the code names as `.js` when not running from source, and files read beside the code.
  expect(fs.existsSync(path.join(root, 'dist/generation/engines/builtin/builtin-worker.js'))).toBe(true);
  expect(fs.existsSync(path.join(root, 'dist/media/nudity-worker.js'))).toBe(true);
  expect(fs.existsSync(path.join(root, 'dist/web/static/web.css'))).toBe(true);
  expect(fs.existsSync(path.join(root, 'dist/generation/engines/comfyui-workflows/generate.json'))).toBe(true);
  expect(fs.readdirSync(path.join(root, 'dist'), { recursive: true }).filter((file) => String(file).endsWith('.ts'))).toEqual([]);
  expect(buildIsCurrent()).toBe(true);
});

it('serve runs the compiled build on a fresh data folder and answers a search', async () => {
  // No demo (its pictures' analysis takes a minute on a busy machine): the compiled CLI ingests
  // one asset and makes a client, then the compiled server finds the asset.
  const dataDir = scratch.tempDir();
  const env = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_SEED_DEMO: 'false', DATABASE_URL: '', REDIS_URL: '', STOCKROOM_BLOBS: '', STOCKROOM_FROM_SOURCE: '' };
  const cli = (...args: string[]) => run(process.execPath, [path.join(root, 'bin/stockroom.js'), ...args], { cwd: root, env });
  const manifest = path.join(dataDir, 'manifest.jsonl');
  fs.writeFileSync(manifest, `${JSON.stringify({ asset_type: 'image', id: 'compiled-1', title: 'Harbour skyline at dusk', product_types: ['premiumaccess'] })}\n`);
  expect((await cli('ingest', manifest)).stdout).toBe('1 inserted, 0 updated, 0 failed\n');
  const { api_key: key } = JSON.parse((await cli('admin', 'client', 'create', '--name', 'Compiled', '--json')).stdout) as { api_key: string };
  const server = await serveCopy({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_SEED_DEMO: 'false' });
  expect(server.output).toContain(COMPILED);
  const response = await fetch(`http://127.0.0.1:${server.port}/v3/search/images?phrase=skyline&fields=id,title`, { headers: { 'api-key': key } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result_count: number; images: Array<{ id: string; title: string }> };
  expect(body.result_count).toBe(1);
  expect(body.images.map((image) => image.id)).toEqual(['compiled-1']);
}, 120_000);

it('a source added or newer than the build makes it stale, and serve falls back to the TypeScript sources', async () => {
  const added = path.join(root, 'src/added-after-the-build.ts');
  fs.writeFileSync(added, 'export {};\n');
  expect(buildIsCurrent()).toBe(false);
  fs.rmSync(added);
  expect(buildIsCurrent()).toBe(true);

  // As a `git pull` leaves a changed file: its time is after the build's newest source.
  const changed = path.join(root, 'src/platform/version.ts');
  const later = new Date(Date.now() + 60_000);
  fs.utimesSync(changed, later, later);
  expect(buildIsCurrent()).toBe(false);
  const server = await serveCopy({ STOCKROOM_SEED_DEMO: 'false' });
  expect(server.output).toContain(FROM_SOURCE);
  expect(server.output).not.toContain(COMPILED);
  const response = await fetch(`http://127.0.0.1:${server.port}/v3/`);
  expect(response.status).toBe(200);

  // A new build makes it current again.
  await run(process.execPath, [path.join(root, 'bin/build.js')]);
  expect(buildIsCurrent()).toBe(true);
}, 120_000);

it('without a build (or one without its stamp, as a build cut short leaves) serve runs the TypeScript sources', async () => {
  fs.rmSync(path.join(root, 'dist/.stockroom-build.json'));
  expect(buildIsCurrent()).toBe(false);
  fs.rmSync(path.join(root, 'dist'), { recursive: true });
  const server = await serveCopy({ STOCKROOM_SEED_DEMO: 'false' });
  expect(server.output).toContain(FROM_SOURCE);
}, 120_000);
