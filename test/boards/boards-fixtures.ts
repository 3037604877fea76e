import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { buildApp, type Services } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { openTestStore } from '../helpers/test-store.js';
import { addAssets, creativeImageFields, creativeVideoFields, insertUser } from '../licensing/licensing-fixtures.js';

/** Counts every statement sent to the store, transactions' included: a Kysely plugin sees each one compiled. */
export class QueryCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count += 1;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

export interface Person {
  userId: number;
  token: string;
}

export interface BoardsTestApp {
  app: FastifyInstance;
  services: Services;
  apiKey: string;
  clientId: number;
  queries: QueryCounter;
  /** The platform's clock: held still, moved on by `tick`. */
  tick(ms?: number): void;
  /** A user with a name, and a token of theirs. */
  person(firstName?: string, lastName?: string): Promise<Person>;
  /** A client-credentials token: valid, but for no user. */
  clientToken(): Promise<string>;
  call(method: InjectOptions['method'], url: string, options?: { token?: string | null; body?: unknown; apiKey?: string | null }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * The whole application on a fresh store, as test/helpers/test-app.ts builds it, with what board
 * tests need besides: a clock held still, the change log read only when a test polls it, and a
 * count of the statements sent to the store.
 */
export async function createBoardsApp(databaseUrl: string | undefined, env: Record<string, string> = {}): Promise<BoardsTestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-boards-'));
  const config = loadConfig({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', STOCKROOM_PUBLIC_URL: 'http://stockroom.test', ...env });
  const store = await openTestStore(databaseUrl);
  const queries = new QueryCounter();
  const database = { ...store.database, db: store.database.db.withPlugin(queries) };
  let now = new Date('2025-06-01T09:00:00.000Z');
  const { app, services } = await buildApp(config, {
    database,
    logger: false,
    clock: () => now,
    // Tests read the change log themselves (services.changeFeed.poll()).
    changeFeedIntervalMs: 3_600_000,
  });
  await app.ready();
  const { apiKey, client } = await services.clients.create({ name: 'Board tests', queriesPerSecond: 100_000, queriesPerDay: 10_000_000 });
  let people = 0;
  return {
    app,
    services,
    apiKey,
    clientId: client.id,
    queries,
    tick(ms = 1000) {
      now = new Date(now.getTime() + ms);
    },
    async person(firstName, lastName) {
      people += 1;
      const userId = await insertUser(services.database.db, { firstName: firstName ?? `Person${people}`, lastName: lastName ?? 'Tester' });
      const { token } = await services.tokens.issue({ clientId: client.id, userId, grantType: 'password', lifetimeSeconds: 86_400 });
      return { userId, token };
    },
    async clientToken() {
      return (await services.tokens.issue({ clientId: client.id, userId: null, grantType: 'client_credentials', lifetimeSeconds: 86_400 })).token;
    },
    call(method, url, options = {}) {
      const headers: Record<string, string> = {};
      if (options.apiKey !== null) headers['api-key'] = options.apiKey ?? apiKey;
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      const request: InjectOptions = { method, url, headers };
      if (options.body !== undefined) {
        headers['content-type'] = 'application/json';
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

/** Images i1…iN and videos v1…vM in the catalogue, each with a stored original (so display sizes are signed). */
export async function addCatalog(services: Services, images: readonly string[], videos: readonly string[] = []): Promise<void> {
  await addAssets(services, 'image', images, creativeImageFields());
  if (videos.length > 0) await addAssets(services, 'video', videos, creativeVideoFields());
}

export interface AssetBody {
  id: string;
  asset_type: string;
  date_added: string;
  display_sizes: Array<{ name: string; uri: string }>;
}

export interface BoardBody {
  id: string;
  name: string;
  description: string | null;
  asset_count: number;
  comment_count: number;
  assets: AssetBody[];
  date_created: string;
  date_last_updated: string;
  permissions: Record<string, boolean>;
  links: { invitation: string | null; share: string | null };
}

export interface BoardListBody {
  boards: Array<Omit<BoardBody, 'assets' | 'comment_count' | 'permissions' | 'links'> & { hero_asset: AssetBody | null; board_relationship: string }>;
  board_count: number;
}

export interface CommentsBody {
  comments: Array<{ id: string; text: string; date_created: string; created_by: { first_name: string | null; last_name: string | null }; permissions: { can_delete_comment: boolean } }>;
  permissions: { can_add_comment: boolean };
}

/** The path of a link the API hands out (its host is the configured public URL). */
export const pathOf = (link: string | null) => new URL(link!).pathname;
