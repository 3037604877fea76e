import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestChangeSeq, readChangesAfter, type Change } from '../../src/platform/db/change-log.js';
import { getOrCreateSetting } from '../../src/platform/db/settings.js';
import { SearchService } from '../../src/search/search.service.js';
import { computeVisualSignature, encodeStoredSignature } from '../../src/media/visual-signature.js';
import { fullImageFields, makeJpeg } from '../helpers/catalog-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('search snapshots', () => {
  let t: TestApp;
  let file: string;
  let storeId: string;

  /** A second node's search service on the same store and data folder. */
  function anotherNode(options: { storeId?: string; file?: string; tokensOnDisk?: boolean } = {}) {
    const messages: string[] = [];
    const warnings: string[] = [];
    const db = t.services.database.db;
    const service = new SearchService({
      catalog: t.services.catalog,
      changes: { after: (seq, limit) => readChangesAfter(db, seq, limit), latest: () => latestChangeSeq(db) },
      snapshot: { file: options.file ?? file, storeId: options.storeId ?? storeId, tokensOnDisk: options.tokensOnDisk },
      log: (message, level) => {
        messages.push(message);
        if (level === 'warn') warnings.push(message);
      },
    });
    return { service, messages, warnings };
  }

  async function addPicture(id: string, title: string, colour: string) {
    const signature = await computeVisualSignature(await makeJpeg(64, 48, colour));
    await t.services.catalog.upsertAsset({
      asset_type: 'image',
      id,
      fields: { ...fullImageFields(id), title, keywords: [{ text: title.split(' ')[0]! }] },
      visual_signature: encodeStoredSignature(signature),
    });
    await t.services.changeFeed.poll();
    await t.services.search.settled();
  }

  const ids = (service: SearchService, phrase: string) => service.searchAssets({ phrase, limit: 100 }).ids;

  beforeAll(async () => {
    t = await createTestApp();
    file = path.join(t.dataDir, 'search', 'index.snapshot');
    storeId = await getOrCreateSetting(t.services.database.db, 'store_id', () => 'unused');
    await addPicture('7000001', 'Lighthouse at dusk', '#203060');
    await addPicture('7000002', 'Lighthouse in fog', '#c0c0c0');
    await addPicture('7000003', 'Orchard in bloom', '#40a040');
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  it('is written when a node has built its index', () => {
    expect(fs.existsSync(file)).toBe(true);
  });

  it('lets another node start from it and replay only the changes it lacks', async () => {
    const { service, messages, warnings } = anotherNode();
    await service.build();
    // A node writes the snapshot it loaded and caught up after build() returns: waited for here, so
    // that no test's node replaces the snapshot a later test's node has written.
    await service.settled();
    expect(messages.some((m) => m.includes('loaded from its snapshot'))).toBe(true);
    expect(warnings).toEqual([]);
    expect(ids(service, 'lighthouse').sort()).toEqual(['7000001', '7000002']);
    expect(ids(service, 'orchard')).toEqual(['7000003']);
    // The visual signatures came through as well.
    expect(service.visualSignatureOf('7000003')).toEqual(t.services.search.visualSignatureOf('7000003'));
  });

  it('carries the changes of a closed node to the next start', async () => {
    const before = fs.statSync(file).mtimeMs;
    await addPicture('7000004', 'Lighthouse keeper', '#806040');
    await t.services.search.close();
    const written = fs.statSync(file).mtimeMs;
    expect(written).toBeGreaterThanOrEqual(before);
    // Closed, the node has let go of its snapshot: a second close writes nothing, and a change
    // the feed still brings is left to the log (applied, it read released bytes and the next
    // close wrote no snapshot at all).
    await t.services.search.close();
    const deletion: Change = { seq: Number.MAX_SAFE_INTEGER, entity_type: 'image', entity_id: '7000001', operation: 'delete', changed_at: new Date().toISOString(), asset_family: 'creative' };
    t.services.search.applyChanges([deletion]);
    await t.services.search.settled();
    await t.services.search.close();
    expect(fs.statSync(file).mtimeMs).toBe(written);
    const { service, messages } = anotherNode();
    await service.build();
    await service.settled();
    expect(messages.some((m) => m.includes('loaded from its snapshot') && m.includes('0 later changes'))).toBe(true);
    expect(ids(service, 'lighthouse').sort()).toEqual(['7000001', '7000002', '7000004']);
  });

  it('answers exactly as a node that read the whole store', async () => {
    const { service } = anotherNode();
    await service.build();
    await service.settled();
    const rebuilt = anotherNode({ storeId: 'another store' });
    await rebuilt.service.build();
    await rebuilt.service.settled();
    // a snapshot not used says why as a warning (the level a production server logs at), and the rebuild says it ran
    expect(rebuilt.warnings.some((m) => m.includes('another store'))).toBe(true);
    expect(rebuilt.messages.some((m) => /built from the store: 4 assets in/.test(m))).toBe(true);
    for (const phrase of ['lighthouse', 'orchard', '', 'keeper']) {
      expect(service.searchAssets({ phrase, limit: 100 })).toEqual(rebuilt.service.searchAssets({ phrase, limit: 100 }));
    }
    const signature = service.visualSignatureOf('7000001')!;
    const query = { limit: 10 };
    expect(service.searchVisual({ signature, assetType: 'image', query })).toEqual(
      rebuilt.service.searchVisual({ signature, assetType: 'image', query }),
    );
  });

  it('gives the event loop a turn while it reads the whole store, so that its log and timers are not held back', async () => {
    // SQLite answers synchronously: without a turn per page, an immediate queued as the read
    // began ran only after it (at ten million assets no progress line reached the log while the
    // read went on). Queued when the read says it begins, it must have run when the read says it ended.
    const db = t.services.database.db;
    let turned = false;
    let turnedWhenBuilt: boolean | undefined;
    const service = new SearchService({
      catalog: t.services.catalog,
      changes: { after: (seq, limit) => readChangesAfter(db, seq, limit), latest: () => latestChangeSeq(db) },
      log: (message) => {
        if (message.startsWith('search index: reading the whole store')) setImmediate(() => (turned = true));
        if (message.startsWith('search index built from the store')) turnedWhenBuilt = turned;
      },
    });
    await service.build();
    expect(turnedWhenBuilt).toBe(true);
  });

  it('is rebuilt, not trusted, when damaged or ahead of the change log', async () => {
    const good = fs.readFileSync(file);
    try {
      fs.writeFileSync(file, good.subarray(0, Math.floor(good.length / 2)));
      const damaged = anotherNode();
      await damaged.service.build();
      await damaged.service.settled();
      expect(damaged.warnings.join('\n')).toMatch(/unreadable|damaged|cut short/);
      expect(ids(damaged.service, 'lighthouse')).toHaveLength(3);

      fs.writeFileSync(file, 'not a snapshot at all');
      const garbage = anotherNode();
      await garbage.service.build();
      await garbage.service.settled();
      expect(ids(garbage.service, 'orchard')).toEqual(['7000003']);
    } finally {
      fs.writeFileSync(file, good);
    }
  });

  it('reads the forward streams in place from the snapshot it loaded or last wrote, keeping one such file open', async () => {
    // a snapshot file of their own: the other nodes of these tests write theirs when they like
    const own = path.join(t.dataDir, 'search', 'own.snapshot');
    // the descriptors of that file held by this process, the current file's or a replaced one's
    const held = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
          return target === own || target === `${own} (deleted)`;
        } catch {
          return false;
        }
      }).length;
    await addPicture('7000005', 'Harbour lighthouse keeper', '#405060');
    const writer = anotherNode({ file: own });
    await writer.service.build();
    await writer.service.settled();
    expect(writer.messages.some((m) => m.includes('built from the store'))).toBe(true);
    expect(held()).toBe(1);
    const reader = anotherNode({ file: own });
    await reader.service.build();
    expect(reader.messages.some((m) => m.includes('loaded from its snapshot'))).toBe(true);
    expect(held()).toBe(2);
    // phrase checks read the candidates' streams from the file
    for (const node of [writer.service, reader.service]) {
      expect(ids(node, '"lighthouse keeper"').sort()).toEqual(['7000004', '7000005']);
      expect(ids(node, '"keeper lighthouse"')).toEqual([]);
    }
    // a stopped node lets go of its file
    await writer.service.close();
    expect(held()).toBe(1);
    // each snapshot written lets go of the file the last one left open
    for (const [id, colour] of [['7000006', '#102030'], ['7000007', '#302010']] as const) {
      await addPicture(id, 'Lighthouse keeper again', colour);
      const next = anotherNode({ file: own });
      await next.service.build();
      await next.service.settled();
      expect(next.messages.some((m) => m.includes('loaded from its snapshot'))).toBe(true);
      expect(ids(next.service, '"lighthouse keeper"')).toContain(id);
      expect(held()).toBe(2);
      await next.service.close();
      expect(held()).toBe(1);
    }
    expect(ids(reader.service, '"lighthouse keeper"').sort()).toEqual(['7000004', '7000005']);

    // STOCKROOM_SEARCH_TOKENS_ON_DISK=false: the streams are copied into memory, the file closed after the load
    const inMemory = anotherNode({ file: own, tokensOnDisk: false });
    await inMemory.service.build();
    expect(inMemory.messages.some((m) => m.includes('loaded from its snapshot'))).toBe(true);
    expect(held()).toBe(1);
    expect(ids(inMemory.service, '"lighthouse keeper"').sort()).toEqual(['7000004', '7000005', '7000006', '7000007']);
  });
});

describe('search by visual signature', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    const colours = { '7100001': '#d02020', '7100002': '#c83030', '7100003': '#2040d0', '7100004': '#20b040' };
    for (const [id, colour] of Object.entries(colours)) {
      const signature = await computeVisualSignature(await makeJpeg(64, 48, colour));
      const family = id === '7100004' ? 'editorial' : 'creative';
      await t.services.catalog.upsertAsset({
        asset_type: 'image',
        id,
        fields: { ...fullImageFields(id), asset_family: family, title: `Plain ${id}` },
        visual_signature: encodeStoredSignature(signature),
      });
    }
    // One without a signature: it takes no part in a search by image.
    await t.services.catalog.upsertAsset({ asset_type: 'image', id: '7100005', fields: fullImageFields('7100005') });
    await t.services.changeFeed.poll();
    await t.services.search.settled();
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  it('ranks by visual distance, excludes the source and counts only assets with a signature', () => {
    const signature = t.services.search.visualSignatureOf('7100001')!;
    const result = t.services.search.searchVisual({ signature, assetType: 'image', query: { limit: 10 }, excludeId: '7100001' });
    expect(result.total).toBe(3);
    expect(result.ids[0]).toBe('7100002');
    expect(result.ids).not.toContain('7100001');
    expect(result.ids).not.toContain('7100005');
  });

  it('ranks only what passes the filters, and pages through the same order', () => {
    const signature = t.services.search.visualSignatureOf('7100001')!;
    const query = { filters: [{ attribute: 'asset_family', anyOf: ['creative'] }], limit: 10 };
    const all = t.services.search.searchVisual({ signature, assetType: 'image', query });
    expect(all.ids).toEqual(['7100001', '7100002', '7100003']);
    const second = t.services.search.searchVisual({ signature, assetType: 'image', query: { ...query, offset: 1, limit: 1 } });
    expect(second.ids).toEqual(['7100002']);
    expect(second.total).toBe(3);
  });

  it('forgets a deleted asset', async () => {
    await t.services.catalog.deleteAsset('image', '7100003');
    await t.services.changeFeed.poll();
    await t.services.search.settled();
    expect(t.services.search.visualSignatureOf('7100003')).toBeUndefined();
    const signature = t.services.search.visualSignatureOf('7100001')!;
    expect(t.services.search.searchVisual({ signature, assetType: 'image', query: {} }).ids).not.toContain('7100003');
  });
});
