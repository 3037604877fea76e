import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import type { BlobStore } from '../../platform/blobs/blob-store.js';
import { downloadSizesFor, orientationOf, probeImage, type ProbedImage } from '../../media/image-probe.js';
import { computeVisualSignature, decodeStoredSignature, encodeStoredSignature } from '../../media/visual-signature.js';
import { readEmbeddedMetadata, readVideoMetadata } from '../../media/embedded-metadata.js';
import { computeMediaFacts, isCurrentFacts, type MediaFacts, type NudityScorer } from '../../media/media-facts.js';
import { withEmbeddedFields } from './embedded-fields.js';
import type { AssetInput, AssetRecord, EditableAssetRecord, EventInput, EventRecord, OriginalFile, Publication } from '../catalog.records.js';
import { CatalogConflictError } from '../catalog.repository.js';
import type { CatalogService } from '../catalog.service.js';
import { checkManifestLine, reasonOfProblems, type AssetManifestRecord, type EventManifestRecord, type FieldProblem, type ManifestRecord } from './ingest.schemas.js';
import { VideoTools } from '../../media/video/video-tools.js';
import { unfitProductTypes, type UnfitProductType } from './product-type-fit.js';
import { assetChanges, eventChanges, withStoredEventFields, withStoredFields, type FieldChange } from './stored-fields.js';
import { UnwrittenBlobStore } from './unwritten-blob-store.js';
import type { IngestCheckpoint } from './ingest-checkpoints.repository.js';
import { EpsLineError, withEpsOriginal, type EpsChange } from './eps-original.js';
import { buildVideoInput, headOfFile, isStillPicture, isVideoFile, VIDEO_FACT_FIELDS, withStoredVideo, withVideoBytes, type VideoFile } from './video-ingest.js';

export interface IngestReport {
  inserted: number;
  updated: number;
  failed: Array<{ line: number; reason: string }>;
  /**
   * Images and videos stored without product_types: no product can license them, so they never
   * show to a customer whose search is limited to what the customer may license, and cannot be
   * downloaded. Stored all the same (a later line may add them); a warning, not a failure.
   */
  unlicensable: Array<{ line: number; id: string }>;
  /** Product types a stored asset lists that can never license it, each with the reason (a warning). */
  unfit: Array<{ line: number; id: string } & UnfitProductType>;
  /** Records stored again without a change to any field. */
  unchanged: number;
  /** On a dry run: each record that would be inserted or changed, with its changes. Empty on a real run. */
  planned: Array<{ line: number; id: string; operation: 'insert' | 'update'; changes: FieldChange[] }>;
  /**
   * Set when the run continued one of the same manifest that had stopped: every line through
   * `afterLine` was stored or refused by it, and `failed` lines of those were refused (each
   * reported by that run). `inserted` and `updated` count that run's lines too.
   */
  resumed?: { afterLine: number; failed: number };
}

/** How records meet what is stored. */
export interface WriteOptions {
  /**
   * Write each record exactly as given, as if new: a field it leaves out is cleared. Without
   * it a field a record leaves out keeps its stored value, and only a field it names (a value,
   * or null to clear it) changes.
   */
  replace?: boolean | undefined;
  /** Work out what a run would change, and write nothing: no record, no file. */
  dryRun?: boolean | undefined;
}

export interface RecordOptions extends WriteOptions {
  /** The title a record without one (none given, stored or embedded in its file) takes: one made from its file name. */
  titleFromFileName?: string | undefined;
  /**
   * The state to store the asset in (an upload from the back office: `draft`, waiting for review).
   * Undefined: a new asset is published and a stored one keeps its state (AssetInput.publication).
   */
  publication?: Publication | undefined;
  /**
   * The state to store the asset in if it is new; a stored asset keeps its own (an upload from
   * the back office: a new file waits as a draft, but a file already published, uploaded again,
   * is not taken out of the catalogue by it). `publication`, when given, wins.
   */
  publicationOfNew?: Publication | undefined;
}

/** What storing one record did, or on a dry run would do. */
export interface RecordOutcome {
  id: string;
  operation: 'insert' | 'update';
  /** For an update: each field whose value changes, before and after. */
  changes: FieldChange[];
  /** The title taken from the file name, when the record had none. */
  titledFromFileName?: string | undefined;
  /** An image or video stored without product_types: no product can license it. */
  unlicensable: boolean;
  unfit: UnfitProductType[];
}

export interface IngestOptions extends WriteOptions {
  /** Folder that `file` paths are relative to; the manifest's own folder when absent. */
  mediaDir?: string;
  /** Called as non-blank lines are done, stored or failed. */
  onProgress?: (done: number, total: number) => void;
  /** Called before any line is read when the run continues one that stopped after line `afterLine`. */
  onResume?: (afterLine: number) => void;
  /** Called before any line is read when the run leaves these indexes out (IngestDeps.initialLoadIndexes). */
  onIndexesDeferred?: (names: readonly string[]) => void;
  /** Called after the last line when the run builds the indexes it left out. */
  onIndexesBuilding?: (names: readonly string[]) => void;
}

/**
 * Indexes that a load into an empty store may leave out while it writes and build at its end
 * (platform/db/deferred-indexes.ts): `defer` drops them if the store holds no assets and says
 * which; `restore` builds whichever are missing.
 */
export interface InitialLoadIndexes {
  defer(): Promise<readonly string[]>;
  restore(): Promise<readonly string[]>;
}

/** Where a stopped run of a manifest is continued from (IngestCheckpointRepository). */
export interface IngestCheckpoints {
  find(manifest: string): Promise<IngestCheckpoint | undefined>;
  save(checkpoint: IngestCheckpoint): Promise<void>;
  remove(manifest: string): Promise<void>;
}

export interface IngestDeps {
  catalog: CatalogService;
  blobs: BlobStore;
  /** Scores each new original for nudity; without it, nudity is left for `stockroom backfill`. */
  classifier?: NudityScorer | undefined;
  /** ffmpeg and ffprobe for video files; absent: as STOCKROOM_FFMPEG_PATH / STOCKROOM_FFPROBE_PATH say, else the packaged ones. */
  videoTools?: VideoTools | undefined;
  /**
   * Makes an original's display files (media's grid, thumb and comp) as it is stored, so that
   * a cold server's first results page is not waiting for them; without it each is made on its
   * first request.
   */
  displayFiles?: { prepareDisplayFiles(originalKey: string): Promise<unknown> } | undefined;
  /**
   * How far each manifest's ingest has come: a run saves it as it goes, and the same command run
   * again after a stop continues after the last line saved. Without it, a run starts at line 1.
   */
  checkpoints?: IngestCheckpoints | undefined;
  /** Without it, every index is kept up to date line by line. */
  initialLoadIndexes?: InitialLoadIndexes | undefined;
}

/** Why one record was refused; its message is the reason reported for the line. */
export class IngestLineError extends Error {
  override name = 'IngestLineError';
}

/** A record refused by the manifest's schema: its reason, and each problem under its field (the back office shows them beside the fields). */
export class InvalidRecordError extends IngestLineError {
  override name = 'InvalidRecordError';

  constructor(readonly problems: readonly FieldProblem[]) {
    super(reasonOfProblems(problems));
  }
}

/** A record refused because its file (given, or the stored original) cannot be read or decoded; the cause is the decoder's error. */
export class UnreadableFileError extends IngestLineError {
  override name = 'UnreadableFileError';
}

/** The extension an original is stored under, by the media type probeImage reports. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/tiff': 'tif',
};

/**
 * Loads manifests (one JSON object per line) into the catalogue. Each line is
 * validated on its own; a bad line is reported with its number and skipped, and the
 * others go on. Storing a line is all or nothing as far as the catalogue goes: the
 * repository writes each record in one transaction (lines without a file, a batch of them
 * in one; see storeBatch). A file is put in the blob store
 * (content-addressed) before its record is written, so a record that then fails leaves
 * at most an unreferenced blob behind, never a record pointing at a missing file. A line
 * without a file for an asset that has an original keeps that original, and its visual
 * signature with it.
 */
export class IngestService {
  private videoTools: VideoTools | undefined;

  constructor(private readonly deps: IngestDeps) {
    this.videoTools = deps.videoTools;
  }

  async ingestFile(manifestPath: string, options: IngestOptions = {}): Promise<IngestReport> {
    const mediaDir = options.mediaDir ?? path.dirname(manifestPath);
    if (options.mediaDir !== undefined) {
      const stat = await fsp.stat(options.mediaDir).catch(() => undefined);
      if (!stat?.isDirectory()) throw new Error(`media folder ${options.mediaDir} is not a directory`);
    }
    await checkReadableManifest(manifestPath);
    const initialLoadIndexes = options.dryRun ? undefined : this.deps.initialLoadIndexes;
    const total = options.onProgress || initialLoadIndexes ? await countNonBlankLines(manifestPath) : 0;
    const media = new MediaFolder(mediaDir);
    const report: IngestReport = { inserted: 0, updated: 0, failed: [], unlicensable: [], unfit: [], unchanged: 0, planned: [] };
    const writeOptions: WriteOptions = { replace: options.replace, dryRun: options.dryRun };
    // A dry run writes nothing, its progress neither.
    const checkpoints = options.dryRun ? undefined : this.deps.checkpoints;
    const manifestKey = checkpoints === undefined ? undefined : await manifestFingerprint(manifestPath, mediaDir, options.replace === true);
    const earlier = manifestKey === undefined ? undefined : await checkpoints!.find(manifestKey);
    if (earlier !== undefined) {
      report.inserted = earlier.inserted;
      report.updated = earlier.updated;
      report.resumed = { afterLine: earlier.throughLine, failed: earlier.failed };
      options.onResume?.(earlier.throughLine);
    }
    const resumeAfter = earlier?.throughLine ?? 0;
    /** Every line through this one is stored or refused. */
    let doneThrough = resumeAfter;
    let saved = { through: doneThrough, at: Date.now() };
    const saveProgress = async () => {
      if (manifestKey === undefined || doneThrough === saved.through) return;
      if (doneThrough - saved.through < CHECKPOINT_LINES && Date.now() - saved.at < CHECKPOINT_MS) return;
      const failedSoFar = report.failed.length + (report.resumed?.failed ?? 0);
      await checkpoints!.save({ manifest: manifestKey, throughLine: doneThrough, inserted: report.inserted, updated: report.updated, failed: failedSoFar });
      saved = { through: doneThrough, at: Date.now() };
    };
    let done = 0;
    const counted = (lineNumber: number, outcome: RecordOutcome) => {
      const { id, operation, changes } = outcome;
      if (operation === 'insert') report.inserted += 1;
      else report.updated += 1;
      if (operation === 'update' && changes.length === 0) report.unchanged += 1;
      else if (options.dryRun) report.planned.push({ line: lineNumber, id, operation, changes });
      if (outcome.unlicensable) report.unlicensable.push({ line: lineNumber, id });
      for (const unfit of outcome.unfit) report.unfit.push({ line: lineNumber, id, ...unfit });
    };
    const failed = (lineNumber: number, error: unknown) => report.failed.push({ line: lineNumber, reason: reasonOf(error) });
    const progressed = (lines: number) => {
      done += lines;
      options.onProgress?.(done, Math.max(total, done));
    };
    // Events and lines of metadata only are written a batch at a time (not on a dry run, which writes nothing).
    const batch = new MetadataBatch();
    const flush = async () => {
      const lines = batch.take();
      if (lines.length === 0) return;
      await this.storeBatch(lines, writeOptions, counted, failed);
      doneThrough = lines[lines.length - 1]!.lineNumber;
      progressed(lines.length);
      await saveProgress();
    };
    // A large load into an empty store builds these indexes once, sorted, at its end.
    const deferred = initialLoadIndexes === undefined || total - resumeAfter < INITIAL_LOAD_LINES ? [] : await initialLoadIndexes.defer();
    if (deferred.length > 0) options.onIndexesDeferred?.(deferred);
    try {
      let lineNumber = 0;
      for await (const rawLine of readLines(manifestPath)) {
        lineNumber += 1;
        const line = lineNumber === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
        if (line.trim() === '') continue;
        if (lineNumber <= resumeAfter) {
          // Done by the run that stopped.
          done += 1;
          continue;
        }
        const batched = options.dryRun ? undefined : batchedLine(line, lineNumber);
        if (batched !== undefined) {
          // The same record twice in a batch would be read before its first write: the batch is written first.
          if (batch.has(batched.record)) await flush();
          batch.add(batched);
          if (batch.full) await flush();
          continue;
        }
        await flush();
        try {
          counted(lineNumber, await this.ingestLine(line, media, writeOptions));
        } catch (error) {
          failed(lineNumber, error);
        }
        doneThrough = lineNumber;
        progressed(1);
        await saveProgress();
      }
      await flush();
      // The whole manifest is in: a run of it again starts at line 1.
      if (manifestKey !== undefined) await checkpoints!.remove(manifestKey);
    } finally {
      // Also when the run fails; a run killed before this point leaves them to the next start (migrateToLatest).
      if (deferred.length > 0) {
        options.onIndexesBuilding?.(deferred);
        await initialLoadIndexes!.restore();
      }
    }
    return report;
  }

  /**
   * Writes a batch of lines (events, and images and videos without a file; each record once):
   * what is stored for them read at once, each record made as ingestLine makes it, and the
   * records written in one transaction (the events in one, the assets in another). When
   * that transaction is refused (a record in conflict), they are written one by one, so that
   * each line gets the outcome or the reason it would have had alone. A line whose id is stored
   * with an original (derived from again, as a line without a file asks) or as the other type
   * goes the one-by-one way from the start.
   */
  private async storeBatch(
    lines: readonly BatchedLine[],
    options: WriteOptions,
    counted: (lineNumber: number, outcome: RecordOutcome) => void,
    failed: (lineNumber: number, error: unknown) => void,
  ): Promise<void> {
    const events = lines.filter((line): line is BatchedLine<EventManifestRecord> => line.record.asset_type === 'event');
    const assets = lines.filter((line): line is BatchedLine<AssetManifestRecord> => line.record.asset_type !== 'event');
    if (events.length > 0) await this.storeEventBatch(events, options, counted, failed);
    if (assets.length === 0) return;
    const storedById = new Map((await this.deps.catalog.findAssetsInAnyState(undefined, assets.map(({ record }) => record.id))).map((stored) => [stored.id, stored]));
    const ready: Array<{ lineNumber: number; prepared: PreparedAsset }> = [];
    const alone: Array<BatchedLine<AssetManifestRecord>> = [];
    for (const line of assets) {
      const stored = storedById.get(line.record.id);
      if (stored !== undefined && (stored.asset_type !== line.record.asset_type || stored.original !== null)) {
        alone.push(line);
        continue;
      }
      try {
        ready.push({ lineNumber: line.lineNumber, prepared: await this.prepareAsset(line.record, undefined, line.named, options, undefined, stored, false) });
      } catch (error) {
        failed(line.lineNumber, error);
      }
    }
    await writeBatchElseAlone(
      ready,
      (inputs) => this.deps.catalog.upsertAssets(inputs),
      (input) => this.deps.catalog.upsertAsset(input),
      counted,
      failed,
    );
    for (const line of alone) {
      try {
        counted(line.lineNumber, await this.store(line.record, undefined, line.named, options));
      } catch (error) {
        failed(line.lineNumber, error);
      }
    }
  }

  /** A batch's events: storeBatch's way, for events (what is stored read at once, written in one transaction, one by one when refused). */
  private async storeEventBatch(
    lines: ReadonlyArray<BatchedLine<EventManifestRecord>>,
    options: WriteOptions,
    counted: (lineNumber: number, outcome: RecordOutcome) => void,
    failed: (lineNumber: number, error: unknown) => void,
  ): Promise<void> {
    const storedById = new Map((await this.deps.catalog.findEventRecords(lines.map(({ record }) => record.id))).map((stored) => [stored.id, stored]));
    const ready = lines.map((line) => ({ lineNumber: line.lineNumber, prepared: prepareEvent(line.record, line.named, options, storedById.get(line.record.id)) }));
    await writeBatchElseAlone(
      ready,
      (inputs) => this.deps.catalog.upsertEvents(inputs),
      (input) => this.deps.catalog.upsertEvent(input),
      counted,
      failed,
    );
  }

  /**
   * Stores one record given as a value rather than a manifest line (the demo seeder uses
   * this): validated exactly like a line, its file handed in as bytes, or a video as a local
   * file, instead of a path in a media folder; an image's EPS file (`eps_file`) as bytes too.
   * Throws IngestLineError when the record is refused.
   */
  async ingestRecord(value: unknown, file?: Buffer | VideoFile, epsFile?: Buffer): Promise<'insert' | 'update'> {
    return (await this.applyRecord(value, file, {}, epsFile)).operation;
  }

  /** ingestRecord, saying what it changed (or on a dry run would change) and what to warn of. */
  async applyRecord(value: unknown, file?: Buffer | VideoFile, options: RecordOptions = {}, epsFile?: Buffer): Promise<RecordOutcome> {
    const record = parse(value);
    if (record.asset_type !== 'event' && record.file !== undefined && file === undefined) {
      throw new IngestLineError(`file '${record.file}' is named but no file content was given`);
    }
    const epsName = record.asset_type === 'image' ? record.eps_file : undefined;
    if (epsName !== undefined && epsFile === undefined) throw new IngestLineError(`eps_file '${epsName}' is named but no file content was given`);
    return this.store(record, file, namedFields(value), options, epsFile);
  }

  private async ingestLine(line: string, media: MediaFolder, options: WriteOptions): Promise<RecordOutcome> {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new IngestLineError(`not valid JSON: ${(error as Error).message}`);
    }
    const record = parse(value);
    let file: Buffer | VideoFile | undefined;
    if (record.asset_type !== 'event' && record.file !== undefined) {
      // A video line's file is read where it lies (ffmpeg reads it), unless it is a poster still.
      const videoPath = record.asset_type === 'video' ? await media.resolve(record.file) : undefined;
      file = videoPath !== undefined && !isStillPicture(await headOfFile(videoPath)) ? { videoPath } : await media.read(record.file);
    }
    const epsFile = record.asset_type === 'image' && record.eps_file !== undefined ? await media.read(record.eps_file) : undefined;
    return this.store(record, file, namedFields(value), options, epsFile);
  }

  /**
   * Stores one validated record: over what is stored for its id (the fields it leaves out keep
   * their values) unless `replace`; nothing at all on a dry run. `named` is every field the raw
   * record names, those given as null included.
   */
  private async store(
    record: ManifestRecord,
    file: Buffer | VideoFile | undefined,
    named: ReadonlySet<string>,
    options: RecordOptions,
    epsFile?: Buffer,
  ): Promise<RecordOutcome> {
    if (record.asset_type === 'event') return this.storeEvent(record, named, options);
    // What is stored whatever its state: a line over a draft or a withdrawn asset keeps its fields (and its state).
    const stored = (await this.deps.catalog.findAssetsInAnyState(record.asset_type, [record.id]))[0];
    const { input, outcome } = await this.prepareAsset(record, file, named, options, epsFile, stored, true);
    const operation = options.dryRun ? await this.plannedOperation(input.asset_type, input.id, stored) : await this.deps.catalog.upsertAsset(input);
    if (!options.dryRun && input.original !== undefined) await this.deps.displayFiles?.prepareDisplayFiles(input.original.key);
    return outcome(operation);
  }

  /**
   * The input a validated image or video record becomes over what is `stored` for it, and the
   * outcome its write will have (its changes, warnings). `mayHaveOriginal` false: the caller read
   * that the asset has no original stored, so none is looked for.
   */
  private async prepareAsset(
    record: AssetManifestRecord,
    file: Buffer | VideoFile | undefined,
    named: ReadonlySet<string>,
    options: RecordOptions,
    epsFile: Buffer | undefined,
    stored: EditableAssetRecord | undefined,
    mayHaveOriginal: boolean,
  ): Promise<PreparedAsset> {
    const blobs = options.dryRun ? new UnwrittenBlobStore(this.deps.blobs) : this.deps.blobs;
    /** The record to build from: with the stored fields it leaves out, but for those the file decides again. */
    const complete = (derived: readonly string[]) => (stored === undefined || options.replace ? record : withStoredFields(record, stored, named, derived));
    let input = record.asset_type === 'video' ? await this.videoInput(record, file, complete, blobs, mayHaveOriginal) : undefined;
    if (input === undefined) {
      if (isVideoFile(file)) throw new IngestLineError(`file '${record.file ?? '(given)'}' is a video file; only a video's line may name one`);
      // Without a file, an asset that has an original keeps it, and what derives from it is
      // derived again from the stored bytes, exactly as if the file had been given.
      const source = file ?? (mayHaveOriginal ? await this.storedOriginal(record.asset_type, record.id) : undefined);
      input = await buildAssetInput(complete(derivedFromPicture(record.asset_type, file, source, stored)), source, blobs, this.deps.classifier);
    }
    if (input.asset_type === 'image') {
      const change: EpsChange =
        epsFile !== undefined ? { give: epsFile, name: (record as { eps_file?: string }).eps_file ?? '(given)' } : named.has('eps_file') || options.replace ? 'clear' : 'keep';
      try {
        input = await withEpsOriginal(input, change, stored, blobs);
      } catch (error) {
        if (error instanceof EpsLineError) throw error.unreadable ? new UnreadableFileError(error.message) : new IngestLineError(error.message);
        throw error;
      }
    }
    const title = input.fields.title;
    let titledFromFileName: string | undefined;
    if (options.titleFromFileName !== undefined && (typeof title !== 'string' || title.trim() === '')) {
      titledFromFileName = options.titleFromFileName;
      input.fields.title = titledFromFileName;
    }
    if (options.publication !== undefined) input.publication = options.publication;
    else if (options.publicationOfNew !== undefined && stored === undefined) input.publication = options.publicationOfNew;
    const productTypes = Array.isArray(input.fields.product_types) ? (input.fields.product_types as string[]) : [];
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    const written = input;
    return {
      input: written,
      outcome: (operation) => ({
        id: written.id,
        operation,
        changes: stored === undefined ? [] : assetChanges(stored, written),
        titledFromFileName,
        unlicensable: productTypes.length === 0,
        unfit: unfitProductTypes({ assetType: written.asset_type, family: text(written.fields.asset_family), licenseModel: text(written.fields.license_model), productTypes }),
      }),
    };
  }

  private async storeEvent(record: EventManifestRecord, named: ReadonlySet<string>, options: WriteOptions): Promise<RecordOutcome> {
    const stored = (await this.deps.catalog.findEventRecords([record.id]))[0];
    const { input, outcome } = prepareEvent(record, named, options, stored);
    return outcome(options.dryRun ? (stored === undefined ? 'insert' : 'update') : await this.deps.catalog.upsertEvent(input));
  }

  /** What a dry run reports for an asset: insert or update, or the conflict a real run would meet. */
  private async plannedOperation(assetType: 'image' | 'video', id: string, stored: AssetRecord | undefined): Promise<'insert' | 'update'> {
    if (stored !== undefined) return 'update';
    const otherType = assetType === 'image' ? 'video' : 'image';
    if ((await this.deps.catalog.findAssetsInAnyState(otherType, [id])).length > 0) {
      throw new CatalogConflictError(`asset ${id} is a ${otherType}, not a ${assetType}`);
    }
    return 'insert';
  }

  /**
   * A video line with a video file (given, or the asset's stored one when none is given): its
   * input from the file's facts. Undefined when there is no video file (none at all, or a
   * poster still): the line goes the image way. `complete` adds the stored fields to keep.
   */
  private async videoInput(
    record: AssetManifestRecord & { asset_type: 'video' },
    file: Buffer | VideoFile | undefined,
    complete: (derived: readonly string[]) => AssetManifestRecord,
    blobs: BlobStore,
    mayHaveOriginal: boolean,
  ): Promise<AssetInput | undefined> {
    const deps = { blobs, tools: (this.videoTools ??= VideoTools.fromEnvironment()), classifier: this.deps.classifier };
    // A file that does not probe or decode is an unreadable file; anything else wrong is the record's.
    const fail = (message: string, cause?: unknown) => (cause === undefined ? new IngestLineError(message) : new UnreadableFileError(message, { cause }));
    const build = async (video: VideoFile) => {
      // What the container's tags say fills what the record leaves out (the record wins), as for a picture.
      const described = withEmbeddedFields(complete(VIDEO_FACT_FIELDS), 'video', await readVideoMetadata(deps.tools, video.videoPath)) as typeof record;
      return buildVideoInput(described, video, deps, fail);
    };
    if (isVideoFile(file)) return build(file);
    if (Buffer.isBuffer(file)) return isStillPicture(file) ? undefined : withVideoBytes(file, build);
    const found = mayHaveOriginal ? await this.deps.catalog.findOriginalInAnyState(record.id) : undefined;
    return found === undefined ? undefined : withStoredVideo(this.deps.blobs, found.originalKey, build);
  }

  /** The original already stored for an asset, as a source to derive from; undefined when it has none. */
  private async storedOriginal(assetType: 'image' | 'video', id: string): Promise<MediaSource | undefined> {
    const found = await this.deps.catalog.findOriginalInAnyState(id);
    if (found === undefined) return undefined;
    const data = await this.deps.blobs.get(found.originalKey);
    if (data === undefined) {
      throw new IngestLineError(
        `asset '${id}' keeps its original ${found.originalKey}, but that file is missing from the blob store; give the file again`,
      );
    }
    // The signature goes with the original it was computed from; a record of another type
    // has none to keep (and its upsert is refused as a conflict anyway).
    const records = await this.deps.catalog.findAssetsInAnyState(assetType, [id]);
    return {
      data,
      storedKey: found.originalKey,
      storedSignature: records[0]?.visual_signature ?? undefined,
      storedFacts: records[0]?.media_facts ?? undefined,
    };
  }
}

/** An image or video record made ready to write, and the outcome its write has. */
interface PreparedAsset {
  input: AssetInput;
  outcome(operation: 'insert' | 'update'): RecordOutcome;
}

/** A manifest line of an event, or of an image or video that names no file: stored with others in one batch. */
interface BatchedLine<R extends ManifestRecord = ManifestRecord> {
  lineNumber: number;
  record: R;
  named: ReadonlySet<string>;
}

/** The event a validated event record becomes over what is `stored` for it, and the outcome its write will have. */
function prepareEvent(
  record: EventManifestRecord,
  named: ReadonlySet<string>,
  options: WriteOptions,
  stored: EventRecord | undefined,
): { input: EventInput; outcome(operation: 'insert' | 'update'): RecordOutcome } {
  const { asset_type: _eventType, ...event } = stored === undefined || options.replace ? record : withStoredEventFields(record, stored, named);
  return {
    input: event,
    outcome: (operation) => ({ id: String(record.id), operation, changes: stored === undefined ? [] : eventChanges(stored, event), unlicensable: false, unfit: [] }),
  };
}

/**
 * Lines written together: a transaction of this many records costs little more than one of a
 * single record. Many: a batch's keyword links land on pages all over the index by keyword, and
 * each page a commit changes is written (to the journal, then to the store) once per commit
 * whatever the number of its new entries; the more entries a commit puts on a page, the fewer
 * times that page is written.
 */
const BATCH_LINES = 5_000;
/**
 * How often a run saves how far it has come: every so many lines or seconds, whichever comes
 * first. A stopped run is continued from there; the lines after it, stored already or not, are
 * stored again (the same record, the same content).
 */
const CHECKPOINT_LINES = 5_000;
/**
 * Lines left to load from which a load into an empty store leaves its deferrable indexes out
 * (InitialLoadIndexes): below it the sorted build saves little, and a small ingest's output
 * stays as it was.
 */
const INITIAL_LOAD_LINES = 10_000;
const CHECKPOINT_MS = 2_000;

/**
 * What tells a manifest's run from another's: the file (its real path, size and modification
 * time: a manifest edited since is a new run) and what the run is asked to do with it.
 */
async function manifestFingerprint(manifestPath: string, mediaDir: string, replace: boolean): Promise<string> {
  const stat = await fsp.stat(manifestPath);
  const identity = [await fsp.realpath(manifestPath), stat.size, stat.mtimeMs, path.resolve(mediaDir), replace];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/** The lines waiting to be written together, each record (an asset's id, an event's) at most once. */
class MetadataBatch {
  private lines: BatchedLine[] = [];
  private readonly keys = new Set<string>();

  get full(): boolean {
    return this.lines.length >= BATCH_LINES;
  }

  has(record: ManifestRecord): boolean {
    return this.keys.has(recordKey(record));
  }

  add(line: BatchedLine): void {
    this.lines.push(line);
    this.keys.add(recordKey(line.record));
  }

  /** The lines waiting, in manifest order; the batch is empty after. */
  take(): BatchedLine[] {
    const lines = this.lines;
    this.lines = [];
    this.keys.clear();
    return lines;
  }
}

/** Events and assets are numbered apart: an event and an image may share an id. */
function recordKey(record: ManifestRecord): string {
  return `${record.asset_type === 'event' ? 'event' : 'asset'} ${record.id}`;
}

/**
 * The line as a record that a batch can take, when it is one: a valid event, or image or video
 * with neither `file` nor `eps_file`. Undefined for anything else (a line with a file, a line
 * that is refused), which goes the one-by-one way, where a refusal gets its reason.
 */
function batchedLine(line: string, lineNumber: number): BatchedLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const checked = checkManifestLine(value);
  if (!checked.ok) return undefined;
  const record = checked.record;
  if (record.asset_type !== 'event' && record.file !== undefined) return undefined;
  if (record.asset_type === 'image' && record.eps_file !== undefined) return undefined;
  return { lineNumber, record, named: namedFields(value) };
}

/** The bytes an asset's sizes are derived from: a file given with the line, or the original it already has. */
export interface MediaSource {
  data: Buffer;
  /** Set for the stored original of an asset re-ingested without a file: the key it stays under. */
  storedKey?: string;
  /** The stored original's visual signature as stored ("v<version>:<base64>"), kept when still of the current version. */
  storedSignature?: string | undefined;
  /** The stored original's media facts, kept when of the current version. */
  storedFacts?: MediaFacts | undefined;
}

/** Every top-level field a raw record names, null ones included. */
function namedFields(value: unknown): ReadonlySet<string> {
  return new Set(typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : []);
}

/**
 * The fields a picture (an image's, or a video's poster still) decides again, so that a stored
 * value of them is not carried over: its size and, for an image, the download sizes; and the
 * orientation too when a new file replaces the original it was read from.
 */
function derivedFromPicture(
  assetType: 'image' | 'video',
  file: Buffer | undefined,
  source: Buffer | MediaSource | undefined,
  stored: AssetRecord | undefined,
): string[] {
  if (source === undefined) return [];
  const derived = assetType === 'image' ? ['max_dimensions', 'download_sizes'] : ['max_dimensions'];
  const sameOriginal = file === undefined || stored?.original?.key.startsWith(`originals/${createHash('sha256').update(file).digest('hex')}.`) === true;
  if (!sameOriginal) derived.push('orientation');
  return derived;
}

function parse(value: unknown): ManifestRecord {
  const checked = checkManifestLine(value);
  if (!checked.ok) throw new InvalidRecordError(checked.problems);
  return checked.record;
}

function reasonOf(error: unknown): string {
  if (error instanceof IngestLineError || error instanceof CatalogConflictError) return error.message;
  return `could not store the record: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * The one way a validated image or video record becomes an AssetInput, for manifests and
 * the demo alike. With a file, given with the line or the original the asset already has:
 * the file is probed (and fully decoded), a given one stored as `originals/<sha256>.<ext>`
 * while a kept one stays under its key, and max_dimensions, orientation (unless given) and,
 * for images, download_sizes are derived from it; giving max_dimensions or image
 * download_sizes as well is an error. Its visual signature (search by image) is computed too,
 * for videos as well (their file is a poster still); a kept original keeps its stored
 * signature unless that one is of another descriptor version. Without a file: max_dimensions
 * and download_sizes are taken as given, orientation, when absent, follows from
 * max_dimensions, and there is no signature.
 */
export async function buildAssetInput(
  record: AssetManifestRecord,
  source: Buffer | MediaSource | undefined,
  blobs: BlobStore,
  classifier?: NudityScorer,
): Promise<AssetInput> {
  // eps_file is stored apart (eps-original.ts), after the raster original is.
  const { asset_type: assetType, id, file: fileName, nudity_scores: givenNudity, ...rest } = record;
  const { eps_file: _epsFile, ...given } = rest as typeof rest & { eps_file?: string };
  if (givenNudity !== undefined && source === undefined) {
    throw new IngestLineError('nudity_scores must come with a file (or a stored original): they are scores of its picture');
  }
  let fields: Record<string, unknown> = { ...given };
  let original: OriginalFile | undefined;
  let visualSignature: string | null = null;
  let mediaFacts: MediaFacts | null | undefined;
  if (source !== undefined) {
    const { data: file, storedKey, storedSignature, storedFacts }: MediaSource = Buffer.isBuffer(source) ? { data: source } : source;
    const storedOriginal = storedKey !== undefined;
    const notGiven = (field: string) =>
      new IngestLineError(
        storedOriginal
          ? `${field} must not be given: asset '${id}' keeps its stored original, from which they are derived ` +
              '(give a new file to replace it)'
          : `${field} must not be given with a file: they are derived from it`,
      );
    if (assetType === 'image' && given.download_sizes !== undefined) throw notGiven('download_sizes');
    if (given.max_dimensions !== undefined) throw notGiven('max_dimensions');
    const what = storedOriginal ? `stored original of asset '${id}'` : `file '${fileName ?? '(given)'}'`;
    let probed: ProbedImage;
    try {
      probed = await probeImage(file);
    } catch (error) {
      throw new UnreadableFileError(`${what}: ${(error as Error).message}`, { cause: error });
    }
    visualSignature = isCurrentSignature(storedSignature) ? storedSignature : await visualSignatureOf(file, what);
    // What the file says about itself fills what the record leaves out (the record wins).
    fields = withEmbeddedFields(fields, assetType, await readEmbeddedMetadata(file));
    // Colours and nudity are read from a picture (a video's poster still included).
    if (probed.media_type.startsWith('image/')) {
      // Scores the record gives stand for the classifier's: it is not run.
      const scorer = givenNudity === undefined ? classifier : undefined;
      mediaFacts = isCurrentFacts(storedFacts, scorer !== undefined) ? storedFacts : await mediaFactsOf(file, what, scorer);
      if (givenNudity !== undefined) mediaFacts = { ...mediaFacts, nudity: { ...givenNudity } };
    }
    let key = storedKey;
    if (key === undefined) {
      const extension = EXTENSIONS[probed.media_type] ?? 'bin';
      key = `originals/${createHash('sha256').update(file).digest('hex')}.${extension}`;
      // Content-addressed: the same bytes already stored need not be written again.
      if ((await blobs.size(key)) !== file.length) await blobs.put(key, file);
    }
    original = {
      key,
      media_type: probed.media_type,
      width: probed.width,
      height: probed.height,
      dpi: probed.dpi,
      bytes: probed.bytes,
    };
    fields.max_dimensions = { height: probed.height, width: probed.width };
    fields.orientation ??= orientationFor(assetType, probed.width, probed.height);
    if (assetType === 'image') fields.download_sizes = downloadSizesFor(probed);
  } else if (given.max_dimensions !== undefined && given.orientation === undefined) {
    fields.orientation = orientationFor(assetType, given.max_dimensions.width, given.max_dimensions.height);
  }
  return { asset_type: assetType, id, fields, original, visual_signature: visualSignature, media_facts: mediaFacts ?? null };
}

/**
 * Writes a batch's prepared records in one transaction; when the store refuses the batch, writes
 * each record alone, so that every line gets the outcome and the message it would have had by
 * itself (the batch's own error names no line, so it is not reported).
 */
async function writeBatchElseAlone<Input>(
  ready: ReadonlyArray<{ lineNumber: number; prepared: { input: Input; outcome(operation: 'insert' | 'update'): RecordOutcome } }>,
  writeAll: (inputs: Input[]) => Promise<Array<'insert' | 'update'>>,
  writeOne: (input: Input) => Promise<'insert' | 'update'>,
  counted: (lineNumber: number, outcome: RecordOutcome) => void,
  failed: (lineNumber: number, error: unknown) => void,
): Promise<void> {
  let operations: Array<'insert' | 'update'> | undefined;
  try {
    operations = await writeAll(ready.map(({ prepared }) => prepared.input));
  } catch {
    operations = undefined;
  }
  for (const [index, { lineNumber, prepared }] of ready.entries()) {
    try {
      counted(lineNumber, prepared.outcome(operations?.[index] ?? (await writeOne(prepared.input))));
    } catch (error) {
      failed(lineNumber, error);
    }
  }
}

async function mediaFactsOf(file: Buffer, what: string, classifier: NudityScorer | undefined): Promise<MediaFacts> {
  try {
    return await computeMediaFacts(file, classifier);
  } catch (error) {
    throw new IngestLineError(`${what}: its colours and nudity scores could not be computed (${(error as Error).message})`);
  }
}

/** Whether a stored signature can be compared with new ones: of the current version and intact. */
function isCurrentSignature(stored: string | undefined): stored is string {
  if (stored === undefined) return false;
  try {
    return decodeStoredSignature(stored) !== undefined;
  } catch {
    // A damaged value is recomputed rather than kept.
    return false;
  }
}

async function visualSignatureOf(file: Buffer, what: string): Promise<string> {
  try {
    return encodeStoredSignature(await computeVisualSignature(file));
  } catch (error) {
    throw new IngestLineError(`${what}: no visual signature could be computed (${(error as Error).message})`);
  }
}

/** Images use the spec's five orientations; videos are horizontal or vertical (a square poster counts as horizontal). */
function orientationFor(assetType: 'image' | 'video', width: number, height: number): string {
  if (assetType === 'image') return orientationOf(width, height);
  return width >= height ? 'horizontal' : 'vertical';
}

/** Files named by manifest lines, read only from inside one folder. */
class MediaFolder {
  private root: Promise<string> | undefined;

  constructor(private readonly dir: string) {}

  async read(file: string): Promise<Buffer> {
    const real = await this.resolve(file);
    try {
      return await fsp.readFile(real);
    } catch (error) {
      throw new IngestLineError(`file '${file}' could not be read: ${(error as Error).message}`);
    }
  }

  /** The real path of a regular file inside the folder; IngestLineError for any other. */
  async resolve(file: string): Promise<string> {
    if (path.isAbsolute(file) || path.win32.isAbsolute(file)) {
      throw new IngestLineError(`file '${file}' must be a path relative to the media folder, not an absolute path`);
    }
    if (file.split(/[\\/]+/).includes('..')) {
      throw new IngestLineError(`file '${file}' must stay inside the media folder ('..' is not allowed)`);
    }
    const root = await this.realRoot();
    let real: string;
    try {
      real = await fsp.realpath(path.resolve(root, file));
    } catch {
      throw new IngestLineError(`file '${file}' does not exist in the media folder ${this.dir}`);
    }
    // A symbolic link inside the folder must not lead out of it either.
    const relative = path.relative(root, real);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new IngestLineError(`file '${file}' leads outside the media folder`);
    }
    const stat = await fsp.stat(real);
    if (!stat.isFile()) throw new IngestLineError(`file '${file}' is not a regular file`);
    return real;
  }

  private realRoot(): Promise<string> {
    this.root ??= fsp.realpath(this.dir).catch(() => {
      throw new IngestLineError(`media folder ${this.dir} does not exist`);
    });
    return this.root;
  }
}

/** Why a manifest cannot be read, in one line naming it (not a bare ENOENT). */
export class ManifestUnreadableError extends Error {
  override name = 'ManifestUnreadableError';
}

async function checkReadableManifest(file: string): Promise<void> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'there is no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory, not a file'
            : (error as Error).message;
    throw new ManifestUnreadableError(`cannot read the manifest ${file}: ${why}`);
  }
  try {
    if ((await handle.stat()).isDirectory()) throw new ManifestUnreadableError(`cannot read the manifest ${file}: it is a directory, not a file`);
  } finally {
    await handle.close();
  }
}

function readLines(file: string): AsyncIterable<string> {
  return readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
}

/**
 * How many lines of the file hold more than white space: the total that progress is shown
 * against. A scan of the bytes rather than a read of the lines as text, since it reads the
 * whole manifest before the run starts, and decoding a million lines as text costs seconds.
 */
async function countNonBlankLines(file: string): Promise<number> {
  let count = 0;
  let lineHasText = false;
  let first = true;
  for await (const read of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const chunk = read as Buffer;
    // A byte order mark is no text of the first line.
    let start = first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
    first = false;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      for (let at = start; !lineHasText && at < end; at++) lineHasText = !WHITE_SPACE_BYTES.has(chunk[at]!);
      if (newline !== -1) {
        if (lineHasText) count += 1;
        lineHasText = false;
      }
      start = end + 1;
    }
  }
  return lineHasText ? count + 1 : count;
}

/** Space, tab, carriage return, vertical tab and form feed. */
const WHITE_SPACE_BYTES = new Set([0x20, 0x09, 0x0d, 0x0b, 0x0c]);
