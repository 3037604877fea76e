import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.js';
import { CHROMIUM, HAS_CHROMIUM, LAUNCH_ARGS, keepToLoopback } from '../helpers/chromium.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { freePort } from '../helpers/network.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The catalogue's back-office pages in Debian's Chromium: an editor signs in, opens the review
 * queue (its staff-only thumbnails load), ticks a draft and publishes it, opens a draft's edit
 * page, sends a bad date and sees the problem beside the field, corrects it, replaces the file
 * through the page's plain file form. axe finds no serious
 * or critical violation on the queue, the edit page (with and without a problem) or the lists.
 * Only loopback is ever contacted.
 */



if (!HAS_CHROMIUM) console.log(`stockroom tests: skipped the back-office catalogue browser suite (${CHROMIUM} does not exist; apt-get install chromium)`);

describe.skipIf(!HAS_CHROMIUM)(`the back office's catalogue pages in a real browser (${CHROMIUM})`, () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  const outside: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: origin, STOCKROOM_SEARCH_SNAPSHOT: 'false' } });
    await t.services.users.create({ username: 'eddie', password: 'editor password 22', role: 'editor' });
    const creative = { asset_family: 'creative', license_model: 'royaltyfree', product_types: ['creditpack'] };
    const add = async (id: string, fields: Record<string, unknown>, color: string) =>
      t.services.ingest.applyRecord({ asset_type: 'image', id, file: `${id}.jpg`, ...fields }, await makeJpeg(480, 320, color), { publication: 'draft' });
    await add('harbour', { title: 'Harbour at dawn', ...creative }, '#3a6ea5');
    await add('untitled', {}, '#a53a6e');
    await add('court', { title: 'Court', asset_family: 'editorial', product_types: ['royaltyfreesubscription'] }, '#6ea53a');
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('queue → publish a selection → edit page → a problem beside its field → saved; axe on each', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    await keepToLoopback(context, outside);
    const page = await context.newPage();
    const violations = new Map<string, string[]>();

    await page.goto(`${origin}/admin/catalogue`);
    await page.waitForURL(/\/oauth2\/auth\?/);
    await page.getByLabel('Username').fill('eddie');
    await page.getByLabel('Password').fill('editor password 22');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/admin/catalogue`);
    expect(await page.locator('h1').textContent()).toBe('Review queue');
    // Every thumbnail loads (the staff-only picture route), none from a public display URL.
    // (each picture is made from its original on its first request: on a busy machine that can
    // outlast the page's load event, so the test waits for the pictures themselves)
    await page.waitForFunction(
      () => {
        const pictures = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<{ complete: boolean }> } }).document.querySelectorAll('img.thumb');
        return Array.from(pictures).every((picture) => picture.complete);
      },
      undefined,
      { timeout: 30_000 },
    );
    const thumbs = await page.locator('img.thumb').evaluateAll((images) => images.map((image) => [(image as unknown as { src: string }).src, (image as unknown as { naturalWidth: number }).naturalWidth]));
    expect(thumbs).toHaveLength(3);
    for (const [src, width] of thumbs) {
      expect(src).toMatch(/\/admin\/catalogue\/assets\/[a-z]+\/picture\/thumb\.jpg$/);
      expect(width).toBeGreaterThan(0);
    }
    violations.set('queue', await seriousViolations(page));

    await page.getByLabel('Select Harbour at dawn').check();
    await page.getByRole('button', { name: 'Publish selected' }).click();
    await page.waitForURL(/done=bulk_published/);
    expect(await page.locator('.notice').textContent()).toContain('published');
    expect(await page.locator('table.assets').textContent()).not.toContain('Harbour at dawn');

    await page.getByRole('link', { name: 'Court' }).click();
    await page.waitForURL(/\/admin\/catalogue\/assets\/court$/);
    violations.set('edit', await seriousViolations(page));
    await page.getByLabel('Date created').fill('the day after tomorrow');
    await page.getByLabel('Caption').fill('Centre court, empty');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState('load');
    const dateField = page.getByLabel('Date created');
    expect(await dateField.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await dateField.getAttribute('aria-describedby'))!.split(' ');
    const problem = describedBy.find((id) => id.endsWith('-problem'))!;
    expect(await page.locator(`#${problem}`).textContent()).toMatch(/date_created must be an ISO 8601 date/);
    expect(await page.getByLabel('Caption').inputValue()).toBe('Centre court, empty');
    violations.set('edit with a problem', await seriousViolations(page));

    await dateField.fill('2024-06-01');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/done=saved/);
    expect(await page.getByLabel('Caption').inputValue()).toBe('Centre court, empty');

    // The plain file form replaces the original: the page shows the new size.
    await page.getByLabel('A new original').setInputFiles({ name: 'court-wide.jpg', mimeType: 'image/jpeg', buffer: await makeJpeg(800, 400, '#336699') });
    await page.getByRole('button', { name: 'Replace the file' }).click();
    await page.waitForURL(/done=replaced/);
    expect(await page.locator('dl.facts').textContent()).toContain('800 × 400');

    await page.goto(`${origin}/admin/catalogue/published?q=harbour`);
    expect(await page.locator('table.assets').textContent()).toContain('Harbour at dawn');
    violations.set('published list', await seriousViolations(page));

    expect(Object.fromEntries(violations)).toEqual({ queue: [], edit: [], 'edit with a problem': [], 'published list': [] });
    expect(outside).toEqual([]);
    await context.close();
  }, 120_000);
});
