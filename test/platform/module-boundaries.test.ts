import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSources, type SourceFile } from '../helpers/source-files.js';

/*
 * Modules meet only through the interfaces they export: a file of one domain never imports
 * another domain's repository, routes or module (only app.ts composes modules), and the
 * platform and the settings stand under every domain without knowing any. And src/ holds only
 * the product: it never imports from bench/ or test/, and each of its files is reached from the
 * command's entry, so a fixture of the tests or the benchmarks (a set with known answers, a
 * synthetic catalogue) lives in bench/fixtures or test/, not in a module's dependencies.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');
/** Folders of src/ that are not domains: what every module stands on, and the CLI on top. */
const PLATFORM_FOLDERS = new Set(['platform', 'config']);
const CONSUMER_FOLDERS = new Set(['cli']);
/** The files of a domain that no other domain may import. */
const PRIVATE_FILE = /\.(repository|routes|module)\.ts$/;

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;
/** A file named beside the code, as a worker thread's entry is: `new URL('./x-worker.js', import.meta.url)`. */
const FILE_URL = /\bnew\s+URL\(([^)]*?),\s*import\.meta\.url\s*\)/g;
const RELATIVE_TEXT = /['"`](\.\.?\/[^'"`]+)['"`]/g;
/** What the command runs: bin/stockroom.js loads src/main.ts. */
const ENTRY = 'main.ts';

/** A relative specifier of `source`, relative to src/ (a `.js` specifier names the `.ts` file). */
function resolve(source: SourceFile, specifier: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(source.file), specifier)).replace(/\.js$/, '.ts');
}

function importsOf(source: SourceFile): string[] {
  const targets: string[] = [];
  for (const match of source.text.matchAll(IMPORT)) {
    const specifier = match[1]!;
    if (!specifier.startsWith('.')) continue;
    targets.push(resolve(source, specifier));
  }
  return targets;
}

/** The imports of a file and the files it names for a worker thread or to read. */
function referencesOf(source: SourceFile): string[] {
  const named = [...source.text.matchAll(FILE_URL)].flatMap((match) => [...match[1]!.matchAll(RELATIVE_TEXT)].map((text) => resolve(source, text[1]!)));
  return [...importsOf(source), ...named];
}

/** Every import of src/ that reaches into bench/ or test/, as "importer → imported". */
export function importsOutOfProduct(sources: readonly SourceFile[]): string[] {
  return sources.flatMap((source) =>
    importsOf(source)
      .filter((target) => /^\.\.\/(bench|test)\//.test(target))
      .map((target) => `${source.file} → ${target}`),
  );
}

/** The files of src/ that the entry reaches through no chain of imports: what only a test or a benchmark uses. */
export function unreachedFiles(sources: readonly SourceFile[], entry = ENTRY): string[] {
  const byFile = new Map(sources.map((source) => [source.file, source]));
  const reached = new Set<string>();
  const next = [entry];
  while (next.length > 0) {
    const file = next.pop()!;
    const source = byFile.get(file);
    if (reached.has(file) || source === undefined) continue;
    reached.add(file);
    next.push(...referencesOf(source));
  }
  return sources.map((source) => source.file).filter((file) => !reached.has(file));
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

/** The product's code: TypeScript, and the loaders its workers start from. */
const readProduct = () => readSources(SRC, /\.(ts|mjs)$/);

describe('module boundaries', () => {
  it('rule: no module imports another module’s repository, routes or module, and the platform imports no module', () => {
    const sources = readProduct();
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

  it('rule: src/ imports nothing from bench/ or test/', () => {
    expect(importsOutOfProduct(readProduct())).toEqual([]);
  });

  it('rule: src/ holds no fixture: every file of it is reached from the command (src/main.ts)', () => {
    expect(unreachedFiles(readProduct())).toEqual([]);
  });

  it('the checks find an import out of the product and a file only a test reaches', () => {
    const sources: SourceFile[] = [
      { file: 'main.ts', text: "import { a } from './search/engine/index.js';\nconst m = await import('./cli/commands/serve.js');" },
      { file: 'search/engine/index.ts', text: "import { b } from '../../../bench/fixtures/synthetic-catalogue.js';" },
      { file: 'cli/commands/serve.ts', text: "const worker = new Worker(new URL(fromSource ? './serve-loader.mjs' : './serve-worker.js', import.meta.url));" },
      { file: 'cli/commands/serve-loader.mjs', text: "await import('./serve-worker.ts');" },
      { file: 'cli/commands/serve-worker.ts', text: "import { c } from '../../../test/helpers/x.js';" },
      { file: 'generation/quality-set.ts', text: "import { d } from '../search/engine/index.js';" },
    ];
    expect(importsOutOfProduct(sources)).toEqual([
      'search/engine/index.ts → ../bench/fixtures/synthetic-catalogue.ts',
      'cli/commands/serve-worker.ts → ../test/helpers/x.ts',
    ]);
    expect(unreachedFiles(sources)).toEqual(['generation/quality-set.ts']);
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
