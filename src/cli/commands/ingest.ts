import type { Command } from 'commander';
import { IngestService } from '../../catalog/ingest/ingest.service.js';
import { withServices } from '../options.js';
import { progressBar } from '../progress.js';

export function addIngestCommand(program: Command): void {
  program
    .command('ingest')
    .description('add or update catalogue records from a JSON-lines manifest')
    .argument('<manifest>', 'file with one JSON object per line')
    .option('--media <dir>', 'folder that the records’ `file` paths are relative to')
    .action(async (manifest: string, options: { media?: string }) => {
      await withServices(async (services) => {
        const ingest = new IngestService({ catalog: services.catalog, blobs: services.blobs });
        const bar = progressBar('Ingesting');
        let report;
        try {
          report = await ingest.ingestFile(manifest, { mediaDir: options.media, onProgress: bar.update });
        } finally {
          bar.stop();
        }
        const problems = [
          ...report.failed.map(({ line, reason }) => ({ line, message: reason })),
          ...report.unlicensable.map(({ line, id }) => ({ line, message: `warning: asset '${id}' lists no product_types, so no product can license it` })),
        ].sort((a, b) => a.line - b.line);
        for (const { line, message } of problems) process.stderr.write(`line ${line}: ${message}\n`);
        const unlicensable = report.unlicensable.length > 0 ? `, ${report.unlicensable.length} that no product can license` : '';
        process.stdout.write(`${report.inserted} inserted, ${report.updated} updated, ${report.failed.length} failed${unlicensable}\n`);
        if (report.failed.length > 0) process.exitCode = 1;
      });
    });
}
