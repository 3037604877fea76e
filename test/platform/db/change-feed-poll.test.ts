import type { KyselyPlugin, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { ChangeFeed, recordChange, type Change } from '../../../src/platform/db/change-log.js';
import { openTestStore, STORES, type TestStore } from '../../helpers/test-store.js';

/** Holds every query's result until opened: a read of the log that has run but not yet returned. */
class Gate implements KyselyPlugin {
  private opened: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;
  private reach: () => void = () => undefined;
  /** Resolves when a result has come back from the store and is held. */
  reached: Promise<void> = Promise.resolve();
  close(): void {
    this.opened = new Promise((resolve) => (this.open = resolve));
    this.reached = new Promise((resolve) => (this.reach = resolve));
  }
  release(): void {
    this.open();
  }
  transformQuery<T>(args: { node: T }): T {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.reach();
    await this.opened;
    return args.result;
  }
}

describe.each(STORES)('the change feed ($name)', ({ url }) => {
  let store: TestStore;
  let writer: Database;
  let folder: string;
  afterEach(async () => {
    await writer.close();
    await store.drop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('has told a change committed before poll() when it resolves, though a read begun earlier was under way', async () => {
    // The writes go through a connection of their own: a held read keeps its connection (SQLite has one).
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'change-feed-'));
    store = await openTestStore(url, path.join(folder, 'store.sqlite'));
    writer = await openDatabase(store.options);
    const { db } = writer;
    const gate = new Gate();
    const feed = new ChangeFeed(store.database.db.withPlugin(gate));
    await feed.start(3_600_000);
    const told: Change[] = [];
    feed.subscribe((changes) => told.push(...changes));
    try {
      gate.close();
      const earlier = feed.poll();
      // The earlier read has reached the store and come back empty, held at the gate.
      await gate.reached;
      await recordChange(db, 'image', '42', 'insert', 'creative');
      const mine = feed.poll();
      gate.release();
      await Promise.all([earlier, mine]);
      expect(told.map((change) => change.entity_id)).toEqual(['42']);
      // Callers who came while a read ran share one read after it.
      await recordChange(db, 'image', '43', 'insert', 'creative');
      await Promise.all([feed.poll(), feed.poll(), feed.poll()]);
      expect(told.map((change) => change.entity_id)).toEqual(['42', '43']);
    } finally {
      feed.stop();
    }
  });
});
