/**
 * `npm run bench:smoke [-- <name>…]`: every benchmark (or the ones named) once at a tiny size
 * (BENCH_SMOKE=1), each in a process of its own as `npm run bench -- <name>` runs it. No target
 * is checked: a benchmark passes when it exits 0 and prints its table. The point is that a
 * change elsewhere (a field the write path gains, a refusal a route learns) cannot leave a
 * benchmark broken unnoticed until someone measures; CI runs this after the tests.
 *
 * Exits 1 when any benchmark fails (its output's end is shown) or, under
 * STOCKROOM_REQUIRE_BACKENDS=1 as in CI, when one cannot run for a missing program.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingPrograms } from '../test/operations/infrastructure.js';
import { BENCHMARKS } from './benchmarks.js';
import { table } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Longest any one benchmark may take at its tiny size before it counts as failed. */
const LIMIT_SECONDS = Number(process.env.BENCH_SMOKE_LIMIT_SECONDS ?? 300);
/** What a benchmark needs besides Node: the cluster benchmark starts its own PostgreSQL, Redis and nginx. */
const NEEDS: Record<string, ReadonlyArray<'nginx' | 'openssl' | 'postgres' | 'redis'>> = {
  cluster: ['nginx', 'openssl', 'postgres', 'redis'],
};
/** A line of a table as bench/harness.ts table() draws it: |-----|-----|. */
const TABLE_RULE = /^\|(-+\|)+$/m;

interface Outcome {
  name: string;
  result: 'passed' | 'FAILED' | 'skipped';
  seconds: number;
  note: string;
}

/** Runs one benchmark at its tiny size; its output is kept, and shown (the end of it) only when it fails. */
function smoke(name: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    // A process group of its own, so that a benchmark past its time goes with the servers it started.
    const child = spawn(process.execPath, [path.join(root, 'bin/run-ts.js'), path.join(root, 'bench/run.ts'), name], {
      cwd: root,
      env: { ...process.env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid!, 'SIGTERM');
      setTimeout(() => killGroup(child.pid!, 'SIGKILL'), 10_000).unref();
    }, LIMIT_SECONDS * 1000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const why = timedOut
        ? `took longer than ${LIMIT_SECONDS} s`
        : code !== 0
          ? `exited with ${code ?? signal}`
          : !TABLE_RULE.test(stdout)
            ? 'printed no table'
            : undefined;
      if (why === undefined) return resolve({ name, result: 'passed', seconds, note: '' });
      process.stdout.write(`\n── ${name}: ${why}; the end of its output:\n${tail(stdout)}\n── its errors:\n${tail(stderr)}\n`);
      resolve({ name, result: 'FAILED', seconds, note: why });
    });
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** The last lines of an output, without the progress bars' redraws. */
function tail(text: string, lines = 40): string {
  return text
    .split(/\r|\n/)
    .filter((line) => line.trim() !== '')
    .slice(-lines)
    .join('\n');
}

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
  process.stderr.write(`no such benchmark: ${unknown.join(', ')} (there are ${Object.keys(BENCHMARKS).join(', ')})\n`);
  process.exit(2);
}
const required = process.env.STOCKROOM_REQUIRE_BACKENDS === '1';
const outcomes: Outcome[] = [];
const started = performance.now();
for (const name of asked.length > 0 ? asked : Object.keys(BENCHMARKS)) {
  const missing = missingPrograms(NEEDS[name] ?? []);
  if (missing.length > 0) {
    outcomes.push({ name, result: required ? 'FAILED' : 'skipped', seconds: 0, note: `needs ${missing.join(', ')}` });
    continue;
  }
  process.stdout.write(`bench smoke: ${name}…\n`);
  outcomes.push(await smoke(name));
}
const total = (performance.now() - started) / 1000;
process.stdout.write(
  `\nBenchmarks at their smoke sizes (BENCH_SMOKE=1), ${total.toFixed(0)} s in all\n\n` +
    `${table(
      ['benchmark', 'result', 'seconds', 'note'],
      outcomes.map((o) => [o.name, o.result, o.seconds.toFixed(1), o.note]),
    )}\n`,
);
process.exit(outcomes.some((o) => o.result === 'FAILED') ? 1 : 0);
