import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentId } from '../../src/catalog/ingest/folder-ingest.js';
import { readStoreIn } from '../helpers/test-store.js';

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');

type Failure = { code: number; stdout: string; stderr: string };

describe('stockroom ingest <folder> and stockroom backfill', () => {
  let scratch: string;
  let folder: string;
  let env: NodeJS.ProcessEnv;
  const stockroom = (extra: Record<string, string>, ...args: string[]) => run(process.execPath, [CLI, ...args], { env: { ...env, ...extra } });
  let pictures: Buffer[];

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-facts-cli-'));
    folder = path.join(scratch, 'pictures');
    fs.mkdirSync(path.join(folder, 'nested'), { recursive: true });
    env = { ...process.env, STOCKROOM_DATA_DIR: path.join(scratch, 'data'), STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' };
    pictures = await Promise.all(
      ['#c03030', '#3050c0'].map((colour) => sharp({ create: { width: 120, height: 80, channels: 3, background: colour } }).jpeg().toBuffer()),
    );
    fs.writeFileSync(path.join(folder, 'red.jpg'), pictures[0]!);
    fs.writeFileSync(path.join(folder, 'nested', 'blue.jpg'), pictures[1]!);
    fs.writeFileSync(path.join(folder, 'readme.txt'), 'not a picture');
  });
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('ingests a folder with a summary of created, updated and skipped, and the same ids when run again', async () => {
    const off = { STOCKROOM_NUDITY_CLASSIFIER: 'false' };
    const first = await stockroom(off, 'ingest', folder, '--family', 'creative', '--product-types', 'premiumaccess', '--artist', 'Sam Lee');
    // The summary is the last line; the lines before it say which titles came from file names.
    expect(first.stdout.trimEnd().split('\n').at(-1)).toBe('2 created, 0 updated (0 changed), 0 failed, 1 skipped (1 not an image or video)');
    expect(first.stdout).toContain('red.jpg: the file names no title, so it is titled "Red" from its file name');
    expect(first.stderr).toContain('readme.txt: skipped: not an image or video (.txt)');
    // Off a terminal, progress is plain lines: no escape sequences.
    expect(first.stderr).not.toContain(String.fromCharCode(27));
    const second = await stockroom(off, 'ingest', folder, '--family', 'creative', '--product-types', 'premiumaccess');
    expect(second.stdout.trimEnd().split('\n').at(-1)).toMatch(/^0 created, 2 updated \(\d+ changed\), 0 failed, 1 skipped \(1 not an image or video\)$/);
    const ids = await readStoreIn(env.STOCKROOM_DATA_DIR!, (database) => database.db.selectFrom('assets').select('id').orderBy('id').execute());
    expect(ids.map((row) => row.id)).toEqual(pictures.map(contentId).sort());
  });

  it('backfills the nudity scores left out while the classifier was off, then has nothing left to do', async () => {
    const first = await stockroom({}, 'backfill');
    expect(first.stdout).toBe('2 computed, 0 failed\n');
    const scores = await readStoreIn(env.STOCKROOM_DATA_DIR!, (database) => database.db.selectFrom('assets').select('nudity_score').execute());
    for (const { nudity_score } of scores) expect(nudity_score).toEqual(expect.any(Number));
    expect((await stockroom({}, 'backfill')).stdout).toBe('0 computed, 0 failed\n');
  }, 60_000);

  it('refuses folder flags with a manifest, and a threshold that is no number from 0 to 1', async () => {
    const manifest = path.join(scratch, 'm.jsonl');
    fs.writeFileSync(manifest, '');
    const flags = (await stockroom({}, 'ingest', manifest, '--family', 'creative').catch((error: Failure) => error)) as Failure;
    expect(flags.code).toBe(1);
    expect(flags.stderr).toContain('--family, --collection, --license-model, --product-types and --artist apply to a folder');
    const threshold = (await stockroom({ STOCKROOM_NUDITY_THRESHOLD: '1.5' }, 'backfill').catch((error: Failure) => error)) as Failure;
    expect(threshold.code).toBe(2);
    expect(threshold.stderr).toContain('STOCKROOM_NUDITY_THRESHOLD must be a number from 0 to 1');
  });
});
