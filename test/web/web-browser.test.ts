import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/axe.js';
import { CHROMIUM, HAS_CHROMIUM, LAUNCH_ARGS, keepToLoopback } from '../helpers/chromium.js';
import { freePort } from '../helpers/network.js';
import { webFixture, type WebFixture } from './web-fixtures.js';

/**
 * The catalogue browser as a person meets it, in Debian's Chromium: search, a facet, an asset,
 * signing in on this server's own sign-in page, a download, a board with a comment, and the
 * board's share link opened by somebody who is not signed in. Every page is checked with axe
 * (no serious or critical violation). Only loopback is ever contacted.
 *
 * With STOCKROOM_WEB_SCREENSHOTS=1 the pages are also photographed, desktop (1280×800) and phone
 * (390×844), into docs/pictures/web-*.png; otherwise into a temporary folder.
 */

const SCREENSHOTS = process.env.STOCKROOM_WEB_SCREENSHOTS === '1'
  ? path.resolve(import.meta.dirname, '../../docs/pictures')
  : path.join(os.tmpdir(), 'stockroom-web-screens');



if (!HAS_CHROMIUM) console.log(`stockroom tests: skipped the web browser suite (${CHROMIUM} does not exist; apt-get install chromium)`);

describe.skipIf(!HAS_CHROMIUM)(`the catalogue browser in a real browser (${CHROMIUM})`, () => {
  let f: WebFixture;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  const outside: string[] = [];
  /** Pages checked by axe, by name, with what it found. */
  const checked = new Map<string, string[]>();
  /** Pages to photograph afterwards: name → path. */
  const pages = new Map<string, string>();
  let shareUrl = '';

  async function newContext(viewport = { width: 1280, height: 800 }): Promise<BrowserContext> {
    const created = await browser.newContext({ viewport, acceptDownloads: true });
    created.setDefaultTimeout(10_000);
    await keepToLoopback(created, outside);
    return created;
  }

  async function check(page: Page, name: string): Promise<void> {
    checked.set(name, await seriousViolations(page));
    pages.set(name, new URL(page.url()).pathname + new URL(page.url()).search);
  }

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    f = await webFixture({ publicUrl: origin });
    await f.t.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    context = await newContext();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await f?.t.close();
  });

  it('search → a facet → an asset → sign in → download → a board → a comment → the share link, signed out', async () => {
    const page = await context.newPage();
    await page.goto(`${origin}/?kind=editorial`);
    await page.getByLabel('Search for').fill('marathon');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/phrase=marathon/);
    expect(await page.locator('#results-heading').textContent()).toMatch(/[1-9][0-9]* results? · “marathon”/);
    await check(page, 'search');

    // A facet is a refinement: its link adds the event to the URL, and a chip shows it.
    const event = page.locator('#facet-event_ids + ul a').first();
    const eventName = (await event.locator('span').first().textContent())!;
    await event.click();
    await page.waitForURL(/event_ids=/);
    await expect.poll(() => page.locator('.chips').textContent()).toContain(`Event: ${eventName}`);
    const refinedUrl = page.url();
    pages.set('search', new URL(refinedUrl).pathname + new URL(refinedUrl).search);

    await page.locator('.card .title').first().click();
    await page.waitForURL(/\/asset\//);
    const assetPath = new URL(page.url()).pathname;
    const assetId = decodeURIComponent(assetPath.split('/').pop()!);
    expect(await page.locator('h1').textContent()).toBeTruthy();
    await check(page, 'asset');

    // Sign-in goes through the server's own sign-in page and comes back to the asset.
    await page.getByRole('link', { name: 'Sign in to license and download' }).click();
    await page.waitForURL(/\/oauth2\/auth\?/);
    expect(page.url()).not.toMatch(/access_token|refresh_token/);
    await check(page, 'sign-in');
    // The site's own sign-in page: its header, no third-party consent wording for its own client.
    expect(await page.locator('h1').textContent()).toBe('Sign in to Stockroom');
    expect(await page.locator('header .brand').textContent()).toBe('Stockroom');
    expect(await page.locator('main').textContent()).not.toMatch(/allow|Stockroom web/);
    await page.getByLabel('Username').fill(f.username);
    await page.getByLabel('Password').fill(f.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}${assetPath}`);
    await expect.poll(() => page.locator('.who').textContent()).toContain('Ana Lima');
    // The session is a cookie the page's script cannot read; no token is in the page.
    const cookies = await context.cookies();
    expect(cookies.map((cookie) => [cookie.name, cookie.httpOnly, cookie.sameSite])).toContainEqual(['stockroom-session', true, 'Lax']);
    expect(await page.content()).not.toMatch(/access_token|refresh_token|Bearer/);

    // The license options show what each costs; Download delivers the file.
    expect(await page.locator('.license .cost').first().textContent()).toMatch(/download|credit|Included/);
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toContain(assetId);
    expect(fs.statSync((await download.path())!).size).toBeGreaterThan(1000);

    await page.goto(`${origin}/downloads`);
    await expect.poll(() => page.locator(`a[href="/asset/${assetId}"]`).count()).toBeGreaterThan(0);
    await check(page, 'downloads');

    // A board, then the asset added from its page.
    await page.goto(`${origin}/boards`);
    await page.getByLabel('Name').fill('Marathon shortlist');
    await page.getByRole('button', { name: 'Create board' }).click();
    await page.waitForURL(/\/boards\/[A-Za-z0-9_-]+$/);
    await page.goto(`${origin}${assetPath}`);
    await page.locator('#asset-board-' + assetId).selectOption({ label: 'Marathon shortlist' });
    await page.locator('.panel').filter({ hasText: 'Add to a board' }).getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain('Marathon shortlist');

    // And one from the search results.
    await page.goto(refinedUrl);
    const secondCard = page.locator('.card').nth(1);
    if ((await secondCard.count()) > 0) {
      await secondCard.locator('summary').click();
      await secondCard.getByRole('button', { name: 'Add' }).click();
      await page.waitForURL(refinedUrl);
    }

    // And a creative picture from its page, so the board has an order to change.
    await page.goto(`${origin}/asset/${f.creativeImage}`);
    await page.locator('#asset-board-' + f.creativeImage).selectOption({ label: 'Marathon shortlist' });
    await page.locator('.panel').filter({ hasText: 'Add to a board' }).getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain('Marathon shortlist');

    await page.goto(`${origin}/boards`);
    await check(page, 'boards');
    await page.getByRole('link', { name: 'Marathon shortlist' }).first().click();
    await page.waitForURL(/\/boards\/[A-Za-z0-9_-]+$/);
    const boardUrl = page.url();
    expect(await page.locator(`.card .title[href="/asset/${assetId}"]`).count()).toBe(1);

    // The owner's order by keyboard: the first card's "Move down", pressed with Enter, takes it a
    // place down, and the focus stays on that card's buttons on the page that follows.
    const order = () => page.locator('[data-board-order] > li').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-asset-id')));
    const before = await order();
    expect(before.length).toBeGreaterThanOrEqual(2);
    await page.locator('[data-board-order] > li').first().getByRole('button', { name: /^Move down/ }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\?moved=/);
    const after = await order();
    expect(after.slice(0, 2)).toEqual([before[1], before[0]]);
    const focused = () =>
      page.evaluate(() => {
        const active = (globalThis as unknown as { document: { activeElement: { textContent: string | null; closest(selector: string): { getAttribute(name: string): string | null } | null } | null } }).document.activeElement;
        return [active?.closest('li')?.getAttribute('data-asset-id') ?? null, active?.textContent ?? null];
      });
    await expect.poll(async () => (await focused())[0]).toBe(before[0]);
    // The focus is on its buttons: Shift+Tab and Tab move between them, and Enter on "Move up" takes it back.
    const [, label] = await focused();
    if (label?.includes('Move down')) await page.keyboard.press('Shift+Tab');
    expect((await focused())[1]).toContain('Move up');
    await page.keyboard.press('Enter');
    await page.waitForURL(/dir=up/);
    expect(await order()).toEqual(before);
    await expect.poll(async () => (await focused())[1]).toContain('Move down');

    // A note on the first asset, written from its card.
    const firstCard = page.locator('[data-board-order] > li').first();
    await firstCard.locator('summary', { hasText: 'Add a note' }).click();
    await firstCard.getByLabel(/^Note on/).fill('Lead picture for page one.');
    await firstCard.getByRole('button', { name: 'Save the note' }).click();
    await expect.poll(() => page.locator('.asset-note').first().textContent()).toContain('Lead picture for page one.');

    // The owner lets the share link show the comments.
    await page.getByRole('button', { name: 'Show the comments with the share link' }).click();
    await expect.poll(() => page.locator('.share-comments-state').textContent()).toContain('shows the comments');
    await page.getByLabel('Add a comment').fill('The finish line one, please.');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => page.locator('.comments').textContent()).toContain('The finish line one, please.');

    // The licensed assets as one zip (the asset downloaded above is in it; the creative one is not licensed).
    const [zip] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download my licensed assets (zip)' }).click()]);
    expect(zip.suggestedFilename()).toBe('Marathon-shortlist.zip');
    const listing = execFileSync('python3', ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print("\\n".join(z.namelist()))', (await zip.path())!], { encoding: 'utf8' });
    expect(listing.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^stockroom-${assetId}-\\d+x\\d+\\.jpg$`)), 'manifest.csv']);

    await page.goto(boardUrl);
    await check(page, 'board');
    shareUrl = await page.locator('#share-link').inputValue();
    expect(shareUrl).toMatch(new RegExp(`^${origin}/boards/shared/[A-Za-z0-9_-]{43}$`));

    // Somebody else, signed out, opens the share link: the board, read-only.
    const stranger = await newContext();
    try {
      const shared = await stranger.newPage();
      await shared.goto(shareUrl);
      expect(await shared.locator('h1').textContent()).toBe('Marathon shortlist');
      expect(await shared.locator(`a[href="/asset/${assetId}"] img`).count()).toBe(1);
      expect(await shared.locator('.who').count()).toBe(0);
      expect(await shared.locator('form[method=post]').count()).toBe(0);
      // The comments, as the owner chose, each by its author's first name.
      expect(await shared.locator('.comments').textContent()).toContain('The finish line one, please.');
      await check(shared, 'shared board');
    } finally {
      await stranger.close();
    }

    // Signing out ends the session: the boards page asks to sign in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/`);
    await page.goto(`${origin}/boards`);
    await page.waitForURL(/\/oauth2\/auth\?/);

    for (const [name, violations] of checked) expect(violations, name).toEqual([]);
    expect([...checked.keys()].sort()).toEqual(['asset', 'board', 'boards', 'downloads', 'search', 'shared board', 'sign-in']);
    expect(outside).toEqual([]);
  }, 120_000);

  it('a video plays in <video> on its page', async () => {
    const page = await context.newPage();
    await page.goto(`${origin}/asset/${f.video}`);
    expect(await page.locator('.stage video').count()).toBe(1);
    expect(await page.locator('.stage video').getAttribute('poster')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/display\//);
    // The preview clip (media's watermarked H.264 MP4) is the video's source, and the browser reads it.
    const source = page.locator('.stage video source');
    expect(await source.getAttribute('src')).toMatch(/\/display\/[^/]+\/preview\.mp4\?/);
    await expect
      .poll(() => page.locator('.stage video').evaluate((video) => (video as unknown as { readyState: number }).readyState), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(1);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('search results: justified rows show every picture whole, desktop and phone; card facts; quick look by keyboard; a video card plays on hover', async () => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const shot = await newContext(viewport);
      try {
        const page = await shot.newPage();
        await page.goto(`${origin}/?kind=editorial&phrase=marathon`);
        await page.waitForLoadState('networkidle');
        const boxes = await page.locator('.justified .card .frame img').evaluateAll((images) =>
          images.map((element) => {
            const image = element as unknown as { naturalWidth: number; naturalHeight: number; getBoundingClientRect(): { top: number; width: number; height: number }; parentElement: { getBoundingClientRect(): { width: number; height: number } } };
            const box = image.getBoundingClientRect();
            const frame = image.parentElement.getBoundingClientRect();
            return { natural: image.naturalWidth / image.naturalHeight, shown: box.width / box.height, frame: frame.width / frame.height, top: Math.round(box.top), height: box.height };
          }),
        );
        expect(boxes.length).toBeGreaterThan(1);
        for (const box of boxes) {
          // Whole: the frame has the picture's own proportions (to the rounding of its class), so nothing is cut off.
          expect(Math.abs(box.frame - box.natural) / box.natural, JSON.stringify(box)).toBeLessThan(0.05);
        }
        // Justified: the pictures of one row are all of one height.
        const rows = new Map<number, number[]>();
        for (const box of boxes) rows.set(box.top, [...(rows.get(box.top) ?? []), box.height]);
        for (const heights of rows.values()) expect(Math.max(...heights) - Math.min(...heights)).toBeLessThan(2);
        expect(await page.locator('.card .facts').first().textContent()).toMatch(/\d{4}/);
        // Nothing runs off the side of the screen.
        expect(await page.evaluate(() => { const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement; return root.scrollWidth - root.clientWidth; })).toBe(0);
        expect(await seriousViolations(page)).toEqual([]);
      } finally {
        await shot.close();
      }
    }

    const page = await context.newPage();
    await page.goto(`${origin}/?kind=editorial&phrase=marathon`);
    const titles = await page.locator('.card .title').allTextContents();
    await page.locator('[data-quick-look]').first().click();
    const dialog = page.locator('dialog.lightbox');
    await expect.poll(() => dialog.evaluate((element) => (element as unknown as { open: boolean }).open)).toBe(true);
    expect(await dialog.locator('.about a').textContent()).toBe(titles[0]);
    await page.keyboard.press('ArrowRight');
    expect(await dialog.locator('.about a').textContent()).toBe(titles[1]);
    await page.keyboard.press('ArrowLeft');
    expect(await dialog.locator('.about a').textContent()).toBe(titles[0]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.evaluate((element) => (element as unknown as { open: boolean }).open)).toBe(false);
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { hasAttribute(name: string): boolean } } }).document.activeElement.hasAttribute('data-quick-look'))).toBe(true);

    // Suggestions as the field is typed in, from the catalogue's words.
    await page.getByLabel('Search for').fill('marat');
    await expect.poll(() => page.locator('#phrase-suggestions option').evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value))).toContain('marathon');

    await page.goto(`${origin}/?kind=video`);
    const videoCard = page.locator('.card[data-clip]').first();
    await videoCard.hover();
    await expect.poll(() => videoCard.locator('.frame video').count()).toBe(1);
    expect(await videoCard.locator('.card .facts, .facts').first().textContent()).toMatch(/\d+:\d\d/);
    await page.mouse.move(0, 0);
    await expect.poll(() => videoCard.locator('.frame video').count()).toBe(0);
  }, 120_000);

  it('an asset page states its licence terms signed out, and passes axe with and without a picture file, signed out and in', async () => {
    const stranger = await newContext();
    try {
      const page = await stranger.newPage();
      for (const id of [f.editorialImage, f.video, f.withoutFile.captioned, f.withoutFile.bare]) {
        await page.goto(`${origin}/asset/${encodeURIComponent(id)}`);
        await expect.poll(() => page.locator('#terms-heading').count()).toBe(1);
        expect(await seriousViolations(page), id).toEqual([]);
      }
      await page.goto(`${origin}/asset/${f.editorialImage}`);
      expect(await page.locator('.restrictions').textContent()).toContain('Editorial use only');
      expect(await page.locator('.prices li').count()).toBeGreaterThan(0);
      // Signed in: the largest size is the one chosen.
      await page.goto(`${origin}/signin?return=${encodeURIComponent(`/asset/${f.withoutFile.captioned}`)}`);
      await page.getByLabel('Username').fill(f.username);
      await page.getByLabel('Password').fill(f.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(`${origin}/asset/${f.withoutFile.captioned}`);
      expect(await seriousViolations(page)).toEqual([]);
      await page.goto(`${origin}/asset/${f.creativeImage}`);
      const radios = page.locator('.license input[type=radio]');
      expect(await radios.first().isChecked()).toBe(true);
      expect(await page.locator('.license legend').first().textContent()).toContain('Extra large');
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await stranger.close();
    }
  }, 120_000);

  it('the docs page’s Authorize dialog signs in with the page’s own client (authorization code with PKCE), and names the document’s own address', async () => {
    const context = await newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/docs`);
      const information = page.locator('.information-container');
      await expect.poll(() => information.textContent(), { timeout: 20_000 }).toContain(`${origin}/v3/openapi.json`);
      expect(await information.textContent()).not.toContain('/docs/json');
      await page.locator('.auth-wrapper .authorize').click();
      const clientId = page.locator('#client_id_authorizationCode');
      expect(await clientId.inputValue()).not.toBe('');
      // The OAuth2 scheme is the dialog's last: its Authorize opens the server's sign-in page.
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('.auth-container').last().locator('button.authorize').click()]);
      await popup.waitForURL(/\/oauth2\/auth\?/);
      expect(await popup.locator('h1').textContent()).toBe('Sign in to Stockroom');
      expect(popup.url()).toContain('code_challenge_method=S256');
      await popup.getByLabel('Username').fill(f.username);
      await popup.getByLabel('Password').fill(f.password);
      const token = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/oauth2/token'));
      await popup.getByRole('button', { name: 'Sign in', exact: true }).click();
      expect((await token).status()).toBe(200);
      // Back on the docs page, the code is exchanged for a token: the OAuth2 scheme is authorized.
      const oauth2 = page.locator('.auth-container').last();
      await expect.poll(() => oauth2.textContent(), { timeout: 20_000 }).toContain('Authorized');
      expect(await oauth2.textContent()).toContain('Logout');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('pages are photographed on a desktop and a phone', async () => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    // A signed-in desktop and phone: the pages as the walk above left them, with a fresh sign-in.
    for (const [device, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const shot = await newContext(viewport);
      try {
        const page = await shot.newPage();
        await page.goto(`${origin}/signin?return=/`);
        await page.waitForURL(/\/oauth2\/auth\?/);
        // The site's icon in its header is loaded (from this server, as the page's policy allows).
        await page.locator('header .brand img').evaluate((image) => (image as unknown as { decode(): Promise<void> }).decode());
        await page.screenshot({ path: path.join(SCREENSHOTS, `web-signin-${device}.png`) });
        await page.getByLabel('Username').fill(f.username);
        await page.getByLabel('Password').fill(f.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.waitForURL(`${origin}/`);
        for (const [name, where] of [
          ['search', pages.get('search') ?? '/?phrase=marathon&kind=editorial'],
          ['asset', pages.get('asset') ?? `/asset/${f.editorialImage}`],
          ['board', pages.get('board') ?? '/boards'],
          ['downloads', '/downloads'],
          ['video', `/asset/${f.video}`],
        ] as const) {
          await page.goto(`${origin}${where}`);
          await page.waitForLoadState('networkidle');
          // The player is photographed once it has a frame to show, not its loading spinner.
          if (name === 'video') {
            await expect
              .poll(() => page.locator('.stage video').evaluate((video) => (video as unknown as { readyState: number }).readyState), { timeout: 30_000 })
              .toBeGreaterThanOrEqual(2);
            await page.locator('.stage video').evaluate(
              (video) =>
                new Promise<void>((resolve) => {
                  const element = video as unknown as { currentTime: number; addEventListener(type: string, listener: () => void, options: { once: boolean }): void };
                  element.addEventListener('seeked', () => resolve(), { once: true });
                  element.currentTime = 1;
                }),
            );
          }
          await page.screenshot({ path: path.join(SCREENSHOTS, `web-${name}-${device}.png`), fullPage: false });
        }
        // The quick look over the results.
        await page.goto(`${origin}${pages.get('search') ?? '/?phrase=marathon&kind=editorial'}`);
        await page.locator('[data-quick-look]').first().click();
        await page.locator('dialog.lightbox img').evaluate((image) => (image as unknown as { decode(): Promise<void> }).decode());
        await page.screenshot({ path: path.join(SCREENSHOTS, `web-quick-look-${device}.png`) });
        const stranger = await newContext(viewport);
        const shared = await stranger.newPage();
        await shared.goto(shareUrl || `${origin}/`);
        await shared.waitForLoadState('networkidle');
        // The whole page: the captions and, below them, the comments the owner chose to show.
        await shared.screenshot({ path: path.join(SCREENSHOTS, `web-shared-board-${device}.png`), fullPage: true });
        // The API's docs page: its name and getting-started guide.
        await shared.goto(`${origin}/docs`);
        await expect.poll(() => shared.locator('.information-container h2').count(), { timeout: 20_000 }).toBeGreaterThan(0);
        expect(await shared.title()).toBe('Stockroom API — docs');
        await shared.screenshot({ path: path.join(SCREENSHOTS, `web-docs-${device}.png`) });
        // Signed out, an asset page states its licence terms and prices.
        await shared.goto(`${origin}/asset/${f.editorialImage}`);
        await shared.waitForLoadState('networkidle');
        await shared.screenshot({ path: path.join(SCREENSHOTS, `web-asset-signed-out-${device}.png`) });
        await stranger.close();
      } finally {
        await shot.close();
      }
    }
    expect(fs.existsSync(path.join(SCREENSHOTS, 'web-search-phone.png'))).toBe(true);
  }, 120_000);
});
