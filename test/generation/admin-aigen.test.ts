import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');

describe('stockroom admin product grant --type aigen', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const stockroom = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-cli-aigen-'));
    env = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' };
    await stockroom('admin', 'user', 'create', '--username', 'maker', '--password', 'correct horse battery');
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('grants an AI product with a generation allowance per period and its requirements, shown as ai_gen_requirements', async () => {
    const { stdout } = await stockroom('admin', 'product', 'grant', '--user', 'maker', '--type', 'aigen', '--generations', '100', '--period', 'month');
    expect(stdout.trim()).toMatch(/^Granted product \d+ “AI Generation” \(aigen\) to maker: 100 generations a month\.$/);
    const printed = JSON.parse(
      (await stockroom('admin', 'product', 'grant', '--user', 'maker', '--type', 'aigen', '--generations', '5', '--require-project-code', '--project-codes', 'A,B', '--json')).stdout,
    ) as Record<string, unknown>;
    expect(printed).toMatchObject({ type: 'aigen', download_limit: 5, downloads_remaining: 5, ai_gen_requirements: { is_note_required: false, is_project_code_required: true, project_codes: ['A', 'B'] } });
    const refused = await stockroom('admin', 'product', 'grant', '--user', 'maker', '--type', 'premiumaccess', '--generations', '5').then(
      () => undefined,
      (error: { stderr: string }) => error,
    );
    expect(refused?.stderr).toMatch(/a premiumaccess product makes no generations/);
  }, 180_000);

  it('--asset-edit-cost sets what an edit of a catalogue asset uses of the allowance, shown in ai_gen_requirements and by list', async () => {
    const { stdout } = await stockroom('admin', 'product', 'grant', '--user', 'maker', '--type', 'aigen', '--generations', '20', '--asset-edit-cost', '0');
    expect(stdout.trim()).toMatch(/^Granted product \d+ “AI Generation” \(aigen\) to maker: 20 generations, an edit of a catalogue asset uses none\.$/);
    const printed = JSON.parse((await stockroom('admin', 'product', 'grant', '--user', 'maker', '--type', 'aigen', '--asset-edit-cost', '3', '--json')).stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({ ai_gen_requirements: { asset_edit_cost: 3 } });
    const listed = (await stockroom('admin', 'product', 'list', '--user', 'maker')).stdout;
    expect(listed).toMatch(/\taigen\tactive\tAI Generation\t20 of 20 generations left, an edit of a catalogue asset uses 0\n/);
    expect(listed).toMatch(/\taigen\tactive\tAI Generation\tan edit of a catalogue asset uses 3\n/);
    const refused = await stockroom('admin', 'product', 'grant', '--user', 'maker', '--type', 'creditpack', '--asset-edit-cost', '2').then(
      () => undefined,
      (error: { stderr: string }) => error,
    );
    expect(refused?.stderr).toMatch(/asset_edit_cost.*a creditpack product makes no generations/);
    // Five CLI processes, each starting the whole program: minutes on a machine shared by many.
  }, 180_000);
});
