import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, processScratch, serve, type Server } from '../helpers/server-processes.js';
import { freePort } from '../helpers/network.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';

/*
 * SIGTERM on a real `stockroom serve`: it stops accepting, lets a slow request in flight finish,
 * writes the search snapshot, closes, exits 0 — one log line a step; and a request that outlasts
 * STOCKROOM_SHUTDOWN_TIMEOUT loses its connection instead of holding the process.
 */

const run = promisify(execFile);
const scratch = processScratch('stockroom-shutdown-');

/** Every line the server prints from now on (pino's JSON lines, parsed; other lines skipped). */
function logLines(server: Server): () => Array<{ msg: string; [field: string]: unknown }> {
  const lines: Array<{ msg: string }> = [];
  let partial = '';
  server.child.stdout.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const complete = text.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as { msg: string });
      } catch {
        // A line of the banner, not a log line.
      }
    }
  });
  return () => lines;
}

/** A POST whose body arrives in two parts: the first now, the second when `finish` is called. */
async function slowRequest(port: number): Promise<{ finish(): void; response: Promise<string>; socket: net.Socket }> {
  const body = 'grant_type=password&username=nobody&password=wrong-password&client_id=none';
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const response = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  socket.write(
    `POST /v4/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
  );
  return { finish: () => socket.write(body.slice(10)), response, socket };
}

const connectionRefused = (port: number) =>
  new Promise<string>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

const exitCode = (server: Server) => new Promise<number | null>((resolve) => (server.child.exitCode !== null ? resolve(server.child.exitCode) : server.child.once('exit', (code) => resolve(code))));

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('stockroom serve stops cleanly on SIGTERM', () => {
  const env = (extra: Record<string, string> = {}) => ({ ...process.env, STOCKROOM_SEED_DEMO: 'false', STOCKROOM_LOG_LEVEL: 'info', DATABASE_URL: '', REDIS_URL: '', ...extra });

  it('rule: stops accepting, finishes the slow request in flight, writes the snapshot with the change it read, closes, exits 0; a line a step', async () => {
    const dataDir = scratch.tempDir();
    const server = await serve(env(), dataDir);
    scratch.cleanups.push(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.exited;
    });
    const logs = logLines(server);
    // A write the node reads from the change log after it built its index: the snapshot at
    // shutdown must hold it.
    fs.writeFileSync(path.join(dataDir, 'one.jpg'), await makeJpeg(8, 6));
    fs.writeFileSync(path.join(dataDir, 'one.jsonl'), `${JSON.stringify({ asset_type: 'image', id: 'shutdown1', file: 'one.jpg', title: 'Written before the shutdown' })}\n`);
    await run(process.execPath, [CLI, 'ingest', path.join(dataDir, 'one.jsonl'), '--media', dataDir], { env: { ...env(), STOCKROOM_DATA_DIR: dataDir } });
    const snapshot = path.join(dataDir, 'search', 'index.snapshot');
    const snapshotBefore = fs.statSync(snapshot).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const slow = await slowRequest(server.port);
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill('SIGTERM');
    await until(() => logs().some((line) => line.msg.startsWith('shutdown: no longer accepting')), 'the first shutdown line');
    expect(await connectionRefused(server.port)).toBe('ECONNREFUSED');
    // The slow request is still being served: the process waits for it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.child.exitCode).toBeNull();
    slow.finish();
    const answer = await slow.response;
    expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(answer).toMatch(/connection: close/i);
    expect(await exitCode(server)).toBe(0);

    const steps = logs().map((line) => line.msg).filter((msg) => msg.startsWith('shutdown:'));
    expect(steps).toEqual([
      'shutdown: no longer accepting connections; finishing the requests in flight',
      'shutdown: requests in flight finished',
      'shutdown: search index snapshot saved',
      // No REDIS_URL here: the line names only what there was to close.
      'shutdown: modules and store closed; exiting',
    ]);
    expect(logs().find((line) => line.msg.startsWith('shutdown: no longer'))).toMatchObject({ signal: 'SIGTERM', in_flight: 1 });
    expect(logs().find((line) => line.msg === 'shutdown: search index snapshot saved')).toMatchObject({ assets: 1 });
    expect(fs.statSync(snapshot).mtimeMs).toBeGreaterThan(snapshotBefore);
  }, 120_000);

  it('rule: a request that outlasts STOCKROOM_SHUTDOWN_TIMEOUT loses its connection, and the process still exits 0 in bounded time', async () => {
    const dataDir = scratch.tempDir();
    const server = await serve(env({ STOCKROOM_SHUTDOWN_TIMEOUT: '1' }), dataDir);
    scratch.cleanups.push(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.exited;
    });
    const logs = logLines(server);
    const stuck = await slowRequest(server.port);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await exitCode(server)).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(5000);
    expect(await stuck.response).toBe('');
    expect(logs().find((line) => line.msg.startsWith('shutdown: requests still in flight'))).toMatchObject({ in_flight: 1, seconds: 1 });
  }, 120_000);

  it('rule: STOCKROOM_METRICS_PORT serves /metrics on a port of its own, with the process metrics; the API port has none', async () => {
    const dataDir = scratch.tempDir();
    const metricsPort = await freePort();
    const server = await serve(env({ STOCKROOM_METRICS_PORT: String(metricsPort) }), dataDir);
    scratch.cleanups.push(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGTERM');
      await server.exited;
    });
    await fetch(`http://127.0.0.1:${server.port}/readyz`);
    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    expect(text).toContain('stockroom_process_resident_memory_bytes');
    expect(text).toMatch(/stockroom_http_request_duration_seconds_count\{method="GET",route="\/readyz",status="200"\} 1/);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).toBe(404);
  }, 120_000);
});
