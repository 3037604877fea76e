import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/network.js';
import {
  CUSTOMER_PASSWORD,
  httpsRequest,
  missingPrograms,
  prepareCustomer,
  selfSignedCertificate,
  serveNode,
  siteConfiguration,
  startNginx,
  stopNode,
  type Customer,
  type Node,
  type RunningNginx,
} from './infrastructure.js';

/*
 * The deployment of docs/operations.md, run: Debian's nginx with the site file shipped in
 * docs/deploy/ and a self-signed certificate, in front of `stockroom serve` with
 * STOCKROOM_PUBLIC_URL set to nginx's https address and STOCKROOM_TRUST_PROXY to loopback.
 */

const missing = missingPrograms(['nginx', 'openssl']);
const required = process.env.STOCKROOM_REQUIRE_BACKENDS === '1';
if (missing.length > 0 && !required) process.stdout.write(`stockroom tests: skipped the nginx TLS suite (${missing.join(', ')} not installed)\n`);

/** The TLS version a handshake settled on, or the error that ended it. */
function handshake(port: number, version: tls.SecureVersion, ca: Buffer): Promise<{ protocol: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      ca,
      minVersion: version,
      maxVersion: version,
      // OpenSSL 3 refuses TLS 1.0 and 1.1 on the client side at its default security level;
      // level 0 lets this client offer them, so that a refusal can only come from the server.
      ciphers: 'DEFAULT@SECLEVEL=0',
    });
    socket.once('secureConnect', () => {
      resolve({ protocol: socket.getProtocol() ?? 'unknown' });
      socket.destroy();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve({ error: `${error.code ?? ''} ${error.message}` }));
  });
}

describe.skipIf(missing.length > 0 && !required)('behind nginx with TLS (docs/deploy/nginx-stockroom.conf)', () => {
  let dir: string;
  let node: Node;
  let nginx: RunningNginx;
  let cert: Buffer;
  let httpPort: number;
  let tlsPort: number;
  let customer: Customer;
  let base: string;

  beforeAll(async () => {
    if (missing.length > 0) throw new Error(`STOCKROOM_REQUIRE_BACKENDS=1 needs ${missing.join(', ')} for the nginx TLS suite (apt-get install nginx)`);
    // The servers live for all of the suite's tests (processScratch cleans after each test).
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-nginx-'));
    const certificate = await selfSignedCertificate(dir);
    cert = certificate.cert;
    [httpPort, tlsPort] = [await freePort(), await freePort()];
    base = `https://127.0.0.1:${tlsPort}`;
    const env = {
      ...process.env,
      STOCKROOM_DATA_DIR: dir,
      DATABASE_URL: '',
      REDIS_URL: '',
      STOCKROOM_SEED_DEMO: 'false',
      STOCKROOM_LOG_LEVEL: 'warn',
      STOCKROOM_PUBLIC_URL: base,
      STOCKROOM_TRUST_PROXY: 'loopback',
    };
    customer = await prepareCustomer(env, dir, { credits: 5, assets: 3 });
    const nodePort = await freePort();
    node = await serveNode(env, nodePort);
    nginx = await startNginx(dir, siteConfiguration({ httpPort, tlsPort, nodePorts: [nodePort], ...certificate }));
  }, 120_000);

  afterAll(async () => {
    await nginx?.stop();
    if (node) await stopNode(node);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('rule: TLS 1.0 and 1.1 are refused by the server (its protocol-version alert); 1.2 and 1.3 are served', async () => {
    for (const version of ['TLSv1', 'TLSv1.1'] as const) {
      const result = await handshake(tlsPort, version, cert);
      expect(result, version).toHaveProperty('error');
      // The alert comes from the server: the client offered the version and was told no.
      expect((result as { error: string }).error, version).toMatch(/alert protocol version/i);
    }
    for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
      expect(await handshake(tlsPort, version, cert), version).toEqual({ protocol: version });
    }
  });

  it('rule: plain HTTP is redirected to the https address, path and query kept', async () => {
    const response = await fetch(`http://127.0.0.1:${httpPort}/v3/images?ids=ops0`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('https://127.0.0.1/v3/images?ids=ops0');
  });

  it('rule: links carry the public https address, and /readyz answers through the proxy', async () => {
    const index = await httpsRequest(`${base}/v3`, { ca: cert });
    expect(index.status).toBe(200);
    expect(JSON.parse(index.body.toString())).toMatchObject({ links: { docs: `${base}/docs`, token: `${base}/auth/oauth2/token` } });
    const ready = await httpsRequest(`${base}/readyz`, { ca: cert });
    expect(ready.status).toBe(200);
  });

  it('rule: a download redirects to the https address, and that address delivers the file through the proxy', async () => {
    const tokenAnswer = await httpsRequest(`${base}/auth/oauth2/token`, {
      ca: cert,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: 'buyer', password: CUSTOMER_PASSWORD, client_id: customer.apiKey, client_secret: customer.apiSecret }).toString(),
    });
    expect(tokenAnswer.status).toBe(200);
    const { access_token: token } = JSON.parse(tokenAnswer.body.toString()) as { access_token: string };
    const download = await httpsRequest(`${base}/v3/downloads/images/${customer.ids[0]}`, {
      ca: cert,
      method: 'POST',
      headers: { 'api-key': customer.apiKey, authorization: `Bearer ${token}` },
    });
    expect(download.status).toBe(303);
    const location = download.headers.location as string;
    expect(location.startsWith(`${base}/`)).toBe(true);
    const file = await httpsRequest(location, { ca: cert });
    expect(file.status).toBe(200);
    expect(file.body.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it('rule: the proxy says the request was https (STOCKROOM_TRUST_PROXY): the sign-in page sets its cookie Secure', async () => {
    const page = await httpsRequest(
      `${base}/auth/oauth2/auth?client_id=${customer.apiKey}&response_type=code&redirect_uri=${encodeURIComponent('http://localhost:8080/callback')}&state=s`,
      { ca: cert },
    );
    expect(page.status).toBe(200);
    const cookies = ([] as string[]).concat(page.headers['set-cookie'] ?? []);
    expect(cookies.length).toBeGreaterThan(0);
    expect(cookies.every((cookie) => /;\s*Secure/i.test(cookie))).toBe(true);
  });
});
