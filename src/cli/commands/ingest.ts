import fsp from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { ingestFolder, type FolderDefaults } from '../../catalog/ingest/folder-ingest.js';
import { IngestService } from '../../catalog/ingest/ingest.service.js';
import { NudityClassifier } from '../../media/nudity-classifier.js';
import { commaList, withServices } from '../options.js';
import { progressBar } from '../progress.js';

interface IngestOptions {
  media?: string;
  family?: string;
  collection?: string;
  licenseModel?: string;
  productTypes?: string[];
  artist?: string;
}

export function addIngestCommand(program: Command): void {
  program
    .command('ingest')
    .description('add or update catalogue records from a JSON-lines manifest, or every image and video of a folder from what the files say')
    .argument('<source>', 'a file with one JSON object per line, or a folder of images and videos (searched recursively)')
    .option('--media <dir>', 'folder that the records’ `file` paths are relative to (with a manifest)')
    .option('--family <family>', 'asset_family of every asset (with a folder): creative or editorial')
    .option('--collection <code>', 'collection of every asset (with a folder): a collection code, or a name')
    .option('--license-model <model>', 'license_model of every asset (with a folder)')
    .option('--product-types <types>', 'product_types of every asset, comma-separated (with a folder)', commaList)
    .option('--artist <name>', 'artist of the files whose metadata names no creator (with a folder)')
    .action(async (source: string, options: IngestOptions) => {
      const isFolder = (await fsp.stat(source).catch(() => undefined))?.isDirectory() === true;
      const folderFlags = ['family', 'collection', 'licenseModel', 'productTypes', 'artist'] as const;
      if (!isFolder && folderFlags.some((flag) => options[flag] !== undefined)) {
        throw new InvalidArgumentError('--family, --collection, --license-model, --product-types and --artist apply to a folder; a manifest gives each record its own fields');
      }
      if (isFolder && options.media !== undefined) throw new InvalidArgumentError('--media applies to a manifest; a folder is its own media');
      await withServices(async (services, config) => {
        const classifier = config.mediaFacts.classifyNudity ? new NudityClassifier() : undefined;
        const ingest = new IngestService({ catalog: services.catalog, blobs: services.blobs, classifier, videoTools: services.videoTools });
        try {
          if (isFolder) await runFolder(ingest, source, options);
          else await runManifest(ingest, source, options);
        } finally {
          await classifier?.close();
        }
      });
    });
}

async function runManifest(ingest: IngestService, manifest: string, options: IngestOptions): Promise<void> {
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
}

async function runFolder(ingest: IngestService, folder: string, options: IngestOptions): Promise<void> {
  const defaults: FolderDefaults = {
    asset_family: options.family,
    collection: options.collection,
    license_model: options.licenseModel,
    product_types: options.productTypes,
    artist: options.artist,
  };
  const bar = progressBar('Ingesting');
  let report;
  try {
    report = await ingestFolder(ingest, folder, { defaults, onProgress: bar.update });
  } finally {
    bar.stop();
  }
  for (const { file, reason } of report.skipped) process.stderr.write(`${file}: skipped: ${reason}\n`);
  // The reasons in a few words each, counted: what a person scanning the summary needs.
  const byReason = new Map<string, number>();
  for (const { reason } of report.skipped) {
    const kind = reasonKind(reason);
    byReason.set(kind, (byReason.get(kind) ?? 0) + 1);
  }
  const why = [...byReason].map(([reason, n]) => `${n} ${reason}`).join('; ');
  process.stdout.write(`${report.created.length} created, ${report.updated.length} updated, ${report.skipped.length} skipped${why ? ` (${why})` : ''}\n`);
  if (defaults.product_types === undefined && report.created.length + report.updated.length > 0) {
    process.stderr.write('warning: no --product-types: no product can license these assets until their records list some\n');
  }
}

/** A reason without its particulars: "file 'a.jpg': Input buffer has corrupt header: …" → "Input buffer has corrupt header". */
function reasonKind(reason: string): string {
  const general = reason.replace(/^file '[^']*': /, '').replace(/^the same content as .*/, 'the same content as another file');
  return general.split(/ \(|: /)[0]!;
}
