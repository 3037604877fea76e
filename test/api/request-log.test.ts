import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { openTestStore } from '../helpers/test-store.js';

describe('the request log', () => {
  it('writes one structured JSON line per request, with its request id', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-log-'));
    const store = await openTestStore(undefined);
    const { app, services } = await buildApp(loadConfig({ STOCKROOM_DATA_DIR: dataDir }), {
      database: store.database,
      logger: { level: 'info', stream },
    });
    try {
      const { apiKey } = await services.clients.create({ name: 'log' });
      await app.inject({ method: 'GET', url: '/v3/countries', headers: { 'api-key': apiKey, 'x-request-id': 'req-1' } });
      await app.inject({ method: 'GET', url: '/v3/images/1', headers: { 'x-request-id': 'req-2' } });
      const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.reqId);
      expect(entries).toHaveLength(2);
      expect(entries[0]).toMatchObject({ reqId: 'req-1', method: 'GET', url: '/v3/countries', status: 200, msg: 'request' });
      expect(entries[0]!.client).toEqual(expect.any(Number));
      expect(entries[1]).toMatchObject({ reqId: 'req-2', status: 403 });
      expect(entries[0]!.ms).toEqual(expect.any(Number));
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
