import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';

describe('two nodes on one store', () => {
  let dataDir: string;
  let nodeA: Services;
  let nodeB: Services;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-nodes-'));
    const config = loadConfig({ STOCKROOM_DATA_DIR: dataDir });
    nodeA = await createServices(config, { changeFeedIntervalMs: 60_000 });
    nodeB = await createServices(config, { changeFeedIntervalMs: 60_000 });
  });
  afterAll(async () => {
    await nodeA.close();
    await nodeB.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('converge: a write on one node reaches the other node’s cache through the change log', async () => {
    await nodeB.catalog.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'First title' } });
    const before = await nodeA.catalog.findAssets('image', ['1']);
    expect(before.found[0]!.fields.title).toBe('First title');

    await nodeB.catalog.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'Second title' } });
    // Node A still holds its cached copy until it reads the log.
    expect((await nodeA.catalog.findAssets('image', ['1'])).found[0]!.fields.title).toBe('First title');
    await nodeA.changeFeed.poll();
    expect((await nodeA.catalog.findAssets('image', ['1'])).found[0]!.fields.title).toBe('Second title');
  });

  it('converge on deletes too', async () => {
    await nodeB.catalog.upsertAsset({ asset_type: 'image', id: '2', fields: { title: 'Short-lived' } });
    expect((await nodeA.catalog.findAssets('image', ['2'])).found).toHaveLength(1);
    await nodeB.catalog.deleteAsset('image', '2');
    await nodeA.changeFeed.poll();
    expect((await nodeA.catalog.findAssets('image', ['2'])).notFound).toEqual(['2']);
  });

  it('converge when a keyword shared by many assets changes on another node', async () => {
    await nodeB.catalog.upsertAsset({ asset_type: 'image', id: '3', fields: { keywords: [{ text: 'nature', translations: { de: 'Natur' } }] } });
    await nodeA.changeFeed.poll();
    const textOf = async () =>
      ((await nodeA.catalog.findAssets('image', ['3'])).found[0]!.fields.keywords as Array<{ translations: Record<string, string> }>)[0]!
        .translations.de;
    expect(await textOf()).toBe('Natur');
    // Another asset's record changes the shared keyword.
    await nodeB.catalog.upsertAsset({ asset_type: 'image', id: '4', fields: { keywords: [{ text: 'nature', translations: { de: 'Die Natur' } }] } });
    await nodeA.changeFeed.poll();
    expect(await textOf()).toBe('Die Natur');
  });

  it('share one display-URL signing key', () => {
    expect(nodeA.signer.sign('/display/1/thumb.jpg')).toBe(nodeB.signer.sign('/display/1/thumb.jpg'));
  });
});

describe('a node without a record cache (STOCKROOM_RECORD_CACHE=0)', () => {
  let dataDir: string;
  let nodeA: Services;
  let nodeB: Services;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-nocache-'));
    nodeA = await createServices(loadConfig({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_RECORD_CACHE: '0' }), { changeFeedIntervalMs: 60_000 });
    nodeB = await createServices(loadConfig({ STOCKROOM_DATA_DIR: dataDir }), { changeFeedIntervalMs: 60_000 });
  });
  afterAll(async () => {
    await nodeA.close();
    await nodeB.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads every record from the store: another node’s write shows before the change log is read', async () => {
    await nodeB.catalog.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'First title' } });
    expect((await nodeA.catalog.findAssets('image', ['1'])).found[0]!.fields.title).toBe('First title');
    await nodeB.catalog.upsertAsset({ asset_type: 'image', id: '1', fields: { title: 'Second title' } });
    expect((await nodeA.catalog.findAssets('image', ['1', '2'])).found.map((r) => r.fields.title)).toEqual(['Second title']);
  });
});
