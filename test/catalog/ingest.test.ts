import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, migrateToLatest } from '../../src/platform/db/database.js';
import { FilesystemBlobStore } from '../../src/platform/blobs/filesystem-blob-store.js';
import { CatalogRepository } from '../../src/catalog/catalog.repository.js';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { downloadSizesFor } from '../../src/media/image-probe.js';

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function newStore() {
  const database = await openDatabase({ sqliteFile: ':memory:' });
  await migrateToLatest(database);
  cleanups.push(() => database.close());
  const repository = new CatalogRepository(database);
  const catalog = new CatalogService(repository, { displaySizes: () => [] });
  const blobDir = tempDir();
  const blobs = new FilesystemBlobStore(blobDir);
  const ingest = new IngestService({ catalog, blobs });
  return { database, repository, catalog, blobs, blobDir, ingest };
}

/** Writes a manifest: objects as JSON lines, strings as they are. */
function writeManifest(dir: string, lines: ReadonlyArray<unknown>): string {
  const file = path.join(dir, 'manifest.jsonl');
  fs.writeFileSync(file, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`);
  return file;
}

function jpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#888' } })
    .jpeg()
    .toBuffer();
}

async function writeJpeg(dir: string, name: string, width: number, height: number): Promise<Buffer> {
  const data = await jpeg(width, height);
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), data);
  return data;
}

/** An image line that uses every field a manifest accepts for an image without a file. */
const fullImage = {
  asset_type: 'image',
  id: '8800001',
  allowed_use: {
    how_can_i_use_it: 'Available for editorial uses only.',
    release_info: 'Not released.',
    usage_restrictions: ['Editorial use only'],
  },
  alternative_ids: [{ Key: 'legacy_id', Value: 'L-17' }],
  artist: 'Ines Calder',
  artist_title: 'Staff Photographer',
  asset_family: 'editorial',
  call_for_image: true,
  caption: 'BERLIN, GERMANY - MAY 1: Marchers on the avenue.',
  city: 'Berlin',
  collection_code: 'WIR',
  collection_id: 501,
  collection_name: 'Wire Photos',
  color_type: 'black_and_white',
  copyright: '© 2024 Ines Calder',
  country: 'Germany',
  credit_line: 'Ines Calder/Wire Photos',
  date_camera_shot: '2024-05-01T09:15:00Z',
  date_created: '2024-05-01T09:15:00Z',
  date_submitted: '2024-05-01T12:00:00Z',
  download_product: 'editorialsubscription',
  editorial_segments: ['news', 'archival'],
  editorial_source: { id: 77, name: 'Wire Photos' },
  entity_details: [{ kind: 'person', name: 'A. Marcher' }],
  event_ids: [500100],
  graphical_style: 'Photography',
  is_ai_editable: false,
  keywords: [{ text: 'protest', type: 'Concept', relevance: 5 }],
  license_model: 'rightsmanaged',
  links: [{ rel: 'event', uri: 'https://example.com/events/500100' }],
  max_dimensions: { height: 3000, width: 4500 },
  object_name: 'WIR_0501.jpg',
  orientation: 'Horizontal',
  partner_collection: 'signature',
  partner_licenses: [{ license_type: 'Standard', credits: 3 }],
  people: ['A. Marcher'],
  prestige: true,
  product_types: ['editorialsubscription', 'premiumaccess'],
  quality_rank: 2,
  referral_destinations: [{ site_name: 'stockroom', uri: 'https://example.com/photos/8800001' }],
  state_province: 'Berlin',
  title: 'Marchers on the avenue',
  download_sizes: [{ bytes: 5_000_000, height: 3000, width: 4500, media_type: 'image/jpeg', name: 'x-large', dpi: 300 }],
};

describe('ingest manifests', () => {
  it('stores a valid image line with every field readable back', async () => {
    const { catalog, ingest } = await newStore();
    const manifest = writeManifest(tempDir(), [fullImage]);

    const report = await ingest.ingestFile(manifest);

    expect(report).toEqual({ inserted: 1, updated: 0, failed: [], unlicensable: [], unfit: [], unchanged: 0, planned: [] });
    const { found } = await catalog.findAssets('image', ['8800001']);
    const fields = found[0]!.fields;
    const { asset_type: _type, id: _id, keywords: _keywords, ...expected } = fullImage;
    for (const [name, value] of Object.entries(expected)) expect([name, fields[name]]).toEqual([name, value]);
    expect(fields.keywords).toEqual([
      expect.objectContaining({ text: 'protest', type: 'Concept', relevance: 5, entity_uris: [], translations: {} }),
    ]);
    expect(found[0]).toMatchObject({ width: 4500, height: 3000, original: null });
  });

  it('accepts keywords as plain strings and as keyword objects', async () => {
    const { catalog, ingest } = await newStore();
    const manifest = writeManifest(tempDir(), [
      {
        asset_type: 'image',
        id: 'kw-1',
        keywords: [
          'sunset',
          {
            keyword_id: '9001',
            text: 'beach',
            type: 'Location',
            relevance: null,
            entity_uris: ['https://www.wikidata.org/wiki/Q40080'],
            entity_types: ['landform'],
            translations: { de: 'Strand', fr: 'plage', 'pt-BR': 'praia' },
          },
        ],
      },
    ]);

    expect((await ingest.ingestFile(manifest)).failed).toEqual([]);

    const keywords = (await catalog.findAssets('image', ['kw-1'])).found[0]!.fields.keywords;
    expect(keywords).toEqual([
      expect.objectContaining({ text: 'sunset', type: null, relevance: null }),
      {
        keyword_id: '9001',
        text: 'beach',
        type: 'Location',
        relevance: null,
        entity_uris: ['https://www.wikidata.org/wiki/Q40080'],
        entity_types: ['landform'],
        translations: { de: 'Strand', fr: 'plage', 'pt-BR': 'praia' },
      },
    ]);
  });

  it('reports an unknown field with its line number and skips the line', async () => {
    const { catalog, ingest } = await newStore();
    const manifest = writeManifest(tempDir(), [
      { asset_type: 'image', id: 'ok-1', title: 'Fine' },
      { asset_type: 'image', id: 'bad-1', title: 'Typo', colour: 'red' },
    ]);

    const report = await ingest.ingestFile(manifest);

    expect(report.failed).toEqual([{ line: 2, reason: "unknown field 'colour'" }]);
    expect((await catalog.findAssets('image', ['ok-1', 'bad-1'])).notFound).toEqual(['bad-1']);
  });

  it('reports a line that is not JSON with its line number', async () => {
    const { ingest } = await newStore();
    const manifest = writeManifest(tempDir(), ['{"asset_type": "image", "id": "a1"', '[1, 2']);

    const report = await ingest.ingestFile(manifest);

    expect(report.failed.map((failure) => failure.line)).toEqual([1, 2]);
    expect(report.failed[0]!.reason).toMatch(/^not valid JSON/);
  });

  it('goes on past a bad line in the middle, counting blank lines in the numbering', async () => {
    const { catalog, ingest } = await newStore();
    const manifest = writeManifest(tempDir(), [
      { asset_type: 'image', id: 'm-1' },
      '',
      { asset_type: 'image', id: 'm-2', keywords: ['a', 'b', { text: 'c', relevance: 9 }] },
      '   ',
      { asset_type: 'image', id: 'm-3' },
    ]);

    const report = await ingest.ingestFile(manifest);

    expect(report).toEqual({
      inserted: 2,
      updated: 0,
      failed: [{ line: 3, reason: 'keywords/2/relevance must be ≤ 5 (got 9)' }],
      unlicensable: [
        { line: 1, id: 'm-1' },
        { line: 5, id: 'm-3' },
      ],
      unfit: [],
      unchanged: 0,
      planned: [],
    });
    expect((await catalog.findAssets('image', ['m-1', 'm-2', 'm-3'])).notFound).toEqual(['m-2']);
  });

  it('updates a record when its id is ingested again', async () => {
    const { catalog, ingest } = await newStore();
    const dir = tempDir();
    await ingest.ingestFile(writeManifest(dir, [{ asset_type: 'image', id: 'u-1', title: 'Old', keywords: ['alpha', 'beta'] }]));

    const report = await ingest.ingestFile(
      writeManifest(dir, [{ asset_type: 'image', id: 'u-1', title: 'New', keywords: ['gamma'] }]),
    );

    expect(report).toMatchObject({ inserted: 0, updated: 1, failed: [] });
    const fields = (await catalog.findAssets('image', ['u-1'])).found[0]!.fields;
    expect(fields.title).toBe('New');
    expect((fields.keywords as Array<{ text: string }>).map((k) => k.text)).toEqual(['gamma']);
  });

  it('never half-writes a record: a collection clash leaves nothing of the line behind', async () => {
    const { catalog, database, ingest } = await newStore();
    const manifest = writeManifest(tempDir(), [
      { asset_type: 'image', id: 'c-1', collection_code: 'ABC', collection_id: 10, collection_name: 'Alpha' },
      {
        asset_type: 'image',
        id: 'c-2',
        artist: 'Never Stored',
        keywords: ['orphan keyword'],
        collection_code: 'ABC',
        collection_id: 11,
      },
    ]);

    const report = await ingest.ingestFile(manifest);

    expect(report.failed).toEqual([{ line: 2, reason: 'collection ABC has id 10, not 11' }]);
    expect((await catalog.findAssets('image', ['c-2'])).notFound).toEqual(['c-2']);
    const artists = await database.db.selectFrom('artists').select('name').execute();
    const keywords = await database.db.selectFrom('keywords').select('text').execute();
    expect(artists).toEqual([]);
    expect(keywords).toEqual([]);
  });

  it('refuses a file outside the media folder', async () => {
    const { ingest } = await newStore();
    const root = tempDir();
    const media = path.join(root, 'media');
    await writeJpeg(root, 'outside.jpg', 40, 30);
    await writeJpeg(media, 'inside.jpg', 40, 30);
    fs.symlinkSync(path.join(root, 'outside.jpg'), path.join(media, 'link.jpg'));
    const manifest = writeManifest(root, [
      { asset_type: 'image', id: 'f-1', file: '../outside.jpg' },
      { asset_type: 'image', id: 'f-2', file: path.join(root, 'outside.jpg') },
      { asset_type: 'image', id: 'f-3', file: 'link.jpg' },
      { asset_type: 'image', id: 'f-4', file: 'missing.jpg' },
      { asset_type: 'image', id: 'f-5', file: 'inside.jpg' },
    ]);

    const report = await ingest.ingestFile(manifest, { mediaDir: media });

    expect(report.inserted).toBe(1);
    expect(report.failed).toEqual([
      { line: 1, reason: expect.stringContaining("must stay inside the media folder") },
      { line: 2, reason: expect.stringContaining('not an absolute path') },
      { line: 3, reason: expect.stringContaining('leads outside the media folder') },
      { line: 4, reason: expect.stringContaining('does not exist') },
    ]);
  });

  it('derives max_dimensions, orientation and download_sizes from the file', async () => {
    const { catalog, blobs, ingest } = await newStore();
    const dir = tempDir();
    const data = await writeJpeg(dir, 'photos/pano.jpg', 3000, 1000);
    fs.writeFileSync(path.join(dir, 'photos/broken.jpg'), 'not a picture');
    const manifest = writeManifest(dir, [
      { asset_type: 'image', id: 'd-1', file: 'photos/pano.jpg' },
      { asset_type: 'image', id: 'd-2', file: 'photos/pano.jpg', download_sizes: [{ width: 10, height: 10 }] },
      { asset_type: 'image', id: 'd-3', file: 'photos/broken.jpg' },
    ]);

    const report = await ingest.ingestFile(manifest, { mediaDir: dir });

    expect(report.failed).toEqual([
      { line: 2, reason: 'download_sizes must not be given with a file: they are derived from it' },
      { line: 3, reason: expect.stringMatching(/^file 'photos\/broken\.jpg': Unreadable image/) },
    ]);
    const record = (await catalog.findAssets('image', ['d-1'])).found[0]!;
    expect(record.fields.max_dimensions).toEqual({ height: 1000, width: 3000 });
    expect(record.fields.orientation).toBe('PanoramicHorizontal');
    expect(record.fields.download_sizes).toEqual(
      downloadSizesFor({ width: 3000, height: 1000, dpi: 72, bytes: data.length, media_type: 'image/jpeg' }),
    );
    const key = `originals/${createHash('sha256').update(data).digest('hex')}.jpg`;
    expect(record.original).toEqual({ key, media_type: 'image/jpeg' });
    expect(await blobs.get(key)).toEqual(data);
  });

  it('rule: a truncated or corrupt image is refused on its line, before anything is stored', async () => {
    const { catalog, blobs, blobDir, ingest } = await newStore();
    const dir = tempDir();
    const noise = { type: 'gaussian', mean: 128, sigma: 40 } as const;
    const photo = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#000', noise } })
      .jpeg()
      .toBuffer();
    const cut = photo.subarray(0, Math.floor(photo.length / 3));
    fs.writeFileSync(path.join(dir, 'whole.jpg'), photo);
    fs.writeFileSync(path.join(dir, 'cut.jpg'), cut);
    fs.writeFileSync(path.join(dir, 'notes.jpg'), 'shopping list: milk, eggs, film\n');
    const manifest = writeManifest(dir, [
      { asset_type: 'image', id: 't-1', file: 'cut.jpg' },
      { asset_type: 'image', id: 't-2', file: 'notes.jpg' },
      { asset_type: 'video', id: 't-3', file: 'cut.jpg' },
      { asset_type: 'image', id: 't-4', file: 'whole.jpg' },
    ]);

    const report = await ingest.ingestFile(manifest);

    expect(report.inserted).toBe(1);
    expect(report.failed).toEqual([
      { line: 1, reason: expect.stringMatching(/^file 'cut\.jpg': Unreadable image: its pixels do not decode \(.+\)$/) },
      { line: 2, reason: expect.stringMatching(/^file 'notes\.jpg': Unreadable image: .+/) },
      { line: 3, reason: expect.stringMatching(/^file 'cut\.jpg': Unreadable image: its pixels do not decode/) },
    ]);
    expect((await catalog.findAssets('image', ['t-1', 't-2', 't-4'])).notFound).toEqual(['t-1', 't-2']);
    expect((await catalog.findAssets('video', ['t-3'])).notFound).toEqual(['t-3']);
    // Only the whole photo reached the blob store.
    expect(fs.readdirSync(path.join(blobDir, 'originals'))).toHaveLength(1);
    expect(await blobs.get(`originals/${createHash('sha256').update(cut).digest('hex')}.jpg`)).toBeUndefined();
  });

  it('rule: a line without file keeps the asset’s stored original and derives from it as if given', async () => {
    const { catalog, ingest } = await newStore();
    const dir = tempDir();
    await writeJpeg(dir, 'photo.jpg', 3000, 1000);
    await writeJpeg(dir, 'poster.jpg', 72, 128);
    const first = await ingest.ingestFile(
      writeManifest(dir, [
        { asset_type: 'image', id: 'k-1', file: 'photo.jpg', title: 'Old title' },
        { asset_type: 'video', id: 'k-2', file: 'poster.jpg', title: 'Old clip' },
      ]),
    );
    expect(first.failed).toEqual([]);
    const image = (await catalog.findAssets('image', ['k-1'])).found[0]!;
    const video = (await catalog.findAssets('video', ['k-2'])).found[0]!;

    const report = await ingest.ingestFile(
      writeManifest(dir, [
        { asset_type: 'image', id: 'k-1', title: 'New title' },
        { asset_type: 'video', id: 'k-2', title: 'New clip' },
        { asset_type: 'image', id: 'k-1', title: 'Sized', max_dimensions: { width: 10, height: 10 } },
        { asset_type: 'image', id: 'k-1', title: 'Sized', download_sizes: [{ width: 10, height: 10 }] },
        { asset_type: 'video', id: 'k-2', title: 'Sized', max_dimensions: { width: 10, height: 10 } },
      ]),
    );

    expect(report).toMatchObject({ inserted: 0, updated: 2 });
    expect(report.failed).toEqual([
      { line: 3, reason: expect.stringMatching(/^max_dimensions must not be given: asset 'k-1' keeps its stored original/) },
      { line: 4, reason: expect.stringMatching(/^download_sizes must not be given: asset 'k-1' keeps its stored original/) },
      { line: 5, reason: expect.stringMatching(/^max_dimensions must not be given: asset 'k-2' keeps its stored original/) },
    ]);
    const image2 = (await catalog.findAssets('image', ['k-1'])).found[0]!;
    const video2 = (await catalog.findAssets('video', ['k-2'])).found[0]!;
    expect(image2.fields.title).toBe('New title');
    expect(video2.fields.title).toBe('New clip');
    for (const [before, after] of [
      [image, image2],
      [video, video2],
    ] as const) {
      expect(after.original).toEqual(before.original);
      expect(after.original).not.toBeNull();
      expect([after.width, after.height]).toEqual([before.width, before.height]);
      expect(after.fields.max_dimensions).toEqual(before.fields.max_dimensions);
      expect(after.fields.orientation).toEqual(before.fields.orientation);
      expect(after.fields.download_sizes).toEqual(before.fields.download_sizes);
    }
    expect(image2.fields.max_dimensions).toEqual({ height: 1000, width: 3000 });
    expect((image2.fields.download_sizes as unknown[]).length).toBeGreaterThan(1);
    expect(video2.fields.max_dimensions).toEqual({ height: 128, width: 72 });
  });

  it('validates the clip_length of a video line', async () => {
    const { catalog, ingest } = await newStore();
    const dir = tempDir();
    await writeJpeg(dir, 'poster.jpg', 72, 128);
    const video = {
      asset_type: 'video',
      id: 'v-1',
      file: 'poster.jpg',
      title: 'Waves at dusk',
      clip_length: '00:00:21:12',
      aspect_ratio: '9:16',
      era: '2020s',
      shot_speed: 'Slow Motion',
      mastered_to: 'HD 1080p Apple ProRes 422',
      originally_shot_on: 'Sony FX6',
      source: 'News Wire',
      quality_rank: 4,
      download_sizes: [
        {
          name: 'HD 1080p',
          width: 1080,
          height: 1920,
          bytes: 300_000_000,
          bit_depth: '10',
          compression: 'Apple ProRes 422',
          content_type: 'video/quicktime',
          description: 'HD 1080p 1080x1920 29.97p',
          format: 'mov',
          frame_rate: 29.97,
          frame_size: '1080x1920',
          interlaced: false,
        },
      ],
    };
    const manifest = writeManifest(dir, [
      video,
      { ...video, id: 'v-2', clip_length: '00:00:21:75' },
      { ...video, id: 'v-3', clip_length: '21 seconds' },
    ]);

    const report = await ingest.ingestFile(manifest);

    expect(report.failed.map((failure) => failure.line)).toEqual([2, 3]);
    expect(report.failed[0]!.reason).toMatch(/^clip_length must be a clip length HH:MM:SS:FF/);
    const fields = (await catalog.findAssets('video', ['v-1'])).found[0]!.fields;
    expect(fields).toMatchObject({
      clip_length: '00:00:21:12',
      orientation: 'vertical',
      max_dimensions: { height: 128, width: 72 },
      download_sizes: video.download_sizes,
      shot_speed: 'Slow Motion',
    });
  });

  it('ingests events with a child event and a hero image', async () => {
    const { repository, ingest } = await newStore();
    const manifest = writeManifest(tempDir(), [
      {
        asset_type: 'event',
        id: 700001,
        name: 'Harbour Regatta 2024',
        start_date: '2024-03-09T10:00:00+11:00',
        type: 'Sport',
        editorial_segments: ['sport'],
        hero_image_id: 'e-img-1',
        location: { city: 'Sydney', country: 'Australia', state_province: 'New South Wales', venue: 'The Harbour' },
        keywords: ['sailing', { text: 'Sydney', type: 'Location', keyword_id: 'loc-1' }, { text: 'harbour', type: 'Concept' }],
      },
      { asset_type: 'event', id: 700002, name: 'Harbour Regatta 2024: Final Race', parent_id: 700001 },
      { asset_type: 'event', id: 700003, name: 'Loops', parent_id: 700003 },
      { asset_type: 'image', id: 'e-img-1', event_ids: [700001] },
      { asset_type: 'image', id: 'e-img-2', event_ids: [700001, 700002] },
    ]);

    const report = await ingest.ingestFile(manifest);

    expect(report.failed).toEqual([{ line: 3, reason: 'parent_id must not be the event’s own id' }]);
    const [parent, child] = await repository.findEvents([700001, 700002]).then((events) => events.sort((a, b) => a.id - b.id));
    expect(parent).toMatchObject({
      start_date: '2024-03-08T23:00:00Z',
      hero_image_id: 'e-img-1',
      child_event_count: 1,
      image_count: 2,
      editorial_segments: ['sport'],
      location: { city: 'Sydney', country: 'Australia', state_province: 'New South Wales', venue: 'The Harbour' },
      // Each keyword is the catalogue's keyword of its text, with its id; a partner's own id is kept.
      keywords: [
        { keyword_id: expect.stringMatching(/^\d+$/), text: 'sailing', type: null },
        { keyword_id: 'loc-1', text: 'Sydney', type: 'Location' },
        { keyword_id: expect.stringMatching(/^\d+$/), text: 'harbour', type: 'Concept' },
      ],
    });
    expect(child).toMatchObject({ parent_id: 700001, image_count: 1, child_event_count: 0 });
  });

  it('creates a collection and an artist named on a record when they are new', async () => {
    const { catalog, ingest } = await newStore();
    const manifest = writeManifest(tempDir(), [
      {
        asset_type: 'image',
        id: 'n-1',
        artist: 'Rosa Lind',
        asset_family: 'creative',
        license_model: 'royaltyfree',
        product_types: ['easyaccess'],
        collection_code: 'NEW',
        collection_id: 900,
        collection_name: 'Newcomers',
      },
    ]);

    await ingest.ingestFile(manifest);

    expect(await catalog.listCollections()).toEqual([
      { id: 900, code: 'NEW', name: 'Newcomers', asset_family: 'creative', license_model: 'royaltyfree', product_types: ['easyaccess'] },
    ]);
    expect((await catalog.findAssets('image', ['n-1'])).found[0]!.fields).toMatchObject({
      artist: 'Rosa Lind',
      collection_id: 900,
      collection_code: 'NEW',
      collection_name: 'Newcomers',
    });
  });

  it('reports progress as each non-blank line completes', async () => {
    const { ingest } = await newStore();
    const manifest = writeManifest(tempDir(), [{ asset_type: 'image', id: 'p-1' }, '', 'nonsense', { asset_type: 'image', id: 'p-2' }]);
    const calls: Array<[number, number]> = [];

    await ingest.ingestFile(manifest, { onProgress: (done, total) => calls.push([done, total]) });

    expect(calls).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });
  it('warns of each image or video that no product can license (no product_types), storing it all the same', async () => {
    const { catalog, ingest } = await newStore();
    const manifest = writeManifest(tempDir(), [
      { asset_type: 'image', id: 'l-1', product_types: ['premiumaccess'] },
      { asset_type: 'image', id: 'l-2' },
      { asset_type: 'video', id: 'l-3', product_types: [] },
      { asset_type: 'event', id: 4401, name: 'An event licenses nothing and needs nothing' },
      { asset_type: 'image', id: 'l-5', colour: 'red' },
    ]);

    const report = await ingest.ingestFile(manifest);

    expect(report.unlicensable).toEqual([
      { line: 2, id: 'l-2' },
      { line: 3, id: 'l-3' },
    ]);
    expect(report).toMatchObject({ inserted: 4, failed: [{ line: 5 }] });
    expect((await catalog.findAssets('image', ['l-2'])).found).toHaveLength(1);
  });

  it.each([
    ['a missing manifest', (dir: string) => path.join(dir, 'missing.jsonl'), /^cannot read the manifest .*missing\.jsonl: there is no such file$/],
    ['a directory', (dir: string) => dir, /^cannot read the manifest .*: it is a directory, not a file$/],
  ])('refuses %s in one line naming it', async (_case, manifestIn, message) => {
    const { ingest } = await newStore();
    await expect(ingest.ingestFile(manifestIn(tempDir()), { onProgress: () => undefined })).rejects.toThrow(message);
    await expect(ingest.ingestFile(manifestIn(tempDir()))).rejects.toThrow(message);
  });
});
