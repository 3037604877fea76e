import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../helpers/network.js';
import { createServices } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { drawDemoImage } from '../../src/media/draw-demo-image.js';

/*
 * What an operator runs around Stockroom, started privately by a test or a benchmark: Debian's
 * nginx with the deployment's own site file, a PostgreSQL cluster and a Redis server of their
 * own on free ports (never the machine's shared ones, which a fault test must not restart).
 * Nothing here imports vitest, so that the cluster benchmark uses it too.
 */

const run = promisify(execFile);

export const NGINX = '/usr/sbin/nginx';
export const SITE_FILE = path.resolve('docs/deploy/nginx-stockroom.conf');

/** The first of Debian's PostgreSQL versions installed (its initdb and pg_ctl), or undefined. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs.readdirSync(root).filter((version) => fs.existsSync(path.join(root, version, 'bin', 'pg_ctl')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

/** Which of the programs a deployment test needs are missing here. */
export function missingPrograms(needs: ReadonlyArray<'nginx' | 'openssl' | 'postgres' | 'redis'>): string[] {
  const onPath = (name: string) => (process.env.PATH ?? '').split(':').some((dir) => fs.existsSync(path.join(dir, name)));
  const missing: string[] = [];
  for (const need of needs) {
    if (need === 'nginx' && !fs.existsSync(NGINX)) missing.push(`nginx (${NGINX})`);
    if (need === 'openssl' && !onPath('openssl')) missing.push('openssl');
    if (need === 'postgres' && !postgresBinaries()) missing.push('PostgreSQL server binaries (/usr/lib/postgresql/*/bin)');
    if (need === 'redis' && !onPath('redis-server')) missing.push('redis-server');
  }
  return missing;
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with the openssl command. */
export async function selfSignedCertificate(dir: string): Promise<{ certFile: string; keyFile: string; cert: Buffer }> {
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  await run('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyFile, '-out', certFile,
  ]);
  return { certFile, keyFile, cert: fs.readFileSync(certFile) };
}

export interface SiteOptions {
  httpPort: number;
  tlsPort: number;
  /** The nodes' ports on 127.0.0.1. */
  nodePorts: readonly number[];
  certFile: string;
  keyFile: string;
}

/**
 * The deployment's site file (docs/deploy/nginx-stockroom.conf) as it is, but for its
 * addresses: loopback ports for 80 and 443, these nodes, this certificate.
 */
export function siteConfiguration(options: SiteOptions): string {
  const text = fs.readFileSync(SITE_FILE, 'utf8');
  const nodeLine = /^(\s*)server 127\.0\.0\.1:3000( [^;]*)?;$/m.exec(text);
  if (!nodeLine) throw new Error(`${SITE_FILE}: no 'server 127.0.0.1:3000 …;' line to put the nodes in`);
  const replaced = text
    .replace(nodeLine[0], options.nodePorts.map((port) => `${nodeLine[1]}server 127.0.0.1:${port}${nodeLine[2] ?? ''};`).join('\n'))
    .replace(/^\s*listen \[::\]:.*$/gm, '')
    .replace(/listen 80;/, `listen 127.0.0.1:${options.httpPort};`)
    .replace(/listen 443 ssl/, `listen 127.0.0.1:${options.tlsPort} ssl`)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${options.certFile};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${options.keyFile};`);
  for (const expected of [`127.0.0.1:${options.httpPort}`, `127.0.0.1:${options.tlsPort} ssl`, options.certFile, options.keyFile]) {
    if (!replaced.includes(expected)) throw new Error(`${SITE_FILE}: could not set ${expected} (has the file's layout changed?)`);
  }
  return replaced;
}

export interface RunningNginx {
  /** Rewrites the site file (other nodes) and has nginx read it again. */
  reconfigure(site: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * nginx in the foreground with a prefix of its own (its temporary files, pid and logs), one
 * process (no master, so it runs as the caller and needs no user of its own), with `site` as
 * its only server configuration.
 */
export async function startNginx(dir: string, site: string): Promise<RunningNginx> {
  const prefix = path.join(dir, 'nginx');
  fs.mkdirSync(path.join(prefix, 'logs'), { recursive: true });
  const siteFile = path.join(prefix, 'site.conf');
  fs.writeFileSync(siteFile, site);
  const main = path.join(prefix, 'nginx.conf');
  fs.writeFileSync(
    main,
    [
      'daemon off;',
      'master_process off;',
      `pid ${path.join(prefix, 'nginx.pid')};`,
      `error_log ${path.join(prefix, 'logs', 'error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${path.join(prefix, `${kind}_temp`)};`),
      `  include ${siteFile};`,
      '}',
      '',
    ].join('\n'),
  );
  const args = ['-p', prefix, '-e', path.join(prefix, 'logs', 'error.log'), '-c', main];
  await run(NGINX, [...args, '-t']).catch((error: { stderr?: string }) => {
    throw new Error(`nginx refused its configuration: ${error.stderr ?? String(error)}`);
  });
  let child = spawn(NGINX, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const listening = async () => {
    const port = /listen 127\.0\.0\.1:(\d+) ssl/.exec(fs.readFileSync(siteFile, 'utf8'))?.[1];
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`nginx exited: ${errors}${fs.readFileSync(path.join(prefix, 'logs', 'error.log'), 'utf8')}`);
      const up = await new Promise<boolean>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      if (up) return;
      if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}: ${errors}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await listening();
  const stopChild = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGQUIT');
      await exited;
    }
  };
  return {
    async reconfigure(nextSite) {
      // Without a master process there is no reload: the one process is replaced.
      await stopChild();
      fs.writeFileSync(siteFile, nextSite);
      child = spawn(NGINX, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      await listening();
    },
    stop: stopChild,
  };
}

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request over HTTPS, trusting `ca` (the test's self-signed certificate). */
export function httpsRequest(url: string, options: { ca: Buffer; method?: string; headers?: Record<string, string>; body?: string }): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method: options.method ?? 'GET', headers: options.headers, ca: options.ca, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL and Redis of one's own

/** Runs a PostgreSQL tool as the postgres user when we are root (initdb and postgres refuse root). */
async function asPostgres(binary: string, args: readonly string[]): Promise<void> {
  const root = process.getuid?.() === 0;
  await run(root ? 'runuser' : binary, root ? ['-u', 'postgres', '--', binary, ...args] : [...args]);
}

export interface PrivatePostgres {
  /** postgres://… of a database `stockroom` on it. */
  url: string;
  port: number;
  /** Stops it (fast: open sessions are ended) and starts it again after `downMs`. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL cluster on a free port, made with Debian's initdb and run with pg_ctl, in a
 * temporary folder of its own (owned by the postgres user when we are root), removed by stop().
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-postgres-'));
  const data = path.join(dir, 'pgdata');
  fs.mkdirSync(data);
  if (process.getuid?.() === 0) {
    const { uid, gid } = await postgresUser();
    fs.chownSync(dir, uid, gid);
    fs.chownSync(data, uid, gid);
  }
  const port = await freePort();
  await asPostgres(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const start = () => asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', path.join(data, 'server.log'), '-w', '-t', '30', 'start']);
  const stop = () => asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
  await start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('create database stockroom');
  await admin.end();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/stockroom`,
    port,
    async restart(downMs) {
      await stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    async stop() {
      if (!running) return;
      running = false;
      await stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['postgres']);
  const uid = /uid=(\d+)/.exec(stdout)?.[1];
  const gid = /gid=(\d+)/.exec(stdout)?.[1];
  if (!uid || !gid) throw new Error('there is no postgres user to run a private PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, no save). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

/** A redis-server of its own on a free port, with no persistence. */
export async function startPrivateRedis(dir: string): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    const client = new (await import('ioredis')).Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await client.connect();
        await client.ping();
        client.disconnect();
        return;
      } catch {
        client.disconnect();
        if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  const stop = async () => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGTERM');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
}

export type { ChildProcess };

// ---------------------------------------------------------------------------------------------
// Stockroom nodes and what a customer needs

export const CLI = path.resolve('bin/stockroom.js');

export interface Node {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
  /** Everything it printed so far. */
  output(): string;
}

/**
 * `stockroom serve` on `port`, once it says it is serving. Unlike the process tests' helper it
 * leaves STOCKROOM_PUBLIC_URL to `env`: behind a proxy the public address is the proxy's.
 */
export async function serveNode(env: NodeJS.ProcessEnv, port: number): Promise<Node> {
  const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (output.includes('serving the Stock Media Licensing API')) {
        clearInterval(check);
        resolve();
      }
    }, 25);
    void exited.then(() => {
      clearInterval(check);
      reject(new Error(`serve exited: ${output}`));
    });
  });
  return { port, child, exited, output: () => output };
}

export async function stopNode(node: Node, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill(signal);
  await node.exited;
}

export const CUSTOMER_PASSWORD = 'correct horse battery';

export interface Customer {
  apiKey: string;
  apiSecret: string;
  productId: number;
  /** The images of the catalogue, each licensable with one credit. */
  ids: string[];
  /** A second client's key, limited to `throttledQps` calls a second (when asked for). */
  throttledApiKey?: string;
}

/**
 * What a customer needs, made as an operator would, with the CLI against the store of `env`: a
 * client (password grant, limits the load cannot reach unless given), the user `buyer` with a
 * credit pack of `credits`, and `assets` images (one small picture stands for every original).
 */
export async function prepareCustomer(env: NodeJS.ProcessEnv, dir: string, options: { credits: number; assets: number; qps?: number; aiGenerations?: number; throttledQps?: number }): Promise<Customer> {
  // The client, user and product are made in this process (each CLI command would start a
  // process of its own); the catalogue with the ingest command, as an operator loads one.
  const services = await createServices(loadConfig(env));
  let apiKey: string;
  let apiSecret: string;
  let productId: number;
  let throttledApiKey: string | undefined;
  try {
    const client = await services.clients.create({
      name: 'Operations',
      grantTypes: ['password', 'authorization_code'],
      queriesPerSecond: options.qps ?? 100_000,
      queriesPerDay: 10_000_000,
    });
    apiKey = client.apiKey;
    apiSecret = client.apiSecret!;
    const user = await services.users.create({ username: 'buyer', password: CUSTOMER_PASSWORD });
    productId = (await services.products.grant({ userId: user.id, type: 'creditpack', credits: options.credits })).id;
    if (options.throttledQps) throttledApiKey = (await services.clients.create({ name: 'Throttled', queriesPerSecond: options.throttledQps, queriesPerDay: 10_000_000 })).apiKey;
    if (options.aiGenerations) await services.products.grant({ userId: user.id, type: 'aigen', generations: options.aiGenerations });
  } finally {
    await services.close();
  }
  const cli = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env })).stdout;
  // A picture with a subject (the built-in engine's background removal fails on a flat colour).
  const picture = await drawDemoImage({ seed: 7, width: 320, height: 240, title: 'Harbour' });
  fs.writeFileSync(path.join(dir, 'picture.jpg'), picture);
  const ids = Array.from({ length: options.assets }, (_, n) => `ops${n}`);
  const manifest = path.join(dir, 'assets.jsonl');
  const line = (id: string, n: number) =>
    JSON.stringify({
      asset_type: 'image',
      id,
      file: 'picture.jpg',
      title: `Harbour view ${n % 2 === 0 ? 'at dawn' : 'at dusk'} number ${n}`,
      asset_family: 'creative',
      license_model: 'royaltyfree',
      product_types: ['creditpack'],
      partner_licenses: [{ license_type: 'Standard', credits: 1 }],
    });
  fs.writeFileSync(manifest, `${ids.map(line).join('\n')}\n`);
  const ingested = await cli('ingest', manifest, '--media', dir);
  if (!ingested.includes(`${options.assets} inserted`)) throw new Error(`ingest: ${ingested}`);
  return { apiKey, apiSecret, productId, ids, ...(throttledApiKey ? { throttledApiKey } : {}) };
}
