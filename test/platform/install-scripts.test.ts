import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * `npm install` runs a package's install scripts only when package.json's `allowScripts` allows
 * them, and warns about each one it does not name ("not yet covered by allowScripts"). Every
 * package of the lockfile that has install scripts is named there with a deliberate true or
 * false, so a newcomer's install is clean and a new dependency's script is a decision, not a
 * warning nobody reads. See docs/operations.md#install-scripts for the reasons.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

/** The package name of a lockfile location: `node_modules/a/node_modules/@s/b` → `@s/b`. */
const nameOf = (location: string) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('install scripts', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const allowScripts = (read('package.json').allowScripts ?? {}) as Record<string, unknown>;
  const withScripts = [...new Set(Object.entries(lock.packages).filter(([, entry]) => entry.hasInstallScript).map(([location]) => nameOf(location)))].sort();

  it('rule: every package of the lockfile with an install script is allowed or denied by name in allowScripts', () => {
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => typeof allowScripts[name] !== 'boolean')).toEqual([]);
  });

  it('rule: allowScripts names only such packages, each with true or false (no stale or loose entry)', () => {
    expect(Object.keys(allowScripts).sort()).toEqual(withScripts);
    expect(Object.values(allowScripts).every((value) => typeof value === 'boolean')).toBe(true);
  });

  it('the ffmpeg and ffprobe binaries, which video needs, are allowed their chmod; core-js’s banner is not', () => {
    expect(allowScripts['@ffmpeg-installer/linux-x64']).toBe(true);
    expect(allowScripts['@ffprobe-installer/linux-x64']).toBe(true);
    expect(allowScripts['core-js']).toBe(false);
  });
});
