import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { createServices } from '../src/app.js';
import { ingestFolder } from '../src/catalog/ingest/folder-ingest.js';
import { IngestService } from '../src/catalog/ingest/ingest.service.js';
import { loadConfig } from '../src/config/config.js';
import { NudityClassifier } from '../src/media/nudity-classifier.js';
import { table } from './harness.js';
import { size } from './sizes.js';

/*
 * `npm run bench -- media-ingest`: `stockroom ingest ./folder` of generated pictures (1,000 by
 * default, BENCH_IMAGES to change it), each a 1600×1067 JPEG carrying XMP metadata, with and
 * without the nudity classifier, beside sharp alone decoding the same files (the floor: every
 * ingest decodes each picture fully) and the classifier alone on them.
 */

const IMAGES = size('BENCH_IMAGES', 1000, 3);
const WIDTH = 1600;
const HEIGHT = 1067;

/** A deterministic stream of numbers, so that every run ingests the same pictures. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const hex = (random: () => number) => `#${Math.floor(random() * 0xffffff).toString(16).padStart(6, '0')}`;

/** A picture of a sky gradient with a few blocks of colour, and an XMP title, creator and keywords. */
async function picture(n: number): Promise<Buffer> {
  const random = seeded(n + 1);
  const sky = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1">` +
    `<stop offset="0" stop-color="${hex(random)}"/><stop offset="1" stop-color="${hex(random)}"/></linearGradient></defs>` +
    `<rect width="100%" height="100%" fill="url(#g)"/>` +
    Array.from({ length: 6 }, () => {
      const w = 100 + Math.floor(random() * 500);
      const h = 80 + Math.floor(random() * 400);
      return `<rect x="${Math.floor(random() * (WIDTH - w))}" y="${Math.floor(random() * (HEIGHT - h))}" width="${w}" height="${h}" fill="${hex(random)}"/>`;
    }).join('') +
    '</svg>';
  const xmp =
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
    `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Generated picture ${n}</rdf:li></rdf:Alt></dc:title>` +
    `<dc:creator><rdf:Seq><rdf:li>Bench Artist ${n % 17}</rdf:li></rdf:Seq></dc:creator>` +
    `<dc:subject><rdf:Bag><rdf:li>bench</rdf:li><rdf:li>colour ${n % 11}</rdf:li></rdf:Bag></dc:subject>` +
    '</rdf:Description></rdf:RDF></x:xmpmeta>';
  return sharp(Buffer.from(sky)).jpeg({ quality: 85 }).withXmp(xmp).toBuffer();
}

interface Row {
  what: string;
  seconds: number;
}

async function timed(what: string, run: () => Promise<unknown>): Promise<Row> {
  const start = performance.now();
  await run();
  return { what, seconds: (performance.now() - start) / 1000 };
}

/** Ingests the folder into a fresh SQLite store, the classifier on or off; throws if any file was skipped. */
async function ingestRun(folder: string, classify: boolean): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-bench-media-'));
  const services = await createServices(loadConfig({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' }));
  const classifier = classify ? new NudityClassifier() : undefined;
  try {
    // The model loads before the clock starts counting pictures: a run loads it once.
    if (classifier) await classifier.classify(await picture(-1));
    const ingest = new IngestService({ catalog: services.catalog, blobs: services.blobs, classifier });
    const report = await ingestFolder(ingest, folder, { defaults: { asset_family: 'creative', product_types: ['premiumaccess'] } });
    if (report.skipped.length > 0 || report.created.length !== IMAGES) throw new Error(`ingest skipped files: ${JSON.stringify(report.skipped.slice(0, 3))}`);
  } finally {
    await classifier?.close();
    await services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function mediaIngestBenchmark(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-bench-pictures-'));
  try {
    process.stderr.write(`Writing ${IMAGES} pictures of ${WIDTH}×${HEIGHT}…\n`);
    let bytes = 0;
    for (let n = 0; n < IMAGES; n++) {
      const data = await picture(n);
      bytes += data.length;
      const sub = path.join(folder, `batch-${Math.floor(n / 100)}`);
      fs.mkdirSync(sub, { recursive: true });
      fs.writeFileSync(path.join(sub, `picture-${n}.jpg`), data);
    }
    const files = fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.jpg')).map((name) => path.join(folder, name));

    process.stderr.write('sharp alone…\n');
    const rows: Row[] = [];
    rows.push(
      await timed('sharp alone: read and decode each file fully', async () => {
        for (const file of files) await sharp(fs.readFileSync(file)).raw().toBuffer();
      }),
    );
    process.stderr.write('classifier alone…\n');
    const classifier = new NudityClassifier();
    await classifier.classify(await picture(-1));
    rows.push(
      await timed('nudity classifier alone (worker thread, wasm)', async () => {
        for (const file of files) await classifier.classify(fs.readFileSync(file));
      }),
    );
    await classifier.close();
    process.stderr.write('ingest without the classifier…\n');
    rows.push(await timed('stockroom ingest ./folder, classifier off', () => ingestRun(folder, false)));
    process.stderr.write('ingest with the classifier…\n');
    rows.push(await timed('stockroom ingest ./folder, classifier on', () => ingestRun(folder, true)));

    process.stdout.write(
      `\nMedia ingest: ${IMAGES} JPEG pictures of ${WIDTH}×${HEIGHT} with XMP (${(bytes / IMAGES / 1024).toFixed(0)} KB each on average), ` +
        `SQLite, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)} at the end\n\n`,
    );
    process.stdout.write(
      `${table(
        ['run', 'seconds', 'images/s', 'ms/image'],
        rows.map((row) => [row.what, row.seconds.toFixed(1), (IMAGES / row.seconds).toFixed(1), ((row.seconds * 1000) / IMAGES).toFixed(1)]),
      )}\n`,
    );
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}
