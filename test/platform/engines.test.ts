import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/*
 * `npm install` is clean on every Node the project supports: no package in the lockfile asks for
 * a newer Node (npm's EBADENGINE warning), and package.json says which Node it needs.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

describe('supported Node versions', () => {
  it('rule: package.json states the Node versions it supports, and this Node is one of them', () => {
    const range = (read('package.json').engines as { node?: string } | undefined)?.node;
    expect(range).toBe('>=20');
    expect(semver.satisfies(process.versions.node, range!)).toBe(true);
  });

  it('rule: every package in the lockfile accepts this Node (no EBADENGINE at install)', () => {
    const lock = read('package-lock.json') as { packages: Record<string, { engines?: { node?: string } | string[] }> };
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines && !Array.isArray(entry.engines) && entry.engines.node)
      .filter(([, entry]) => !semver.satisfies(process.versions.node, (entry.engines as { node: string }).node, { includePrerelease: true }))
      .map(([name, entry]) => `${name} wants node ${(entry.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});
