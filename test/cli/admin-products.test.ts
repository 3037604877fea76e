import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { readStoreIn } from '../helpers/test-store.js';

const run = promisify(execFile);
const CLI = path.resolve('bin/stockroom.js');

interface Failure {
  code: number;
  stderr: string;
}

describe('stockroom admin product', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-cli-products-'));
    env = { ...process.env, STOCKROOM_DATA_DIR: dataDir, STOCKROOM_LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' };
    await stockroom('admin', 'user', 'create', '--username', 'reporter', '--password', 'correct horse battery', '--team', 'Newsroom', '--partner-credit');
    await stockroom('admin', 'user', 'create', '--username', 'loner', '--password', 'correct horse battery');
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const stockroom = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });
  const failure = (...args: string[]) => stockroom(...args).then(() => undefined, (error: Failure) => error);
  const loneId = async () => (await withStore((database) => database.db.selectFrom('users').select('id').where('username', '=', 'loner').executeTakeFirstOrThrow())).id;
  const grantJson = async (...args: string[]) => JSON.parse((await stockroom('admin', 'product', 'grant', ...args, '--json')).stdout) as Record<string, unknown>;

  /** The store the commands wrote, opened after they ran. */
  const withStore = <T>(read: (database: Database) => Promise<T>) => readStoreIn(dataDir, read);

  it('grants a credit pack and prints it as GET /v3/products shows it', async () => {
    const printed = await grantJson('--user', 'reporter', '--type', 'creditpack', '--credits', '25', '--expires', '2030-06-30', '--agreement', 'Agency terms');
    expect(printed).toMatchObject({
      id: expect.any(Number),
      username: 'reporter',
      type: 'creditpack',
      name: 'Credit Pack',
      status: 'active',
      credits_remaining: 25,
      team_credits: 0,
      expiration_utc_date: '2030-06-30T23:59:59Z',
      agreement_name: 'Agency terms',
    });
    const ledger = await withStore((database) => database.db.selectFrom('download_ledger').selectAll().where('product_id', '=', printed.id as number).execute());
    expect(ledger).toEqual([expect.objectContaining({ reason: 'grant', amount: 25, team: null })]);
  });

  it('grants a subscription with a download limit per period, and says so in a line', async () => {
    const { stdout } = await stockroom('admin', 'product', 'grant', '--user', 'reporter', '--type', 'premiumaccess', '--downloads', '50', '--period', 'month', '--overage', '5');
    expect(stdout.trim()).toMatch(/^Granted product \d+ “Premium Access” \(premiumaccess\) to reporter: 50 downloads a month\.$/);
    const listed = JSON.parse((await stockroom('admin', 'product', 'list', '--user', 'reporter', '--json')).stdout) as { products: Array<Record<string, unknown>> };
    expect(listed.products.find((p) => p.type === 'premiumaccess')).toMatchObject({
      download_limit: 50,
      download_limit_duration: 'month',
      downloads_remaining: 50,
      overage: { limit: 5, remaining: 5, count: 0, overages_reached: false },
    });
  });

  it('puts --team credits in the pool of the user’s team', async () => {
    const printed = await grantJson('--user', 'reporter', '--type', 'creditpack', '--credits', '40', '--team');
    expect(printed).toMatchObject({ credits_remaining: 0, team_credits: 40 });
    const pool = await withStore((database) => database.db.selectFrom('team_credits').selectAll().execute());
    expect(pool).toEqual([expect.objectContaining({ team: 'Newsroom', credits: 40 })]);
  });

  it('grants an image pack limited to a resolution, with download requirements', async () => {
    const printed = await grantJson(
      '--user', 'reporter', '--type', 'imagepack', '--downloads', '10', '--resolution', 'medium',
      '--require-notes', '--project-codes', 'SPRING,FALL',
    );
    expect(printed).toMatchObject({ type: 'imagepack', download_limit: 10, download_limit_duration: null, imagepack_resolution: 'medium' });
    const listed = JSON.parse((await stockroom('admin', 'product', 'list', '--user', 'reporter', '--json')).stdout) as { products: Array<Record<string, unknown>> };
    expect(listed.products.find((p) => p.id === printed.id)!.download_requirements).toEqual({
      is_note_required: true,
      is_project_code_required: false,
      project_codes: ['SPRING', 'FALL'],
    });
  });

  it.each([
    ['an unknown user', ['--user', 'nobody', '--type', 'premiumaccess'], /^stockroom: no user named nobody$/],
    ['an unknown type', ['--user', 'reporter', '--type', 'lifetime'], /^stockroom: .*'type'.*lifetime/],
    ['credits on a subscription', ['--user', 'reporter', '--type', 'premiumaccess', '--credits', '5'], /^stockroom: .*'credits'/],
    ['team credits for a user of no team', ['--user', 'loner', '--type', 'creditpack', '--credits', '5', '--team'], /^stockroom: .*belongs to no team/],
    ['a period without downloads', ['--user', 'reporter', '--type', 'premiumaccess', '--period', 'month'], /^stockroom: .*'period'/],
    ['an unreadable expiry', ['--user', 'reporter', '--type', 'premiumaccess', '--expires', 'soon'], /--expires <date>.*must be a date/],
    ['credits that are no number', ['--user', 'reporter', '--type', 'creditpack', '--credits', 'lots'], /--credits <n>.*must be a whole number/],
  ])('refuses %s in one line, granting nothing', async (_case, args, message) => {
    const before = await withStore((database) => database.db.selectFrom('products').select('id').execute());
    const refused = await failure('admin', 'product', 'grant', ...args);
    expect(refused?.code).toBe(1);
    expect(refused!.stderr.trim().split('\n')[0]).toMatch(message);
    expect(await withStore((database) => database.db.selectFrom('products').select('id').execute())).toEqual(before);
  });

  it('lists a user’s products in lines, and says when there are none', async () => {
    const { stdout } = await stockroom('admin', 'product', 'list', '--user', 'reporter');
    expect(stdout).toMatch(/^\d+\tcreditpack\tactive\tCredit Pack\t25 credits, 40 team credits$/m);
    expect((await stockroom('admin', 'product', 'list', '--user', 'loner')).stdout.trim()).toBe('loner holds no product.');
  });
  it('revokes a product: it shows inactive, while its row and ledger stay; another user’s product is refused', async () => {
    const pack = await grantJson('--user', 'reporter', '--type', 'creditpack', '--credits', '9');
    const ledger = () => withStore((database) => database.db.selectFrom('download_ledger').selectAll().where('product_id', '=', pack.id as number).execute());
    const ledgerBefore = await ledger();

    const refused = await failure('admin', 'product', 'revoke', String(pack.id), '--user', 'loner');
    expect(refused?.code).toBe(1);
    expect(refused!.stderr.trim().split('\n')).toEqual([`stockroom: Product not found: ${String(pack.id)} (of user ${await loneId()})`]);

    const { stdout } = await stockroom('admin', 'product', 'revoke', String(pack.id), '--user', 'reporter');
    expect(stdout.trim()).toBe(`Revoked product ${String(pack.id)} “Credit Pack” (creditpack) of reporter; its downloads and ledger stay.`);
    const listed = JSON.parse((await stockroom('admin', 'product', 'list', '--user', 'reporter', '--json')).stdout) as { products: Array<Record<string, unknown>> };
    expect(listed.products.find((p) => p.id === pack.id)).toMatchObject({ status: 'inactive', credits_remaining: 9 });
    expect(await ledger()).toEqual(ledgerBefore);
    expect((await failure('admin', 'product', 'revoke', '999999'))!.stderr).toMatch(/^stockroom: Product not found: 999999/);
  });
});
