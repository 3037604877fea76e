/**
 * `npm run bench -- <name>`: reproducible benchmarks that print a table beside a reference.
 */
import { builtinQualityBenchmark } from './builtin-quality.js';
import { changesBenchmark } from './changes.js';
import { clusterBenchmark } from './cluster.js';
import { downloadsBenchmark } from './downloads.js';
import { generationBenchmark } from './generation.js';
import { mediaIngestBenchmark } from './media-ingest.js';
import { metadataBenchmark } from './metadata.js';
import { searchBenchmark } from './search.js';
import { usageBenchmark } from './usage.js';
import { videoIngestBenchmark } from './video-ingest.js';
import { webBenchmark } from './web.js';

const benchmarks: Record<string, () => Promise<void>> = {
  'builtin-quality': builtinQualityBenchmark,
  changes: changesBenchmark,
  cluster: clusterBenchmark,
  downloads: downloadsBenchmark,
  generation: generationBenchmark,
  'media-ingest': mediaIngestBenchmark,
  metadata: metadataBenchmark,
  search: searchBenchmark,
  usage: usageBenchmark,
  'video-ingest': videoIngestBenchmark,
  web: webBenchmark,
};

const name = process.argv[2];
const run = name ? benchmarks[name] : undefined;
if (!run) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(benchmarks).join('|')}>\n`);
  process.exit(2);
}
await run();
