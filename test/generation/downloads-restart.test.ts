import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, type Services } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { BuiltinEngine } from '../../src/generation/engines/builtin/builtin-engine.js';
import type { EngineOperation, EngineRequest, EngineResult, GenerationEngine } from '../../src/generation/engines/engine.js';
import { insertUser } from '../licensing/licensing-fixtures.js';
import { DrawingEngine } from './drawing-engine.js';

/** The built-in engine whose upscales never finish: the process that runs it is "killed" mid-way. */
class StalledUpscales implements GenerationEngine {
  readonly name = 'builtin';
  private readonly engine = new BuiltinEngine();
  private let: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => {
    this.let = resolve;
  });

  supports(operation: EngineOperation): boolean {
    return this.engine.supports(operation);
  }

  async run(request: EngineRequest, signal?: AbortSignal): Promise<EngineResult> {
    if (request.operation === 'upscale') await this.gate;
    return this.engine.run(request, signal);
  }

  /** Lets the stalled upscale end (after the test), so that nothing is left waiting. */
  finish(): void {
    this.let();
  }
}

/*
 * On SQLite the process is the only runner: a generation job it finds running at start was
 * interrupted and is taken back at once. A download of a generated image that was being
 * prepared is taken back the same way, not left to wait out its lease (an hour here).
 */
describe('a download of a generated image interrupted by a restart (SQLite, the sole runner)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-downloads-restart-'));
  const stalled = new StalledUpscales();
  const env = {
    STOCKROOM_DATA_DIR: dataDir,
    STOCKROOM_LOG_LEVEL: 'silent',
    STOCKROOM_PUBLIC_URL: 'http://stockroom.test',
    STOCKROOM_GENERATION_WAIT_MS: '100',
    // A lease far longer than any test: only taking the file back at start can finish it.
    STOCKROOM_GENERATION_LEASE_SECONDS: '3600',
    DATABASE_URL: '',
    REDIS_URL: '',
  };
  const open: Array<{ app: FastifyInstance; services: Services }> = [];
  afterAll(async () => {
    stalled.finish();
    for (const { app } of open) await app.close().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (builtin: GenerationEngine) => {
    const built = await buildApp(loadConfig(env), { logger: false, generationEngines: { server: new DrawingEngine(['generate']), builtin } });
    await built.app.ready();
    open.push(built);
    return built;
  };

  it('is prepared by the next process at once', { timeout: 60_000 }, async () => {
    const first = await start(stalled);
    const { apiKey } = await first.services.clients.create({ name: 'Restart tests', queriesPerSecond: 100_000, queriesPerDay: 10_000_000 });
    const userId = await insertUser(first.services.database.db, {});
    await first.services.products.grant({ userId, type: 'aigen' });
    const { token } = await first.services.tokens.issue({ clientId: (await first.services.clients.find(apiKey))!.id, userId, grantType: 'password', lifetimeSeconds: 86_400 });
    const headers = { 'api-key': apiKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const call = (app: FastifyInstance, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
      app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });

    const generated = await call(first.app, 'POST', '/v3/ai/image-generations', { prompt: 'a fox', aspect_ratio: '1:1' });
    expect(generated.statusCode, generated.body).toBeLessThan(300);
    const id = generated.json<{ generation_request_id: string }>().generation_request_id;
    let settled = await call(first.app, 'GET', `/v3/ai/image-generations/${id}`);
    for (let n = 0; settled.statusCode === 202 && n < 400; n++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      settled = await call(first.app, 'GET', `/v3/ai/image-generations/${id}`);
    }
    expect(settled.statusCode, settled.body).toBe(200);

    // A 4k download is an upscale, prepared as a job: it stalls in the first process.
    const queued = await call(first.app, 'PUT', `/v3/ai/image-generations/${id}/images/0/download`, { size_name: '4k' });
    expect(queued.statusCode, queued.body).toBe(202);
    // The process is killed: its claim stays in the store with its lease (a clean stop would
    // have given it back), under a name no living process has.
    const db = first.services.database.db;
    await db.updateTable('generation_downloads').set({ claimed_by: 'a-process-that-was-killed', lease_until: new Date(Date.now() + 3_600_000).toISOString() }).where('status', '=', 'preparing').execute();
    await first.app.close();

    const second = await start(new BuiltinEngine());
    let ready = await call(second.app, 'GET', `/v3/ai/image-generations/${id}/images/0/download`);
    for (let n = 0; ready.statusCode === 202 && n < 400; n++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      ready = await call(second.app, 'GET', `/v3/ai/image-generations/${id}/images/0/download`);
    }
    expect(ready.statusCode, ready.body).toBe(200);
    expect(ready.json()).toMatchObject({ generated_asset_id: `${id}-0` });
  });
});
