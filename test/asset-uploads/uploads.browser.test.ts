import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backOfficeFixture, PEOPLE, type BackOfficeFixture } from '../back-office/back-office-fixtures.js';
import { seriousViolations } from '../helpers/axe.js';
import { CHROMIUM, HAS_CHROMIUM, LAUNCH_ARGS, keepToLoopback } from '../helpers/chromium.js';
import { freePort } from '../helpers/network.js';
import { jpegWithMetadata } from '../media/embedded-metadata-fixtures.js';
import { makeClip, scratchDir } from '../media/video/video-fixtures.js';

/**
 * The upload page as an admin meets it, in Debian's Chromium: signed in through the server's
 * own sign-in page, a picture chosen with the file picker and a video dropped on the drop zone
 * (a real drop event carrying a File), both progress bars reaching the end (the first PATCH's
 * connection dropped on the way, and resumed by tus's client), each line ending
 * with a link to its new draft. axe finds no serious or critical violation before or after.
 * Only loopback is ever contacted; both files are made here (sharp, ffmpeg).
 */



// The in-page code of the drop: the few DOM shapes it uses (the project's lib has no DOM).
interface DropGlobals {
  DataTransfer: new () => { items: { add(file: unknown): void } };
  File: new (parts: Uint8Array[], name: string, options: { type: string }) => unknown;
  atob(text: string): string;
}

if (!HAS_CHROMIUM) console.log(`stockroom tests: skipped the upload browser suite (${CHROMIUM} does not exist; apt-get install chromium)`);

describe.skipIf(!HAS_CHROMIUM)(`the back office's upload page in a real browser (${CHROMIUM})`, () => {
  let f: BackOfficeFixture;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let scratch: string;
  const outside: string[] = [];

  beforeAll(async () => {
    scratch = scratchDir();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    f = await backOfficeFixture({ env: { STOCKROOM_PUBLIC_URL: origin, STOCKROOM_NUDITY_CLASSIFIER: 'false' } });
    await f.t.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    await keepToLoopback(context, outside);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await f?.t.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('an admin signs in, picks a picture, drops a video, sees both bars reach the end (through a dropped connection) and a link to each draft; axe finds nothing serious', async () => {
    const picturePath = path.join(scratch, 'lighthouse-dusk.jpg');
    fs.writeFileSync(picturePath, await jpegWithMetadata({ xmp: { title: 'Lighthouse at dusk', subjects: ['lighthouse', 'coast'] } }, { width: 1200, height: 800 }));
    const videoPath = await makeClip(scratch, 'test-pattern.mp4', { width: 320, height: 240, seconds: 2 });

    const page = await context.newPage();
    // The connection drops under the first PATCH: tus's client asks the server where it stopped and goes on from there.
    let dropped = 0;
    await page.route(
      (url) => url.pathname.startsWith('/admin/uploads/files/'),
      (route) => {
        if (route.request().method() === 'PATCH' && dropped === 0) {
          dropped += 1;
          return route.abort('connectionreset');
        }
        return route.continue();
      },
    );
    await page.goto(`${origin}/admin/uploads`);
    // Signed out: the server's own sign-in page, then back to the upload page.
    await page.waitForURL(/\/oauth2\/auth\?/);
    await page.getByLabel('Username').fill(PEOPLE.admin.username);
    await page.getByLabel('Password').fill(PEOPLE.admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/admin/uploads`);
    expect(await page.locator('h1').textContent()).toBe('Upload pictures and videos');
    // The back office's own header, this page's link marked as current.
    expect(await page.locator('header .sections a[aria-current="page"]').textContent()).toBe('Upload');
    expect(await seriousViolations(page)).toEqual([]);

    // The picture through the file picker (the drop zone's labelled input).
    await page.getByLabel('Choose pictures and videos, or drop them here').setInputFiles(picturePath);
    await expect.poll(() => page.locator('#sending li').count()).toBe(1);
    // The video dropped on the drop zone: a drop event carrying the file, as a person's drag would.
    const video = fs.readFileSync(videoPath).toString('base64');
    const transfer = await page.evaluateHandle((base64) => {
      const globals = globalThis as unknown as DropGlobals;
      const binary = globals.atob(base64);
      const bytes = new Uint8Array(binary.length);
      for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
      const data = new globals.DataTransfer();
      data.items.add(new globals.File([bytes], 'test-pattern.mp4', { type: 'video/mp4' }));
      return data;
    }, video);
    await page.dispatchEvent('#drop-zone', 'dragover', { dataTransfer: transfer });
    await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: transfer });

    const lines = page.locator('#sending li');
    await expect.poll(() => lines.count()).toBe(2);
    for (const [index, name] of [[0, 'lighthouse-dusk.jpg'], [1, 'test-pattern.mp4']] as const) {
      const line = lines.nth(index);
      expect(await line.locator('label').textContent()).toBe(name);
      await expect.poll(() => line.locator('progress').evaluate((bar) => (bar as unknown as { value: number }).value), { timeout: 30_000 }).toBe(100);
      // The ingest's outcome: a link to the new draft's edit page.
      await expect.poll(() => line.locator('.outcome').textContent(), { timeout: 60_000 }).toMatch(/^Done: Draft /);
      const href = await line.locator('.outcome a').getAttribute('href');
      expect(href).toMatch(/^\/admin\/catalogue\/assets\/[^/]+$/);
      const assetId = decodeURIComponent(href!.split('/').pop()!);
      const [draft] = await f.t.services.catalog.findAssetsInAnyState(name.endsWith('.mp4') ? 'video' : 'image', [assetId]);
      expect(draft?.publication).toBe('draft');
    }
    expect(dropped).toBe(1);

    // A file ingest would not take is refused before a byte is sent, in ingest's words, beside the file.
    const notesPath = path.join(scratch, 'notes.txt');
    fs.writeFileSync(notesPath, 'Captions to write.\n');
    await page.getByLabel('Choose pictures and videos, or drop them here').setInputFiles(notesPath);
    await expect.poll(() => lines.count()).toBe(3);
    await expect.poll(() => lines.nth(2).locator('.outcome').textContent()).toBe('Refused: notes.txt: not an image or video (.txt)');
    expect(await seriousViolations(page)).toEqual([]);

    // Back on the page later, both are among the latest uploads with their links.
    await page.reload();
    expect(await page.locator('.recent a').count()).toBe(2);
    expect(await seriousViolations(page)).toEqual([]);
    expect(outside).toEqual([]);
  }, 180_000);
});
