import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../helpers/network.js';
import { startS3TestServer, type S3TestServer } from '../platform/blobs/s3-test-server.js';
import {
  CLI,
  CUSTOMER_PASSWORD,
  prepareCustomer,
  selfSignedCertificate,
  serveNode,
  siteConfiguration,
  startNginx,
  startPrivatePostgres,
  startPrivateRedis,
  stopNode,
  type Customer,
  type Node,
  type PrivatePostgres,
  type PrivateRedis,
  type RunningNginx,
} from './infrastructure.js';

/*
 * Three `stockroom serve` nodes on one PostgreSQL, one Redis and one S3-protocol store, behind
 * nginx with the deployment's site file, and a mixed load through nginx: what the cluster test
 * and `npm run bench -- cluster` both run. The PostgreSQL and Redis are private (started here on
 * free ports), so that restarting them harms nothing else on the machine.
 */

const run = promisify(execFile);

export interface ClusterOptions {
  nodes: number;
  /** Credits of the customer's credit pack: downloads past them are refused (402/403), never overdrawn. */
  credits: number;
  /** Images in the catalogue. */
  assets: number;
  /** Generations the customer's AI product allows. */
  generations: number;
}

export interface Cluster {
  dir: string;
  base: string;
  ca: Buffer;
  nodes: Array<Node | undefined>;
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  s3: S3TestServer;
  customer: Customer;
  env: NodeJS.ProcessEnv;
  /** A bearer token of the customer, from the token endpoint through nginx. */
  token: string;
  /** Kills a node with SIGKILL (no shutdown at all); nginx passes over it from then on. */
  kill(index: number): Promise<number>;
  /** Starts a node again in the place of one that was killed (same port and data folder). */
  restart(index: number): Promise<void>;
  /** Ingests more images with the CLI (as an operator would, into the shared store and blobs). */
  ingest(ids: readonly string[], title: string): Promise<void>;
  /** A query on the shared store. */
  query<Row extends object>(text: string, values?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-cluster-'));
  const closers: Array<() => Promise<void>> = [async () => fs.rmSync(dir, { recursive: true, force: true })];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(() => undefined);
  };
  try {
    const postgres = await startPrivatePostgres();
    closers.push(() => postgres.stop());
    const redis = await startPrivateRedis(path.join(dir));
    closers.push(() => redis.stop());
    const s3 = await startS3TestServer('stockroom-cluster');
    closers.push(() => s3.close());
    // The S3 client of this process (the setup below builds the services here) reads its
    // endpoint and credentials from the process's environment, as the nodes' do from theirs.
    const saved = { ...process.env };
    for (const [name, value] of Object.entries(s3.env())) if (name.startsWith('AWS_')) process.env[name] = value;
    closers.push(async () => {
      for (const name of Object.keys(process.env)) if (name.startsWith('AWS_') && saved[name] === undefined) delete process.env[name];
    });
    const certificate = await selfSignedCertificate(dir);
    const [httpPort, tlsPort] = [await freePort(), await freePort()];
    const base = `https://127.0.0.1:${tlsPort}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...s3.env('cluster'),
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      STOCKROOM_SEED_DEMO: 'false',
      STOCKROOM_LOG_LEVEL: process.env.STOCKROOM_LOG_LEVEL ?? 'warn',
      STOCKROOM_PUBLIC_URL: base,
      STOCKROOM_TRUST_PROXY: 'loopback',
      // A job of a killed node runs again elsewhere after its lease: short, so that the test sees it.
      STOCKROOM_GENERATION_LEASE_SECONDS: '3',
      STOCKROOM_GENERATION_MAX_PER_USER: '1000',
      STOCKROOM_GENERATION_WAIT_MS: '0',
      STOCKROOM_SHUTDOWN_TIMEOUT: '5',
    };
    const setupDir = path.join(dir, 'setup');
    fs.mkdirSync(setupDir);
    const customer = await prepareCustomer({ ...env, STOCKROOM_DATA_DIR: setupDir }, setupDir, {
      credits: options.credits,
      assets: options.assets,
      aiGenerations: options.generations,
      throttledQps: 3,
    });
    const nodeEnv = (index: number) => ({ ...env, STOCKROOM_DATA_DIR: path.join(dir, `node${index}`) });
    const nodePorts = await Promise.all(Array.from({ length: options.nodes }, () => freePort()));
    const nodes: Array<Node | undefined> = [];
    closers.push(async () => {
      await Promise.all(nodes.map((node) => (node ? stopNode(node, 'SIGKILL') : undefined)));
    });
    for (const [index, port] of nodePorts.entries()) {
      // Each node has a data folder of its own (its search snapshot); the blobs are in the bucket.
      fs.mkdirSync(path.join(dir, `node${index}`));
      nodes.push(await serveNode(nodeEnv(index), port));
    }
    const nginx: RunningNginx = await startNginx(dir, siteConfiguration({ httpPort, tlsPort, nodePorts, ...certificate }));
    closers.push(() => nginx.stop());
    const ca = certificate.cert;
    const tokenAnswer = await call(base, ca, 'POST', '/auth/oauth2/token', {
      form: { grant_type: 'password', username: 'buyer', password: CUSTOMER_PASSWORD, client_id: customer.apiKey, client_secret: customer.apiSecret },
    });
    if (tokenAnswer.status !== 200) throw new Error(`the token endpoint answered ${tokenAnswer.status}: ${tokenAnswer.body}`);
    const token = (JSON.parse(tokenAnswer.body) as { access_token: string }).access_token;
    const store = new pg.Pool({ connectionString: postgres.url, max: 2 });
    store.on('error', () => undefined);
    closers.push(() => store.end());
    return {
      dir,
      base,
      ca,
      nodes,
      postgres,
      redis,
      s3,
      customer,
      env,
      token,
      async kill(index) {
        const node = nodes[index]!;
        const pid = node.child.pid!;
        await stopNode(node, 'SIGKILL');
        nodes[index] = undefined;
        return pid;
      },
      async restart(index) {
        if (nodes[index]) throw new Error(`node ${index} is running`);
        nodes[index] = await serveNode(nodeEnv(index), nodePorts[index]!);
      },
      async ingest(ids, title) {
        const ingestDir = fs.mkdtempSync(path.join(dir, 'ingest-'));
        fs.copyFileSync(path.join(setupDir, 'picture.jpg'), path.join(ingestDir, 'picture.jpg'));
        const lines = ids.map((id) => JSON.stringify({ asset_type: 'image', id, file: 'picture.jpg', title, asset_family: 'creative', license_model: 'royaltyfree' }));
        fs.writeFileSync(path.join(ingestDir, 'more.jsonl'), `${lines.join('\n')}\n`);
        await run(process.execPath, [CLI, 'ingest', path.join(ingestDir, 'more.jsonl'), '--media', ingestDir], { env: { ...env, STOCKROOM_DATA_DIR: ingestDir } });
      },
      async query<Row extends object>(text: string, values: unknown[] = []) {
        return (await store.query(text, values)).rows as Row[];
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

export interface Answer {
  /** 0: no answer (the connection failed or was cut). */
  status: number;
  body: string;
  ms: number;
}

const agents = new Map<string, http.Agent>();

/** One request over HTTPS (trusting `ca`) or plain HTTP, through a kept-alive agent per certificate. */
export function call(
  base: string,
  ca: Buffer,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const secure = base.startsWith('https:');
  const key = secure ? ca.toString('base64').slice(-32) : 'http';
  let agent = agents.get(key);
  if (!agent) {
    agent = secure ? new https.Agent({ keepAlive: true, ca, maxSockets: 64 }) : new http.Agent({ keepAlive: true, maxSockets: 64 });
    agents.set(key, agent);
  }
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  } else if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const started = performance.now();
  return new Promise((resolve) => {
    const request = (secure ? https : http).request(`${base}${path}`, { method, headers, agent, timeout: options.timeoutMs ?? 30_000 }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text, ms: performance.now() - started }));
      response.on('error', (error) => resolve({ status: 0, body: error.message, ms: performance.now() - started }));
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => resolve({ status: 0, body: error.message, ms: performance.now() - started }));
    request.end(body);
  });
}

/** Drops the kept-alive connections (at the end of a run). */
export function closeAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

// ---------------------------------------------------------------------------------------------
// The mixed load

export type Operation = 'search' | 'metadata' | 'download' | 'board' | 'generation';

export interface Outcome {
  operation: Operation;
  status: number;
  ms: number;
  /** When it ended, ms since the load started. */
  at: number;
  body: string;
}

/** Out of every 20 operations: searches, metadata reads, downloads, board calls, one generation job. */
const MIX: readonly Operation[] = [
  ...Array<Operation>(7).fill('search'),
  ...Array<Operation>(6).fill('metadata'),
  ...Array<Operation>(3).fill('download'),
  ...Array<Operation>(3).fill('board'),
  'generation',
];

const WORDS = ['harbour', 'dawn', 'dusk', 'view', 'number', 'harbour dawn', 'view dusk'];

/**
 * Workers that each send one request after another through nginx, in the MIX's proportions:
 * keyword searches, metadata reads of one to three images, downloads walking the catalogue (the
 * credit pack runs out part way), creating and reading boards, and background removals of
 * downloaded images (generation jobs for the built-in engine) up to `maxGenerations`.
 */
export class MixedLoad {
  readonly outcomes: Outcome[] = [];
  /** The generation requests accepted (202 or 200), by id. */
  readonly generations = new Set<string>();
  private readonly downloaded: string[] = [];
  private readonly boards: string[] = [];
  private running = false;
  private workers: Array<Promise<void>> = [];
  private started = 0;
  private turn = 0;
  private nextDownload = 0;
  private generating = true;

  constructor(
    private readonly cluster: Pick<Cluster, 'base' | 'ca' | 'customer' | 'token'>,
    private readonly options: { maxGenerations: number },
  ) {}

  /** Milliseconds since start(). */
  now(): number {
    return performance.now() - this.started;
  }

  start(workers: number): void {
    this.running = true;
    this.started = performance.now();
    this.workers = Array.from({ length: workers }, () => this.work());
  }

  /** No more generation requests from now on (their turn goes to a search). */
  stopGenerations(): void {
    this.generating = false;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    while (this.running) {
      const operation = MIX[this.turn++ % MIX.length]!;
      const answer = await this.send(operation);
      if (answer) this.outcomes.push({ operation, status: answer.status, ms: answer.ms, at: this.now(), body: answer.status >= 500 || answer.status === 0 ? answer.body.slice(0, 200) : '' });
    }
  }

  private send(operation: Operation): Promise<Answer | undefined> {
    const { base, ca, customer, token } = this.cluster;
    const key = { 'api-key': customer.apiKey };
    const user = { ...key, authorization: `Bearer ${token}` };
    const ids = customer.ids;
    const pick = () => ids[Math.floor(Math.random() * ids.length)]!;
    switch (operation) {
      case 'search':
        return call(base, ca, 'GET', `/v3/search/images?phrase=${encodeURIComponent(WORDS[this.turn % WORDS.length]!)}&page_size=10`, { headers: key });
      case 'metadata':
        return call(base, ca, 'GET', `/v3/images?ids=${[pick(), pick(), pick()].join(',')}&fields=detail_set`, { headers: key });
      case 'download': {
        const id = ids[this.nextDownload++ % ids.length]!;
        return call(base, ca, 'POST', `/v3/downloads/images/${id}?auto_download=false`, { headers: user }).then((answer) => {
          if (answer.status === 200 && !this.downloaded.includes(id)) this.downloaded.push(id);
          return answer;
        });
      }
      case 'board': {
        const board = this.boards[Math.floor(Math.random() * this.boards.length)];
        if (board === undefined || this.boards.length < 20) {
          return call(base, ca, 'POST', '/v3/boards', { headers: user, json: { name: `Board ${this.turn}` } }).then((answer) => {
            if (answer.status === 201) this.boards.push((JSON.parse(answer.body) as { id: string }).id);
            return answer;
          });
        }
        return call(base, ca, 'GET', `/v3/boards/${board}`, { headers: user });
      }
      case 'generation': {
        const reference = this.downloaded[this.generations.size % Math.max(1, this.downloaded.length)];
        if (reference === undefined || !this.generating || this.generations.size >= this.options.maxGenerations) return this.send('search');
        return call(base, ca, 'POST', '/v3/ai/image-generations/background-removal', { headers: user, json: { reference_asset_id: reference } }).then((answer) => {
          if (answer.status === 200 || answer.status === 202) this.generations.add((JSON.parse(answer.body) as { generation_request_id: string }).generation_request_id);
          return answer;
        });
      }
    }
  }
}

/** The p-th percentile (0–100) of some numbers, 0 when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** What the store says about the credit pack and the generation jobs, once the load is over. */
export async function audit(cluster: Cluster, generationIds: ReadonlySet<string>) {
  const [product] = await cluster.query<{ credits_remaining: number }>('select credits_remaining from products where id = $1', [cluster.customer.productId]);
  const ledger = await cluster.query<{ amount: number; download_id: number | null }>("select amount, download_id from download_ledger where product_id = $1 and unit = 'credit'", [cluster.customer.productId]);
  const paid = await cluster.query<{ id: number }>('select id from downloads where product_id = $1 and credits_spent > 0', [cluster.customer.productId]);
  const jobs = await cluster.query<{ id: string; status: string; attempts: number; claimed_by: string | null; failure: string | null }>(
    'select id, status, attempts, claimed_by, failure from generation_requests',
  );
  const charges = await cluster.query<{ generation_request_id: string; reason: string; n: string }>(
    "select generation_request_id, reason, count(*) as n from download_ledger where generation_request_id is not null group by generation_request_id, reason",
  );
  const results = await cluster.query<{ request_id: string; n: string }>('select request_id, count(*) as n from generation_results group by request_id');
  const debits = ledger.filter((row) => row.amount < 0);
  return {
    granted: ledger.filter((row) => row.amount > 0).reduce((sum, row) => sum + row.amount, 0),
    creditsRemaining: product!.credits_remaining,
    debited: -debits.reduce((sum, row) => sum + row.amount, 0),
    debitsWithoutDownload: debits.filter((row) => row.download_id === null).length,
    paidDownloads: paid.length,
    debitRows: debits.length,
    jobs,
    /** Requests the load saw accepted that the store does not hold. */
    lostJobs: [...generationIds].filter((id) => !jobs.some((job) => job.id === id)),
    chargesPerJob: new Map(charges.filter((row) => row.reason === 'generation').map((row) => [row.generation_request_id, Number(row.n)])),
    refunded: new Set(charges.filter((row) => row.reason === 'generation_refund').map((row) => row.generation_request_id)),
    resultsPerJob: new Map(results.map((row) => [row.request_id, Number(row.n)])),
  };
}
