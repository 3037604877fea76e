import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { CHROMIUM, HAS_CHROMIUM, LAUNCH_ARGS, keepToLoopback } from '../helpers/chromium.js';
import { freePort } from '../helpers/network.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { addEmbedCatalog, EMBEDDABLE, EMBEDDABLE_TEXT, NOT_EMBEDDABLE } from './embed-fixtures.js';

/**
 * The embed page as another site shows it: a page of another origin (a tiny HTTP server of this
 * test, on a port of its own) puts the oEmbed answer's html in its body, as a blog engine does,
 * and Debian's Chromium renders it. Only loopback is ever contacted.
 */

if (!HAS_CHROMIUM) {
  console.log(`stockroom tests: skipped the embed browser suite (${CHROMIUM} does not exist; apt-get install chromium)`);
}

/** Where the framed page's screenshot goes; overwritten on every run, kept afterwards for a look. */
const SCREENSHOT = path.join(os.tmpdir(), 'stockroom-browser', 'embed-framed.png');

// The DOM shapes the in-page code uses; the project's lib has no DOM.
interface ImgElement {
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
  currentSrc: string;
  addEventListener(type: 'load' | 'error', listener: () => void, options: { once: boolean }): void;
}
interface PageGlobals {
  document: { querySelector(selector: string): ImgElement | null; cookie: string };
}

/**
 * The embed page's frame in the page, once loaded. The oEmbed html marks the iframe
 * loading="lazy", so the page's own load event does not wait for it.
 */
async function embedFrame(page: Page, stockroom: string): Promise<Frame> {
  const isEmbed = (candidate: Frame) => candidate.url().startsWith(`${stockroom}/embed/frame/`);
  await expect.poll(() => page.frames().some(isEmbed), { timeout: 10_000 }).toBe(true);
  const frame = page.frames().find(isEmbed)!;
  await frame.waitForLoadState('load');
  return frame;
}

/** How the frame's picture ended up: loaded (at its natural size) or failed. */
function pictureOutcome(frame: Frame) {
  return frame.evaluate(async () => {
    const img = (globalThis as unknown as PageGlobals).document.querySelector('img');
    if (img === null) return { event: 'missing', naturalWidth: 0, naturalHeight: 0, src: '' };
    const event = img.complete
      ? img.naturalWidth > 0
        ? 'load'
        : 'error'
      : await new Promise<string>((resolve) => {
          img.addEventListener('load', () => resolve('load'), { once: true });
          img.addEventListener('error', () => resolve('error'), { once: true });
        });
    return { event, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight, src: img.currentSrc };
  });
}

describe.skipIf(!HAS_CHROMIUM)(`the embed page framed by another site, in a real browser (${CHROMIUM})`, () => {
  let t: TestApp;
  let stockroom: string;
  let otherSite: http.Server;
  let otherOrigin: string;
  /** The body the other site's page shows: set by each test before it opens the page. */
  let otherSiteBody = '';
  let browser: Browser;
  let context: BrowserContext;
  const outside: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    stockroom = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: stockroom } });
    await t.app.listen({ port, host: '127.0.0.1' });
    await addEmbedCatalog(t.services);

    // Another origin: the same loopback address on another port.
    otherSite = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><html lang="en"><head><title>A blog</title></head><body><h1>A post</h1>${otherSiteBody}<p>After the picture.</p></body></html>`);
    });
    const otherPort = await freePort();
    await new Promise<void>((resolve) => otherSite.listen(otherPort, '127.0.0.1', resolve));
    otherOrigin = `http://127.0.0.1:${otherPort}`;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    await keepToLoopback(context, outside);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (otherSite ? otherSite.close(() => resolve()) : resolve()));
    await t?.close();
  });

  it('renders inside a page of another origin: the comp loads, the title and credit show, and nothing is refused', async () => {
    // The consumer asks oEmbed for the asset's short link, as uri_oembed says, and puts its html in the page.
    const detail = await fetch(`${stockroom}/v3/images/${EMBEDDABLE}?fields=uri_oembed,comp`, { headers: { 'Api-Key': t.apiKey } });
    const [{ uri_oembed: oembedUri, display_sizes: displaySizes }] = ((await detail.json()) as { images: Array<{ uri_oembed: string; display_sizes: Array<{ width: number; height: number }> }> }).images as [
      { uri_oembed: string; display_sizes: Array<{ width: number; height: number }> },
    ];
    const oembed = (await (await fetch(oembedUri)).json()) as { html: string; width: number; height: number };
    otherSiteBody = oembed.html;

    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
    try {
      const response = await page.goto(`${otherOrigin}/post`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const frame = await embedFrame(page, stockroom);
      expect(new URL(frame.url()).origin).not.toBe(new URL(page.url()).origin);

      const picture = await pictureOutcome(frame);
      expect(picture).toMatchObject({ event: 'load', naturalWidth: displaySizes[0]!.width, naturalHeight: displaySizes[0]!.height });
      expect(picture.src.startsWith(`${stockroom}/display/${EMBEDDABLE}/comp.jpg?`)).toBe(true);
      await expect(frame.getByRole('link', { name: EMBEDDABLE_TEXT.title }).getAttribute('href')).resolves.toBe(`${stockroom}/asset/${EMBEDDABLE}`);
      await expect(frame.getByText(EMBEDDABLE_TEXT.credit_line).isVisible()).resolves.toBe(true);

      // The frame is the size the oEmbed answer promised, and the picture sits within it.
      const box = await page.locator('iframe').boundingBox();
      expect([Math.round(box?.width ?? 0), Math.round(box?.height ?? 0)]).toEqual([oembed.width, oembed.height]);

      // No cookie was set by the frame; and the oEmbed html sandboxes it (an opaque origin), so
      // nothing in it could read or write one.
      expect(await context.cookies(stockroom)).toEqual([]);
      await expect(frame.evaluate(() => (globalThis as unknown as PageGlobals).document.cookie)).rejects.toThrow(/sandboxed/);

      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
    expect(outside).toEqual([]);
  });

  it('a frame of an asset no longer embeddable shows that it is not available, not a broken picture', async () => {
    // A site keeps the html it was given; the asset may later be withdrawn from embedding.
    otherSiteBody = `<iframe src="${stockroom}/embed/frame/${NOT_EMBEDDABLE}" width="400" height="300" title="A withdrawn picture"></iframe>`;
    const page = await context.newPage();
    try {
      await page.goto(`${otherOrigin}/withdrawn`, { waitUntil: 'load' });
      const frame = await embedFrame(page, stockroom);
      await expect(frame.getByRole('heading', { name: 'Not available' }).isVisible()).resolves.toBe(true);
      await expect(frame.locator('img').count()).resolves.toBe(0);
    } finally {
      await page.close();
    }
    expect(outside).toEqual([]);
  });

  it('the embed page, its unavailable page and the terms have no serious or critical accessibility violation (axe)', async () => {
    for (const address of [`/embed/frame/${EMBEDDABLE}`, `/embed/frame/${NOT_EMBEDDABLE}`, '/embed/terms']) {
      const page = await context.newPage();
      try {
        await page.goto(`${stockroom}${address}`, { waitUntil: 'load' });
        const { violations, passes } = await new AxeBuilder({ page }).analyze();
        // axe ran its rules on the page (its script is not stopped by the page's policy).
        expect(passes.length).toBeGreaterThan(0);
        const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
        expect(serious.map((violation) => `${address}: ${violation.id} (${violation.impact}) ${violation.help}`)).toEqual([]);
      } finally {
        await page.close();
      }
    }
  });
});
