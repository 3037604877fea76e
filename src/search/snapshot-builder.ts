import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/config.js';
import type { DatabaseOptions } from '../platform/db/database.js';

/**
 * The search snapshot built in a child process: the child reads the whole store into an index
 * and writes the snapshot file, and its garbage (hundreds of megabytes at ten million assets:
 * V8 heap, freed but kept malloc arenas) goes when it exits, instead of staying in the server.
 */

/** What the child is given: the parent's settings as resolved, and how to open the very same store. */
export interface SnapshotBuilderSpec {
  config: Config;
  database: DatabaseOptions;
}

/** The environment variable that carries the spec to the child, as JSON (never argv: no re-parsing, nothing in the process list). */
export const BUILDER_SPEC_VARIABLE = 'STOCKROOM_SEARCH_BUILDER_SPEC';

/** The `stockroom` command of this very installation, whichever way the server was started. */
const STOCKROOM_BIN = fileURLToPath(new URL('../../bin/stockroom.js', import.meta.url));

/** Only the heap limits of the server's own Node flags apply to the child (not a test runner's loaders). */
const HEAP_FLAG = /^--max-(old|semi)-space-size(=|$)/;

/**
 * Runs `stockroom search-index build` with the spec and forwards each line it prints to `log`
 * (standard error as warnings). Resolves when the child exits 0; rejects saying how it ended
 * otherwise, with its last line of standard error.
 */
export function buildSnapshotInChild(spec: SnapshotBuilderSpec, log: (message: string, level?: 'info' | 'warn') => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv.filter((flag) => HEAP_FLAG.test(flag)), STOCKROOM_BIN, 'search-index', 'build'], {
      env: { ...process.env, [BUILDER_SPEC_VARIABLE]: JSON.stringify(spec) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lastError = '';
    const forward = (stream: NodeJS.ReadableStream, level: 'info' | 'warn') => {
      const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
      lines.on('line', (line) => {
        if (line.trim() === '') return;
        if (level === 'warn') lastError = line;
        log(`search index builder [pid ${child.pid}]: ${line}`, level);
      });
      return new Promise<void>((done) => lines.once('close', () => done()));
    };
    const output = Promise.all([forward(child.stdout, 'info'), forward(child.stderr, 'warn')]);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      // The last lines are forwarded before the outcome is told.
      void output.then(() => {
        if (code === 0) resolve();
        else {
          const ending = signal ? `killed by ${signal}` : `exit code ${code}`;
          reject(new Error(lastError ? `${ending}: ${lastError}` : ending));
        }
      });
    });
  });
}

/** The spec the parent passed; throws naming the variable when it is absent or not JSON. */
export function readBuilderSpec(env: NodeJS.ProcessEnv = process.env): SnapshotBuilderSpec {
  const text = env[BUILDER_SPEC_VARIABLE];
  if (!text) throw new Error(`${BUILDER_SPEC_VARIABLE} is not set: this command is started by a serving node, not by hand`);
  let spec: Partial<SnapshotBuilderSpec>;
  try {
    spec = JSON.parse(text) as Partial<SnapshotBuilderSpec>;
  } catch (error) {
    throw new Error(`${BUILDER_SPEC_VARIABLE} is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof spec.config !== 'object' || spec.config === null || typeof spec.database !== 'object' || spec.database === null) {
    throw new Error(`${BUILDER_SPEC_VARIABLE} lacks the settings or the store`);
  }
  return { config: Object.freeze(spec.config), database: spec.database };
}
