import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';

/**
 * Two nodes (services with their own caches and change-feed readers) on one SQLite store in a
 * fresh directory, for the tests of a describe block; node A takes `envOfA` on top. The change
 * feed is polled by hand (its timer is a minute).
 */
function twoNodesOnOneStore(envOfA: Record<string, string> = {}): { a: Services; b: Services } {
  const nodes = {} as { a: Services; b: Services };
  let dataDir = '';
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-nodes-'));
    nodes.a = await createServices(loadConfig({ STOCKROOM_DATA_DIR: dataDir, ...envOfA }), { changeFeedIntervalMs: 60_000 });
    nodes.b = await createServices(loadConfig({ STOCKROOM_DATA_DIR: dataDir }), { changeFeedIntervalMs: 60_000 });
  });
  afterAll(async () => {
    await nodes.a.close();
    await nodes.b.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return nodes;
}

describe('two nodes on one store', () => {
  const nodes = twoNodesOnOneStore();

  it('converge: a write on one node reaches the other node’s cache through the change log', async () => {
    await nodes.b.catalog.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'First title' } });
    const before = await nodes.a.catalog.findAssets('image', ['1']);
    expect(before.found[0]!.fields.title).toBe('First title');

    await nodes.b.catalog.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'Second title' } });
    // Node A still holds its cached copy until it reads the log.
    expect((await nodes.a.catalog.findAssets('image', ['1'])).found[0]!.fields.title).toBe('First title');
    await nodes.a.changeFeed.poll();
    expect((await nodes.a.catalog.findAssets('image', ['1'])).found[0]!.fields.title).toBe('Second title');
  });

  it('converge on deletes too', async () => {
    await nodes.b.catalog.upsertAsset({ asset_type: 'image', id: '2', fields: { title: 'Short-lived' } });
    expect((await nodes.a.catalog.findAssets('image', ['2'])).found).toHaveLength(1);
    await nodes.b.catalog.deleteAsset('image', '2');
    await nodes.a.changeFeed.poll();
    expect((await nodes.a.catalog.findAssets('image', ['2'])).notFound).toEqual(['2']);
  });

  it('converge when a keyword shared by many assets changes on another node', async () => {
    await nodes.b.catalog.upsertAsset({ asset_type: 'image', id: '3', fields: { keywords: [{ text: 'nature', translations: { de: 'Natur' } }] } });
    await nodes.a.changeFeed.poll();
    const textOf = async () =>
      ((await nodes.a.catalog.findAssets('image', ['3'])).found[0]!.fields.keywords as Array<{ translations: Record<string, string> }>)[0]!
        .translations.de;
    expect(await textOf()).toBe('Natur');
    // Another asset's record changes the shared keyword.
    await nodes.b.catalog.upsertAsset({ asset_type: 'image', id: '4', fields: { keywords: [{ text: 'nature', translations: { de: 'Die Natur' } }] } });
    await nodes.a.changeFeed.poll();
    expect(await textOf()).toBe('Die Natur');
  });

  it('share one display-URL signing key', () => {
    expect(nodes.a.signer.sign('/display/1/thumb.jpg')).toBe(nodes.b.signer.sign('/display/1/thumb.jpg'));
  });
});

describe('a node without a record cache (STOCKROOM_RECORD_CACHE=0)', () => {
  const nodes = twoNodesOnOneStore({ STOCKROOM_RECORD_CACHE: '0' });

  it('reads every record from the store: another node’s write shows before the change log is read', async () => {
    await nodes.b.catalog.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'First title' } });
    expect((await nodes.a.catalog.findAssets('image', ['1'])).found[0]!.fields.title).toBe('First title');
    await nodes.b.catalog.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'Second title' } });
    expect((await nodes.a.catalog.findAssets('image', ['1', '2'])).found.map((r) => r.fields.title)).toEqual(['Second title']);
  });
});
