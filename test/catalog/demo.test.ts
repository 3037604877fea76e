import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, migrateToLatest } from '../../src/platform/db/database.js';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import { DEFAULT_DEMO, planDemoCatalog, seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import { parseManifestLine } from '../../src/catalog/ingest/ingest.schemas.js';

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function newStore() {
  const database = await openDatabase({ sqliteFile: ':memory:' });
  await migrateToLatest(database);
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-'));
  cleanups.push(async () => {
    await database.close();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });
  const repository = new CatalogRepository(database);
  const catalog = new CatalogService(repository, { displaySizes: () => [] });
  return { repository, catalog, blobs: new FilesystemBlobStore(blobDir) };
}

const SMALL = { images: 12, videos: 3, events: 4 };
const imageIds = Array.from({ length: SMALL.images }, (_, i) => String(1_000_001 + i));
const videoIds = Array.from({ length: SMALL.videos }, (_, i) => `v${2_000_001 + i}`);
const eventIds = Array.from({ length: SMALL.events }, (_, i) => 500_001 + i);

async function seedSmall() {
  const store = await newStore();
  const progress: number[] = [];
  const counts = await seedDemo(store, { ...SMALL, onProgress: (done) => progress.push(done) });
  const images = (await store.catalog.findAssets('image', imageIds)).found;
  const videos = (await store.catalog.findAssets('video', videoIds)).found;
  const events = (await store.repository.findEvents(eventIds)).sort((a, b) => a.id - b.id);
  return { ...store, counts, progress, images, videos, events };
}

describe('demo catalogue', () => {
  it('is deterministic: two fresh stores get the same records', async () => {
    const first = await seedSmall();
    const second = await seedSmall();

    expect(first.counts).toEqual(SMALL);
    expect(first.images.map((image) => image.id)).toEqual(imageIds);
    expect(first.videos.map((video) => video.id)).toEqual(videoIds);
    expect(second.images).toEqual(first.images);
    expect(second.videos).toEqual(first.videos);
    expect(second.events).toEqual(first.events);
    expect(first.progress).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
  });

  it('has every orientation, both families, and events with images, a child and a hero image', async () => {
    const { images, videos, events } = await seedSmall();

    expect(new Set(images.map((image) => image.fields.orientation))).toEqual(
      new Set(['Horizontal', 'Vertical', 'Square', 'PanoramicHorizontal', 'PanoramicVertical']),
    );
    expect(new Set(images.map((image) => image.fields.asset_family))).toEqual(new Set(['creative', 'editorial']));
    for (const image of images) {
      expect(image.original).not.toBeNull();
      expect((image.fields.download_sizes as unknown[]).length).toBeGreaterThan(1);
      expect((image.fields.keywords as unknown[]).length).toBeGreaterThan(3);
    }
    const editorial = images.filter((image) => image.fields.asset_family === 'editorial');
    expect(editorial.every((image) => (image.fields.event_ids as number[]).length === 1)).toBe(true);
    expect(events.every((event) => event.image_count > 0)).toBe(true);
    expect(events.filter((event) => event.parent_id !== null)).toHaveLength(1);
    for (const event of events) {
      const hero = images.find((image) => image.id === event.hero_image_id);
      expect(hero?.fields.event_ids).toContain(event.id);
    }
    expect(videos.every((video) => /^\d{2}:\d{2}:\d{2}:\d{2}$/.test(String(video.fields.clip_length)))).toBe(true);
  });

  it('plans only records that pass the manifest schema, at the default size too', () => {
    const plan = planDemoCatalog(DEFAULT_DEMO);

    expect([plan.images.length, plan.videos.length, plan.events.length]).toEqual([240, 24, 16]);
    const refused = [...plan.images.map((asset) => asset.record), ...plan.videos.map((asset) => asset.record), ...plan.events]
      .map((record) => parseManifestLine(record))
      .filter((result) => !result.ok);
    expect(refused).toEqual([]);
    const orientations = new Set(plan.images.map((asset) => asset.picture.width / asset.picture.height > 1));
    expect(orientations).toEqual(new Set([true, false]));
    expect(new Set([...plan.images, ...plan.videos].map((asset) => asset.record.artist)).size).toBe(12);
    expect(new Set(plan.images.map((asset) => asset.record.collection_code)).size).toBe(6);
  });
});
