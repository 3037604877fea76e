import fs from 'node:fs';

/** The version of this Stockroom, as package.json gives it. */
export const STOCKROOM_VERSION: string = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
