import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { audit, closeAgents, MixedLoad, percentile, startCluster, type Cluster, type Outcome } from '../test/operations/cluster.js';
import { missingPrograms } from '../test/operations/infrastructure.js';
import { table } from './harness.js';
import { SMOKE } from './sizes.js';

/**
 * `npm run bench -- cluster [--seconds 20] [--workers 8] [--soak-minutes 10] [--soak-interval 30]`
 *
 * Three `stockroom serve` nodes on a private PostgreSQL, a private Redis and an S3-protocol store
 * (s3rver), behind nginx with docs/deploy/nginx-stockroom.conf, under the cluster test's mixed
 * load through nginx (searches, metadata, downloads on a credit pack that runs out, boards,
 * background removals with the built-in engine, until the PostgreSQL phase). Phases, each `--seconds` long: steady; one node
 * killed with SIGKILL; PostgreSQL restarted (3 s down); Redis stopped and started; then the killed
 * node started again and a soak of `--soak-minutes`, printing each node's resident memory and the
 * p50/p99 every `--soak-interval` seconds. Beside the steady phase, the reference: the same load
 * sent straight to one node over plain HTTP, without nginx or TLS.
 */
export async function clusterBenchmark(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(3),
    options: {
      // a smoke run (BENCH_SMOKE=1): each phase a few seconds, two workers, no soak
      seconds: { type: 'string', default: SMOKE ? '3' : '20' },
      workers: { type: 'string', default: SMOKE ? '2' : '8' },
      'soak-minutes': { type: 'string', default: SMOKE ? '0' : '10' },
      'soak-interval': { type: 'string', default: '30' },
    },
  });
  const seconds = Number(values.seconds);
  const workers = Number(values.workers);
  const soakMinutes = Number(values['soak-minutes']);
  const soakInterval = Number(values['soak-interval']);
  const missing = missingPrograms(['nginx', 'openssl', 'postgres', 'redis']);
  if (missing.length > 0) throw new Error(`the cluster benchmark needs ${missing.join(', ')}`);

  process.stdout.write('Starting PostgreSQL, Redis, s3rver, the nodes and nginx…\n');
  // a smoke run: two nodes (one to kill, one to serve meanwhile) and a single generation job
  const nodes = SMOKE ? 2 : 3;
  const cluster = await startCluster({ nodes, credits: 60, assets: SMOKE ? 30 : 120, generations: 10_000 });
  const load = new MixedLoad(cluster, { maxGenerations: SMOKE ? 1 : 60 });
  const rows: string[][] = [];
  try {
    // The reference: the same load straight to node 0, no nginx, no TLS, no fault.
    const direct = new MixedLoad({ ...cluster, base: `http://127.0.0.1:${cluster.nodes[0]!.port}` }, { maxGenerations: 0 });
    direct.start(workers);
    await sleep(seconds * 1000);
    await direct.stop();
    rows.push(row('reference: node 0 direct (HTTP)', direct.outcomes, seconds));

    load.start(workers);
    const phase = async (name: string, fault: () => Promise<void>) => {
      const from = load.now();
      await fault();
      const rest = seconds * 1000 - (load.now() - from);
      if (rest > 0) await sleep(rest);
      rows.push(row(name, load.outcomes.filter((outcome) => outcome.at >= from), (load.now() - from) / 1000));
      load.outcomes.splice(0);
    };
    await phase(`steady, ${nodes} nodes through nginx (TLS)`, async () => undefined);
    await phase('node 1 killed (kill -9)', async () => void (await cluster.kill(1)));
    // A generation job that ends while PostgreSQL is down waits out its lease (60 s) before it runs
    // again: the jobs end before the restart so the phases stay comparable, and the rest makes no more.
    load.stopGenerations();
    await settle(cluster);
    load.outcomes.splice(0);
    await phase('PostgreSQL restarted (3 s down)', () => cluster.postgres.restart(3000));
    await phase('Redis stopped 5 s, then started', async () => {
      await cluster.redis.stop();
      await sleep(5000);
      await cluster.redis.start();
    });
    await phase('node 1 started again', () => cluster.restart(1));
    process.stdout.write(`\n${table(['phase', 's', 'requests', 'req/s', '5xx or none', '503', 'p50 ms', 'p99 ms'], rows)}\n`);
    reportDeadNodes(cluster);

    if (soakMinutes > 0) await soak(cluster, load, soakMinutes, soakInterval);
    await load.stop();
    await settle(cluster);
    reportDeadNodes(cluster);
    const books = await audit(cluster, load.generations);
    process.stdout.write(
      `\nLedger: granted ${books.granted}, debited ${books.debited}, left ${books.creditsRemaining} ` +
        `(${books.creditsRemaining + books.debited === books.granted ? 'exact' : 'NOT EXACT'}); ${books.debitRows} debits for ${books.paidDownloads} paid downloads. ` +
        `Generation jobs: ${books.jobs.length} (${books.jobs.filter((job) => job.status === 'done').length} done, ${books.jobs.filter((job) => job.attempts > 1).length} taken over), ` +
        `${[...books.chargesPerJob.values()].filter((n) => n !== 1).length} charged other than once, ${books.lostJobs.length} lost.\n`,
    );
  } finally {
    await load.stop();
    closeAgents();
    await cluster.close();
  }
}

/** A node that died by itself says why: the end of what it printed. */
function reportDeadNodes(cluster: Cluster): void {
  for (const node of cluster.nodes) {
    if (node && node.child.exitCode !== null) process.stdout.write(`\nThe node on port ${node.port} exited with status ${node.child.exitCode}:\n${node.output().slice(-3000)}\n`);
  }
}

function row(name: string, outcomes: readonly Outcome[], seconds: number): string[] {
  const latencies = outcomes.map((outcome) => outcome.ms);
  return [
    name,
    seconds.toFixed(0),
    String(outcomes.length),
    (outcomes.length / seconds).toFixed(0),
    String(outcomes.filter((outcome) => outcome.status === 0 || outcome.status >= 500).length),
    String(outcomes.filter((outcome) => outcome.status === 503).length),
    percentile(latencies, 50).toFixed(1),
    percentile(latencies, 99).toFixed(1),
  ];
}

/** Each node's resident memory now, from /proc (MB). */
function residentMb(cluster: Cluster): string[] {
  return cluster.nodes.map((node) => {
    const status = node?.child.pid ? readStatus(node.child.pid) : undefined;
    const kb = status ? /VmRSS:\s+(\d+)/.exec(status)?.[1] : undefined;
    return kb ? (Number(kb) / 1024).toFixed(0) : '—';
  });
}

function readStatus(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
}

async function soak(cluster: Cluster, load: MixedLoad, minutes: number, intervalSeconds: number): Promise<void> {
  process.stdout.write(`\nSoak: ${minutes} min, a line every ${intervalSeconds} s\n`);
  const header = ['minute', 'requests', 'req/s', '5xx or none', 'p50 ms', 'p99 ms', ...cluster.nodes.map((_, n) => (n === 0 ? 'RSS node 0 MB' : `node ${n}`))];
  const lines: string[][] = [];
  const end = Date.now() + minutes * 60_000;
  while (Date.now() < end) {
    load.outcomes.splice(0);
    const started = Date.now();
    await sleep(Math.min(intervalSeconds * 1000, end - Date.now()));
    const taken = load.outcomes.splice(0);
    const line = [((Date.now() - (end - minutes * 60_000)) / 60_000).toFixed(1), ...row('', taken, (Date.now() - started) / 1000).slice(2, 4), ...row('', taken, 1).slice(4, 5), ...row('', taken, 1).slice(6), ...residentMb(cluster)];
    lines.push(line);
    process.stdout.write(`${line.join('  ')}\n`);
  }
  process.stdout.write(`\n${table(header, lines)}\n`);
}

async function settle(cluster: Cluster): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const [waiting] = await cluster.query<{ n: string }>("select count(*) as n from generation_requests where status in ('pending', 'running')");
    if (Number(waiting!.n) === 0) return;
    await sleep(500);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
