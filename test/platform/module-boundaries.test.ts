import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Modules meet only through the interfaces they export: a file of one domain never imports
 * another domain's repository, routes or module (only app.ts composes modules), and the
 * platform and the settings stand under every domain without knowing any.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');
/** Folders of src/ that are not domains: what every module stands on, and the CLI on top. */
const PLATFORM_FOLDERS = new Set(['platform', 'config']);
const CONSUMER_FOLDERS = new Set(['cli']);
/** The files of a domain that no other domain may import. */
const PRIVATE_FILE = /\.(repository|routes|module)\.ts$/;

interface SourceFile {
  /** relative to src/, with forward slashes */
  file: string;
  text: string;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;

function importsOf(source: SourceFile): string[] {
  const targets: string[] = [];
  for (const match of source.text.matchAll(IMPORT)) {
    const specifier = match[1]!;
    if (!specifier.startsWith('.')) continue;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(source.file), specifier)).replace(/\.js$/, '.ts');
    targets.push(resolved);
  }
  return targets;
}

const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0]! : '');

/** Every import that breaks the rule, as "importer → imported: why". */
export function boundaryViolations(sources: readonly SourceFile[]): string[] {
  const violations: string[] = [];
  for (const source of sources) {
    const from = folderOf(source.file);
    for (const target of importsOf(source)) {
      const to = folderOf(target);
      if (to === from || to === '' || PLATFORM_FOLDERS.has(to) || CONSUMER_FOLDERS.has(to)) continue;
      if (PLATFORM_FOLDERS.has(from)) {
        violations.push(`${source.file} → ${target}: the platform knows no domain`);
      } else if (from === '' && target.endsWith('.module.ts')) {
        // app.ts composes the modules: the one place that may name them.
        continue;
      } else if (PRIVATE_FILE.test(target)) {
        violations.push(`${source.file} → ${target}: another module’s repository, routes or module`);
      }
    }
  }
  return violations;
}

function readSources(dir: string, prefix = ''): SourceFile[] {
  const files: SourceFile[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...readSources(full, relative));
    else if (entry.name.endsWith('.ts')) files.push({ file: relative, text: fs.readFileSync(full, 'utf8') });
  }
  return files;
}

describe('module boundaries', () => {
  it('rule: no module imports another module’s repository, routes or module, and the platform imports no module', () => {
    const sources = readSources(SRC);
    expect(sources.length).toBeGreaterThan(100);
    expect(boundaryViolations(sources)).toEqual([]);
  });

  it('rule: each domain folder exposes one module, and app.ts composes every one of them', () => {
    const domains = fs
      .readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !PLATFORM_FOLDERS.has(entry.name) && !CONSUMER_FOLDERS.has(entry.name))
      .map((entry) => entry.name);
    const app = fs.readFileSync(path.join(SRC, 'app.ts'), 'utf8');
    for (const domain of domains) {
      const modules = fs.readdirSync(path.join(SRC, domain)).filter((name) => name.endsWith('.module.ts'));
      expect(modules, domain).toHaveLength(1);
      expect(app, domain).toContain(`./${domain}/${modules[0]!.replace(/\.ts$/, '.js')}`);
    }
  });

  it('the check finds each kind of crossing', () => {
    const sources: SourceFile[] = [
      { file: 'search/search.service.ts', text: "import { CatalogRepository } from '../catalog/catalog.repository.js';" },
      { file: 'search/x.ts', text: "import type { Routes } from '../licensing/products.routes.js';" },
      { file: 'licensing/y.ts', text: "const m = await import('../media/media.module.js');" },
      { file: 'platform/http/z.ts', text: "import { CatalogService } from '../../catalog/catalog.service.js';" },
      { file: 'main.ts', text: "import { UsersRepository } from './oauth/users.repository.js';" },
      // allowed: a service of another module, the platform, the same module’s repository
      { file: 'app.ts', text: "import { searchModule } from './search/search.module.js';" },
      { file: 'search/ok.ts', text: "import { CatalogService } from '../catalog/catalog.service.js';\nimport { x } from '../platform/db/database.js';\nimport { r } from './search.repository.js';" },
    ];
    expect(boundaryViolations(sources)).toEqual([
      'search/search.service.ts → catalog/catalog.repository.ts: another module’s repository, routes or module',
      'search/x.ts → licensing/products.routes.ts: another module’s repository, routes or module',
      'licensing/y.ts → media/media.module.ts: another module’s repository, routes or module',
      'platform/http/z.ts → catalog/catalog.service.ts: the platform knows no domain',
      "main.ts → oauth/users.repository.ts: another module’s repository, routes or module",
    ]);
  });
});
