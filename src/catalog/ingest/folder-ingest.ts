import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { readEmbeddedMetadata, readVideoMetadata, type ProbeRunner } from '../../media/embedded-metadata.js';
import { VideoTools } from '../../media/video/video-tools.js';
import { parseManifestLine } from './ingest.schemas.js';
import { IngestLineError, ManifestUnreadableError, type IngestService } from './ingest.service.js';

/*
 * `stockroom ingest ./folder`: a folder of pictures, with no manifest, becomes assets. Each file
 * describes itself (its embedded IPTC, XMP and EXIF metadata); what no file says comes from the
 * command's flags; the id is the file's content hash, so running it again updates the same
 * assets instead of adding copies.
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

export interface FolderIngestOptions {
  defaults?: FolderDefaults;
  /** Reads a video's metadata tags; default: ffprobe as STOCKROOM_FFPROBE_PATH says, else the packaged one. */
  probe?: ProbeRunner;
  /** Called after each file is done: stored or skipped. */
  onProgress?: (done: number, total: number) => void;
}

export interface FolderIngestReport {
  created: Array<{ file: string; id: string }>;
  updated: Array<{ file: string; id: string }>;
  /** Files that did not become assets, each with the reason. */
  skipped: Array<{ file: string; reason: string }>;
}

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.tif', '.tiff']);
const VIDEO_EXTENSIONS = new Set(['.mp4', '.mov', '.m4v', '.mkv', '.webm', '.avi', '.mts', '.m2ts', '.mxf', '.mpg', '.mpeg']);
/** Hex digits of the content hash an id keeps: 96 bits, no collision in any real catalogue. */
const ID_HEX_DIGITS = 24;

/** The asset id of a file: its SHA-256 cut to 24 hex digits, the same on every run and machine. */
export function contentId(file: Buffer): string {
  return createHash('sha256').update(file).digest('hex').slice(0, ID_HEX_DIGITS);
}

/** contentId of a file on disk, read as a stream: a video need not fit in memory. */
async function contentIdOfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex').slice(0, ID_HEX_DIGITS);
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
  const report: FolderIngestReport = { created: [], updated: [], skipped: [] };
  const firstWithId = new Map<string, string>();
  /** Two files with the same content are one asset: the first in path order is it. */
  const claim = (id: string, relative: string) => {
    const first = firstWithId.get(id);
    if (first !== undefined) throw new IngestLineError(`the same content as ${first} (asset ${id})`);
    firstWithId.set(id, relative);
  };
  let done = 0;
  let tagReader = options.probe;
  /** Stores one file as an asset: its id, and whether it was created or updated. */
  const ingestOne = async ({ relative, absolute, problem }: FolderEntry): Promise<{ id: string; operation: 'insert' | 'update' }> => {
    if (problem !== undefined) throw new IngestLineError(problem);
    const extension = path.extname(relative).toLowerCase();
    const unreadable = (error: Error): never => {
      throw new IngestLineError(`could not be read: ${error.message}`);
    };
    if (VIDEO_EXTENSIONS.has(extension)) {
      const id = await contentIdOfFile(absolute).catch(unreadable);
      claim(id, relative);
      // Ingest reads the container's tags itself; here only whether they name the artist, which the flag must not override.
      const value: Record<string, unknown> = { asset_type: 'video', id, file: relative, ...fields };
      if (defaults.artist !== undefined && (await readVideoMetadata((tagReader ??= VideoTools.fromEnvironment()), absolute)).artist === undefined) {
        value.artist = defaults.artist;
      }
      return { id, operation: await ingest.ingestRecord(value, { videoPath: absolute }) };
    }
    if (!IMAGE_EXTENSIONS.has(extension)) throw new IngestLineError(`not an image or video (${extension === '' ? 'no extension' : extension})`);
    const data = await fsp.readFile(absolute).catch(unreadable);
    const id = contentId(data);
    claim(id, relative);
    const value: Record<string, unknown> = { asset_type: 'image', id, file: relative, ...fields };
    if (defaults.artist !== undefined && (await readEmbeddedMetadata(data)).artist === undefined) value.artist = defaults.artist;
    return { id, operation: await ingest.ingestRecord(value, data) };
  };
  for (const entry of files) {
    try {
      const { id, operation } = await ingestOne(entry);
      (operation === 'insert' ? report.created : report.updated).push({ file: entry.relative, id });
    } catch (error) {
      report.skipped.push({ file: entry.relative, reason: error instanceof Error ? error.message : String(error) });
    }
    done += 1;
    options.onProgress?.(done, files.length);
  }
  return report;
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
