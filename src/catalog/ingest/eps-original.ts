import { createHash } from 'node:crypto';
import type { BlobStore } from '../../platform/blobs/blob-store.js';
import { EPS_EXTENSION, EPS_MEDIA_TYPE, NotAnEpsFileError, probeEps, VECTOR_SIZE_NAME } from '../../media/eps-file.js';
import type { AssetInput, AssetRecord } from '../catalog.records.js';
import { epsOriginalOf, EPS_ORIGINAL_FIELD, type EpsOriginal } from '../eps-original.js';

/*
 * An image's EPS (vector) original, the ingest field `eps_file`: stored beside the raster
 * original, content-addressed as `originals/<sha256>.eps`, and offered as the download size
 * named `vector` (media type application/postscript) after the raster sizes. A line without
 * `eps_file` keeps the one stored; `eps_file: null` takes it away.
 */

/** What a line does to an image's EPS original: gives one, clears it (null), or says nothing (keep). */
export type EpsChange = { give: Buffer; name: string } | 'clear' | 'keep';

/** Why an EPS was refused; the ingest service reports it as the line's reason. */
export class EpsLineError extends Error {
  constructor(
    message: string,
    /** the file is not an EPS at all (an unreadable file, as a picture that does not decode) */
    readonly unreadable: boolean,
  ) {
    super(message);
  }
}

/**
 * The input with its EPS original: the given file probed and stored, or the stored one kept; its
 * `vector` download size follows the raster ones. An EPS needs a raster original, from which
 * the picture is shown and sized.
 */
export async function withEpsOriginal(input: AssetInput, change: EpsChange, stored: AssetRecord | undefined, blobs: BlobStore): Promise<AssetInput> {
  if (change === 'clear') return input;
  let eps: EpsOriginal | undefined;
  if (change === 'keep') {
    eps = stored === undefined ? undefined : epsOriginalOf(stored.fields);
    // A stored EPS stays with the raster original it was given beside; without one, it goes.
    if (eps === undefined || input.original === undefined) return input;
  } else {
    if (input.asset_type !== 'image') throw new EpsLineError('eps_file is for images only', false);
    if (input.original === undefined) {
      throw new EpsLineError("eps_file needs the image's raster file too (file): the picture is shown and sized from it, the EPS is offered beside it", false);
    }
    let facts;
    try {
      facts = probeEps(change.give);
    } catch (error) {
      if (error instanceof NotAnEpsFileError) throw new EpsLineError(`eps_file '${change.name}': ${error.message}`, true);
      throw error;
    }
    const key = `originals/${createHash('sha256').update(change.give).digest('hex')}.${EPS_EXTENSION}`;
    // Content-addressed: the same bytes already stored need not be written again.
    if ((await blobs.size(key)) !== change.give.length) await blobs.put(key, change.give);
    eps = { key, bytes: facts.bytes, width: facts.width, height: facts.height };
  }
  const rasterSizes = Array.isArray(input.fields.download_sizes) ? (input.fields.download_sizes as unknown[]) : [];
  const vectorSize = { bytes: eps.bytes, height: eps.height, width: eps.width, media_type: EPS_MEDIA_TYPE, name: VECTOR_SIZE_NAME, dpi: null };
  return { ...input, fields: { ...input.fields, [EPS_ORIGINAL_FIELD]: eps, download_sizes: [...rasterSizes, vectorSize] } };
}
