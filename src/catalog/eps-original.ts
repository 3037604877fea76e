/*
 * An image's EPS (vector) original as the catalogue keeps it: a fact of the record, beside its
 * raster original, that search (file_types=eps), the image's download sizes and downloads
 * (file_type=eps) read. Ingest writes it from the line's `eps_file` (ingest/eps-original.ts).
 */

/** The record field that holds it: never selectable, so never shown in a response. */
export const EPS_ORIGINAL_FIELD = 'eps_original';

export interface EpsOriginal {
  /** Where the file is in the blob store. */
  key: string;
  bytes: number;
  /** Its bounding box, in PostScript points. */
  width: number;
  height: number;
}

/** The record's EPS original, if it has one. */
export function epsOriginalOf(fields: Record<string, unknown>): EpsOriginal | undefined {
  const value = fields[EPS_ORIGINAL_FIELD] as Partial<EpsOriginal> | null | undefined;
  if (typeof value !== 'object' || value === null || typeof value.key !== 'string') return undefined;
  const whole = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0);
  return { key: value.key, bytes: whole(value.bytes), width: whole(value.width), height: whole(value.height) };
}
