/**
 * Every benchmark by name, each loaded only when it runs (`npm run bench -- <name>`; `npm run
 * bench:smoke` runs them all at tiny sizes).
 */
export const BENCHMARKS: Record<string, () => Promise<void>> = {
  'builtin-quality': async () => (await import('./builtin-quality.js')).builtinQualityBenchmark(),
  changes: async () => (await import('./changes.js')).changesBenchmark(),
  cluster: async () => (await import('./cluster.js')).clusterBenchmark(),
  downloads: async () => (await import('./downloads.js')).downloadsBenchmark(),
  follow: async () => (await import('./follow.js')).followBenchmark(),
  generation: async () => (await import('./generation.js')).generationBenchmark(),
  ingest: async () => (await import('./ingest.js')).ingestBenchmark(),
  'media-ingest': async () => (await import('./media-ingest.js')).mediaIngestBenchmark(),
  metadata: async () => (await import('./metadata.js')).metadataBenchmark(),
  'node-join': async () => (await import('./node-join.js')).nodeJoinBenchmark(),
  search: async () => (await import('./search.js')).searchBenchmark(),
  usage: async () => (await import('./usage.js')).usageBenchmark(),
  upload: async () => (await import('./upload.js')).uploadBenchmark(),
  'video-ingest': async () => (await import('./video-ingest.js')).videoIngestBenchmark(),
  web: async () => (await import('./web.js')).webBenchmark(),
};
