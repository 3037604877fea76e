import fs from 'node:fs';

/*
 * The SQLite store holds the display-URL signing key and the session-sealing key, and the blob
 * folder holds every licensed original: none of it is for other accounts of the machine. The
 * data folder is made 0700, the store and its -wal and -shm files 0600, and the blob folder
 * 0700. A folder or file an earlier version left readable by others is tightened at start,
 * and the caller says so in the log.
 */

export const PRIVATE_FOLDER_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** A mode this process changed, for the start-up log. */
export interface TightenedMode {
  path: string;
  /** Octal, as `ls -l` users read modes (e.g. '755'). */
  was: string;
  now: string;
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(3, '0');

/** Takes away what `allowed` does not grant; the owner's own bits are kept as they are. */
function tighten(target: string, allowed: number): TightenedMode | undefined {
  let mode: number;
  try {
    mode = fs.statSync(target).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const tightened = mode & (0o700 | allowed);
  if (tightened === mode) return undefined;
  fs.chmodSync(target, tightened);
  return { path: target, was: octal(mode), now: octal(tightened) };
}

/**
 * A folder only its owner may enter: made 0700 when absent; an existing one loses every right of
 * its group and of others (unless `keepGroup`, for a blob folder an operator shares with a
 * backup group on purpose: then only others lose theirs).
 */
export function privateFolder(folder: string, options: { keepGroup?: boolean } = {}): TightenedMode[] {
  fs.mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const changed = tighten(folder, options.keepGroup ? 0o070 : 0);
  return changed ? [changed] : [];
}

/**
 * The SQLite store and the files SQLite keeps beside it: the store is created 0600 before SQLite
 * opens it (SQLite gives its -wal and -shm files the mode of the store), and any of the three
 * an earlier version made readable by others is made 0600.
 */
export function privateStoreFiles(storeFile: string): TightenedMode[] {
  // 'a' creates the file when absent and leaves an existing one as it is.
  fs.closeSync(fs.openSync(storeFile, 'a', PRIVATE_FILE_MODE));
  const changed: TightenedMode[] = [];
  for (const file of [storeFile, `${storeFile}-wal`, `${storeFile}-shm`]) {
    const result = tighten(file, 0);
    if (result) changed.push(result);
  }
  return changed;
}
