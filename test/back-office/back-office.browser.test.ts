import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, HAS_CHROMIUM, LAUNCH_ARGS } from '../helpers/chromium.js';
import { freePort } from '../helpers/network.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { tokenRequest } from '../helpers/oauth-fixtures.js';

/**
 * The back office as an admin meets it, in Debian's Chromium: sign in on this server's own
 * sign-in page, create an application and copy its secret (shown once), rotate it and see the
 * old one refused by the token endpoint, create a user and grant a product. axe checks every
 * page on the way (no serious or critical violation). Only loopback is ever contacted.
 */

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} — ${node.failureSummary ?? ''}`));
}

if (!HAS_CHROMIUM) console.log(`stockroom tests: skipped the back-office browser suite (${CHROMIUM} does not exist; apt-get install chromium)`);

describe.skipIf(!HAS_CHROMIUM)(`the back office in a real browser (${CHROMIUM})`, () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  const outside: string[] = [];
  const checked = new Map<string, string[]>();
  const admin = { username: 'ada', password: 'admin password 333' };

  async function check(page: Page, name: string): Promise<void> {
    checked.set(name, await seriousViolations(page));
  }

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: origin } });
    await t.services.users.create({ ...admin, role: 'admin' });
    await t.services.users.create({ username: 'cora', password: 'customer password 1', team: 'Picture desk' });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: origin });
    context.setDefaultTimeout(10_000);
    await context.route(
      (url) => !['127.0.0.1'].includes(url.hostname) && url.protocol !== 'data:',
      (route) => {
        outside.push(route.request().url());
        return route.abort('blockedbyclient');
      },
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an admin signs in, creates an application, sees its secret once, rotates it; creates a user and grants a product', async () => {
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
  }, 120_000);
});
