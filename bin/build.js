#!/usr/bin/env node
// Compiles src/ into dist/ file by file (esbuild's transform, no bundle: every module stays its
// own file at the same depth, so `new URL('../package.json', import.meta.url)` and the files
// read beside the code resolve as from src/), and copies every other file of src/ (static
// assets, ComfyUI workflows, worker loaders). bin/stockroom.js then runs dist/ with no loader
// thread. Run by `npm install` / `npm ci` (the `prepare` script) and by `npm run build`.
//
// The new build is written beside the old one and swapped in only when complete, its stamp
// written last: a server running from dist/ meanwhile, or a start during the build, never sees
// half a build as current.
import fs from 'node:fs';
import path from 'node:path';
import { transform } from 'esbuild';
import { ROOT, STAMP, sourceState } from './build-state.js';

const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');

/** The compiler options tsx would take from tsconfig.json (verbatimModuleSyntax keeps every import not marked `type`). */
function tsconfigRaw() {
  const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8'));
  return { compilerOptions };
}

function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

async function compile(file, out, raw) {
  const relative = path.relative(SRC, file);
  const target = path.join(out, relative.replace(/\.ts$/, '.js'));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (!file.endsWith('.ts')) {
    fs.copyFileSync(file, target);
    return;
  }
  // The same options as tsx's loader, so the compiled code behaves as the source run through it;
  // the source map (read only under --enable-source-maps) names the file in src/.
  const result = await transform(fs.readFileSync(file, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    keepNames: true,
    sourcemap: 'external',
    sourcefile: path.relative(path.dirname(target), file).split(path.sep).join('/'),
    tsconfigRaw: raw,
  });
  fs.writeFileSync(target, `${result.code}//# sourceMappingURL=${path.basename(target)}.map\n`);
  fs.writeFileSync(`${target}.map`, result.map);
}

const started = Date.now();
const state = sourceState();
const next = `${DIST}.next-${process.pid}`;
const old = `${DIST}.old-${process.pid}`;
fs.rmSync(next, { recursive: true, force: true });
try {
  const raw = tsconfigRaw();
  const files = filesUnder(SRC);
  // A few at a time: esbuild's service does the work; this only keeps the reads and writes flowing.
  for (let at = 0; at < files.length; at += 32) {
    await Promise.all(files.slice(at, at + 32).map((file) => compile(file, next, raw)));
  }
  fs.writeFileSync(path.join(next, STAMP), `${JSON.stringify(state)}\n`);
  if (fs.existsSync(DIST)) fs.renameSync(DIST, old);
  fs.renameSync(next, DIST);
  fs.rmSync(old, { recursive: true, force: true });
} catch (error) {
  fs.rmSync(next, { recursive: true, force: true });
  throw error;
}
console.log(`stockroom: compiled ${state.sources} files of src/ into dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
