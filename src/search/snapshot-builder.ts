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

/** Only the old generation's limit of the server's own Node flags applies to the child (not a test runner's loaders). */
const OLD_SPACE_FLAG = /^--max-old-space-size(=|$)/;
/**
 * A young generation's cap, wherever it is given. A serving node may run with a small young
 * generation (the systemd unit's NODE_OPTIONS: its searches make little garbage, and each
 * megabyte there is resident); a build makes an asset's worth of short-lived objects per
 * document, and with a small young generation more of them would live on into the old one.
 */
const SEMI_SPACE_FLAG = /^--max-semi-space-size(=|$)/;

/**
 * The young generation the child builds with, in MB a semi-space (V8's default is 16): the
 * objects of a page of the store (rows, records, documents) die young, and with room for two
 * pages of them fewer live on into the old generation. A build of a million assets took 132 s
 * with the default, 113 s with 32 MB, 115–117 s with 64 or 128 MB (and more memory).
 */
const BUILDER_SEMI_SPACE_MB = 32;

/**
 * The Node flags and NODE_OPTIONS of the child, from the server's: the old generation's limit
 * kept, a young generation's cap dropped and the build's own young generation set.
 */
export function builderNodeFlags(execArgv: readonly string[], nodeOptions: string | undefined): { args: string[]; nodeOptions: string | undefined } {
  const args = [...execArgv.filter((flag) => OLD_SPACE_FLAG.test(flag)), `--max-semi-space-size=${BUILDER_SEMI_SPACE_MB}`];
  if (nodeOptions === undefined) return { args, nodeOptions };
  // A cap's value may follow as its own word (`--max-semi-space-size 2`).
  const words = nodeOptions.split(/\s+/).filter((word) => word !== '');
  const kept: string[] = [];
  for (let at = 0; at < words.length; at++) {
    const word = words[at]!;
    if (!SEMI_SPACE_FLAG.test(word)) kept.push(word);
    else if (!word.includes('=')) at += 1;
  }
  return { args, nodeOptions: kept.join(' ') };
}

/**
 * Runs `stockroom search-index build` with the spec and forwards each line it prints to `log`
 * (standard error as warnings). Resolves when the child exits 0; rejects saying how it ended
 * otherwise, with its last line of standard error.
 */
export function buildSnapshotInChild(spec: SnapshotBuilderSpec, log: (message: string, level?: 'info' | 'warn') => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const flags = builderNodeFlags(process.execArgv, process.env.NODE_OPTIONS);
    const env: NodeJS.ProcessEnv = { ...process.env, [BUILDER_SPEC_VARIABLE]: JSON.stringify(spec) };
    if (flags.nodeOptions === undefined) delete env.NODE_OPTIONS;
    else env.NODE_OPTIONS = flags.nodeOptions;
    // Its standard input is a pipe this process never writes: it closes when this process ends,
    // however it ends (a SIGKILL too), and the child then gives the build up (see
    // stopWhenTheNodeStops) instead of reading the whole store for nobody.
    const child = spawn(process.execPath, [...flags.args, STOCKROOM_BIN, 'search-index', 'build'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
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

/**
 * In the builder child: ends the process when its standard input closes, which the serving node
 * that started it holds open for as long as it runs (see buildSnapshotInChild). A node stopped
 * mid-boot, even by SIGKILL, no longer leaves a build of the whole store (minutes and gigabytes
 * at ten million assets) running for nobody. Returns the watch's end, for when the build is done.
 */
export function stopWhenTheNodeStops(input: NodeJS.ReadStream & { unref?: () => void } = process.stdin): () => void {
  const stop = () => {
    process.stderr.write('the serving node that started this build has stopped: the build is given up\n');
    process.exit(3);
  };
  input.once('end', stop);
  // read (and drop) whatever comes, so that the end is seen
  input.resume();
  return () => {
    input.off('end', stop);
    input.pause();
    input.unref?.();
  };
}
