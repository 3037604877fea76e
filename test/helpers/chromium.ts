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
