import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type Services } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { DeliveryUri } from '../../src/licensing/downloads.service.js';
import { openTestStore } from './test-store.js';

export { POSTGRES_URL, REDIS_URL, STORES } from './test-store.js';

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  services: Services;
  dataDir: string;
  /** An API key of an enabled client with generous limits. */
  apiKey: string;
  clientId: number;
  /** A valid bearer token of that client, issued now. */
  issueToken(lifetimeSeconds?: number): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  databaseUrl?: string | undefined;
  env?: Record<string, string>;
  /** The signed URL of a licensed file; default: the media module's. */
  deliveryUri?: DeliveryUri;
  /** The platform's clock; default the system's. */
  clock?: () => Date;
  /** A SQLite store in a file of the data folder, which other processes can open too (default: in memory). */
  sqliteInDataDir?: boolean;
}

/** The whole application on a temporary store, driven with app.inject() — no network. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-test-'));
  const config = loadConfig({
    STOCKROOM_DATA_DIR: dataDir,
    STOCKROOM_LOG_LEVEL: 'silent',
    STOCKROOM_PUBLIC_URL: 'http://stockroom.test',
    // A child process per boot would slow every suite on PostgreSQL; the suites of that build turn it on.
    STOCKROOM_SEARCH_BUILD_IN_CHILD: 'false',
    ...options.env,
  });
  const store = await openTestStore(options.databaseUrl, options.sqliteInDataDir ? path.join(dataDir, 'stockroom.sqlite') : undefined);
  const { app, services } = await buildApp(config, {
    database: store.database,
    logger: false,
    ...(options.deliveryUri ? { deliveryUri: options.deliveryUri } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await app.ready();
  const { apiKey, client } = await services.clients.create({
    name: 'Test application',
    queriesPerSecond: 100_000,
    queriesPerDay: 10_000_000,
  });
  return {
    app,
    services,
    config,
    dataDir,
    apiKey,
    clientId: client.id,
    async issueToken(lifetimeSeconds = 1800) {
      const { token } = await services.tokens.issue({ clientId: client.id, userId: null, grantType: 'password', lifetimeSeconds });
      return token;
    },
    async close() {
      await app.close();
      if (options.databaseUrl) await store.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
