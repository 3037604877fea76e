import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

export interface ProgressOptions {
  /** Where progress goes; standard error by default, so that standard output keeps only results. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Plain lines (not a terminal): at most this long apart while the job moves. */
  lineEveryMs?: number;
  now?: () => number;
  /** What the job counts (`lines`): each report then also says how many it does a second, since its first. */
  rateOf?: string;
}

/** Plain lines also mark each tenth of the job done. */
const LINE_EVERY_PERCENT = 10;

/**
 * The progress of a long job: a bar redrawn in place on a terminal; elsewhere (a log file, a
 * pipe, a service's journal) plain lines, every tenth of the job or every few seconds, with
 * no control characters.
 */
export function progressBar(label: string, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  return stream.isTTY === true ? terminalBar(label, stream, options) : progressLines(label, stream, options);
}

/**
 * How fast a job goes: what it did since its first report, over the time since. The first report
 * may start far from 0 (a run continuing one that stopped), which is not counted as done now.
 */
function rateMeter(now: () => number): (done: number) => number {
  let first: { done: number; at: number } | undefined;
  return (done) => {
    first ??= { done, at: now() };
    const seconds = (now() - first.at) / 1000;
    return seconds > 0 ? (done - first.done) / seconds : 0;
  };
}

function terminalBar(label: string, stream: NodeJS.WritableStream, options: ProgressOptions): Progress {
  const rate = options.rateOf === undefined ? ' ' : ` {rate} ${options.rateOf}/s | `;
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} |${rate}{eta_formatted} left`, stream, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  const rateNow = rateMeter(options.now ?? Date.now);
  let started = false;
  return {
    update(done, total) {
      const payload = { rate: Math.round(rateNow(done)) };
      if (!started) {
        bar.start(total, 0, payload);
        started = true;
      }
      bar.setTotal(total);
      bar.update(done, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

function progressLines(label: string, stream: NodeJS.WritableStream, options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const everyMs = options.lineEveryMs ?? 5_000;
  let lastLineAt = now();
  let lastStep = 0;
  let latest: { done: number; total: number } | undefined;
  let written: { done: number; total: number } | undefined;
  const rateNow = rateMeter(now);
  const write = (done: number, total: number) => {
    const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
    const rate = options.rateOf === undefined ? '' : `, ${Math.round(rateNow(done))} ${options.rateOf}/s`;
    stream.write(`${label}: ${done}/${total} (${percent}%)${rate}\n`);
    written = { done, total };
    lastLineAt = now();
  };
  return {
    update(done, total) {
      rateNow(done);
      latest = { done, total };
      const step = total > 0 ? Math.floor((done / total) * LINE_EVERY_PERCENT) : LINE_EVERY_PERCENT;
      if (step > lastStep || now() - lastLineAt >= everyMs) {
        lastStep = step;
        write(done, total);
      }
    },
    stop() {
      if (latest && (written?.done !== latest.done || written.total !== latest.total)) write(latest.done, latest.total);
    },
  };
}
