import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { readEmbeddedMetadata, readVideoMetadata, type ProbeRunner } from '../../media/embedded-metadata.js';
import { VideoTools } from '../../media/video/video-tools.js';
import { fileSystemReason, unreadableReason } from './file-problems.js';
import { parseManifestLine } from './ingest.schemas.js';
import { ManifestUnreadableError, UnreadableFileError, type IngestService, type RecordOutcome, type WriteOptions } from './ingest.service.js';
import type { UnfitProductType } from './product-type-fit.js';
import type { FieldChange } from './stored-fields.js';
import type { Publication } from '../catalog.records.js';

/*
 * `stockroom ingest ./folder`: a folder of pictures, with no manifest, becomes assets. Each file
 * describes itself (its embedded IPTC, XMP and EXIF metadata); what no file says comes from the
 * command's flags; the id is the file's content hash, so running it again updates the same
 * assets instead of adding copies. A run again without the flags keeps what the first run
 * stored (see stored-fields.ts); only `replace` writes each asset afresh.
 */

/** What the flags give every asset of the folder. */
export interface FolderDefaults {
  asset_family?: string | undefined;
  /** A collection code (letters, digits, '_' or '-') or, failing that shape, a collection name. */
  collection?: string | undefined;
  license_model?: string | undefined;
  product_types?: string[] | undefined;
  /** The artist of the files whose metadata names no creator. */
  artist?: string | undefined;
}

export interface FolderIngestOptions extends WriteOptions {
  defaults?: FolderDefaults;
  /** Reads a video's metadata tags; default: ffprobe as STOCKROOM_FFPROBE_PATH says, else the packaged one. */
  probe?: ProbeRunner;
  /** Called after each file is done: stored or skipped. */
  onProgress?: (done: number, total: number) => void;
}

export interface FolderIngestReport {
  created: Array<{ file: string; id: string }>;
  /** Assets stored again, each with the fields that changed (none: stored again as it was). */
  updated: Array<{ file: string; id: string; changes: FieldChange[] }>;
  /** Pictures and videos that could not be read or stored, each with the reason in words: the run failed for them. */
  failed: Array<{ file: string; reason: string }>;
  /** Files that are no asset to ingest (not a picture or video, a link, a copy of another file), each with the reason. */
  skipped: Array<{ file: string; reason: string }>;
  /** Files whose content another file of the folder has: the first in path order is kept. */
  duplicates: Array<{ kept: string; skipped: string; sha256: string }>;
  /** Assets whose file names no title, titled from the file name instead. */
  titled: Array<{ file: string; id: string; title: string }>;
  /** Assets stored without product_types: no product can license them. */
  unlicensable: Array<{ file: string; id: string }>;
  /** Product types an asset lists that can never license it, each with the reason. */
  unfit: Array<{ file: string; id: string } & UnfitProductType>;
}

/** A file that is no asset to ingest (not a picture or video, a copy of another); not a failure. */
export class SkippedFileError extends Error {
  override name = 'SkippedFileError';
}

/**
 * The title a file without one takes from its name: the extension dropped, '_', '-' and '.'
 * read as spaces, the first letter a capital ("harbour-at-dawn_0031.jpg" → "Harbour at dawn
 * 0031"); undefined when nothing but separators is left.
 */
export function titleFromFileName(file: string): string | undefined {
  const words = path.basename(file, path.extname(file)).replace(/[\s_.-]+/g, ' ').trim();
  if (words === '') return undefined;
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.tif', '.tiff']);
const VIDEO_EXTENSIONS = new Set(['.mp4', '.mov', '.m4v', '.mkv', '.webm', '.avi', '.mts', '.m2ts', '.mxf', '.mpg', '.mpeg']);
/** Hex digits of the content hash an id keeps: 96 bits, no collision in any real catalogue. */
const ID_HEX_DIGITS = 24;

/** The asset id of a file: its SHA-256 cut to 24 hex digits, the same on every run and machine. */
export function contentId(file: Buffer): string {
  return createHash('sha256').update(file).digest('hex').slice(0, ID_HEX_DIGITS);
}

/** The SHA-256 (hex) of a file on disk, read as a stream: a video need not fit in memory. */
async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The manifest fields the defaults stand for (artist apart: it yields to the file's own creator). */
function defaultFields(defaults: FolderDefaults): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (defaults.asset_family !== undefined) fields.asset_family = defaults.asset_family;
  if (defaults.license_model !== undefined) fields.license_model = defaults.license_model;
  if (defaults.product_types !== undefined) fields.product_types = defaults.product_types;
  if (defaults.collection !== undefined) {
    if (/^[A-Za-z0-9_-]{1,32}$/.test(defaults.collection)) fields.collection_code = defaults.collection;
    else fields.collection_name = defaults.collection;
  }
  return fields;
}

/** One file to ingest: its name (its extension says picture or video; a title is made from it) and where its bytes lie. */
export interface FileToIngest {
  name: string;
  path: string;
}

/** How one file is ingested: the flags' defaults, how its tags are read, and what is written. */
export interface FileIngestOptions extends WriteOptions {
  defaults?: FolderDefaults | undefined;
  probe?: ProbeRunner | undefined;
  /** Told the file's SHA-256 before anything is stored; throws SkippedFileError to skip it (a folder's second copy of a file). */
  claim?: ((sha256: string) => void) | undefined;
  /** The state to store the asset in; undefined: as ingest decides. */
  publication?: Publication | undefined;
  /** The state to store the asset in if it is new (an upload of the back office: a draft); a stored one keeps its own. */
  publicationOfNew?: Publication | undefined;
}

/** What a file of this name is ingested as, by its extension; undefined for a file that is neither a picture nor a video. */
export function assetTypeOfFileName(name: string): 'image' | 'video' | undefined {
  const extension = path.extname(name).toLowerCase();
  return VIDEO_EXTENSIONS.has(extension) ? 'video' : IMAGE_EXTENSIONS.has(extension) ? 'image' : undefined;
}

/** Why a file of this name is no asset to ingest (not a picture or video by its extension); undefined when it may be one. */
export function uningestibleFileName(name: string): string | undefined {
  if (assetTypeOfFileName(name) !== undefined) return undefined;
  const extension = path.extname(name).toLowerCase();
  return `not an image or video (${extension === '' ? 'no extension' : extension})`;
}

/**
 * Stores one file as an asset, as `stockroom ingest ./folder` stores each of its files (the
 * back office's uploads too): its embedded metadata read, the flags filling what it does not
 * say, titled from its name when it names no title. A video is read where it lies and streamed
 * into the blob store, never held whole. Throws SkippedFileError for a file that is no asset,
 * and the ingest's errors otherwise: fileFailureReason puts them in words.
 */
export async function ingestOneFile(ingest: IngestService, file: FileToIngest, options: FileIngestOptions = {}): Promise<RecordOutcome> {
  const defaults = options.defaults ?? {};
  const fields = defaultFields(defaults);
  const writeOptions: WriteOptions = { replace: options.replace, dryRun: options.dryRun };
  const problem = uningestibleFileName(file.name);
  if (problem !== undefined) throw new SkippedFileError(problem);
  /** A record the flags make but the file's type refuses (rightsready on a picture) skips the file, with the reason. */
  const store = (value: Record<string, unknown>, content: Buffer | { videoPath: string }) => {
    const parsed = parseManifestLine(value);
    if (!parsed.ok) throw new SkippedFileError(parsed.reason);
    return ingest.applyRecord(value, content, { ...writeOptions, titleFromFileName: titleFromFileName(file.name), publication: options.publication, publicationOfNew: options.publicationOfNew });
  };
  const unreadable = (error: unknown): never => {
    throw new UnreadableFileError(`could not be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  };
  if (assetTypeOfFileName(file.name) === 'video') {
    const sha256 = await sha256OfFile(file.path).catch(unreadable);
    options.claim?.(sha256);
    const id = sha256.slice(0, ID_HEX_DIGITS);
    // Ingest reads the container's tags itself; here only whether they name the artist, which the flag must not override.
    const value: Record<string, unknown> = { asset_type: 'video', id, file: file.name, ...fields };
    if (defaults.artist !== undefined && (await readVideoMetadata(options.probe ?? VideoTools.fromEnvironment(), file.path)).artist === undefined) {
      value.artist = defaults.artist;
    }
    return store(value, { videoPath: file.path });
  }
  const data = await fsp.readFile(file.path).catch(unreadable);
  const sha256 = createHash('sha256').update(data).digest('hex');
  options.claim?.(sha256);
  const value: Record<string, unknown> = { asset_type: 'image', id: sha256.slice(0, ID_HEX_DIGITS), file: file.name, ...fields };
  if (defaults.artist !== undefined && (await readEmbeddedMetadata(data)).artist === undefined) value.artist = defaults.artist;
  return store(value, data);
}

/** Flags that would make every file's record invalid; thrown before any file is read. */
export class FolderDefaultsError extends Error {
  override name = 'FolderDefaultsError';
}

/**
 * Ingests every image and video under a folder (recursively, in path order). A video is read
 * where it lies (ffprobe and ffmpeg read the file; see video-ingest.ts). A file that cannot be
 * read or decoded is skipped with the reason; the others go on.
 */
export async function ingestFolder(ingest: IngestService, dir: string, options: FolderIngestOptions = {}): Promise<FolderIngestReport> {
  const stat = await fsp.stat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) throw new ManifestUnreadableError(`cannot read the folder ${dir}: it is not a directory`);
  const defaults = options.defaults ?? {};
  const fields = defaultFields(defaults);
  // The flags are checked once, on a record of their own, so that a bad one stops the command
  // before any file rather than failing every file alike.
  // A flag valid for one type only (license_model rightsready is a video's) skips the files of the other, each with the reason.
  const probe = (assetType: 'image' | 'video') =>
    parseManifestLine({ asset_type: assetType, id: 'x', ...fields, ...(defaults.artist ? { artist: defaults.artist } : {}) });
  const asImage = probe('image');
  if (!asImage.ok && !probe('video').ok) throw new FolderDefaultsError(`the flags do not make a valid record: ${asImage.reason}`);

  const files = await listFiles(dir);
  const report: FolderIngestReport = { created: [], updated: [], failed: [], skipped: [], duplicates: [], titled: [], unlicensable: [], unfit: [] };
  const firstWithHash = new Map<string, string>();
  /** Two files with the same content are one asset: the first in path order is it. */
  const claim = (sha256: string, relative: string) => {
    const first = firstWithHash.get(sha256);
    if (first !== undefined) {
      report.duplicates.push({ kept: first, skipped: relative, sha256 });
      throw new SkippedFileError(`the same content as ${first} (sha256 ${sha256.slice(0, ID_HEX_DIGITS)}…); the first in path order is kept`);
    }
    firstWithHash.set(sha256, relative);
  };
  const fileOptions: FileIngestOptions = { replace: options.replace, dryRun: options.dryRun, defaults, probe: options.probe };
  let done = 0;
  for (const entry of files) {
    const file = entry.relative;
    try {
      if (entry.problem !== undefined) throw new SkippedFileError(entry.problem);
      const outcome = await ingestOneFile(ingest, { name: entry.relative, path: entry.absolute }, { ...fileOptions, claim: (sha256) => claim(sha256, entry.relative) });
      const { id } = outcome;
      if (outcome.operation === 'insert') report.created.push({ file, id });
      else report.updated.push({ file, id, changes: outcome.changes });
      if (outcome.titledFromFileName !== undefined) report.titled.push({ file, id, title: outcome.titledFromFileName });
      if (outcome.unlicensable) report.unlicensable.push({ file, id });
      for (const unfit of outcome.unfit) report.unfit.push({ file, id, ...unfit });
    } catch (error) {
      if (error instanceof SkippedFileError) report.skipped.push({ file, reason: error.message });
      else report.failed.push({ file, reason: await fileFailureReason({ name: entry.relative, path: entry.absolute }, error) });
    }
    done += 1;
    options.onProgress?.(done, files.length);
  }
  return report;
}

/** Why a file failed, in words: what is wrong with the file itself, else the record's own reason. */
export async function fileFailureReason(file: FileToIngest, error: unknown): Promise<string> {
  if (error instanceof UnreadableFileError) {
    const expected = VIDEO_EXTENSIONS.has(path.extname(file.name).toLowerCase()) ? 'video' : 'image';
    return unreadableReason(file.path, expected, error);
  }
  const message = error instanceof Error ? error.message : String(error);
  return fileSystemReason(error) ?? message.replace(/^file '[^']*': /, '');
}

interface FolderEntry {
  /** The path under the folder, with '/' between parts, as reports show it. */
  relative: string;
  absolute: string;
  /** Why it is no file to ingest (a link, a special file); undefined for a regular file. */
  problem?: string;
}

/** Every file under a folder, in path order; hidden files and folders (a leading '.') are left out. */
async function listFiles(root: string): Promise<FolderEntry[]> {
  const out: FolderEntry[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await fsp.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(absolute, relative);
      else if (entry.isFile()) out.push({ relative, absolute });
      // A link could lead anywhere, including round in a loop: it is named, not followed.
      else if (entry.isSymbolicLink()) out.push({ relative, absolute, problem: 'a symbolic link (not followed)' });
      else out.push({ relative, absolute, problem: 'not a regular file' });
    }
  };
  await walk(root, '');
  return out;
}
