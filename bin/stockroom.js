#!/usr/bin/env node
// The `stockroom` command. It runs the compiled JavaScript in dist/ (made by `npm install`'s
// `prepare` script, or `npm run build`) when that build is current: no module hooks, so no
// loader thread (about 31 MB of RSS, docs/benchmarks.md). Otherwise — no build, or one older
// than the sources, as after a `git pull` without an install — it falls back to running the
// TypeScript sources through tsx's loader rather than rebuilding: an installation may be
// read-only to its node (the systemd unit's ProtectSystem=strict), and two processes starting at
// once must not write the same folder. STOCKROOM_FROM_SOURCE=1 asks for the sources regardless.
import { buildIsCurrent } from './build-state.js';

if (process.env.STOCKROOM_FROM_SOURCE !== '1' && buildIsCurrent()) {
  await import('../dist/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
