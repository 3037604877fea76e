import fsp from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { ingestFolder, type FolderDefaults, type FolderIngestReport } from '../../catalog/ingest/folder-ingest.js';
import { IngestService } from '../../catalog/ingest/ingest.service.js';
import { showValue, type FieldChange } from '../../catalog/ingest/stored-fields.js';
import { unfitWarning, unlicensableWarning } from '../../catalog/ingest/product-type-fit.js';
import { NudityClassifier } from '../../media/nudity-classifier.js';
import { fitForLongWrites } from '../../platform/db/database.js';
import { deferIndexesForInitialLoad, restoreDeferredIndexes } from '../../platform/db/deferred-indexes.js';
import { commaList, withServices } from '../options.js';
import { progressBar } from '../progress.js';

interface IngestOptions {
  media?: string;
  family?: string;
  collection?: string;
  licenseModel?: string;
  productTypes?: string[];
  artist?: string;
  replace?: boolean;
  dryRun?: boolean;
}

/** How many files a grouped warning names before "and N more". */
const NAMED_FILES = 5;

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
    .option('--replace', 'write each record exactly as given: fields it (or the flags) leave out are cleared; without it they keep their stored values')
    .option('--dry-run', 'print what the run would change, asset by asset, and write nothing')
    .action(async (source: string, options: IngestOptions) => {
      const isFolder = (await fsp.stat(source).catch(() => undefined))?.isDirectory() === true;
      const folderFlags = ['family', 'collection', 'licenseModel', 'productTypes', 'artist'] as const;
      if (!isFolder && folderFlags.some((flag) => options[flag] !== undefined)) {
        throw new InvalidArgumentError('--family, --collection, --license-model, --product-types and --artist apply to a folder; a manifest gives each record its own fields');
      }
      if (isFolder && options.media !== undefined) throw new InvalidArgumentError('--media applies to a manifest; a folder is its own media');
      await withServices(async (services, config) => {
        await fitForLongWrites(services.database);
        const classifier = config.mediaFacts.classifyNudity ? new NudityClassifier() : undefined;
        const ingest = new IngestService({
          catalog: services.catalog,
          blobs: services.blobs,
          classifier,
          videoTools: services.videoTools,
          displayFiles: services.media,
          checkpoints: services.ingestCheckpoints,
          initialLoadIndexes: { defer: () => deferIndexesForInitialLoad(services.database), restore: () => restoreDeferredIndexes(services.database) },
        });
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
  const bar = progressBar('Ingesting', { rateOf: 'lines' });
  // A run of this manifest that was stopped (killed, crashed) is continued, not started over.
  const onResume = (afterLine: number) =>
    process.stderr.write(`${manifest}: continuing the run that stopped after line ${afterLine}; the lines before were stored then\n`);
  const onIndexesDeferred = (names: readonly string[]) =>
    process.stderr.write(`the store holds no assets: index ${names.join(', ')} is left out while loading and built at the end\n`);
  const onIndexesBuilding = (names: readonly string[]) => {
    // The last progress line first, then what the wait after it is.
    bar.stop();
    process.stderr.write(`building index ${names.join(', ')}\n`);
  };
  let report;
  try {
    report = await ingest.ingestFile(manifest, {
      mediaDir: options.media,
      onProgress: bar.update,
      onResume,
      onIndexesDeferred,
      onIndexesBuilding,
      replace: options.replace,
      dryRun: options.dryRun,
    });
  } finally {
    bar.stop();
  }
  // Lines the stopped run refused were reported by it; they count here too.
  const failed = report.failed.length + (report.resumed?.failed ?? 0);
  const problems = [
    ...report.failed.map(({ line, reason }) => ({ line, message: reason })),
    ...report.unlicensable.map(({ line, id }) => ({ line, message: `warning: ${unlicensableWarning(id)}` })),
    ...report.unfit.map(({ line, id, productType, reason }) => ({ line, message: `warning: ${unfitWarning(id, { productType, reason })}` })),
  ].sort((a, b) => a.line - b.line);
  for (const { line, message } of problems) process.stderr.write(`line ${line}: ${message}\n`);
  if (options.dryRun) {
    for (const { line, id, operation, changes } of report.planned) writePlan(`line ${line} (${id})`, operation, changes);
    const changed = report.updated - report.unchanged;
    process.stdout.write(
      `dry run: ${report.inserted} would be inserted, ${changed} would change, ${report.unchanged} unchanged, ${report.failed.length} failed; nothing was written\n`,
    );
  } else {
    const unlicensable = report.unlicensable.length > 0 ? `, ${report.unlicensable.length} that no product can license` : '';
    process.stdout.write(`${report.inserted} inserted, ${report.updated} updated, ${failed} failed${unlicensable}\n`);
  }
  if (failed > 0) process.exitCode = 1;
}

/** One record of a dry run's plan: created, or each field that would change, old → new. */
function writePlan(what: string, operation: 'insert' | 'update', changes: readonly FieldChange[]): void {
  if (operation === 'insert') {
    process.stdout.write(`${what}: would be created\n`);
    return;
  }
  process.stdout.write(`${what}: would change\n`);
  for (const { field, from, to } of changes) process.stdout.write(`  ${field}: ${showValue(from)} → ${showValue(to)}\n`);
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
    report = await ingestFolder(ingest, folder, { defaults, onProgress: bar.update, replace: options.replace, dryRun: options.dryRun });
  } finally {
    bar.stop();
  }
  writeFolderProblems(report);
  for (const { file, title } of report.titled) {
    process.stdout.write(`${file}: the file names no title, so it ${options.dryRun ? 'would be' : 'is'} titled ${JSON.stringify(title)} from its file name\n`);
  }
  const changed = report.updated.filter(({ changes }) => changes.length > 0);
  const skipped = `${report.skipped.length} skipped${countedReasons(report.skipped)}`;
  if (options.dryRun) {
    for (const { file, id } of report.created) writePlan(`${file} (asset ${id})`, 'insert', []);
    for (const { file, id, changes } of changed) writePlan(`${file} (asset ${id})`, 'update', changes);
    const unchanged = report.updated.length - changed.length;
    process.stdout.write(
      `dry run: ${report.created.length} would be created, ${changed.length} would change, ${unchanged} unchanged, ${report.failed.length} failed, ${skipped}; nothing was written\n`,
    );
  } else {
    process.stdout.write(
      `${report.created.length} created, ${report.updated.length} updated (${changed.length} changed), ${report.failed.length} failed, ${skipped}\n`,
    );
  }
  if (report.failed.length > 0) process.exitCode = 1;
}

/** The files not ingested, each with its reason, and the warnings, on standard error. */
function writeFolderProblems(report: FolderIngestReport): void {
  const duplicates = new Set(report.duplicates.map(({ skipped }) => skipped));
  for (const { file, reason } of report.failed) process.stderr.write(`${file}: failed: ${reason}\n`);
  for (const { file, reason } of report.skipped) if (!duplicates.has(file)) process.stderr.write(`${file}: skipped: ${reason}\n`);
  for (const { kept, skipped, sha256 } of report.duplicates) {
    process.stderr.write(`kept ${kept}, skipped ${skipped}: the same content (sha256 ${sha256}); the first in path order is kept\n`);
  }
  // One warning per product type and reason, naming the files: a folder shares its flags.
  const unfit = new Map<string, { productType: string; reason: string; files: string[] }>();
  for (const { file, productType, reason } of report.unfit) {
    const key = `${productType}\n${reason}`;
    const group = unfit.get(key) ?? { productType, reason, files: [] };
    group.files.push(file);
    unfit.set(key, group);
  }
  for (const { productType, reason, files } of unfit.values()) {
    process.stderr.write(`warning: product type ${productType} can never license ${assetCount(files.length)} (${named(files)}): ${reason}\n`);
  }
  if (report.unlicensable.length > 0) {
    const files = report.unlicensable.map(({ file }) => file);
    const [list, them] = files.length === 1 ? ['lists', 'it'] : ['list', 'them'];
    process.stderr.write(
      `warning: ${assetCount(files.length)} (${named(files)}) ${list} no product_types, so no product can license ${them}: give --product-types\n`,
    );
  }
}

function assetCount(n: number): string {
  return n === 1 ? '1 asset' : `${n} assets`;
}

function named(files: readonly string[]): string {
  const more = files.length - NAMED_FILES;
  return `${files.slice(0, NAMED_FILES).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** " (1 not an image or video; 2 the same content as another file)": the reasons in a few words each, counted. */
function countedReasons(skipped: ReadonlyArray<{ reason: string }>): string {
  const byReason = new Map<string, number>();
  for (const { reason } of skipped) {
    const kind = reasonKind(reason);
    byReason.set(kind, (byReason.get(kind) ?? 0) + 1);
  }
  return byReason.size === 0 ? '' : ` (${[...byReason].map(([reason, n]) => `${n} ${reason}`).join('; ')})`;
}

/** A reason without its particulars: "the same content as a.jpg (sha256 …); …" → "the same content as another file". */
function reasonKind(reason: string): string {
  const general = reason.replace(/^the same content as .*/, 'the same content as another file');
  return general.split(/ \(|: /)[0]!;
}
