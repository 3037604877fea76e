import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawDemoImage } from '../../src/media/draw-demo-image.js';
import { seriousViolations } from '../helpers/axe.js';
import { CHROMIUM, HAS_CHROMIUM, LAUNCH_ARGS, keepToLoopback } from '../helpers/chromium.js';
import { freePort } from '../helpers/network.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { tokenRequest } from '../helpers/oauth-fixtures.js';
import { makeClip, scratchDir } from '../media/video/video-fixtures.js';

/**
 * The back office as an admin meets it, in Debian's Chromium, from end to end: sign in on this
 * server's own sign-in page; upload ten pictures and a video; correct and publish them, and find
 * them in the public search; create an application and copy its secret (shown once), rotate it
 * and see the old one refused by the token endpoint; create a user and grant a product; see that
 * customer's download in the sales report and its chart; look at the jobs. axe checks every page
 * on the way (no serious or critical violation). Only loopback is ever contacted.
 *
 * With STOCKROOM_DOC_SCREENSHOTS=<folder>, each page checked is also saved there as a desktop
 * screenshot: docs/back-office.md shows them (docs/images/back-office/).
 */

const SCREENSHOTS = process.env.STOCKROOM_DOC_SCREENSHOTS;

/** The ten pictures' names: each upload's title is made from its file name. */
const PICTURES = [
  'harbour-at-dawn',
  'fishing-boats-moored',
  'lighthouse-on-the-point',
  'nets-drying-on-the-quay',
  'gulls-over-the-breakwater',
  'tide-going-out',
  'harbour-wall-at-noon',
  'boatyard-in-the-rain',
  'ferry-leaving-port',
  'evening-over-the-estuary',
];

if (!HAS_CHROMIUM) console.log(`stockroom tests: skipped the back-office browser suite (${CHROMIUM} does not exist; apt-get install chromium)`);

describe.skipIf(!HAS_CHROMIUM)(`the back office in a real browser (${CHROMIUM})`, () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  const outside: string[] = [];
  const checked = new Map<string, string[]>();
  const admin = { username: 'ada', password: 'admin password 333' };

  let scratch: string;

  async function check(page: Page, name: string): Promise<void> {
    checked.set(name, await seriousViolations(page));
    if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, `${name.replaceAll(' ', '-')}.jpg`), type: 'jpeg', quality: 85, fullPage: true });
  }

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    scratch = scratchDir();
    if (SCREENSHOTS) fs.mkdirSync(SCREENSHOTS, { recursive: true });
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: origin, STOCKROOM_NUDITY_CLASSIFIER: 'false' } });
    await t.services.users.create({ ...admin, role: 'admin' });
    await t.services.users.create({ username: 'cora', password: 'customer password 1', team: 'Picture desk' });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: origin });
    context.setDefaultTimeout(10_000);
    await keepToLoopback(context, outside);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('an admin uploads, corrects and publishes; rotates a secret; grants a product; sees the sale and the jobs', async () => {
    const page = await context.newPage();
    await page.goto('/admin');
    // Signed out: the back office sends the browser to the server's own sign-in page and back.
    expect(await page.locator('h1').textContent()).toBe('Sign in to Stockroom');
    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/admin');
    expect(await page.locator('h1').textContent()).toBe('Back office');
    await check(page, 'home');

    // Ten pictures and a video, through the upload page's file picker.
    const files = await Promise.all(
      PICTURES.map(async (name, index) => {
        const file = path.join(scratch, `${name}.jpg`);
        fs.writeFileSync(file, await drawDemoImage({ seed: 4100 + index, width: 1200, height: 800, title: name.replaceAll('-', ' ') }));
        return file;
      }),
    );
    files.push(await makeClip(scratch, 'waves-on-the-slipway.mp4', { width: 320, height: 240, seconds: 2 }));
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Upload' }).click();
    await page.getByLabel('Choose pictures and videos, or drop them here').setInputFiles(files);
    const lines = page.locator('#sending li');
    await expect.poll(() => lines.count()).toBe(11);
    for (let index = 0; index < 11; index++) await expect.poll(() => lines.nth(index).locator('.outcome').textContent(), { timeout: 90_000 }).toMatch(/^Done: Draft /);
    await check(page, 'upload');

    // The review queue: all eleven wait as drafts. Describe them all at once, then correct one.
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Catalogue' }).click();
    const selectAll = async () => {
      const boxes = page.locator('input[type="checkbox"][form="bulk"]');
      await expect.poll(() => boxes.count()).toBe(11);
      for (let index = 0; index < 11; index++) await boxes.nth(index).check();
    };
    await check(page, 'catalogue');
    for (const [field, value] of [['asset_family', 'creative'], ['license_model', 'royaltyfree'], ['product_types', 'creditpack, premiumaccess']] as const) {
      await selectAll();
      await page.getByLabel('Set the field').selectOption(field);
      await page.getByLabel('to', { exact: true }).fill(value);
      if (field === 'asset_family') await page.getByLabel('Add keywords').fill('harbour, coast');
      await page.getByRole('button', { name: 'Apply to selected' }).click();
      await expect.poll(() => page.getByRole('status').count()).toBe(1);
    }
    await page.getByRole('link', { name: 'Harbour at dawn' }).first().click();
    await page.getByLabel('Title').fill('Harbour at first light');
    await page.getByLabel('Caption').fill('Fishing boats at their moorings as the sun comes up.');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByLabel('Title').inputValue()).toBe('Harbour at first light');
    await check(page, 'catalogue asset');
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Catalogue' }).click();
    await selectAll();
    await page.getByRole('button', { name: 'Publish selected' }).click();
    await expect.poll(() => page.locator('input[type="checkbox"][form="bulk"]').count()).toBe(0);
    await page.getByRole('navigation', { name: 'Catalogue' }).getByRole('link', { name: 'Withdrawn' }).click();
    await check(page, 'catalogue withdrawn');
    await page.getByRole('navigation', { name: 'Catalogue' }).getByRole('link', { name: 'Published' }).click();
    await check(page, 'catalogue published');

    // Published: the public search finds them, as any client of the API would.
    const search = async (kind: 'images' | 'videos') => {
      const response = await t.app.inject({ method: 'GET', url: `/v3/search/${kind}?phrase=harbour&fields=id,title&page_size=20`, headers: { 'api-key': t.apiKey } });
      return (response.json() as Record<string, Array<{ id: string; title?: string }> | undefined>)[kind] ?? [];
    };
    await expect.poll(async () => (await search('images')).length, { timeout: 30_000 }).toBe(10);
    await expect.poll(async () => (await search('videos')).length, { timeout: 30_000 }).toBe(1);
    const corrected = (await search('images')).find((image) => image.title === 'Harbour at first light');
    expect(corrected).toBeDefined();

    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Applications' }).click();
    await check(page, 'applications');
    await page.getByRole('link', { name: 'New application' }).click();
    await check(page, 'new application');
    await page.getByLabel('Name').fill('Photo desk app');
    await page.getByLabel('Calls per second').fill('12');
    await page.getByLabel('May report usage of licensed assets').check();
    await page.getByRole('button', { name: 'Create' }).click();
    const apiKey = (await page.locator('#api-key').textContent())!;
    const firstSecret = (await page.locator('#api-secret').textContent())!;
    expect(apiKey).toMatch(/^[a-z0-9]{24}$/);
    await check(page, 'application created');
    // Shown once: the application's own page never shows the secret again.
    await page.getByRole('link', { name: 'All applications' }).click();
    await page.getByRole('link', { name: 'Photo desk app' }).click();
    const applicationPath = new URL(page.url()).pathname;
    expect(applicationPath).toMatch(/^\/admin\/applications\/\d+$/);
    expect(await page.locator('#api-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(firstSecret);
    await check(page, 'application');

    const token = (secret: string) => tokenRequest(t.app, '/oauth2', { grant_type: 'client_credentials' }, { basic: { clientId: apiKey, clientSecret: secret } });
    expect((await token(firstSecret)).statusCode).toBe(200);
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const secondSecret = (await page.locator('#api-secret').textContent())!;
    expect(secondSecret).not.toBe(firstSecret);
    expect((await token(firstSecret)).statusCode).toBe(401);
    expect((await token(secondSecret)).statusCode).toBe(200);
    await check(page, 'secret rotated');

    await page.goto(applicationPath);
    await page.getByLabel('Calls per day').fill('5000');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('status').textContent()).toBe('Saved.');
    expect((await t.services.clients.listing(Number(applicationPath.split('/').pop())))?.queriesPerDay).toBe(5000);

    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Customers' }).click();
    await check(page, 'users');
    await page.getByRole('link', { name: 'New user' }).click();
    await check(page, 'new user');
    await page.getByLabel('Username').fill('newsroom-nina');
    await page.getByLabel('First name').fill('Nina');
    await page.getByLabel('Team').fill('Picture desk');
    await page.getByRole('button', { name: 'Create' }).click();
    const password = (await page.locator('#new-password').textContent())!;
    expect(await t.services.users.verifyPassword('newsroom-nina', password)).toMatchObject({ username: 'newsroom-nina' });
    await check(page, 'user created');

    await page.getByLabel('Product type').selectOption('creditpack');
    await page.getByLabel('Credits', { exact: true }).fill('25');
    await page.getByRole('button', { name: 'Grant' }).click();
    expect(await page.getByRole('status').textContent()).toBe('Granted.');
    const products = await t.services.products.productsOf((await t.services.users.findByUsername('newsroom-nina'))!.id);
    expect(products.map((product) => [product.type, product.creditsRemaining])).toEqual([['creditpack', 25]]);
    expect(await page.getByRole('table', { name: 'Licences, downloads and grants, newest first' }).textContent()).toContain('+25');
    await check(page, 'user');

    await page.getByRole('link', { name: 'Picture desk' }).first().click();
    expect(await page.locator('h1').textContent()).toBe('Team Picture desk');
    await check(page, 'team');

    // The new customer licenses a picture through an application: the sale shows in the report and its chart.
    const nina = (await t.services.users.findByUsername('newsroom-nina'))!;
    await t.services.downloads.download({ grant: { clientId: t.clientId, userId: nina.id, issuedAt: new Date() }, assetType: 'image', assetId: corrected!.id, useTeamCredits: false });
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Sales' }).click();
    expect(await page.locator('dl.totals dd').first().textContent()).toBe('1');
    const today = new Date().toISOString().slice(0, 10);
    const bars = page.locator('figure.chart svg rect.downloads');
    expect(await bars.count()).toBe(30);
    expect(Number(await bars.last().getAttribute('height'))).toBeGreaterThan(0);
    expect(await page.getByRole('img', { name: /Licensed downloads and reported usages, per day/ }).count()).toBe(1);
    expect(await page.getByRole('row', { name: new RegExp(`^${today} 1 0 0$`) }).count()).toBe(1);
    await check(page, 'sales');
    await page.getByLabel('One row per').selectOption('asset');
    await page.getByRole('button', { name: 'Show' }).click();
    expect(await page.getByRole('table').textContent()).toContain(corrected!.id);
    await check(page, 'sales by asset');

    // The jobs at work. A transcode of the video failed (as one does when ffmpeg cannot read a
    // file): it shows with its error, and runs again from the page.
    const video = await t.services.database.db.selectFrom('assets').select('original_key').where('asset_type', '=', 'video').executeTakeFirstOrThrow();
    const failedAt = new Date().toISOString();
    await t.services.database.db
      .insertInto('video_transcodes')
      .values({ original_key: video.original_key!, kind: 'SD', status: 'failed', failure: 'ffmpeg exited with code 1: Invalid data found when processing input', output_key: null, claimed_by: null, lease_until: null, created_at: failedAt, finished_at: failedAt })
      .execute();
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Jobs' }).click();
    expect(await page.locator('h2').textContent()).toBe('Video transcodes: failed');
    expect(await page.getByRole('cell', { name: /Invalid data found when processing input/ }).count()).toBe(1);
    await check(page, 'jobs');
    await page.getByRole('button', { name: /^Run again/ }).click();
    expect(await page.getByRole('status').textContent()).toBe('Queued again: a node will take it up shortly.');

    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Audit' }).click();
    const audit = await page.getByRole('table', { name: 'Actions, newest first' }).textContent();
    for (const action of ['application.create', 'application.rotate-secret', 'application.update', 'user.create', 'product.grant']) expect(audit).toContain(action);
    expect(audit).not.toContain(firstSecret);
    await check(page, 'audit');

    // A refusal is a page of the back office too.
    await page.goto('/admin/applications/999999');
    expect(await page.locator('h1').textContent()).toBe('Not found');
    await check(page, 'not found');

    expect(Object.fromEntries(checked)).toEqual(Object.fromEntries([...checked.keys()].map((name) => [name, []])));
    expect(outside).toEqual([]);
  }, 600_000);
});
