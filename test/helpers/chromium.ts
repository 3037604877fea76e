import type { BrowserContext } from 'playwright-core';
import fs from 'node:fs';

/**
 * Debian's Chromium (`apt-get install chromium`), driven through playwright-core, which never
 * downloads a browser of its own. Without the background-networking switches it tries to reach
 * Google's hosts at every start, which this machine's closed network refuses.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = fs.existsSync(CHROMIUM);

export const LAUNCH_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-gpu',
  '--no-first-run',
  '--disable-sync',
];

/** Whether a browser's request stays on this machine: loopback, or no network at all (data:, blob:, about:blank). */
export function isLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === 'data:' || protocol === 'blob:' || url === 'about:blank' || hostname === '127.0.0.1' || hostname === 'localhost';
}

/** Aborts every request of the context that would leave this machine, listing each in `outside` (a test expects none). */
export async function keepToLoopback(context: BrowserContext, outside: string[]): Promise<void> {
  await context.route(
    (url) => !isLoopback(url.href),
    (route) => {
      outside.push(route.request().url());
      return route.abort('blockedbyclient');
    },
  );
}
