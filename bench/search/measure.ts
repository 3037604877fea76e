import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';

/** Latencies of one engine on one query class, sequential (one client). */
export interface Latency {
  samples: number;
  p50: number;
  p99: number;
  max: number;
  /** 1000 / mean latency: the requests per second of one client asking one after another */
  perSecond: number;
  /** result_count of each search that ran, by its position in the list */
  totals: Map<number, number>;
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function summarize(times: number[], totals: Map<number, number>): Latency {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  return {
    samples: times.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
    perSecond: 1000 / mean,
    totals,
  };
}

export interface RunPlan {
  /** untimed runs first, over the first searches of the list … */
  warmup: number;
  /** … going on (cycling) until this many seconds went by: V8 optimizes hot code only after thousands of calls */
  warmupSeconds: number;
  /** at most this many timed runs, cycling over the list */
  samples: number;
  /** …and stop once this many seconds went by, if at least minSamples were timed */
  seconds: number;
  minSamples: number;
}

/**
 * Runs `run` over the searches one after another (the next starts when the previous answered),
 * timing each. `run` resolves to the search's result_count.
 */
export async function timeSequential<S>(searches: readonly S[], plan: RunPlan, run: (search: S) => number | Promise<number>): Promise<Latency> {
  const warmupEnd = performance.now() + plan.warmupSeconds * 1000;
  for (let i = 0; i < plan.warmup || performance.now() < warmupEnd; i++) await run(searches[i % searches.length]!);
  const times: number[] = [];
  const totals = new Map<number, number>();
  const deadline = performance.now() + plan.seconds * 1000;
  for (let i = 0; i < plan.samples; i++) {
    if (i >= plan.minSamples && performance.now() > deadline) break;
    const search = searches[i % searches.length]!;
    const start = performance.now();
    const total = await run(search);
    times.push(performance.now() - start);
    totals.set(i % searches.length, total);
  }
  return summarize(times, totals);
}


/** Runs the searches one after another, cycling, untimed, until `seconds` went by. */
export async function runUntimed<S>(searches: readonly S[], seconds: number, run: (search: S) => number | Promise<number>): Promise<void> {
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) await run(searches[i % searches.length]!);
}

/**
 * The machine's own noise at the scale of the fastest searches: a fixed computation on a
 * small array (no allocation, nothing beyond the first-level cache) timed as the searches
 * are — whatever spread its p99 shows is the scheduler's and the hardware's, not the code's.
 */
export function fixedWorkLatency(samples: number): { p50: number; p99: number } {
  const values = new Float64Array(1024).fill(1.5);
  let sink = 0;
  for (let i = 0; i < 20 * samples; i++) sink += fixedWork(values);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    sink += fixedWork(values);
    times.push(performance.now() - start);
  }
  if (!(sink > 0)) throw new Error('fixed work: no result');
  const sorted = times.sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

function fixedWork(values: Float64Array): number {
  let sum = 0;
  for (let round = 0; round < 24; round++) for (let i = 0; i < values.length; i++) sum += values[i]! * 1.0001;
  return sum;
}

/** One keep-alive connection, one request at a time: the "one client" of the latency target. */
export class HttpClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly port: number,
    private readonly headers: Record<string, string>,
  ) {}

  get(path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port: this.port, path, headers: this.headers, agent: this.agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      });
      request.on('error', reject);
    });
  }

  /** GET a search and return its result_count; anything but 200 is an error. */
  async search(path: string): Promise<number> {
    const { status, body } = await this.get(path);
    if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${body.slice(0, 300)}`);
    return (JSON.parse(body) as { result_count: number }).result_count;
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * The environment the shipped systemd unit (docs/deploy/stockroom.service) gives a node beyond
 * its settings: glibc's malloc tuning, read by glibc as the process starts, so a node cannot set
 * it for itself. A server the benchmarks measure runs as deployed; the unit is read rather than
 * copied so that the two cannot drift apart.
 */
export function deployedNodeEnvironment(): Record<string, string> {
  const unit = fs.readFileSync(new URL('../../docs/deploy/stockroom.service', import.meta.url), 'utf8');
  const variables: Record<string, string> = {};
  for (const line of unit.split('\n')) {
    const setting = /^Environment=(.*)$/.exec(line.trim());
    if (setting === null) continue;
    for (const pair of setting[1]!.trim().split(/\s+/)) {
      const equals = pair.indexOf('=');
      if (equals > 0) variables[pair.slice(0, equals)] = pair.slice(equals + 1);
    }
  }
  if (Object.keys(variables).length === 0) throw new Error('docs/deploy/stockroom.service sets no Environment= for the node: the benchmark expected its allocator settings there');
  return variables;
}

/** VmRSS and VmHWM (peak) of a process, in bytes; undefined once it is gone. */
export function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** The processes a process started (its children, then theirs), by pid; none once it is gone. */
export function descendantsOf(pid: number): number[] {
  let children: number[];
  try {
    children = fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(' '))
      .filter((child) => child !== '')
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendantsOf(child)]);
}

export interface BootedServer {
  child: ChildProcess;
  /** spawn → first 200 on the probe search, in seconds */
  bootSeconds: number;
  /**
   * The most the boot held at once, in bytes: the server's own peak (VmHWM), or the RSS of the
   * server and every process it started (the search index's builder) sampled together, whichever
   * is higher. A build in a child leaves the server small; its memory still counts here.
   */
  bootPeak: number;
}

/**
 * Spawns the server and polls `probePath` until it answers 200 (a search: the index is built
 * before the server listens). Its log (stdout) goes to `logFile` when given, else nowhere;
 * errors to our stderr.
 */
export async function bootServer(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  port: number,
  probePath: string,
  headers: Record<string, string>,
  onChild: (child: ChildProcess) => void,
  logFile?: string,
  timeoutSeconds = 3600,
): Promise<BootedServer> {
  const started = performance.now();
  const log = logFile === undefined ? 'ignore' : fs.openSync(logFile, 'a');
  const child = spawn(command, args, { env, stdio: ['ignore', log, 'inherit'] });
  if (typeof log === 'number') fs.closeSync(log);
  onChild(child);
  const client = new HttpClient(port, headers);
  let together = 0;
  const sampler = setInterval(() => {
    const pids = [child.pid!, ...descendantsOf(child.pid!)];
    together = Math.max(together, pids.reduce((sum, pid) => sum + (memoryOf(pid)?.rss ?? 0), 0));
  }, 100);
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) during boot`);
      try {
        const { status, body } = await client.get(probePath);
        if (status === 200) {
          const bootSeconds = (performance.now() - started) / 1000;
          return { child, bootSeconds, bootPeak: Math.max(together, memoryOf(child.pid!)?.peak ?? 0) };
        }
        throw new Error(`the probe search answered ${status}: ${body.slice(0, 300)}`);
      } catch (error) {
        if (!(error instanceof Error) || !('code' in error)) throw error;
        // not listening yet (ECONNREFUSED) or the connection dropped: try again shortly
        if ((performance.now() - started) / 1000 > timeoutSeconds) throw new Error(`the server did not answer within ${timeoutSeconds} s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    clearInterval(sampler);
    client.close();
  }
}

/** The messages at warn level or above (pino's JSON lines, level ≥ 40) of a server log file. */
export function warningsIn(logFile: string): string[] {
  if (!fs.existsSync(logFile)) return [];
  const warnings: string[] = [];
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string };
      if ((entry.level ?? 0) >= 40) warnings.push(entry.msg ?? line);
    } catch {
      // a line of the banner, not of the log
    }
  }
  return warnings;
}

/** SIGTERM, then wait for the exit (SIGKILL after `graceSeconds`); resolves to the seconds it took. */
export function stopServer(child: ChildProcess, graceSeconds = 300): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(0);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceSeconds * 1000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve((performance.now() - started) / 1000);
    });
    child.kill('SIGTERM');
  });
}
