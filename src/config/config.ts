import fs from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseS3Location, type S3Location } from '../platform/blobs/s3-location.js';
import { generationTuning, type GenerationTuning } from './generation-tuning.js';

/** Every setting of Stockroom, read once from the environment, validated, then frozen. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** PostgreSQL connection string; absent means the embedded SQLite file under dataDir. */
  readonly databaseUrl: string | undefined;
  /** Redis connection string; absent means in-memory throttle counters and caches. */
  readonly redisUrl: string | undefined;
  /** Base of every hypermedia link the API returns (display URIs, download links). */
  readonly publicUrl: string;
  /** Base of the newer OAuth endpoints (`{auth_url}/oauth2/token`, `{auth_url}/oauth2/auth`) and the sign-in page. */
  readonly authUrl: string;
  /** Base of the oEmbed endpoint (`{embed_url}/oembed`) and the embed page it frames (`{embed_url}/frame/{id}`). */
  readonly embedUrl: string;
  /** Base of the short links (`{short_url}/{id}`) that oEmbed requests name; each redirects to the asset's page. */
  readonly shortUrl: string;
  /** Lifetime of access tokens from the token endpoint; the spec allows at most 30 minutes. */
  readonly accessTokenTtlSeconds: number;
  /** Lifetime of implicit-grant access tokens (the spec: usually one year; there is no refresh). */
  readonly implicitTokenTtlSeconds: number;
  /** Lifetime of refresh tokens (the spec: one year). */
  readonly refreshTokenTtlSeconds: number;
  /**
   * Which proxies' X-Forwarded-For/-Proto/-Host to believe: none (false), the nearest N hops, or
   * the listed addresses, ranges and proxy-addr names. Believing every sender would let a caller
   * pick its own address and slip past the sign-in throttle.
   */
  readonly trustProxy: false | number | readonly string[];
  readonly logLevel: LogLevel;
  /** Default limits for a key that has none of its own. */
  readonly throttle: { readonly perSecond: number; readonly perDay: number };
  /** How long a display URI stays valid. */
  readonly displayUrlTtlSeconds: number;
  /** How long a download (delivery) URI stays valid, at least; the spec promises 24 hours. */
  readonly deliveryUrlTtlSeconds: number;
  /** Seed the demo catalogue when `serve` finds an empty store. */
  readonly seedDemoOnEmptyStore: boolean;
  /** STOCKROOM_METRICS_PORT: serve the Prometheus metrics at /metrics on this port of HOST, apart from the API; absent: not served there. */
  readonly metricsPort: number | undefined;
  /** STOCKROOM_METRICS_TOKEN: serve /metrics on the API's port to a scraper sending this bearer token; absent: no /metrics there. */
  readonly metricsToken: string | undefined;
  /** How long a stopping server waits for requests in flight before it cuts their connections. */
  readonly shutdownTimeoutSeconds: number;
  /** Keep a snapshot of the search index under dataDir, so that a restart loads it instead of rebuilding. */
  readonly searchSnapshot: boolean;
  /**
   * With searchSnapshot: a boot with no usable snapshot builds it in a child process and loads
   * it, so that the serving process never holds the garbage of a build (hundreds of megabytes
   * at ten million assets); false: the serving process builds the index itself.
   */
  readonly searchBuildInChild: boolean;
  /**
   * With searchSnapshot: the indexes read their token streams (a quarter of their arrays, read
   * by phrase checks, deletions and compactions) in place from the snapshot file; false: held in memory.
   */
  readonly searchTokensOnDisk: boolean;
  /**
   * How old the search snapshot shared through the blob store may grow before a node publishes
   * a newer one, in minutes; 0: this node never publishes (it still loads a shared one).
   * Default 30 with DATABASE_URL (a cluster), 0 on SQLite (one process: its own file is enough).
   */
  readonly searchSnapshotPublishMinutes: number;
  /** Asset records kept in memory for responses (0: none); each is a few kilobytes. */
  readonly recordCacheSize: number;
  /**
   * How far the JavaScript heap may grow past its live size before a full collection, in
   * percent (0: V8's own choice, up to four times the live size). `serve` sets it.
   */
  readonly heapGrowthPercent: number;
  /** How long a client may take to send a whole request, headers and body; then 408 and the connection closes. */
  readonly requestTimeoutSeconds: number;
  /** How long a client may take to send the request's headers (a part of the request timeout). */
  readonly headersTimeoutSeconds: number;
  /** How long an idle keep-alive connection stays open; behind a load balancer, longer than its idle timeout. */
  readonly keepAliveTimeoutSeconds: number;
  /** Generative images: the model server, the job queue and the prompt policy. */
  readonly generation: GenerationConfig;
  /** Facts computed from pictures at ingest: the nudity classifier and the score search treats as nudity. */
  readonly mediaFacts: MediaFactsConfig;
  /** Video: the ffmpeg and ffprobe programs, and the transcode jobs. */
  readonly video: VideoConfig;
  /** Where originals, renditions and other blobs live. */
  readonly blobs: BlobsConfig;
  /** What clients may keep: uploads (PUT /v3/search/by-image/uploads) and file registrations, per key and per user. */
  readonly storedFiles: StoredFilesConfig;
  /** The back office's resumable uploads: the largest file, and how long an upload may sit idle before it is abandoned. */
  readonly assetUploads: AssetUploadsConfig;
  /** How many pictures the request paths of uploads, registrations and masks decode at once, and how many may wait. */
  readonly imageDecodes: { readonly concurrency: number; readonly queue: number };
}

/** A quota: how many files, and how many bytes in all. */
export interface FileQuota {
  readonly files: number;
  readonly bytes: number;
}

export interface StoredFilesConfig {
  readonly uploadsPerKey: FileQuota;
  readonly uploadsPerUser: FileQuota;
  readonly registrationsPerKey: FileQuota;
  readonly registrationsPerUser: FileQuota;
  /** How long a file registration is kept; then it is deleted with its files. */
  readonly registrationRetentionDays: number;
}

const MEGABYTE = 1024 * 1024;

/** The stored-file quotas and the registrations' retention (docs/configuration.md). */
function storedFilesConfig(env: Env): StoredFilesConfig {
  const quota = (filesName: string, files: number, megabytesName: string, megabytes: number): FileQuota =>
    Object.freeze({ files: integer(env, filesName, files, 1, 1_000_000_000), bytes: integer(env, megabytesName, megabytes, 1, 1_000_000_000) * MEGABYTE });
  return Object.freeze({
    uploadsPerKey: quota('STOCKROOM_UPLOADS_PER_KEY', 1000, 'STOCKROOM_UPLOAD_MB_PER_KEY', 2000),
    uploadsPerUser: quota('STOCKROOM_UPLOADS_PER_USER', 100, 'STOCKROOM_UPLOAD_MB_PER_USER', 200),
    registrationsPerKey: quota('STOCKROOM_REGISTRATIONS_PER_KEY', 2000, 'STOCKROOM_REGISTRATION_MB_PER_KEY', 5000),
    registrationsPerUser: quota('STOCKROOM_REGISTRATIONS_PER_USER', 200, 'STOCKROOM_REGISTRATION_MB_PER_USER', 500),
    registrationRetentionDays: integer(env, 'STOCKROOM_REGISTRATION_RETENTION_DAYS', 30, 1, 3650),
  });
}

export interface AssetUploadsConfig {
  /** STOCKROOM_ASSET_UPLOAD_MAX_MB: the largest file the back office takes (a video of several GB fits the default). */
  readonly maxBytes: number;
  /** STOCKROOM_ASSET_UPLOAD_IDLE_HOURS: an unfinished upload that received nothing for this long is removed with its staged bytes. */
  readonly idleMs: number;
  /** STOCKROOM_ASSET_UPLOAD_INGESTS: whether this node ingests finished uploads (false: other nodes do). */
  readonly runIngests: boolean;
}

function assetUploadsConfig(env: Env): AssetUploadsConfig {
  return Object.freeze({
    runIngests: boolean(env, 'STOCKROOM_ASSET_UPLOAD_INGESTS', true),
    maxBytes: integer(env, 'STOCKROOM_ASSET_UPLOAD_MAX_MB', 20 * 1024, 1, 5 * 1024 * 1024) * MEGABYTE,
    idleMs: integer(env, 'STOCKROOM_ASSET_UPLOAD_IDLE_HOURS', 24, 1, 24 * 365) * 3600 * 1000,
  });
}

/** STOCKROOM_BLOBS: a folder (`blobs/` under the data folder) or an S3-compatible bucket shared by every node. */
export type BlobsConfig =
  | { readonly kind: 'folder'; readonly dir: string }
  | { readonly kind: 's3'; readonly location: S3Location; readonly pathStyle: boolean };

export interface VideoConfig {
  /** STOCKROOM_FFMPEG_PATH: the ffmpeg program; absent: the one the npm package @ffmpeg-installer/ffmpeg ships. */
  readonly ffmpegPath: string | undefined;
  /** STOCKROOM_FFPROBE_PATH: the ffprobe program; absent: the one @ffprobe-installer/ffprobe ships. */
  readonly ffprobePath: string | undefined;
  /** Whether this node runs transcode jobs (one at a time); other nodes run them when it does not. */
  readonly runTranscodes: boolean;
  /** How long a download or preview request waits for its transcode before answering 503 with Retry-After. */
  readonly transcodeWaitMs: number;
  /** How long one ffmpeg run may take before it is stopped and the job fails. */
  readonly transcodeTimeoutSeconds: number;
  /** How long a node's claim on a transcode holds unless renewed. */
  readonly transcodeLeaseSeconds: number;
}

/** The kinds of model server the generation module can talk to. */
export const GENERATION_SERVERS = ['a1111', 'comfyui', 'openai'] as const;
export type GenerationServerKind = (typeof GENERATION_SERVERS)[number];

export interface GenerationConfig {
  /** STOCKROOM_GENERATION_SERVER and _URL: a model server on a GPU machine; absent: the built-in engine alone. */
  readonly server: { readonly kind: GenerationServerKind; readonly url: string; readonly apiKey: string | undefined; readonly model: string | undefined } | undefined;
  /** Jobs this node runs at once (0: it runs none, other nodes do). */
  readonly concurrency: number;
  /** Requests of one user pending or running at once; one more is 429 TooManyConcurrentGenerations. */
  readonly maxPerUser: number;
  /** How long a request waits for its results before answering 202. */
  readonly waitMs: number;
  /** How long results are kept; then 410 GenerationRequestGone. */
  readonly retentionDays: number;
  /** Prompts holding one of these (whole words, any case) have their results blocked. */
  readonly blockedTerms: readonly string[];
  /** How long a model server may take for one operation. */
  readonly timeoutSeconds: number;
  /** How long a node's claim on a job holds unless renewed: a job of a node that died runs again elsewhere after this. */
  readonly leaseSeconds: number;
  /** How the model server is asked: steps, sampler, guidance, denoising, ControlNet and upscaler names, sizes, per-call timeout. */
  readonly tuning: GenerationTuning;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** A setting that cannot be used; the message names it, in one line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const YEAR_SECONDS = 365 * 24 * 3600;

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got '${raw}'`);
  }
  const value = Number(raw.trim());
  if (value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(', ')}), got '${raw}'`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got '${parsed.protocol}'`);
  }
  return raw;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got '${raw}'`);
}

/** An http(s) base URL without a query or fragment, trailing slashes stripped. */
function baseUrl(env: Env, name: string): string | undefined {
  const given = url(env, name, ['http:', 'https:']);
  if (given && /[?#]/.test(given)) {
    throw new ConfigError(`${name} must be a base URL without a query or fragment, got '${given}'`);
  }
  return given?.replace(/\/+$/, '');
}

function optionalPort(env: Env, name: string): number | undefined {
  const raw = env[name]?.trim();
  return raw ? integer(env, name, 0, 1, 65535) : undefined;
}

/** A metrics token is a password: short ones are refused, so that none can be guessed by trying. */
function metricsToken(env: Env): string | undefined {
  const token = env.STOCKROOM_METRICS_TOKEN?.trim();
  if (!token) return undefined;
  if (token.length < 16 || /\s/.test(token)) throw new ConfigError('STOCKROOM_METRICS_TOKEN must be at least 16 characters without spaces');
  return token;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** STOCKROOM_TRUST_PROXY: unset or false, a hop count, or addresses, CIDR ranges and proxy-addr names. */
function trustProxy(env: Env): false | number | readonly string[] {
  const raw = env.STOCKROOM_TRUST_PROXY?.trim();
  if (!raw || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^\d+$/.test(raw)) return integer(env, 'STOCKROOM_TRUST_PROXY', 0, 1, 10);
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!PROXY_NAMES.includes(entry) && (family === 0 || !validBits || extra !== undefined)) {
      throw new ConfigError(
        `STOCKROOM_TRUST_PROXY must be false, a number of proxy hops (1 to 10), or a comma-separated list of addresses, CIDR ranges or ${PROXY_NAMES.join(', ')}; got '${raw}'`,
      );
    }
  }
  return Object.freeze(entries);
}

/**
 * The newer OAuth endpoints live at `${authUrl}/oauth2/…`. On the API's own host and path they
 * would sit on top of the earlier ones (`/oauth2/…`), so that is refused; and the path becomes
 * routes, so it must be plain segments.
 */
function checkAuthUrl(authUrl: string, publicUrl: string): void {
  const auth = new URL(authUrl);
  const api = new URL(publicUrl);
  if (!/^(\/[A-Za-z0-9._~-]+)*\/?$/.test(auth.pathname)) {
    throw new ConfigError(`STOCKROOM_AUTH_URL's path must be plain segments (letters, digits, . _ ~ -), got '${auth.pathname}'`);
  }
  if (auth.host === api.host && auth.pathname.replace(/\/+$/, '') === api.pathname.replace(/\/+$/, '')) {
    throw new ConfigError('STOCKROOM_AUTH_URL must differ from the public URL: give it a path (such as /auth) or another host');
  }
}

/**
 * STOCKROOM_EMBED_URL and STOCKROOM_SHORT_URL become routes as the auth URL does: their path must be
 * plain segments. The short links are `{short_url}/{id}`, one segment under the URL, so on the API's
 * own host and path they would take every one-segment path; and two of these URLs that are the same
 * would put an asset id where the other's routes are.
 */
function checkSiteUrls(urls: { name: string; url: string }[], publicUrl: string): void {
  const api = new URL(publicUrl);
  const seen = new Map<string, string>();
  for (const { name, url: given } of urls) {
    const site = new URL(given);
    if (!/^(\/[A-Za-z0-9._~-]+)*\/?$/.test(site.pathname)) {
      throw new ConfigError(`${name}'s path must be plain segments (letters, digits, . _ ~ -), got '${site.pathname}'`);
    }
    const place = `${site.host}${site.pathname.replace(/\/+$/, '')}`;
    if (name === 'STOCKROOM_SHORT_URL' && place === `${api.host}${api.pathname.replace(/\/+$/, '')}`) {
      throw new ConfigError(`${name} must differ from the public URL: give it a path (such as /s) or another host`);
    }
    const other = seen.get(place);
    if (other !== undefined) throw new ConfigError(`${name} must differ from ${other}`);
    seen.set(place, name);
  }
}

const HOST_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * HOST, the address to listen on: an IP address, `localhost` (or a name under it), this
 * machine's own name or one listed in its hosts file, or a fully qualified name (labels of
 * letters, digits and hyphens, ending in a top-level domain of letters). A single word that
 * is none of these (`HOST=not-a-host`) would only fail later, in a DNS lookup that names no setting.
 */
function host(env: Env): string {
  const raw = env.HOST?.trim() || '127.0.0.1';
  if (isIP(raw) !== 0) return raw;
  const name = raw.replace(/\.$/, '').toLowerCase();
  const labels = name.split('.');
  const wellFormed = name.length <= 253 && labels.every((label) => HOST_LABEL.test(label));
  const qualified = labels.length > 1 && /^[a-z]{2,63}$/.test(labels.at(-1)!);
  const local = () => name === 'localhost' || name.endsWith('.localhost') || name === os.hostname().toLowerCase() || hostsFileNames().has(name);
  if (!wellFormed || !(qualified || local())) {
    throw new ConfigError(
      `HOST must be an IP address (such as 127.0.0.1, or 0.0.0.0 for every interface), localhost, this machine's name or a fully qualified host name; got '${raw}'`,
    );
  }
  return raw;
}

/** The names the hosts file gives addresses to, lower-cased; none when it cannot be read. */
function hostsFileNames(): Set<string> {
  let text: string;
  try {
    text = fs.readFileSync(process.platform === 'win32' ? 'C:\\Windows\\System32\\drivers\\etc\\hosts' : '/etc/hosts', 'utf8');
  } catch {
    return new Set();
  }
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const [, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    for (const alias of aliases) names.add(alias.toLowerCase());
  }
  return names;
}

function generationServer(env: Env): GenerationConfig['server'] {
  const kind = env.STOCKROOM_GENERATION_SERVER?.trim().toLowerCase() || undefined;
  const serverUrl = baseUrl(env, 'STOCKROOM_GENERATION_SERVER_URL');
  if (kind === undefined && serverUrl === undefined) return undefined;
  if (kind === undefined || !(GENERATION_SERVERS as readonly string[]).includes(kind)) {
    throw new ConfigError(`STOCKROOM_GENERATION_SERVER must be one of ${GENERATION_SERVERS.join(', ')}${kind === undefined ? ' when STOCKROOM_GENERATION_SERVER_URL is set' : `, got '${kind}'`}`);
  }
  if (serverUrl === undefined) throw new ConfigError(`STOCKROOM_GENERATION_SERVER_URL must be set for the ${kind} server`);
  return Object.freeze({
    kind: kind as GenerationServerKind,
    url: serverUrl,
    apiKey: env.STOCKROOM_GENERATION_API_KEY?.trim() || undefined,
    model: env.STOCKROOM_GENERATION_MODEL?.trim() || undefined,
  });
}

function generationConfig(env: Env): GenerationConfig {
  const server = generationServer(env);
  const timeoutSeconds = integer(env, 'STOCKROOM_GENERATION_TIMEOUT', 300, 1, 3600);
  return Object.freeze({
    server,
    concurrency: integer(env, 'STOCKROOM_GENERATION_CONCURRENCY', 1, 0, 64),
    maxPerUser: integer(env, 'STOCKROOM_GENERATION_MAX_PER_USER', 4, 1, 1000),
    waitMs: integer(env, 'STOCKROOM_GENERATION_WAIT_MS', 3000, 0, 60_000),
    retentionDays: integer(env, 'STOCKROOM_GENERATION_RETENTION_DAYS', 183, 1, 3650),
    blockedTerms: Object.freeze(
      (env.STOCKROOM_GENERATION_BLOCKED_TERMS ?? '')
        .split(',')
        .map((term) => term.trim().toLowerCase())
        .filter((term) => term !== ''),
    ),
    timeoutSeconds,
    leaseSeconds: integer(env, 'STOCKROOM_GENERATION_LEASE_SECONDS', 60, 3, 3600),
    tuning: generationTuning(env, server?.kind, timeoutSeconds),
  });
}

export interface MediaFactsConfig {
  /** STOCKROOM_NUDITY_CLASSIFIER: score each new original for nudity at ingest and backfill (nsfwjs, about 60–100 ms a picture). */
  readonly classifyNudity: boolean;
  /** STOCKROOM_NUDITY_THRESHOLD: a nudity score above it is nudity to exclude_nudity and safe_search (0–1). */
  readonly nudityThreshold: number;
}

/** The media-fact settings alone (ingest and backfill read them where no whole configuration is loaded). */
export function mediaFactsConfig(env: Env = process.env): MediaFactsConfig {
  const raw = env.STOCKROOM_NUDITY_THRESHOLD?.trim();
  const threshold = raw ? Number(raw) : 0.5;
  if (raw && (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(raw) || !Number.isFinite(threshold))) {
    throw new ConfigError(`STOCKROOM_NUDITY_THRESHOLD must be a number from 0 to 1, got '${raw}'`);
  }
  return Object.freeze({ classifyNudity: boolean(env, 'STOCKROOM_NUDITY_CLASSIFIER', true), nudityThreshold: threshold });
}

/** The video settings alone (ingest reads them where no whole configuration is loaded). */
export function videoConfig(env: Env = process.env): VideoConfig {
  return Object.freeze({
    ffmpegPath: env.STOCKROOM_FFMPEG_PATH?.trim() || undefined,
    ffprobePath: env.STOCKROOM_FFPROBE_PATH?.trim() || undefined,
    runTranscodes: boolean(env, 'STOCKROOM_VIDEO_TRANSCODES', true),
    transcodeWaitMs: integer(env, 'STOCKROOM_VIDEO_TRANSCODE_WAIT_MS', 20_000, 0, 600_000),
    transcodeTimeoutSeconds: integer(env, 'STOCKROOM_VIDEO_TRANSCODE_TIMEOUT', 1800, 1, 86_400),
    transcodeLeaseSeconds: integer(env, 'STOCKROOM_VIDEO_TRANSCODE_LEASE_SECONDS', 60, 3, 3600),
  });
}

function blobsConfig(env: Env, dataDir: string): BlobsConfig {
  const raw = env.STOCKROOM_BLOBS?.trim();
  const pathStyle = boolean(env, 'STOCKROOM_BLOBS_PATH_STYLE', false);
  if (!raw) return Object.freeze({ kind: 'folder', dir: path.join(dataDir, 'blobs') });
  const location = parseS3Location(raw);
  if (typeof location === 'string') throw new ConfigError(`STOCKROOM_BLOBS ${location}`);
  return Object.freeze({ kind: 's3', location, pathStyle });
}

/** Reads and validates every setting; throws ConfigError naming the first bad one. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const listenHost = host(env);
  const dataDir = path.resolve(cwd, env.STOCKROOM_DATA_DIR?.trim() || './data');
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const displayHost = listenHost === '0.0.0.0' || listenHost === '::' ? '127.0.0.1' : listenHost;
  const publicUrl =
    baseUrl(env, 'STOCKROOM_PUBLIC_URL') ?? `http://${displayHost.includes(':') ? `[${displayHost}]` : displayHost}:${port}`;
  const authUrl = baseUrl(env, 'STOCKROOM_AUTH_URL') ?? `${publicUrl}/auth`;
  checkAuthUrl(authUrl, publicUrl);
  const embedUrl = baseUrl(env, 'STOCKROOM_EMBED_URL') ?? `${publicUrl}/embed`;
  const shortUrl = baseUrl(env, 'STOCKROOM_SHORT_URL') ?? `${publicUrl}/s`;
  checkSiteUrls(
    [
      { name: 'STOCKROOM_AUTH_URL', url: authUrl },
      { name: 'STOCKROOM_EMBED_URL', url: embedUrl },
      { name: 'STOCKROOM_SHORT_URL', url: shortUrl },
    ],
    publicUrl,
  );
  const logLevel = (env.STOCKROOM_LOG_LEVEL?.trim() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`STOCKROOM_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  }
  const requestTimeoutSeconds = integer(env, 'STOCKROOM_REQUEST_TIMEOUT', 60, 1, 3600);
  const headersTimeoutSeconds = integer(env, 'STOCKROOM_HEADERS_TIMEOUT', Math.min(20, requestTimeoutSeconds), 1, 3600);
  if (headersTimeoutSeconds > requestTimeoutSeconds) {
    throw new ConfigError(
      `STOCKROOM_HEADERS_TIMEOUT (${headersTimeoutSeconds}) must not exceed STOCKROOM_REQUEST_TIMEOUT (${requestTimeoutSeconds}): the headers are part of the request`,
    );
  }
  return Object.freeze({
    port,
    host: listenHost,
    dataDir,
    databaseUrl,
    redisUrl,
    publicUrl,
    authUrl,
    embedUrl,
    shortUrl,
    trustProxy: trustProxy(env),
    accessTokenTtlSeconds: integer(env, 'STOCKROOM_ACCESS_TOKEN_TTL', 1800, 60, 1800),
    implicitTokenTtlSeconds: integer(env, 'STOCKROOM_IMPLICIT_TOKEN_TTL', YEAR_SECONDS, 60, 2 * YEAR_SECONDS),
    refreshTokenTtlSeconds: integer(env, 'STOCKROOM_REFRESH_TOKEN_TTL', YEAR_SECONDS, 60, 2 * YEAR_SECONDS),
    logLevel,
    throttle: Object.freeze({
      perSecond: integer(env, 'STOCKROOM_THROTTLE_PER_SECOND', 50, 1, 1_000_000_000),
      perDay: integer(env, 'STOCKROOM_THROTTLE_PER_DAY', 100_000, 1, 1_000_000_000),
    }),
    displayUrlTtlSeconds: integer(env, 'STOCKROOM_DISPLAY_URL_TTL', 24 * 3600, 60, 366 * 24 * 3600),
    deliveryUrlTtlSeconds: integer(env, 'STOCKROOM_DELIVERY_URL_TTL', 24 * 3600, 60, 7 * 24 * 3600),
    seedDemoOnEmptyStore: boolean(env, 'STOCKROOM_SEED_DEMO', true),
    metricsPort: optionalPort(env, 'STOCKROOM_METRICS_PORT'),
    metricsToken: metricsToken(env),
    shutdownTimeoutSeconds: integer(env, 'STOCKROOM_SHUTDOWN_TIMEOUT', 25, 1, 3600),
    searchSnapshot: boolean(env, 'STOCKROOM_SEARCH_SNAPSHOT', true),
    searchBuildInChild: boolean(env, 'STOCKROOM_SEARCH_BUILD_IN_CHILD', true),
    searchTokensOnDisk: boolean(env, 'STOCKROOM_SEARCH_TOKENS_ON_DISK', true),
    searchSnapshotPublishMinutes: integer(env, 'STOCKROOM_SEARCH_SNAPSHOT_PUBLISH_MINUTES', databaseUrl ? 30 : 0, 0, 7 * 24 * 60),
    recordCacheSize: integer(env, 'STOCKROOM_RECORD_CACHE', 10_000, 0, 10_000_000),
    heapGrowthPercent: integer(env, 'STOCKROOM_HEAP_GROWTH_PERCENT', 30, 0, 300),
    requestTimeoutSeconds,
    headersTimeoutSeconds,
    keepAliveTimeoutSeconds: integer(env, 'STOCKROOM_KEEP_ALIVE_TIMEOUT', 5, 1, 3600),
    generation: generationConfig(env),
    mediaFacts: mediaFactsConfig(env),
    video: videoConfig(env),
    blobs: blobsConfig(env, dataDir),
    storedFiles: storedFilesConfig(env),
    assetUploads: assetUploadsConfig(env),
    imageDecodes: Object.freeze({
      concurrency: integer(env, 'STOCKROOM_IMAGE_DECODES', 2, 1, 64),
      queue: integer(env, 'STOCKROOM_IMAGE_DECODE_QUEUE', 32, 0, 10_000),
    }),
  });
}
