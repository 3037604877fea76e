import type { FastifyInstance } from 'fastify';

/*
 * A write that meets a full disk: ENOSPC (or a quota's EDQUOT) from the blob folder,
 * SQLITE_FULL from SQLite, disk_full (53100) from PostgreSQL. The request changed nothing (the
 * store's transaction rolled back; a blob is written through a temporary file and a rename), so
 * it answers 507 with a named code instead of a 500, and the node's storage check reports it.
 */

export const STORAGE_FULL_CODE = 'InsufficientStorage';
export const STORAGE_FULL_MESSAGE = 'The server has run out of disk space and could not save this request; nothing was changed or charged. Try again once an operator has made room';

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);
const FULL_MESSAGES = /no space left on device|database or disk is full|disk quota exceeded|could not extend file/i;

/** Whether an error (or one it wraps, through `cause`) says the disk is full. */
export function isStorageFull(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
    if (typeof message === 'string' && FULL_MESSAGES.test(message)) return true;
    current = cause;
  }
  return false;
}

/** Where a full disk was met, in a few words, for /readyz and the log. */
export function storageFullReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_FULL') return 'SQLite could not write: the disk is full';
  if (code === '53100') return 'PostgreSQL could not write: its disk is full';
  return 'a file could not be written: the disk is full';
}

/** What the storage check is told of each write that met a full disk. */
export interface StorageFullReports {
  noteStorageFull(reason: string): void;
}

/** Registers, on the root instance, a hook that tells the storage check of every request that met a full disk, on every surface. */
export function registerStorageFullReports(app: FastifyInstance, reports: StorageFullReports): void {
  app.addHook('onError', async (_request, _reply, error) => {
    if (isStorageFull(error)) reports.noteStorageFull(storageFullReason(error));
  });
}
