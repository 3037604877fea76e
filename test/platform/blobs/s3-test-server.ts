import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3rver from 's3rver';

/**
 * An S3-protocol server for tests: s3rver on a free port over a temporary folder, behind a small
 * proxy that records each request (method, path, query, Range header, body size), so that a test
 * can see what the store really asked for — a ranged GET, the parts of a multipart upload.
 */

export const S3_TEST_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface RecordedS3Request {
  method: string;
  /** Path and query as sent (path-style: /bucket/key?…). */
  url: string;
  range: string | undefined;
  bodyBytes: number;
}

export interface S3TestServer {
  /** The proxy's address: give it to the client as its endpoint. */
  endpoint: string;
  bucket: string;
  requests: RecordedS3Request[];
  /** While true, the proxy flips the first byte of every object a GET returns (a fault on the way back). */
  corruptReads: boolean;
  /** The environment a `stockroom` process needs to use this server (path style, endpoint, credentials, region). */
  env(prefix?: string): Record<string, string>;
  close(): Promise<void>;
}

interface S3rverObject {
  bucket: string;
  key: string;
  content: Buffer | Readable;
  metadata: Record<string, string>;
}

interface S3rverStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
  getObject(bucket: string, key: string, options?: unknown): Promise<unknown>;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
}

export async function startS3TestServer(bucket = 'stockroom-test'): Promise<S3TestServer> {
  // The SDK's Node 22 notice (see env() below) would otherwise be printed by every test worker that makes a client.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-s3-'));
  const storeFolder = path.join(folder, 'store');
  const stagingFolder = path.join(folder, 'staging');
  fs.mkdirSync(storeFolder);
  fs.mkdirSync(stagingFolder);
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: storeFolder, silent: true, configureBuckets: [{ name: bucket }] });
  const address = (await server.run()) as AddressInfo;
  const store = (server as unknown as { store: S3rverStore }).store;
  replaceObjectsWhole(store, storeFolder, stagingFolder);
  const multipartUploads = answerMultipartUploads(store);

  const requests: RecordedS3Request[] = [];
  const proxy = http.createServer((request, response) => {
    const record: RecordedS3Request = { method: request.method ?? '', url: request.url ?? '', range: request.headers.range, bodyBytes: 0 };
    requests.push(record);
    request.on('data', (chunk: Buffer) => (record.bodyBytes += chunk.length));
    if (multipartUploads.answers(request)) {
      multipartUploads.answer(request, response).catch(() => response.destroy());
      return;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: address.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        const objectRead = request.method === 'GET' && answer.statusCode !== undefined && answer.statusCode < 300 && !/[?&]list-type=/.test(request.url ?? '');
        if (testServer.corruptReads && objectRead) {
          let first = true;
          answer
            .pipe(
              new Transform({
                transform(chunk: Buffer, _encoding, callback) {
                  if (first && chunk.length > 0) {
                    chunk = Buffer.from(chunk);
                    chunk[0] = chunk[0]! ^ 0xff;
                    first = false;
                  }
                  callback(null, chunk);
                },
              }),
            )
            .pipe(response);
        } else {
          answer.pipe(response);
        }
      },
    );
    upstream.on('error', () => response.destroy());
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const testServer: S3TestServer = {
    endpoint,
    bucket,
    requests,
    corruptReads: false,
    env(prefix = '') {
      return {
        STOCKROOM_BLOBS: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
        STOCKROOM_BLOBS_PATH_STYLE: 'true',
        AWS_ENDPOINT_URL_S3: endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
        // On Node 20 the SDK prints a multi-line notice that it will want Node 22 from 2027; the
        // tests read the commands' own lines (docs/storage.md tells operators the same switch).
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      };
    },
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await server.close();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
  return testServer;
}

interface MultipartUploads {
  /** Whether the request is one s3rver does not answer and this does: ListParts or AbortMultipartUpload. */
  answers(request: http.IncomingMessage): boolean;
  answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void>;
}

/** ListParts' page when the request names none, and the most it may ask for (the S3 API reference). */
const MAX_PARTS = 1000;

/**
 * s3rver takes a multipart upload's creation, parts and completion, but answers ListParts
 * (`GET /bucket/key?uploadId=…`) and AbortMultipartUpload (`DELETE /bucket/key?uploadId=…`) with
 * 405; tus's S3 store asks ListParts on every PATCH and HEAD and aborts an unfinished upload it
 * removes. No S3 server from the npm registry that runs on Node 20 answers ListParts (s3rver's
 * fork has none before its 5.x, which wants Node 24; fauxqs has none). The stand-in is given them
 * as S3 answers them, from what s3rver holds of the upload (its folder of parts, each beside its
 * MD5, and the object's key): parts in number order after `part-number-marker`, `max-parts` at a
 * time (1,000 by default), with IsTruncated and NextPartNumberMarker; a part still being written
 * is not listed (S3 lists a part once its upload is done); an upload completed, aborted or never
 * made is NoSuchUpload (404), which tus reads as finished. The XML is the S3 API reference's. The
 * proxy answers these two itself, without checking their signature (s3rver checks the others').
 */
function answerMultipartUploads(store: S3rverStore): MultipartUploads {
  const target = (request: http.IncomingMessage) => {
    const url = new URL(request.url ?? '/', 'http://s3.test');
    const [, bucket, ...keyParts] = url.pathname.split('/');
    const uploadId = url.searchParams.get('uploadId');
    const key = keyParts.map((part) => decodeURIComponent(part)).join('/');
    return { url, bucket: decodeURIComponent(bucket ?? ''), key, uploadId };
  };
  /** The folder s3rver keeps an upload's parts in, when the upload is of that key; undefined when there is no such upload. */
  const uploadFolder = async (bucket: string, key: string, uploadId: string): Promise<string | undefined> => {
    if (!/^[0-9a-f]+$/.test(uploadId)) return undefined;
    const folder = path.join(store.getResourcePath(bucket, '', 'uploads'), uploadId);
    const keyOfUpload = await fsp.readFile(path.join(folder, 'key'), 'utf8').catch(() => undefined);
    return keyOfUpload === key ? folder : undefined;
  };
  const send = (response: http.ServerResponse, status: number, xml?: string) => {
    const body = xml === undefined ? '' : `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
    response.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body), 'x-amz-request-id': randomBytes(8).toString('hex') });
    response.end(body);
  };
  const error = (response: http.ServerResponse, status: number, code: string, message: string, extra: Record<string, string> = {}) =>
    send(
      response,
      status,
      `<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${Object.entries(extra)
        .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
        .join('')}<RequestId>${randomBytes(8).toString('hex')}</RequestId></Error>`,
    );
  const noSuchUpload = (response: http.ServerResponse, uploadId: string) =>
    error(response, 404, 'NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.', {
      UploadId: uploadId,
    });
  /** A whole number within bounds from the query, the default when absent; undefined when it is not one. */
  const wholeNumber = (text: string | null, fallback: number, min: number, max: number) => {
    if (text === null) return fallback;
    if (!/^\d+$/.test(text)) return undefined;
    const value = Number(text);
    return value >= min && value <= max ? value : undefined;
  };

  return {
    answers(request) {
      if (request.method !== 'GET' && request.method !== 'DELETE') return false;
      const { bucket, key, uploadId } = target(request);
      return uploadId !== null && bucket !== '' && key !== '';
    },
    async answer(request, response) {
      const { url, bucket, key, uploadId } = target(request);
      // Drain the (empty) body so that the connection can be used again.
      request.resume();
      const folder = await uploadFolder(bucket, key, uploadId!);
      if (request.method === 'DELETE') {
        if (folder === undefined) return noSuchUpload(response, uploadId!);
        await fsp.rm(folder, { recursive: true, force: true });
        return send(response, 204);
      }
      const maxParts = wholeNumber(url.searchParams.get('max-parts'), MAX_PARTS, 0, MAX_PARTS);
      if (maxParts === undefined) {
        return error(response, 400, 'InvalidArgument', `Argument max-parts must be an integer between 0 and ${MAX_PARTS}`, { ArgumentName: 'max-parts' });
      }
      const marker = wholeNumber(url.searchParams.get('part-number-marker'), 0, 0, 10_000);
      if (marker === undefined) {
        return error(response, 400, 'InvalidArgument', 'Argument part-number-marker must be an integer between 0 and 10000', { ArgumentName: 'part-number-marker' });
      }
      if (folder === undefined) return noSuchUpload(response, uploadId!);
      const names = await fsp.readdir(folder);
      const finished = new Set(names.filter((name) => /^\d+\.md5$/.test(name)).map((name) => Number(name.slice(0, -'.md5'.length))));
      const numbers = [...finished].filter((n) => n > marker).sort((a, b) => a - b);
      const page = numbers.slice(0, maxParts);
      const truncated = numbers.length > page.length;
      const parts: string[] = [];
      for (const n of page) {
        const [stat, md5] = await Promise.all([fsp.stat(path.join(folder, String(n))), fsp.readFile(path.join(folder, `${n}.md5`), 'utf8')]);
        parts.push(`<Part><PartNumber>${n}</PartNumber><LastModified>${stat.mtime.toISOString()}</LastModified><ETag>"${md5}"</ETag><Size>${stat.size}</Size></Part>`);
      }
      const owner = '<ID>123456789000</ID><DisplayName>S3rver</DisplayName>';
      send(
        response,
        200,
        `<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${escapeXml(bucket)}</Bucket><Key>${escapeXml(key)}</Key>` +
          `<UploadId>${uploadId}</UploadId><Initiator>${owner}</Initiator><Owner>${owner}</Owner><StorageClass>STANDARD</StorageClass>` +
          `<PartNumberMarker>${marker}</PartNumberMarker>` +
          (page.length > 0 ? `<NextPartNumberMarker>${page[page.length - 1]}</NextPartNumberMarker>` : '') +
          `<MaxParts>${maxParts}</MaxParts><IsTruncated>${truncated}</IsTruncated>${parts.join('')}</ListPartsResult>`,
      );
    },
  };
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

/**
 * S3 replaces an object whole: a reader gets the old bytes or the new ones, never a mix. s3rver
 * writes over the object's file in place (and its metadata beside it), so a reader may see half
 * a write. The stand-in is given the protocol's rule — the bytes are written to a staging file
 * and renamed into place, the metadata likewise, and a read takes the metadata and opens the file
 * while no write of that key is being put in place — so that tests of atomicity test our store,
 * not a shortcut of the test server.
 */
function replaceObjectsWhole(store: S3rverStore, storeFolder: string, stagingFolder: string): void {
  const tails = new Map<string, Promise<unknown>>();
  const exclusively = <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const previous = tails.get(name) ?? Promise.resolve();
    const result = previous.then(run, run);
    const tail = result.catch(() => undefined);
    tails.set(name, tail);
    void tail.then(() => {
      if (tails.get(name) === tail) tails.delete(name);
    });
    return result;
  };
  const getObject = store.getObject.bind(store);
  const putMetadata = store.putMetadata.bind(store);
  const renameInto = async (from: string, to: string) => {
    await fsp.mkdir(path.dirname(to), { recursive: true });
    await fsp.rename(from, to);
  };
  // The stand-in's own metadata writer, pointed at the staging folder (a "bucket" path relative to its root).
  const stagingBucket = path.relative(storeFolder, stagingFolder);
  store.putMetadata = async (bucket, key, metadata, md5) => {
    // Written elsewhere first, then renamed: a HEAD never reads half a metadata file.
    const stagedKey = randomBytes(8).toString('hex');
    await putMetadata(stagingBucket, stagedKey, metadata, md5);
    for (const resource of ['object.md5', 'metadata.json']) {
      await renameInto(store.getResourcePath(stagingBucket, stagedKey, resource), store.getResourcePath(bucket, key, resource));
    }
  };
  store.putObject = async (object) => {
    const staged = path.join(stagingFolder, randomBytes(8).toString('hex'));
    const md5 = createHash('md5');
    let size = 0;
    const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    await pipeline(
      source,
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          md5.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      }),
      fs.createWriteStream(staged),
    );
    const digest = md5.digest('hex');
    await exclusively(`${object.bucket}/${object.key}`, async () => {
      await renameInto(staged, store.getResourcePath(object.bucket, object.key, 'object'));
      await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    });
    return { size, md5: digest };
  };
  // The file is opened inside: an open file keeps the bytes it had, whatever is renamed over it later.
  store.getObject = (bucket, key, options) =>
    exclusively(`${bucket}/${key}`, async () => {
      const object = (await getObject(bucket, key, options)) as { content?: Readable | null; range?: { start: number; end: number } } | null;
      // s3rver reads a range's end of 0 as "no end" (`end || Infinity`): bytes=0-0 would answer the
      // whole object. S3 answers the first byte; so does the stand-in.
      const asked = options as { start?: number; end?: number } | undefined;
      if (object?.content && asked?.end === 0 && object.range) {
        object.content.destroy();
        object.content = fs.createReadStream(store.getResourcePath(bucket, key, 'object'), { start: 0, end: 0 });
        object.range = { start: 0, end: 0 };
      }
      return object;
    });
}
