import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, HAS_CHROMIUM, LAUNCH_ARGS, keepToLoopback } from '../helpers/chromium.js';
import { freePort } from '../helpers/network.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { addImage } from '../helpers/catalog-fixtures.js';

/**
 * Stockroom as a browser meets it: display URIs in plain <img> tags, which send no headers,
 * and the interactive docs. Driven in Debian's Chromium (`apt-get install chromium`) through
 * playwright-core, which never downloads a browser of its own. Only loopback is ever contacted.
 */

if (!HAS_CHROMIUM) {
  console.log(`stockroom tests: skipped the browser suite (${CHROMIUM} does not exist; apt-get install chromium)`);
}


/** Where the docs screenshot goes; overwritten on every run, kept afterwards for a look. */
const SCREENSHOT = path.join(os.tmpdir(), 'stockroom-browser', 'docs.png');



interface DisplaySize {
  name: string;
  uri: string;
  width: number;
  height: number;
}

/** How one <img> of the page ended up. */
interface ImgOutcome {
  id: string;
  event: 'load' | 'error';
  naturalWidth: number;
  naturalHeight: number;
}

// The few DOM shapes the in-page code uses; the project's lib has no DOM, and these
// functions run in the browser, so they only need types, not imports.
interface ImgElement {
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
  addEventListener(type: 'load' | 'error', listener: () => void, options: { once: boolean }): void;
}
interface PageGlobals {
  document: { getElementById(id: string): ImgElement | null };
}

function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

/** Shows a page of nothing but <img src> tags and reports, per image, whether it loaded and at what size. */
async function showImages(page: Page, images: Array<{ id: string; src: string }>): Promise<ImgOutcome[]> {
  const tags = images.map(({ id, src }) => `<img id="${escapeAttribute(id)}" src="${escapeAttribute(src)}" alt="">`);
  // 'load' waits for every image to have loaded or failed.
  await page.setContent(`<!doctype html><html><body>${tags.join('\n')}</body></html>`, { waitUntil: 'load' });
  return page.evaluate(
    (ids) =>
      Promise.all(
        ids.map(async (id): Promise<ImgOutcome> => {
          const img = (globalThis as unknown as PageGlobals).document.getElementById(id);
          if (img === null) throw new Error(`no <img id="${id}">`);
          const event = img.complete
            ? img.naturalWidth > 0
              ? 'load'
              : 'error'
            : await new Promise<'load' | 'error'>((resolve) => {
                img.addEventListener('load', () => resolve('load'), { once: true });
                img.addEventListener('error', () => resolve('error'), { once: true });
              });
          return { id, event, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight };
        }),
      ),
    images.map((image) => image.id),
  );
}

describe.skipIf(!HAS_CHROMIUM)(`Stockroom in a real browser (${CHROMIUM})`, () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  /** The display sizes GET /v3/images/1001?fields=thumb,comp,comp_webp announced. */
  let sizes: DisplaySize[];
  /** Requests the browser tried to make beyond loopback; each is refused before it leaves. */
  const outside: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: origin } });
    await t.app.listen({ port, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string' || address.port !== port) {
      throw new Error(`the app listens on ${JSON.stringify(address)}, not on port ${port}`);
    }
    await addImage(t.services, '1001', { width: 1500, height: 1000 });

    const response = await fetch(`${origin}/v3/images/1001?fields=thumb,comp,comp_webp`, { headers: { 'Api-Key': t.apiKey } });
    expect(response.status).toBe(200);
    sizes = ((await response.json()) as { images: Array<{ display_sizes?: DisplaySize[] }> }).images[0]?.display_sizes ?? [];

    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    context = await browser.newContext();
    // A missing element fails its test quickly instead of using up the test's whole time.
    context.setDefaultTimeout(5_000);
    await keepToLoopback(context, outside);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a display URI works as a plain <img src>', async () => {
    expect(sizes.map((size) => size.name).sort()).toEqual(['comp', 'comp_webp', 'thumb']);
    for (const size of sizes) expect(size.uri.startsWith(`${origin}/display/1001/`), size.uri).toBe(true);

    const page = await context.newPage();
    try {
      const outcomes = await showImages(page, sizes.map((size) => ({ id: size.name, src: size.uri })));
      expect(outcomes).toEqual(
        sizes.map((size) => ({ id: size.name, event: 'load', naturalWidth: size.width, naturalHeight: size.height })),
      );
    } finally {
      await page.close();
    }
    expect(outside).toEqual([]);
  });

  it('a tampered display URI does not load in the browser', async () => {
    const thumb = sizes.find((size) => size.name === 'thumb');
    if (thumb === undefined) throw new Error('no thumb among the display sizes');
    const tampered = new URL(thumb.uri);
    const signature = tampered.searchParams.get('signature') ?? '';
    // One character changed: same length and alphabet, so only the HMAC check can refuse it.
    tampered.searchParams.set('signature', (signature.startsWith('A') ? 'B' : 'A') + signature.slice(1));

    // Stockroom refuses it with 403 and a JSON body…
    expect((await fetch(tampered)).status).toBe(403);

    const page = await context.newPage();
    /** What the browser made of each request: the status it got, or why it failed. */
    const seen = new Map<string, number | string>();
    page.on('response', (response) => seen.set(response.url(), response.status()));
    page.on('requestfailed', (request) => seen.set(request.url(), request.failure()?.errorText ?? 'failed'));
    try {
      const [genuine, refused] = await showImages(page, [
        { id: 'genuine', src: thumb.uri },
        { id: 'tampered', src: tampered.href },
      ]);
      // The genuine URI beside it loads, so the error is the signature's doing.
      expect(genuine).toEqual({ id: 'genuine', event: 'load', naturalWidth: thumb.width, naturalHeight: thumb.height });
      expect(refused).toEqual({ id: 'tampered', event: 'error', naturalWidth: 0, naturalHeight: 0 });
      // …which Chromium does not even hand to the <img>: a JSON answer to an image request is
      // dropped by Opaque Response Blocking. Either way the image fails, as it should.
      expect([403, 'net::ERR_BLOCKED_BY_ORB']).toContain(seen.get(tampered.href));
      expect(seen.get(thumb.uri)).toBe(200);
    } finally {
      await page.close();
    }
  });

  it("the interactive docs render the API's operations", async () => {
    const page = await context.newPage();
    const failed: string[] = [];
    const pageErrors: string[] = [];
    page.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText ?? '?'}`));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      const response = await page.goto(`${origin}/docs`, { waitUntil: 'domcontentloaded' });
      expect(response?.status()).toBe(200);
      // Swagger UI renders after it has parsed its 1.5 MB bundle and fetched the OpenAPI
      // document: about 2 s here, more on a loaded machine.
      const imageById = page.locator('#operations-images-get_v3_images__id_');
      const countries = page.locator('#operations-countries-get_v3_countries');
      await imageById.waitFor({ state: 'visible', timeout: 15_000 });
      await countries.waitFor({ state: 'visible' });
      await expect(imageById.getByText('/v3/images/{id}', { exact: true }).isVisible()).resolves.toBe(true);
      await expect(countries.getByText('/v3/countries', { exact: true }).isVisible()).resolves.toBe(true);
      await expect(page.getByText('GET', { exact: true }).count()).resolves.toBeGreaterThanOrEqual(2);
      await expect(page.locator('.swagger-ui .info .title').innerText()).resolves.toContain('Stock Media Licensing API v3');
      // Not Swagger UI's own error box ("Failed to load API definition").
      await expect(page.locator('.swagger-ui .errors-wrapper').count()).resolves.toBe(0);

      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      console.log(`stockroom tests: docs screenshot at ${SCREENSHOT}`);
      expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(10_000);

      expect(pageErrors).toEqual([]);
      expect(failed).toEqual([]);
    } finally {
      await page.close();
    }
    // Swagger UI's assets, the OpenAPI document and the favicon all come from Stockroom itself.
    expect(outside).toEqual([]);
  });
});
