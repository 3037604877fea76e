/**
 * `npm run bench -- <name>`: reproducible benchmarks that print a table beside a reference.
 */
import { BENCHMARKS } from './benchmarks.js';

const name = process.argv[2];
const run = name ? BENCHMARKS[name] : undefined;
if (!run) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(BENCHMARKS).join('|')}>\n`);
  process.exit(2);
}
await run();
