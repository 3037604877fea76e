import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentId, ingestFolder } from '../../src/catalog/ingest/folder-ingest.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { backfillMediaFacts } from '../../src/catalog/ingest/media-facts-backfill.js';
import { MEDIA_FACTS_VERSION, nudityScore, type NudityScores } from '../../src/media/media-facts.js';
import { NudityClassifier } from '../../src/media/nudity-classifier.js';
import { recordChange } from '../../src/platform/db/change-log.js';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { IPTC, jpegWithMetadata } from '../media/embedded-metadata-fixtures.js';
import { makeClip, tools } from '../media/video/video-fixtures.js';

/*
 * Facts at ingest, end to end on each store: what files say about themselves (embedded IPTC,
 * XMP and EXIF, with the manifest winning), what their pixels say (colours, black and white,
 * nudity scores), the filters that read them, `ingest ./folder`, and the backfill of a
 * catalogue ingested before the facts existed. Every picture is a plain generated one: the
 * nudity filters are shown by a threshold set between two neutral pictures' scores.
 */

const CREATIVE = { asset_family: 'creative', collection_code: 'MFT', collection_name: 'Media facts test', product_types: ['premiumaccess'] };
const WORD = 'factstest';

/** A picture of vertical bands of colour. */
async function bands(parts: ReadonlyArray<readonly [string, number]>, height = 160): Promise<Buffer> {
  const width = parts.reduce((sum, [, w]) => sum + w, 0);
  let left = 0;
  const composites = parts.map(([colour, w]) => {
    const part = { input: { create: { width: w, height, channels: 3 as const, background: colour } }, left, top: 0 };
    left += w;
    return part;
  });
  return sharp({ create: { width, height, channels: 3, background: '#000' } }).composite(composites).jpeg({ quality: 92 }).toBuffer();
}

interface Pictures {
  red: Buffer;
  blue: Buffer;
  grey: Buffer;
}

async function pictures(): Promise<Pictures> {
  return {
    red: await jpegWithMetadata(
      {
        xmp: {
          title: 'Embedded title the manifest overrides',
          description: 'A red wall in the afternoon sun',
          subjects: ['wall', 'red'],
          creator: 'Rosa Roth',
          credit: 'Roth / Stockroom',
          dateCreated: '2022-07-01T15:30:00+02:00',
        },
        iptc: [
          [IPTC.copyright, '© 2022 Rosa Roth'],
          [IPTC.city, 'Zürich'],
          [IPTC.state, 'Zürich'],
          [IPTC.countryCode, 'CH'],
        ],
        exif: { Artist: 'Not the creator (XMP says who)' },
      },
      { colour: '#d01010', width: 400, height: 300 },
    ),
    blue: await bands([['#1030c0', 300], ['#f0f0f0', 100]]),
    grey: await sharp(await bands([['#303030', 200], ['#a0a0a0', 200]])).grayscale().jpeg().toBuffer(),
  };
}

describe.each(STORES)('media facts on $name', ({ url }) => {
  let t: TestApp;
  let dir: string;
  let files: Pictures;
  let scores: Record<keyof Pictures, NudityScores>;
  const classifier = new NudityClassifier();

  const get = (requestUrl: string) => t.app.inject({ method: 'GET', url: requestUrl, headers: { 'api-key': t.apiKey } });
  const ok = async (requestUrl: string) => {
    const response = await get(requestUrl);
    expect(response.statusCode, `${requestUrl}: ${response.body}`).toBe(200);
    return response.json();
  };
  const found = async (query: string) =>
    ((await ok(`/v3/search/images/creative?phrase=${WORD}&fields=id&page_size=100&${query}`)).images as Array<{ id: string }>).map((i) => i.id).sort();
  const settle = async () => {
    await t.services.changeFeed.poll();
    await t.services.search.settled();
  };
  /** The picture the classifier scores higher, and the other. */
  const ranked = () => {
    const order = (['red', 'blue', 'grey'] as const).slice().sort((a, b) => nudityScore(scores[a]) - nudityScore(scores[b]));
    return { lowest: order[0], highest: order[2] };
  };

  beforeAll(async () => {
    files = await pictures();
    // The classifier is deterministic: scored here, the pictures score the same at ingest.
    scores = {
      red: await classifier.classify(files.red),
      blue: await classifier.classify(files.blue),
      grey: await classifier.classify(files.grey),
    };
    const values = Object.values(scores).map(nudityScore).sort((a, b) => a - b);
    expect(values[2]! - values[1]!, 'the two highest-scored pictures must differ for the threshold to fall between them').toBeGreaterThan(1e-6);
    const threshold = ((values[1]! + values[2]!) / 2).toFixed(8);
    t = await createTestApp({ databaseUrl: url, env: { STOCKROOM_NUDITY_THRESHOLD: threshold } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-facts-'));
    fs.writeFileSync(path.join(dir, 'red.jpg'), files.red);
    fs.writeFileSync(path.join(dir, 'blue.jpg'), files.blue);
    fs.writeFileSync(path.join(dir, 'grey.jpg'), files.grey);
    const lines = [
      { asset_type: 'image', id: 'mf-red', file: 'red.jpg', title: 'Manifest title wins', keywords: [WORD], ...CREATIVE },
      // The manifest's colour type wins over the one detected.
      { asset_type: 'image', id: 'mf-blue', file: 'blue.jpg', title: 'Blue and white', keywords: [WORD], color_type: 'black_and_white', ...CREATIVE },
      { asset_type: 'image', id: 'mf-grey', file: 'grey.jpg', title: 'Grey', keywords: [WORD], ...CREATIVE },
      { asset_type: 'image', id: 'mf-nofile', title: 'Metadata only', keywords: [WORD], ...CREATIVE },
    ];
    fs.writeFileSync(path.join(dir, 'manifest.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    const report = await new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs, classifier }).ingestFile(path.join(dir, 'manifest.jsonl'));
    expect(report.failed).toEqual([]);
    await settle();
  }, 180_000);

  afterAll(async () => {
    await classifier.close();
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads every embedded fact into the record, the manifest winning where it gives one', async () => {
    const image = await ok('/v3/images?ids=mf-red&fields=detail_set,keywords');
    const detail = image.images[0];
    expect(detail.title).toBe('Manifest title wins');
    expect(detail.caption).toBe('A red wall in the afternoon sun');
    expect(detail.artist).toBe('Rosa Roth');
    expect(detail.copyright).toBe('© 2022 Rosa Roth');
    expect(detail.credit_line).toBe('Roth / Stockroom');
    expect(detail.date_created).toBe('2022-07-01T13:30:00Z');
    expect(detail.city).toBe('Zürich');
    expect(detail.state_province).toBe('Zürich');
    expect(detail.country).toBe('Switzerland');
    // The manifest's keywords win: the file's are not added to them.
    expect((detail.keywords as Array<{ text: string }>).map((k) => k.text)).toEqual([WORD]);
  });

  it('detects color_type from the pixels when the record gives none; a given one stays', async () => {
    const { images } = await ok('/v3/images?ids=mf-red,mf-blue,mf-grey,mf-nofile&fields=id,color_type');
    const colourType = Object.fromEntries((images as Array<{ id: string; color_type: string | null }>).map((i) => [i.id, i.color_type]));
    expect(colourType).toEqual({ 'mf-red': 'color', 'mf-blue': 'black_and_white', 'mf-grey': 'black_and_white', 'mf-nofile': null });
    // black_and_white is a mood search knows from color_type.
    expect(await found('moods=black_and_white')).toEqual(['mf-blue', 'mf-grey']);
  });

  it('applies color: a picture matches when one of its dominant colours is near the one asked for', async () => {
    expect(await found('color=%23d01010')).toEqual(['mf-red']);
    expect(await found('color=c81818')).toEqual(['mf-red']);
    expect(await found('color=%231030c0')).toEqual(['mf-blue']);
    // White is a fifth of the blue picture: a dominant colour too.
    expect(await found('color=%23ffffff')).toEqual(['mf-blue']);
    expect(await found('color=%2300ff00')).toEqual([]);
    // The blended image search leaves editorial images out when color is set (the contract); creative ones stay.
    const blended = (await ok(`/v3/search/images?phrase=${WORD}&fields=id&color=%23d01010`)).images as Array<{ id: string }>;
    expect(blended.map((i) => i.id)).toEqual(['mf-red']);
  });

  it('stores the classifier scores of each original; an asset without one has none', async () => {
    const rows = await t.services.database.db
      .selectFrom('assets')
      .select(['id', 'nudity_score', 'media_facts_version', 'media_facts'])
      .where('id', 'like', 'mf-%')
      .orderBy('id')
      .execute();
    const byId = Object.fromEntries(rows.map((row) => [row.id, row]));
    for (const name of ['red', 'blue', 'grey'] as const) {
      const row = byId[`mf-${name}`]!;
      expect(row.media_facts_version).toBe(MEDIA_FACTS_VERSION);
      expect(Number(row.nudity_score)).toBeCloseTo(nudityScore(scores[name]), 6);
      expect(JSON.parse(row.media_facts!).nudity).toEqual(scores[name]);
    }
    expect(byId['mf-nofile']).toMatchObject({ nudity_score: null, media_facts_version: null, media_facts: null });
  });

  it('applies exclude_nudity and safe_search with the threshold set: what scores above it is left out, the unclassified stay', async () => {
    const { highest } = ranked();
    const all = ['mf-blue', 'mf-grey', 'mf-nofile', 'mf-red'];
    expect(await found('')).toEqual(all);
    const kept = all.filter((id) => id !== `mf-${highest}`);
    expect(await found('exclude_nudity=true')).toEqual(kept);
    expect(await found('safe_search=true')).toEqual(kept);
    expect(await found('exclude_nudity=false')).toEqual(all);
  });

  it('always leaves nudity out of by-image results', async () => {
    const { lowest, highest } = ranked();
    const source = (['red', 'blue', 'grey'] as const).find((name) => name !== lowest && name !== highest)!;
    const body = await ok(`/v3/search/images/creative/by-image?asset_id=mf-${source}&fields=id&page_size=50`);
    const ids = (body.images as Array<{ id: string }>).map((i) => i.id);
    expect(ids).toContain(`mf-${lowest}`);
    expect(ids).not.toContain(`mf-${highest}`);
  });

  it('ingests a folder without a manifest, images and videos: ids from the content, defaults from flags, the same ids on a second run', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-folder-'));
    try {
      fs.mkdirSync(path.join(folder, 'trip', 'day 2'), { recursive: true });
      const named = await jpegWithMetadata({ xmp: { title: 'Lighthouse', creator: 'Ines Faro', subjects: ['lighthouse'] } }, { colour: '#e0c020' });
      const anonymous = await bands([['#20a040', 200]]);
      fs.writeFileSync(path.join(folder, 'trip', 'lighthouse.jpg'), named);
      fs.writeFileSync(path.join(folder, 'trip', 'day 2', 'field.jpg'), anonymous);
      fs.writeFileSync(path.join(folder, 'trip', 'day 2', 'field copy.jpg'), anonymous);
      fs.writeFileSync(path.join(folder, 'broken.jpg'), named.subarray(0, 200));
      fs.writeFileSync(path.join(folder, 'notes.txt'), 'shot list');
      // A clip whose container names its title and artist (the artist wins over --artist).
      const untagged = await makeClip(dir, 'untagged.mp4', { width: 320, height: 180, seconds: 1 });
      const tagging = ['-metadata', 'title=Harbour at dusk', '-metadata', 'artist=Vid Maker', '-metadata', 'keywords=harbour, boat'];
      await tools.ffmpeg(['-v', 'error', '-y', '-i', untagged, '-c', 'copy', ...tagging, path.join(folder, 'clip.mp4')], { timeoutMs: 60_000 });
      const clip = fs.readFileSync(path.join(folder, 'clip.mp4'));
      fs.writeFileSync(path.join(folder, 'broken.mov'), Buffer.alloc(64));
      fs.writeFileSync(path.join(folder, '.hidden.jpg'), named);
      const ingest = new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs });
      const defaults = { asset_family: 'creative', collection: 'FOLDER', product_types: ['premiumaccess', 'creditpack'], artist: 'House Photographer' };
      const progress: Array<[number, number]> = [];
      const first = await ingestFolder(ingest, folder, { defaults, onProgress: (done, total) => progress.push([done, total]) });
      expect(first.created).toEqual([
        { file: 'clip.mp4', id: contentId(clip) },
        { file: 'trip/day 2/field copy.jpg', id: contentId(anonymous) },
        { file: 'trip/lighthouse.jpg', id: contentId(named) },
      ]);
      expect(first.updated).toEqual([]);
      // A file that does not decode fails, in words; a file that is no asset is skipped.
      expect(first.failed).toEqual([
        { file: 'broken.jpg', reason: 'the file is cut short' },
        { file: 'broken.mov', reason: 'the file holds nothing but zero bytes (a failed copy or download?)' },
      ]);
      const sha256 = createHash('sha256').update(anonymous).digest('hex');
      expect(first.skipped).toEqual([
        { file: 'notes.txt', reason: 'not an image or video (.txt)' },
        { file: 'trip/day 2/field.jpg', reason: `the same content as trip/day 2/field copy.jpg (sha256 ${sha256.slice(0, 24)}…); the first in path order is kept` },
      ]);
      expect(first.duplicates).toEqual([{ kept: 'trip/day 2/field copy.jpg', skipped: 'trip/day 2/field.jpg', sha256 }]);
      expect(progress.at(-1)).toEqual([7, 7]);

      const second = await ingestFolder(ingest, folder, { defaults });
      expect(second.created).toEqual([]);
      expect(second.updated.map((u) => u.id)).toEqual(first.created.map((c) => c.id));
      expect(second.updated.map((u) => u.changes)).toEqual([[], [], []]);
      await settle();
      const { videos } = await ok(`/v3/videos?ids=${contentId(clip)}&fields=id,title,artist,keywords,clip_length,collection_code`);
      expect(videos[0]).toMatchObject({ title: 'Harbour at dusk', artist: 'Vid Maker', clip_length: '00:00:01:00', collection_code: 'FOLDER' });
      expect((videos[0].keywords as Array<{ text: string }>).map((k) => k.text)).toEqual(['harbour', 'boat']);
      const { images } = await ok(`/v3/images?ids=${contentId(named)},${contentId(anonymous)}&fields=id,title,artist,collection_code,asset_family,product_types`);
      const byId = Object.fromEntries((images as Array<{ id: string }>).map((i) => [i.id, i]));
      // The file's own creator wins over --artist; a file naming none takes it.
      expect(byId[contentId(named)]).toMatchObject({ title: 'Lighthouse', artist: 'Ines Faro', collection_code: 'FOLDER', asset_family: 'creative' });
      expect(byId[contentId(anonymous)]).toMatchObject({ artist: 'House Photographer', product_types: ['premiumaccess', 'creditpack'] });
      await expect(ingestFolder(ingest, folder, { defaults: { asset_family: 'documentary' } })).rejects.toThrow(/asset_family/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);

  it('backfills a catalogue ingested before the facts: resumable after an interruption, and search follows', async () => {
    // As if ingested before migration 0014: no facts anywhere.
    const db = t.services.database.db;
    await sql`update assets set media_facts = null, media_facts_version = null, nudity_score = null`.execute(db);
    for (const id of ['mf-red', 'mf-blue', 'mf-grey']) await recordChange(db, 'image', id, 'update');
    await settle();
    // The index has followed: without facts, no colour matches and no picture is held to show nudity.
    expect(await found('color=%23d01010')).toEqual([]);
    expect(await found('exclude_nudity=true')).toEqual(['mf-blue', 'mf-grey', 'mf-nofile', 'mf-red']);
    const pending = await t.services.catalog.countAssetsNeedingMediaFacts(MEDIA_FACTS_VERSION, true);
    // Three manifest pictures, the two folder pictures and the folder's video (from its poster);
    // the asset without an original has nothing to compute from.
    expect(pending).toBe(6);

    // Colours alone first (the classifier switched off); nudity stays to do.
    const colours = await backfillMediaFacts({ catalog: t.services.catalog, blobs: t.services.blobs });
    expect(colours).toEqual({ computed: 6, failed: [] });
    expect(await t.services.catalog.countAssetsNeedingMediaFacts(MEDIA_FACTS_VERSION, false)).toBe(0);
    expect(await t.services.catalog.countAssetsNeedingMediaFacts(MEDIA_FACTS_VERSION, true)).toBe(6);

    // Interrupted after two assets (the progress callback stands in for a kill)…
    let seen = 0;
    await expect(
      backfillMediaFacts(
        { catalog: t.services.catalog, blobs: t.services.blobs, classifier },
        {
          batchSize: 2,
          onProgress: () => {
            seen += 1;
            if (seen === 2) throw new Error('interrupted');
          },
        },
      ),
    ).rejects.toThrow('interrupted');
    expect(await t.services.catalog.countAssetsNeedingMediaFacts(MEDIA_FACTS_VERSION, true)).toBe(4);
    // …the next run does only what is left.
    const totals: number[] = [];
    const rest = await backfillMediaFacts(
      { catalog: t.services.catalog, blobs: t.services.blobs, classifier },
      { onProgress: (_done, total) => totals.push(total) },
    );
    expect(rest).toEqual({ computed: 4, failed: [] });
    expect(new Set(totals)).toEqual(new Set([4]));
    expect(await t.services.catalog.countAssetsNeedingMediaFacts(MEDIA_FACTS_VERSION, true)).toBe(0);

    await settle();
    const { highest } = ranked();
    expect(await found('color=%23d01010')).toEqual(['mf-red']);
    expect(await found('exclude_nudity=true')).not.toContain(`mf-${highest}`);
    const { images } = await ok('/v3/images?ids=mf-grey&fields=id,color_type');
    expect(images[0].color_type).toBe('black_and_white');
    const video = await t.services.database.db.selectFrom('assets').select(['media_facts_version', 'nudity_score']).where('asset_type', '=', 'video').execute();
    expect(video).toEqual([{ media_facts_version: MEDIA_FACTS_VERSION, nudity_score: expect.any(Number) }]);
  }, 120_000);

  it('reports an original missing from the blob store as failed and goes on with the others', async () => {
    await sql`update assets set media_facts_version = null where id in ('mf-red', 'mf-grey')`.execute(t.services.database.db);
    const red = await t.services.catalog.findOriginal('mf-red');
    await t.services.blobs.delete(red!.originalKey);
    const report = await backfillMediaFacts({ catalog: t.services.catalog, blobs: t.services.blobs, classifier });
    expect(report.computed).toBe(1);
    expect(report.failed).toEqual([{ id: 'mf-red', reason: `its original ${red!.originalKey} is missing from the blob store` }]);
    // It stays to do, for a run after the file is restored.
    expect(await t.services.catalog.countAssetsNeedingMediaFacts(MEDIA_FACTS_VERSION, true)).toBe(1);
  }, 60_000);

  it("fills a video manifest line from its container's tags, the line winning", async () => {
    const untagged = await makeClip(dir, 'plain-clip.mp4', { width: 320, height: 180, seconds: 1 });
    const tagging = ['-metadata', 'title=Tagged title', '-metadata', 'artist=Vid Maker', '-metadata', 'comment=Boats come in at dusk', '-metadata', 'copyright=© Vid Maker'];
    await tools.ffmpeg(['-v', 'error', '-y', '-i', untagged, '-c', 'copy', ...tagging, path.join(dir, 'tagged-clip.mp4')], { timeoutMs: 60_000 });
    const line = { asset_type: 'video', id: 'mf-video', file: 'tagged-clip.mp4', title: 'Manifest video title', ...CREATIVE };
    fs.writeFileSync(path.join(dir, 'video.jsonl'), JSON.stringify(line));
    const report = await new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs }).ingestFile(path.join(dir, 'video.jsonl'));
    expect(report.failed).toEqual([]);
    const { videos } = await ok('/v3/videos?ids=mf-video&fields=id,title,caption,artist,copyright');
    expect(videos[0]).toEqual({ id: 'mf-video', title: 'Manifest video title', caption: 'Boats come in at dusk', artist: 'Vid Maker', copyright: '© Vid Maker' });
  }, 60_000);
});
