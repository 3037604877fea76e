import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/*
 * A loopback HTTP server for one test file, standing in for a model server on a GPU machine: each
 * test file gives it the routes of the API it speaks, which check what they receive as the real
 * server would and answer in its shapes with real pictures.
 */

export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface Reply {
  status?: number;
  json?: unknown;
  body?: Buffer | string;
  contentType?: string;
  /** Wait this long before answering (a slow GPU, or one that never answers in time). */
  delayMs?: number;
}

export type Route = (request: ReceivedRequest) => Reply | Promise<Reply>;

export interface TestServer {
  url: string;
  received: ReceivedRequest[];
  /** Routes by "METHOD /path"; a test may replace one for a failure case. */
  routes: Map<string, Route>;
  close(): Promise<void>;
}

export async function startTestServer(routes: Record<string, Route>): Promise<TestServer> {
  const table = new Map(Object.entries(routes));
  const received: ReceivedRequest[] = [];
  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
      const request: ReceivedRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      const route = table.get(`${request.method} ${request.path}`) ?? table.get(`${request.method} ${routePattern(request.path, table)}`);
      void (async () => {
        let reply: Reply;
        try {
          reply = route ? await route(request) : { status: 404, json: { detail: 'Not Found' } };
        } catch (error) {
          reply = { status: 500, json: { detail: `test server: ${(error as Error).message}` } };
        }
        if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        if (outgoing.destroyed) return;
        const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.body ?? '');
        outgoing.writeHead(reply.status ?? 200, {
          'content-type': reply.contentType ?? (reply.json !== undefined ? 'application/json' : 'text/plain'),
        });
        outgoing.end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    routes: table,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A route key with a trailing path parameter, e.g. "/history/:id" for "/history/abc". */
function routePattern(path: string, table: Map<string, Route>): string | undefined {
  for (const key of table.keys()) {
    const pattern = key.split(' ')[1]!;
    if (pattern.endsWith('/:id') && path.startsWith(pattern.slice(0, -3)) && !path.slice(pattern.length - 3).includes('/')) return pattern;
  }
  return undefined;
}

/** The body as a web Request, for its multipart parser. */
export async function formOf(request: ReceivedRequest): Promise<FormData> {
  return new Request('http://127.0.0.1/', {
    method: 'POST',
    headers: { 'content-type': String(request.headers['content-type'] ?? '') },
    body: request.body,
  }).formData();
}

/** A real picture: a coloured ground with a disc on it, so that sizes, crops and masks can be seen in it. */
export async function pictureOf(width: number, height: number, ground = '#3a6ea5', format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const radius = Math.max(1, Math.round(Math.min(width, height) / 4));
  const disc = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${radius}" fill="#f2c14e"/></svg>`,
  );
  const image = sharp({ create: { width, height, channels: 3, background: ground } }).composite([{ input: disc }]);
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 85 }).toBuffer();
}

/** A white-is-edit JPEG mask of the given size with a white rectangle, as clients upload them. */
export async function jpegMask(width: number, height: number, rect: { left: number; top: number; width: number; height: number }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#000000' } })
    .composite([{ input: { create: { width: rect.width, height: rect.height, channels: 3, background: '#ffffff' } }, left: rect.left, top: rect.top }])
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** A subject cut out: the picture kept inside a disc, transparent around it. */
export async function cutOut(width: number, height: number): Promise<Buffer> {
  const disc = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="#fff"/></svg>`,
  );
  return sharp(await pictureOf(width, height))
    .ensureAlpha()
    .composite([{ input: disc, blend: 'dest-in' }])
    .png()
    .toBuffer();
}

/** Decodes base64 strictly (as Python's b64decode with validate would), or throws. */
export function strictBase64(text: unknown): Buffer {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error('not base64');
  return Buffer.from(text, 'base64');
}

export interface Decoded {
  width: number;
  height: number;
  channels: number;
  format: string;
  /** Raw pixels, `channels` bytes each. */
  pixels: Buffer;
}

export async function decode(data: Buffer): Promise<Decoded> {
  const image = sharp(data);
  const { format } = await image.metadata();
  const { data: pixels, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, format: format ?? 'unknown', pixels };
}
