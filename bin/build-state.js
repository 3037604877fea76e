// What bin/stockroom.js and bin/build.js agree on: where the compiled build lives and how to
// tell, cheaply, that it was made from the sources as they are now.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout (or installation) this file belongs to. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The file a finished build leaves in its folder, last: how many sources it compiled and the newest one's time. */
export const STAMP = '.stockroom-build.json';

/**
 * The sources a build is made from, as a count and the newest modification time: every file
 * under src/ and tsconfig.json (its compiler options shape the output). A `git pull` or a
 * checkout gives each file it changes the current time, an edit does too, and a file added or
 * removed changes the count; a walk of the few hundred files takes a few milliseconds.
 */
export function sourceState(root = ROOT) {
  let count = 0;
  let newest = fs.statSync(path.join(root, 'tsconfig.json')).mtimeMs;
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        count += 1;
        newest = Math.max(newest, fs.statSync(full).mtimeMs);
      }
    }
  };
  walk(path.join(root, 'src'));
  return { sources: count, newest };
}

/**
 * Whether `root`/dist holds a build of the sources as they are now: its stamp is there, names as
 * many sources as there are, and none is newer than the newest it compiled. A missing, partial
 * (no stamp yet) or stale build is not current.
 */
export function buildIsCurrent(root = ROOT) {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(root, 'dist', STAMP), 'utf8'));
  } catch {
    return false;
  }
  let now;
  try {
    now = sourceState(root);
  } catch {
    return false;
  }
  return stamp.sources === now.sources && now.newest <= stamp.newest;
}
