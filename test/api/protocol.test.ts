import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * HTTP itself, on a real socket: deadlines for stalled requests and idle connections, errors of
 * Node's parser in the API's shape, 405 with Allow, and bodies nobody here can read.
 */

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** the server closed the connection after answering */
  closed: boolean;
}

/** Sends raw bytes (all at once, nothing more after them) and reads until the server closes or `settleMs` of quiet. */
function rawExchange(port: number, bytes: string | Buffer, settleMs = 3000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let quiet: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(quiet);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, body: rest.join('\r\n\r\n'), closed });
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // Past a complete answer, a kept-alive connection stays quiet: stop after a while.
      clearTimeout(quiet);
      quiet = setTimeout(() => finish(false), settleMs);
    });
    socket.on('close', () => finish(true));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

describe('HTTP protocol rules', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp({
      env: { STOCKROOM_REQUEST_TIMEOUT: '1', STOCKROOM_HEADERS_TIMEOUT: '1', STOCKROOM_KEEP_ALIVE_TIMEOUT: '1' },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(() => t.close());

  it('rule: a body that never completes ends with 408 {message, code} and the connection closes', async () => {
    const token = await t.issueToken();
    const answer = await rawExchange(
      port,
      `POST /v3/downloads/images/1 HTTP/1.1\r\nHost: stockroom.test\r\nApi-Key: ${t.apiKey}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
    );
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ message: expect.any(String), code: 'RequestTimeout' });
    expect(answer.closed).toBe(true);
  });

  it('rule: headers that never complete end with 408 {message, code}', async () => {
    const answer = await rawExchange(port, `GET /v3/countries HTTP/1.1\r\nHost: stockroom.test\r\nApi-Key: ${t.apiKey}\r\n`);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body).code).toBe('RequestTimeout');
    expect(answer.closed).toBe(true);
  });

  it('rule: an idle keep-alive connection is closed after STOCKROOM_KEEP_ALIVE_TIMEOUT', async () => {
    const answer = await rawExchange(
      port,
      `GET /v3/countries HTTP/1.1\r\nHost: stockroom.test\r\nApi-Key: ${t.apiKey}\r\nConnection: keep-alive\r\n\r\n`,
      // far longer than the keep-alive timeout: the server, not this quiet timer, ends it
      8000,
    );
    expect(answer.status).toBe(200);
    expect(answer.closed).toBe(true);
  });

  it('rule: an over-long URL answers 431 in the API’s shape', async () => {
    const answer = await rawExchange(port, `GET /v3/images?ids=${'1,'.repeat(20_000)}1 HTTP/1.1\r\nHost: stockroom.test\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({ message: expect.any(String), code: 'RequestHeaderFieldsTooLarge' });
  });

  it('rule: a byte not allowed in a URL answers 400 in the API’s shape', async () => {
    const answer = await rawExchange(port, Buffer.from(`GET /v3/images?ids=1\u0001 HTTP/1.1\r\nHost: stockroom.test\r\n\r\n`, 'latin1'));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ message: expect.any(String), code: 'MalformedRequest' });
  });
});

describe('methods, codings and types', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('rule: a method the path does not take answers 405 with Allow', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/v3/images/1000001', headers: { 'api-key': t.apiKey } });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(response.json()).toEqual({ message: expect.stringContaining('DELETE'), code: 'MethodNotAllowed' });

    const post = await t.app.inject({ method: 'POST', url: '/display/1000001/comp.jpg' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toContain('GET');
  });

  it('rule: a path nobody serves is still 404, whatever the method', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await t.app.inject({ method, url: '/v3/no-such-thing', headers: { 'api-key': t.apiKey } });
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('NotFound');
    }
  });

  it('rule: a body in an unknown Content-Encoding answers 415 naming it; identity is read as sent', async () => {
    const token = await t.issueToken();
    const headers = { 'api-key': t.apiKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const gzip = await t.app.inject({ method: 'POST', url: '/v3/downloads/images/1', headers: { ...headers, 'content-encoding': 'gzip' }, payload: '{}' });
    expect(gzip.statusCode).toBe(415);
    expect(gzip.headers['accept-encoding']).toBe('identity');
    expect(gzip.json()).toEqual({ message: expect.stringContaining("'gzip'"), code: 'UnsupportedContentEncoding' });

    const identity = await t.app.inject({ method: 'POST', url: '/v3/downloads/images/1', headers: { ...headers, 'content-encoding': 'identity' }, payload: '{}' });
    expect(identity.statusCode).not.toBe(415);
  });

  it('rule: a JSON body is typed as sent: a number where text is wanted is 400 naming the field, not taken as text', async () => {
    const token = await t.issueToken();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v3/asset-licensing/1',
      headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ extended_licenses: ['multiseat'], end_client: 12345 }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ message: expect.stringContaining("'end_client'"), code: 'InvalidParameterValue' });
    // A query string is text: its numbers are read from it as before.
    const paged = await t.app.inject({ method: 'GET', url: '/v3/images?ids=1&page=1&page_size=1', headers: { 'api-key': t.apiKey } });
    expect(paged.statusCode).toBe(200);
  });

  it('rule: a text/plain body to a JSON endpoint answers 415 like any other wrong type', async () => {
    const token = await t.issueToken();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v3/downloads/images/1',
      headers: { 'api-key': t.apiKey, authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual({ message: expect.any(String), code: 'UnsupportedMediaType' });
  });
});
