import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestChangeSeq, readChangesAfter } from '../../src/platform/db/change-log.js';
import { getOrCreateSetting } from '../../src/platform/db/settings.js';
import { SearchService } from '../../src/search/search.service.js';
import { BUILDER_SPEC_VARIABLE, buildSnapshotInChild, builderNodeFlags } from '../../src/search/snapshot-builder.js';
import { fullImageFields } from '../helpers/catalog-fixtures.js';
import { STORES, createTestApp, type TestApp } from '../helpers/test-app.js';

const ASSETS = 60;

/** The children of a process that run the snapshot builder. */
function buildersOf(pid: number): number[] {
  const children = fs
    .readdirSync(`/proc/${pid}/task`)
    .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(' '))
    .filter((child) => child !== '')
    .map(Number);
  return children.filter((child) => {
    try {
      return fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('search-index');
    } catch {
      return false;
    }
  });
}

describe.each(STORES)('search snapshot built by a child process ($name)', ({ url }) => {
  let t: TestApp;
  let file: string;
  let storeId: string;

  async function addAsset(id: string, title: string) {
    await t.services.catalog.upsertAsset({ asset_type: 'image', id, fields: { ...fullImageFields(id), title, keywords: [{ text: title.split(' ')[0]! }] } });
  }

  /** A node on the same store whose boot builds in a child; `afterChild` runs once the child has exited. */
  function childBuildingNode(afterChild: () => Promise<void> = async () => undefined) {
    const messages: string[] = [];
    const warnings: string[] = [];
    const db = t.services.database.db;
    const reopen = t.services.database.reopen;
    if (!reopen) throw new Error('the test store cannot be opened by another process');
    const service = new SearchService({
      catalog: t.services.catalog,
      changes: { after: (seq, limit) => readChangesAfter(db, seq, limit), latest: () => latestChangeSeq(db) },
      snapshot: { file, storeId },
      log: (message, level) => {
        messages.push(message);
        if (level === 'warn') warnings.push(message);
      },
      buildSnapshotElsewhere: async (log) => {
        await buildSnapshotInChild({ config: t.config, database: reopen }, log);
        await afterChild();
      },
    });
    return { service, messages, warnings };
  }

  const count = (service: SearchService, phrase: string) => service.searchAssets({ phrase, limit: 1 }).total;

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url, sqliteInDataDir: true });
    file = path.join(t.dataDir, 'search', 'index.snapshot');
    storeId = await getOrCreateSetting(t.services.database.db, 'store_id', () => 'unused');
    for (let n = 0; n < ASSETS; n++) await addAsset(String(8_000_000 + n), n % 3 === 0 ? `Harbour view ${n}` : `Meadow path ${n}`);
    await t.services.changeFeed.poll();
    await t.services.search.settled();
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  it('boots from the snapshot the child wrote, with the counts of a build in the process', async () => {
    fs.rmSync(file, { force: true });
    const { service, messages, warnings } = childBuildingNode();
    await service.build();
    expect(warnings).toEqual([]);
    // The child's own lines reach the node's log.
    expect(messages.some((m) => /^search index builder \[pid \d+\]: search snapshot written/.test(m))).toBe(true);
    expect(messages.some((m) => m.includes('loaded from its snapshot'))).toBe(true);
    expect(messages.some((m) => m.startsWith('search index built from the store'))).toBe(false);
    expect(fs.existsSync(file)).toBe(true);
    expect(service.assetCount).toBe(t.services.search.assetCount);
    expect(count(service, 'harbour')).toBe(count(t.services.search, 'harbour'));
    expect(count(service, 'meadow')).toBe(count(t.services.search, 'meadow'));
    expect(count(service, 'harbour')).toBe(ASSETS / 3);
  }, 60_000);

  it('writes, with its index built in a thread of its own, the very bytes a build in the process writes', async () => {
    fs.rmSync(file, { force: true });
    const { service, warnings } = childBuildingNode();
    await service.build();
    await service.settled();
    expect(warnings).toEqual([]);
    const db = t.services.database.db;
    const inProcessFile = path.join(t.dataDir, 'search', 'in-process.snapshot');
    const inProcess = new SearchService({
      catalog: t.services.catalog,
      changes: { after: (seq, limit) => readChangesAfter(db, seq, limit), latest: () => latestChangeSeq(db) },
      snapshot: { file: inProcessFile, storeId },
    });
    await inProcess.build();
    await inProcess.settled();
    expect(fs.readFileSync(inProcessFile).equals(fs.readFileSync(file))).toBe(true);
  }, 60_000);

  it('replays the changes written after the child read the store', async () => {
    fs.rmSync(file, { force: true });
    const { service, messages } = childBuildingNode(() => addAsset('8100001', 'Lantern festival'));
    await service.build();
    expect(messages.some((m) => /and [1-9]\d* later changes/.test(m))).toBe(true);
    expect(service.searchAssets({ phrase: 'lantern', limit: 10 }).ids).toEqual(['8100001']);
    expect(service.assetCount).toBe(ASSETS + 1);
  }, 60_000);

  it('falls back to a build in the process when the child cannot write the snapshot', async () => {
    // Where the snapshot's folder should be, a file of garbage: the child fails to write.
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    fs.writeFileSync(path.dirname(file), 'not a folder');
    try {
      const { service, warnings, messages } = childBuildingNode();
      await service.build();
      expect(warnings.some((m) => /the child process that builds the snapshot failed \(exit code [1-9]/.test(m))).toBe(true);
      expect(messages.some((m) => m.startsWith('search index built from the store'))).toBe(true);
      expect(count(service, 'harbour')).toBe(count(t.services.search, 'harbour'));
    } finally {
      fs.rmSync(path.dirname(file), { force: true });
    }
  }, 60_000);

  it('falls back to a build in the process when the child is killed', async () => {
    fs.rmSync(file, { force: true });
    const killed: number[] = [];
    const { service, warnings, messages } = childBuildingNode();
    // The child is killed as soon as it runs, before it can have written anything.
    const spawned = new Promise<void>((resolve) => {
      const look = setInterval(() => {
        for (const pid of buildersOf(process.pid)) {
          process.kill(pid, 'SIGKILL');
          killed.push(pid);
        }
        if (killed.length > 0) {
          clearInterval(look);
          resolve();
        }
      }, 5);
    });
    await Promise.all([service.build(), spawned]);
    expect(killed).toHaveLength(1);
    expect(warnings.some((m) => m.includes('the child process that builds the snapshot failed (killed by SIGKILL'))).toBe(true);
    expect(messages.some((m) => m.startsWith('search index built from the store'))).toBe(true);
    expect(service.assetCount).toBe(t.services.search.assetCount);
  }, 60_000);

  it('gives the build up when the node that started it stops (its standard input closes)', async () => {
    const reopen = t.services.database.reopen!;
    // a data folder of its own, where nothing else writes a snapshot
    const dataDir = fs.mkdtempSync(path.join(t.dataDir, 'given-up-'));
    const child = spawn(process.execPath, [path.resolve('bin/stockroom.js'), 'search-index', 'build'], {
      env: { ...process.env, [BUILDER_SPEC_VARIABLE]: JSON.stringify({ config: { ...t.config, dataDir }, database: reopen }) },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // as when the node ends, however it ends: the pipe it held open closes
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(3);
    expect(stderr).toContain('the serving node that started this build has stopped');
    expect(fs.existsSync(path.join(dataDir, 'search', 'index.snapshot'))).toBe(false);
  }, 60_000);
});

describe('the builder child\'s Node flags', () => {
  it('keep the old generation\'s limit and drop a young generation\'s cap, in the arguments and in NODE_OPTIONS, and set the build\'s own', () => {
    const flags = builderNodeFlags(['--max-old-space-size=4096', '--max-semi-space-size=2', '--import', 'tsx'], '--max-semi-space-size=2 --enable-source-maps --max-semi-space-size 4 --max-old-space-size=3000');
    expect(flags.args).toEqual(['--max-old-space-size=4096', '--max-semi-space-size=32']);
    expect(flags.nodeOptions).toBe('--enable-source-maps --max-old-space-size=3000');
    expect(builderNodeFlags([], undefined)).toEqual({ args: ['--max-semi-space-size=32'], nodeOptions: undefined });
  });
});
