import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { processScratch, serve, stop } from '../helpers/server-processes.js';

/*
 * What a server holds from its start is memory every node pays for, beside the search index
 * (issue 27: ten million assets in 3 GB). Packages that only PostgreSQL, an S3 bucket, Redis, an
 * upload, an ingest or a generation needs are loaded at their first use; this test starts a real
 * `stockroom serve` on a fresh data folder (SQLite, blobs in the folder, no Redis) and fails if
 * one of them was loaded at start anyway, as a static import added somewhere would do.
 */

const scratch = processScratch('stockroom-footprint-');
const PROBE = path.resolve('test/helpers/loaded-packages-probe.js');

/** Packages a node with its blobs in a folder and no Redis needs only once a request asks for them. */
const LOADED_AT_FIRST_USE = [
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  '@tus/server',
  '@tus/file-store',
  '@tus/s3-store',
  'ioredis',
  'pg',
  'exifr',
  '@tensorflow/tfjs',
  '@tensorflow/tfjs-backend-wasm',
  'nsfwjs',
  '@techstark/opencv-js',
];

async function packagesLoadedBy(pid: number, file: string): Promise<string[]> {
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 20_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error('the probe wrote no list of loaded packages');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as string[];
}

it('a server started on a fresh folder without Redis has not loaded the S3 SDK, tus, ioredis, pg, exifr or the classifiers', async () => {
  const dataDir = scratch.tempDir();
  const listFile = path.join(dataDir, 'loaded-packages.json');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STOCKROOM_LOG_LEVEL: 'silent',
    STOCKROOM_SEED_DEMO: 'false',
    DATABASE_URL: '',
    REDIS_URL: '',
    STOCKROOM_BLOBS: '',
    LOADED_PACKAGES_FILE: listFile,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${PROBE}`.trim(),
  };
  const server = await serve(env, dataDir);
  scratch.cleanups.push(() => stop(server));
  const response = await fetch(`http://127.0.0.1:${server.port}/v3/`);
  expect(response.status).toBe(200);

  const loaded = await packagesLoadedBy(server.child.pid!, listFile);
  // The probe sees both kinds of module: fastify is CommonJS, kysely an ES module, both loaded at start.
  expect(loaded).toEqual(expect.arrayContaining(['fastify', 'kysely']));
  expect(loaded.filter((name) => LOADED_AT_FIRST_USE.includes(name))).toEqual([]);
});
