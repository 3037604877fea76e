import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach } from 'vitest';
import { freePort } from './network.js';

/** Real `stockroom serve` processes over one store, for tests of what several nodes do at once. */

export const CLI = path.resolve('bin/stockroom.js');

/**
 * What a process test leaves behind — servers, databases, temporary folders — undone after each
 * test, the last made first (a server stops before its folder goes). Call once, at the top of a
 * test file.
 */
export function processScratch(prefix: string): { cleanups: Array<() => Promise<void>>; tempDir(): string } {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    tempDir() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
  };
}

/** A database of its own on the test PostgreSQL server, dropped afterwards. */
export async function freshPostgresDatabase(serverUrl: string, prefix = 'stockroom_nodes'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface Server {
  port: number;
  child: ChildProcessWithoutNullStreams;
  exited: Promise<void>;
}

/** `stockroom serve`, once it says it is serving. */
export async function serve(env: NodeJS.ProcessEnv, dataDir: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...env, STOCKROOM_DATA_DIR: dataDir, PORT: String(port), STOCKROOM_PUBLIC_URL: `http://127.0.0.1:${port}` },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('serving the Stock Media Licensing API')) resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`serve exited: ${output}`)));
  });
  return { port, child, exited };
}

export async function stop(server: Server, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  await server.exited;
}
