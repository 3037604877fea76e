import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp, type Services } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { VideoTools } from '../src/media/video/video-tools.js';
import { freePort, table } from './harness.js';
import { size } from './sizes.js';

/*
 * `npm run bench -- upload`: a 1 GB video (BENCH_UPLOAD_MB to change it) sent through the back
 * office's tus endpoint by a signed-in editor, beside a plain copy of the same file into the
 * blob store, in one run, with the process's resident memory sampled every 100 ms in each half.
 *
 * The file is made here and streamed to disk: a two-second H.264 clip from ffmpeg followed by a
 * `free` box (ISO BMFF's padding, which players and ffprobe step over) up to the size. So ingest
 * takes it as the video it is, and its ingest stays quick (two seconds to decode for the stills)
 * while every byte still goes through the upload, the hash and the store: the second half is
 * measured to the finished, staged upload, and then on to the new draft with its original
 * stored. The server listens on loopback in this process, so the RSS is the server's and the
 * client's together; the client streams each 8 MiB PATCH from the file, holding none of it.
 */

const MEGABYTE = 1024 * 1024;
const FILE_BYTES = size('BENCH_UPLOAD_MB', 1024, 16) * MEGABYTE;
/** What the upload page's script sends per PATCH (uploads.js). */
const CHUNK_BYTES = 8 * MEGABYTE;
const SAMPLE_MS = 100;
/** How long the benchmark waits for the ingest of the finished upload before it gives up on that row. */
const INGEST_WAIT_MS = 10 * 60_000;
const EDITOR = { username: 'bench-editor', password: 'bench editor password 1' };

/** The process's resident memory, sampled every 100 ms while `run` runs: its peak, before and after. */
async function sampled<T>(run: () => Promise<T>): Promise<{ value: T; seconds: number; before: number; peak: number; after: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, SAMPLE_MS);
  const start = performance.now();
  try {
    const value = await run();
    const seconds = (performance.now() - start) / 1000;
    const after = process.memoryUsage.rss();
    return { value, seconds, before, peak: Math.max(peak, after), after };
  } finally {
    clearInterval(timer);
  }
}

/** A short clip padded with a `free` box to `bytes`, written in 1 MiB pieces (never the whole file in memory). */
async function makePaddedVideo(folder: string, bytes: number): Promise<string> {
  const clip = path.join(folder, 'clip.mp4');
  await VideoTools.fromEnvironment().ffmpeg(
    ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=640x360:r=25:d=2', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', clip],
    { timeoutMs: 120_000 },
  );
  const clipBytes = fs.statSync(clip).size;
  const padding = bytes - clipBytes;
  if (padding < 8 || padding > 0xffff_ffff) throw new Error(`a padding box of ${padding} bytes does not fit a 32-bit box size`);
  const file = path.join(folder, 'long-take.mp4');
  const out = fs.createWriteStream(file);
  const write = (chunk: Buffer) => new Promise<void>((resolve, reject) => (out.write(chunk, (error) => (error ? reject(error) : resolve()))));
  await write(fs.readFileSync(clip));
  const header = Buffer.alloc(8);
  header.writeUInt32BE(padding, 0);
  header.write('free', 4, 'latin1');
  await write(header);
  const piece = Buffer.alloc(MEGABYTE, 0x5a);
  for (let left = padding - 8; left > 0; left -= piece.length) await write(left >= piece.length ? piece : piece.subarray(0, left));
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return file;
}

const cookieOf = (response: LightMyRequestResponse, name: string) => (response.cookies as Array<{ name: string; value: string }>).find((cookie) => cookie.name === name)?.value;
const hiddenField = (page: string, name: string) => new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(page)?.[1]?.replaceAll('&amp;', '&');

/** Signs in as a browser does, through the server's own sign-in page; the session cookie and its CSRF token. */
async function signIn(app: FastifyInstance, origin: string, cookieName: string): Promise<{ cookie: string; csrf: string }> {
  const pathOf = (url: string) => {
    const parsed = new URL(url, origin);
    return parsed.pathname + parsed.search;
  };
  const get = (url: string, cookie?: string) => app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  const start = await get('/signin?return=%2Fadmin%2Fuploads');
  const pending = cookieOf(start, cookieName);
  const authorize = await get(pathOf(start.headers.location as string));
  const formCookie = (authorize.cookies as Array<{ name: string; value: string }>)[0];
  if (!pending || !formCookie) throw new Error(`the sign-in did not start: ${start.statusCode} ${authorize.statusCode}`);
  const fields: Record<string, string> = {};
  for (const match of authorize.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = match[2]!.replaceAll('&amp;', '&');
  const allowed = await app.inject({
    method: 'POST',
    url: new URL(start.headers.location as string, origin).pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${formCookie.name}=${formCookie.value}` },
    payload: new URLSearchParams({ ...fields, ...EDITOR, decision: 'allow' }).toString(),
  });
  const back = await get(pathOf(allowed.headers.location as string), `${cookieName}=${pending}`);
  const session = cookieOf(back, cookieName);
  if (!session) throw new Error(`the sign-in did not finish: ${allowed.statusCode} ${back.statusCode}`);
  const page = await get('/admin/uploads', `${cookieName}=${session}`);
  const csrf = /data-csrf="([^"]+)"/.exec(page.body)?.[1] ?? hiddenField(page.body, 'csrf');
  if (page.statusCode !== 200 || !csrf) throw new Error(`the upload page did not open: ${page.statusCode}`);
  return { cookie: `${cookieName}=${session}`, csrf };
}

/** One tus request over a real connection; the body, when given, is streamed from the file's byte range. */
function tusRequest(origin: string, method: string, target: string, headers: Record<string, string>, body?: { file: string; start: number; length: number }): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(target, origin),
      { method, headers: { 'tus-resumable': '1.0.0', ...headers, ...(body ? { 'content-type': 'application/offset+octet-stream', 'content-length': String(body.length) } : {}) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      },
    );
    request.on('error', reject);
    if (!body) return request.end();
    fs.createReadStream(body.file, { start: body.start, end: body.start + body.length - 1 }).on('error', reject).pipe(request);
  });
}

/** The whole file through tus in 8 MiB PATCHes, as the upload page sends it; the upload's id once its last byte is in. */
async function uploadThroughTus(origin: string, session: { cookie: string; csrf: string }, file: string, bytes: number): Promise<string> {
  const headers = { cookie: session.cookie, 'x-csrf-token': session.csrf };
  const metadata = `filename ${Buffer.from(path.basename(file)).toString('base64')},filetype ${Buffer.from('video/mp4').toString('base64')}`;
  const created = await tusRequest(origin, 'POST', '/admin/uploads/files', { ...headers, 'upload-length': String(bytes), 'upload-metadata': metadata });
  if (created.status !== 201 || !created.headers.location) throw new Error(`tus creation: ${created.status} ${created.text}`);
  const location = created.headers.location;
  for (let offset = 0; offset < bytes; ) {
    const length = Math.min(CHUNK_BYTES, bytes - offset);
    const patched = await tusRequest(origin, 'PATCH', location, { ...headers, 'upload-offset': String(offset) }, { file, start: offset, length });
    if (patched.status !== 204) throw new Error(`tus PATCH at ${offset}: ${patched.status} ${patched.text}`);
    offset = Number(patched.headers['upload-offset']);
  }
  return location.split('/').pop()!;
}

/** Waits for the upload's ingest to end: the new draft's id, or why it was refused. */
async function ingested(services: Services, uploader: { userId: number; role: 'editor' }, uploadId: string): Promise<string> {
  const deadline = Date.now() + INGEST_WAIT_MS;
  while (Date.now() < deadline) {
    const [outcome] = await services.assetUploads.outcomes(uploader, [uploadId]);
    if (outcome?.status === 'done') return outcome.asset!.id;
    if (outcome?.status === 'refused') throw new Error(`ingest refused the upload: ${outcome.problem}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the upload was not ingested within ${INGEST_WAIT_MS / 60_000} minutes`);
}

const mb = (bytes: number) => (bytes / MEGABYTE).toFixed(0);

export async function uploadBenchmark(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-bench-upload-file-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-bench-upload-'));
  let services: Services | undefined;
  let app: FastifyInstance | undefined;
  try {
    process.stderr.write(`Making a ${mb(FILE_BYTES)} MB video (a 2 s clip and padding), streamed to disk…\n`);
    const file = await makePaddedVideo(folder, FILE_BYTES);

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      STOCKROOM_DATA_DIR: dataDir,
      STOCKROOM_LOG_LEVEL: 'silent',
      STOCKROOM_SEED_DEMO: 'false',
      STOCKROOM_PUBLIC_URL: origin,
      STOCKROOM_NUDITY_CLASSIFIER: 'false',
      DATABASE_URL: '',
      REDIS_URL: '',
    });
    ({ app, services } = await buildApp(config, { logger: false }));
    await app.listen({ port, host: '127.0.0.1' });
    const editor = await services.users.create({ ...EDITOR, role: 'editor', team: null });
    const session = await signIn(app, origin, 'stockroom-session');
    const blobs = services.blobs;

    process.stderr.write('A plain copy into the blob store…\n');
    const copy = await sampled(() => blobs.putFile('bench/plain-copy.mp4', file));
    if ((await blobs.size('bench/plain-copy.mp4')) !== FILE_BYTES) throw new Error('the plain copy is not whole');
    await blobs.delete('bench/plain-copy.mp4');

    process.stderr.write('The upload through tus…\n');
    const upload = await sampled(() => uploadThroughTus(origin, session, file, FILE_BYTES));
    process.stderr.write('Its ingest…\n');
    const ingest = await sampled(() => ingested(services!, { userId: editor.id, role: 'editor' }, upload.value));
    const original = await services.catalog.findOriginalInAnyState(ingest.value);
    const storedBytes = original ? await blobs.size(original.originalKey) : undefined;
    if (storedBytes !== FILE_BYTES) throw new Error(`the draft's original holds ${storedBytes} bytes, not ${FILE_BYTES}`);

    const row = (what: string, run: { seconds: number; before: number; peak: number; after: number }, bytes: number) => [
      what,
      run.seconds.toFixed(1),
      (bytes / MEGABYTE / run.seconds).toFixed(0),
      mb(run.peak),
      mb(run.before),
      mb(run.after),
    ];
    process.stdout.write(
      `\nUpload: one ${mb(FILE_BYTES)} MB video, folder blob store and staging on the same disk, SQLite, loopback HTTP, ` +
        `${os.cpus().length} cores, Node ${process.version}; RSS of the one process (server and client), sampled every ${SAMPLE_MS} ms\n\n`,
    );
    process.stdout.write(
      `${table(
        ['run', 'seconds', 'MB/s', 'peak RSS MB', 'RSS before MB', 'RSS after MB'],
        [
          row('plain copy into the blob store (BlobStore.putFile)', copy, FILE_BYTES),
          row(`tus upload, ${CHUNK_BYTES / MEGABYTE} MiB PATCHes, to the finished staged file`, upload, FILE_BYTES),
          row('its ingest, to the draft (hash, probe, stills, original into the blob store)', ingest, FILE_BYTES),
          row('upload and ingest together', { seconds: upload.seconds + ingest.seconds, before: upload.before, peak: Math.max(upload.peak, ingest.peak), after: ingest.after }, FILE_BYTES),
        ],
      )}\n`,
    );
  } finally {
    // (closing the app closes its services)
    await app?.close();
    await fsp.rm(folder, { recursive: true, force: true });
    await fsp.rm(dataDir, { recursive: true, force: true });
  }
}
