import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type Services } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { ConfiguredEngines } from '../../src/generation/engine-router.js';
import type { BlobStore } from '../../src/platform/blobs/blob-store.js';
import { openTestStore } from '../helpers/test-store.js';
import { insertUser } from '../licensing/licensing-fixtures.js';

export interface Person {
  userId: number;
  token: string;
}

export interface GenerationTestApp {
  app: FastifyInstance;
  services: Services;
  apiKey: string;
  clientId: number;
  /** The platform's clock, moved on by `tick`. */
  tick(ms: number): void;
  person(options?: { team?: string }): Promise<Person>;
  call(method: InjectOptions['method'], url: string, options?: { token?: string; body?: unknown; contentType?: string; payload?: Buffer }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** The whole application on a fresh store with the given engines in place of the configured ones. */
export async function createGenerationApp(
  databaseUrl: string | undefined,
  engines: ConfiguredEngines,
  env: Record<string, string> = {},
  overrides: { blobs?: BlobStore } = {},
): Promise<GenerationTestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-generation-'));
  const config = loadConfig({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', STOCKROOM_PUBLIC_URL: 'http://stockroom.test', ...env });
  const store = await openTestStore(databaseUrl);
  let offset = 0;
  const { app, services } = await buildApp(config, {
    database: store.database,
    logger: false,
    clock: () => new Date(Date.now() + offset),
    generationEngines: engines,
    ...overrides,
  });
  await app.ready();
  const { apiKey, client } = await services.clients.create({ name: 'Generation tests', queriesPerSecond: 100_000, queriesPerDay: 10_000_000 });
  return {
    app,
    services,
    apiKey,
    clientId: client.id,
    tick(ms) {
      offset += ms;
    },
    async person(options = {}) {
      const userId = await insertUser(services.database.db, { team: options.team ?? null });
      const { token } = await services.tokens.issue({ clientId: client.id, userId, grantType: 'password', lifetimeSeconds: 86_400 });
      return { userId, token };
    },
    call(method, url, options = {}) {
      const headers: Record<string, string> = { 'api-key': apiKey };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      const request: InjectOptions = { method, url, headers };
      if (options.payload !== undefined) {
        headers['content-type'] = options.contentType ?? 'image/png';
        request.payload = options.payload;
      } else if (options.body !== undefined) {
        headers['content-type'] = options.contentType ?? 'application/json';
        request.payload = JSON.stringify(options.body);
      }
      return app.inject(request);
    },
    async close() {
      await app.close();
      if (databaseUrl) await store.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls a generation until it is no longer pending. */
export async function settle(t: GenerationTestApp, id: string, token: string, timeoutMs = 10_000): Promise<LightMyRequestResponse> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const response = await t.call('GET', `/v3/ai/image-generations/${id}`, { token });
    if (response.statusCode !== 202 || Date.now() > until) return response;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
