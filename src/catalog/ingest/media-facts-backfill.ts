import type { BlobStore } from '../../platform/blobs/blob-store.js';
import { computeMediaFacts, MEDIA_FACTS_VERSION, type NudityScorer } from '../../media/media-facts.js';
import { isVideoOriginal, posterKey } from '../../media/video/video-media.js';
import type { CatalogService } from '../catalog.service.js';

export interface BackfillOptions {
  /** Assets read from the store at a time. */
  batchSize?: number;
  /** Called after each asset is done (computed or failed), with the count found at the start. */
  onProgress?: (done: number, total: number) => void;
}

export interface BackfillReport {
  computed: number;
  /** Assets whose facts could not be computed, with why; they stay marked as to do. */
  failed: Array<{ id: string; reason: string }>;
}

/**
 * `stockroom backfill`: computes the media facts (colours, black and white, nudity scores) of
 * assets ingested before they existed (a video's from its poster still), or by an older rule, or without the classifier. Each
 * asset's facts are stored with their version as soon as they are computed, in a write that
 * also logs the change: an interrupted run loses at most the asset in hand, the next run starts
 * from the assets still unmarked, and every node's search index follows through the change log.
 */
export async function backfillMediaFacts(
  deps: { catalog: CatalogService; blobs: BlobStore; classifier?: NudityScorer | undefined },
  options: BackfillOptions = {},
): Promise<BackfillReport> {
  const { catalog, blobs, classifier } = deps;
  const needNudity = classifier !== undefined;
  const batchSize = options.batchSize ?? 100;
  const total = await catalog.countAssetsNeedingMediaFacts(MEDIA_FACTS_VERSION, needNudity);
  const report: BackfillReport = { computed: 0, failed: [] };
  let done = 0;
  // The cursor moves past failures, so one bad file cannot hold the run in place.
  let after: string | null = null;
  for (;;) {
    const page = await catalog.assetsNeedingMediaFacts(after, batchSize, MEDIA_FACTS_VERSION, needNudity);
    if (page.length === 0) break;
    for (const asset of page) {
      try {
        // A video's facts are its poster's, the still its ingest stored beside it.
        const video = isVideoOriginal(asset.original_key);
        const source = video ? posterKey(asset.original_key) : asset.original_key;
        const data = await blobs.get(source);
        if (data === undefined) throw new Error(`its ${video ? 'poster' : 'original'} ${source} is missing from the blob store`);
        const facts = await computeMediaFacts(data, classifier);
        // False: the asset was deleted or given a new original meanwhile (whose ingest computed its own facts).
        if (await catalog.saveMediaFacts(asset.asset_type, asset.id, asset.original_key, facts)) report.computed += 1;
      } catch (error) {
        report.failed.push({ id: asset.id, reason: error instanceof Error ? error.message : String(error) });
      }
      done += 1;
      options.onProgress?.(done, Math.max(total, done));
    }
    after = page[page.length - 1]!.id;
  }
  return report;
}
