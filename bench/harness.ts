import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { DEFAULT_DEMO } from '../src/catalog/demo/demo-catalog.js';
import { SMOKE } from './sizes.js';

/** The demo catalogue the benchmarks seed: the default one, or (in a smoke run) one of 36 images, enough for a batch of 30 ids. */
export const BENCH_DEMO = SMOKE ? { images: 36, videos: 3, events: 2 } : DEFAULT_DEMO;

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  paths: readonly string[];
  headers?: Record<string, string>;
  seconds: number;
  connections: number;
  /** default GET */
  method?: 'GET' | 'POST';
  /** 'random' (default): any path each time; 'once': each path in turn, so that none repeats while there are enough */
  order?: 'random' | 'once';
}

/** Drives one server with autocannon, rotating over the given paths; a short warm-up first. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  let next = 0;
  const pick =
    options.order === 'once'
      ? () => options.paths[next++ % options.paths.length]!
      : () => options.paths[Math.floor(Math.random() * options.paths.length)]!;
  const run = (seconds: number) =>
    autocannon({
      url: options.url,
      connections: options.connections,
      pipelining: 1,
      duration: seconds,
      method: options.method ?? 'GET',
      headers: options.headers,
      requests: [
        {
          setupRequest: (request) => {
            request.path = pick();
            return request;
          },
        },
      ],
    });
  // (a smoke run only proves that the load runs: no warm-up)
  if (!SMOKE) await run(2);
  const result = await run(options.seconds);
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/**
 * Starts a server process with its output discarded (so that reading its request log costs
 * the load generator nothing) and waits until it answers HTTP at `probeUrl`.
 */
export async function startServer(command: string, args: readonly string[], env: NodeJS.ProcessEnv, probeUrl: string): Promise<ChildProcess> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  // Generous: the server builds its search index before it listens, and a store of some hundred
  // thousand assets on a busy two-core machine takes minutes; a server that fails exits anyway.
  const deadline = Date.now() + 600_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    try {
      await fetch(probeUrl);
      return child;
    } catch {
      if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not start in time`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Starts a process and waits for the first stdout line that `ready` accepts. */
export function startProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  ready: (line: string) => boolean,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = readline.createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in time`)), 120_000);
    lines.on('line', (line) => {
      if (ready(line)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A fresh data folder, a free port and the environment of a `stockroom serve` on them: no demo
 * seeding (the benchmark writes its own catalogue), listening on loopback only.
 */
export async function serverEnvironment(
  name: string,
  settings: Record<string, string> = {},
): Promise<{ dataDir: string; port: number; env: NodeJS.ProcessEnv }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `stockroom-bench-${name}-`));
  const port = await freePort();
  const env = {
    ...process.env,
    STOCKROOM_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    STOCKROOM_SEED_DEMO: 'false',
    ...settings,
  };
  return { dataDir, port, env };
}

/**
 * On Ctrl-C or SIGTERM mid-run: kills the run's server processes, removes its temporary folder
 * and exits 130, so that an interrupted benchmark leaves no server and no gigabytes behind.
 * Returns what takes the handler away again, for the run's own end.
 */
export function cleanUpOnInterrupt(tempDir: string, children: Iterable<ChildProcess> = []): () => void {
  const interrupted = () => {
    for (const child of children) child.kill('SIGKILL');
    fs.rmSync(tempDir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  return () => {
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
  };
}
