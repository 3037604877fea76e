/**
 * ffmpeg and ffprobe, run as separate programs (never through a shell), each run with a time
 * limit and its error output kept, so a failure says what the program said.
 *
 * The programs come from the npm packages @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe
 * (static builds shipped inside the packages, so `npm install` is enough), or from the paths in
 * STOCKROOM_FFMPEG_PATH and STOCKROOM_FFPROBE_PATH (an operator's own build; see docs/video.md).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { videoConfig, type VideoConfig } from '../../config/config.js';

const require = createRequire(import.meta.url);

/** How much of a program's error output is kept for its error message (the end, where the reason is). */
const STDERR_TAIL = 4000;
/** A probe or a still takes well under a second; a stuck one is stopped after this. */
export const QUICK_RUN_MS = 60_000;

/** A program could not be run, failed, or took too long; the message carries what it said. */
export class VideoToolError extends Error {
  override name = 'VideoToolError';
}

export interface ToolRun {
  /** Everything the program wrote to its standard output. */
  stdout: Buffer;
  /** The end of its error output (ffmpeg logs there). */
  stderr: string;
}

/** The two programs, by path, and a way to run them. */
export class VideoTools {
  constructor(
    readonly ffmpegPath: string,
    readonly ffprobePath: string,
  ) {}

  /** From the configured paths, else the binaries the npm packages ship. */
  static from(config: Pick<VideoConfig, 'ffmpegPath' | 'ffprobePath'>): VideoTools {
    return new VideoTools(config.ffmpegPath ?? packagedBinary('@ffmpeg-installer/ffmpeg', 'STOCKROOM_FFMPEG_PATH'), config.ffprobePath ?? packagedBinary('@ffprobe-installer/ffprobe', 'STOCKROOM_FFPROBE_PATH'));
  }

  /** From STOCKROOM_FFMPEG_PATH and STOCKROOM_FFPROBE_PATH in the environment (ingest outside a server). */
  static fromEnvironment(env: Record<string, string | undefined> = process.env): VideoTools {
    return VideoTools.from(videoConfig(env));
  }

  ffmpeg(args: readonly string[], options: { timeoutMs: number; signal?: AbortSignal }): Promise<ToolRun> {
    // -nostdin: ffmpeg must never wait for a key press; -hide_banner keeps the error output to the point.
    return runProgram(this.ffmpegPath, ['-hide_banner', '-nostdin', ...args], options);
  }

  ffprobe(args: readonly string[], options: { timeoutMs: number; signal?: AbortSignal }): Promise<ToolRun> {
    return runProgram(this.ffprobePath, ['-hide_banner', ...args], options);
  }
}

function packagedBinary(packageName: string, setting: string): string {
  try {
    return (require(packageName) as { path: string }).path;
  } catch (error) {
    throw new VideoToolError(
      `the ${packageName} package has no program for this platform (${error instanceof Error ? error.message : String(error)}); set ${setting} to an installed one`,
    );
  }
}

/** Runs one program with arguments (no shell), collecting its output; rejects with VideoToolError on failure. */
export function runProgram(file: string, args: readonly string[], options: { timeoutMs: number; signal?: AbortSignal }): Promise<ToolRun> {
  const name = file.split(/[\\/]/).pop() ?? file;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const stdout: Buffer[] = [];
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    timer.unref();
    const onAbort = () => child.kill('SIGKILL');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' ? `there is no program at ${file}` : error.code === 'EACCES' ? `${file} may not be run (permission denied)` : error.message;
      finish(() => reject(new VideoToolError(`${name} could not be started: ${why}`)));
    });
    child.on('close', (code, signal) => {
      finish(() => {
        if (timedOut) return reject(new VideoToolError(`${name} took longer than ${Math.round(options.timeoutMs / 1000)} s and was stopped`));
        if (options.signal?.aborted) return reject(new VideoToolError(`${name} was stopped`));
        if (code !== 0) {
          const said = lastLines(stderr);
          return reject(new VideoToolError(`${name} failed (${code === null ? `signal ${String(signal)}` : `exit code ${code}`})${said ? `: ${said}` : ''}`));
        }
        resolve({ stdout: Buffer.concat(stdout), stderr });
      });
    });
  });
}

/** The last few meaningful lines of a program's error output, joined: where ffmpeg says what went wrong. */
function lastLines(stderr: string): string {
  return stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(-3)
    .join(' | ')
    .slice(0, 600);
}
