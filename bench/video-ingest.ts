import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createServices } from '../src/app.js';
import { IngestService } from '../src/catalog/ingest/ingest.service.js';
import { loadConfig } from '../src/config/config.js';
import { probeVideo } from '../src/media/video/video-probe.js';
import { keyFrames, posterStill } from '../src/media/video/video-renders.js';
import { VideoTools } from '../src/media/video/video-tools.js';
import { table } from './harness.js';
import { size } from './sizes.js';

/*
 * `npm run bench -- video-ingest`: `stockroom ingest` of a manifest naming 20 one-minute clips
 * (BENCH_VIDEOS and BENCH_VIDEO_SECONDS to change them), H.264 1280×720 at 25 frames a second
 * with sound, made by ffmpeg before the clock starts, each three scenes; beside ffprobe alone on
 * the same files (the floor of reading the facts) and the stills alone (poster and key frames,
 * which decode the whole clip: the bulk of the work).
 */

const VIDEOS = size('BENCH_VIDEOS', 20, 1);
const SECONDS = size('BENCH_VIDEO_SECONDS', 60, 3);
const WIDTH = 1280;
const HEIGHT = 720;

interface Row {
  what: string;
  seconds: number;
}

async function timed(what: string, run: () => Promise<unknown>): Promise<Row> {
  const start = performance.now();
  await run();
  return { what, seconds: (performance.now() - start) / 1000 };
}

/** One clip: a test pattern, colour bars and a moving gradient, each a third of it, with a tone. */
async function makeClip(tools: VideoTools, file: string, n: number): Promise<void> {
  const part = SECONDS / 3;
  const size = `s=${WIDTH}x${HEIGHT}:r=25:d=${part}`;
  await tools.ffmpeg(
    [
      '-v', 'error', '-y',
      '-f', 'lavfi', '-i', `testsrc2=${size}`,
      '-f', 'lavfi', '-i', `smptebars=${size}`,
      '-f', 'lavfi', '-i', `gradients=${size}:seed=${n + 1}`,
      '-f', 'lavfi', '-i', `sine=frequency=${220 + n * 20}:duration=${SECONDS}`,
      '-filter_complex', '[0:v][1:v][2:v]concat=n=3:v=1:a=0[v]', '-map', '[v]', '-map', '3:a',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file,
    ],
    { timeoutMs: 600_000 },
  ).catch(async (error: unknown) => {
    // An ffmpeg without the gradients source: the third scene is a flat colour instead.
    if (!String(error).includes('gradients')) throw error;
    await tools.ffmpeg(
      [
        '-v', 'error', '-y',
        '-f', 'lavfi', '-i', `testsrc2=${size}`,
        '-f', 'lavfi', '-i', `smptebars=${size}`,
        '-f', 'lavfi', '-i', `color=c=0x${(0x203040 + n * 0x0a0b0c).toString(16).slice(-6)}:${size}`,
        '-f', 'lavfi', '-i', `sine=frequency=${220 + n * 20}:duration=${SECONDS}`,
        '-filter_complex', '[0:v][1:v][2:v]concat=n=3:v=1:a=0[v]', '-map', '[v]', '-map', '3:a',
        '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file,
      ],
      { timeoutMs: 600_000 },
    );
  });
}

export async function videoIngestBenchmark(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-bench-clips-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-bench-video-'));
  const tools = VideoTools.fromEnvironment();
  try {
    process.stderr.write(`Making ${VIDEOS} clips of ${SECONDS} s at ${WIDTH}×${HEIGHT} with ffmpeg…\n`);
    const files: string[] = [];
    let bytes = 0;
    for (let n = 0; n < VIDEOS; n++) {
      const file = path.join(folder, `clip-${n}.mp4`);
      await makeClip(tools, file, n);
      bytes += fs.statSync(file).size;
      files.push(file);
    }
    const manifest = path.join(folder, 'manifest.jsonl');
    fs.writeFileSync(
      manifest,
      files
        .map((file, n) =>
          JSON.stringify({ asset_type: 'video', id: `bench-clip-${n}`, file: path.basename(file), title: `Bench clip ${n}`, asset_family: 'creative', product_types: ['premiumaccess'] }),
        )
        .join('\n'),
    );

    const rows: Row[] = [];
    process.stderr.write('ffprobe alone…\n');
    rows.push(
      await timed('ffprobe alone: the facts of each file', async () => {
        for (const file of files) await probeVideo(tools, file);
      }),
    );
    process.stderr.write('stills alone…\n');
    rows.push(
      await timed('poster and key frames alone (ffmpeg decodes each clip)', async () => {
        for (const file of files) {
          const facts = await probeVideo(tools, file);
          await posterStill(tools, file, facts);
          await keyFrames(tools, file, facts, 600_000);
        }
      }),
    );
    process.stderr.write('stockroom ingest…\n');
    const services = await createServices(loadConfig({ STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' }));
    try {
      rows.push(
        await timed('stockroom ingest manifest.jsonl (probe, store, stills, signature, colours)', async () => {
          const ingest = new IngestService({ catalog: services.catalog, blobs: services.blobs, videoTools: services.videoTools });
          const report = await ingest.ingestFile(manifest);
          if (report.failed.length > 0 || report.inserted !== VIDEOS) throw new Error(`ingest failed lines: ${JSON.stringify(report.failed.slice(0, 3))}`);
        }),
      );
    } finally {
      await services.close();
    }

    process.stdout.write(
      `\nVideo ingest: ${VIDEOS} H.264 clips of ${SECONDS} s at ${WIDTH}×${HEIGHT}, 25 fps, with AAC sound (${(bytes / VIDEOS / 1024 / 1024).toFixed(1)} MB each on average), ` +
        `SQLite, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)} at the end\n\n`,
    );
    process.stdout.write(
      `${table(
        ['run', 'seconds', 'clips/s', 's/clip', 'video minutes/s'],
        rows.map((row) => [
          row.what,
          row.seconds.toFixed(1),
          (VIDEOS / row.seconds).toFixed(2),
          (row.seconds / VIDEOS).toFixed(2),
          ((VIDEOS * SECONDS) / 60 / row.seconds).toFixed(2),
        ]),
      )}\n`,
    );
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
