import type { Command } from 'commander';
import { backfillMediaFacts } from '../../catalog/ingest/media-facts-backfill.js';
import { NudityClassifier } from '../../media/nudity-classifier.js';
import { positive, withServices } from '../options.js';
import { progressBar } from '../progress.js';

export function addBackfillCommand(program: Command): void {
  program
    .command('backfill')
    .description('compute the media facts (colours, black and white, nudity scores) of assets ingested before them; resumable')
    .option('--batch <n>', 'assets read from the store at a time', positive, 100)
    .action(async (options: { batch: number }) => {
      await withServices(async (services, config) => {
        const classifier = config.mediaFacts.classifyNudity ? new NudityClassifier() : undefined;
        const bar = progressBar('Computing media facts');
        let report;
        try {
          report = await backfillMediaFacts(
            { catalog: services.catalog, blobs: services.blobs, classifier },
            { batchSize: options.batch, onProgress: bar.update },
          );
        } finally {
          bar.stop();
          await classifier?.close();
        }
        for (const { id, reason } of report.failed) process.stderr.write(`asset ${id}: ${reason}\n`);
        const nudity = classifier ? '' : ' (nudity not scored: STOCKROOM_NUDITY_CLASSIFIER is off)';
        process.stdout.write(`${report.computed} computed, ${report.failed.length} failed${nudity}\n`);
        if (report.failed.length > 0) process.exitCode = 1;
      });
    });
}
