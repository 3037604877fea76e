import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressBar } from '../../src/cli/progress.js';

/** A stream that is not a terminal (a log file, a pipe), and what was written to it. */
function plainStream() {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
  return { stream, written: () => written };
}

describe('progress', () => {
  it('writes plain lines when its stream is not a terminal: each tenth of the job, then the end', () => {
    const { stream, written } = plainStream();
    const bar = progressBar('Ingesting', { stream, now: () => 0 });
    for (let done = 1; done <= 250; done++) bar.update(done, 250);
    bar.stop();
    const lines = written().trim().split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe('Ingesting: 25/250 (10%)');
    expect(lines.at(-1)).toBe('Ingesting: 250/250 (100%)');
    expect(written()).not.toContain('\x1b');
    expect(written()).not.toContain('\r');
  });

  it('writes a line every few seconds while a slow job moves less than a tenth, and the last state on stop', () => {
    const { stream, written } = plainStream();
    let now = 0;
    const bar = progressBar('Seeding', { stream, now: () => now, lineEveryMs: 5_000 });
    bar.update(1, 1000);
    now = 4_000;
    bar.update(2, 1000);
    now = 5_000;
    bar.update(3, 1000);
    now = 6_000;
    bar.update(4, 1000);
    bar.stop();
    expect(written()).toBe('Seeding: 3/1000 (0%)\nSeeding: 4/1000 (0%)\n');
  });

  it('says how many a second the job does since its first report, when told what it counts', () => {
    const { stream, written } = plainStream();
    let now = 0;
    const bar = progressBar('Ingesting', { stream, now: () => now, rateOf: 'lines' });
    // A run continuing one that stopped starts far from 0: those lines were not done now.
    bar.update(4_000, 10_000);
    now = 2_000;
    bar.update(5_000, 10_000);
    now = 4_000;
    bar.update(10_000, 10_000);
    bar.stop();
    expect(written()).toBe('Ingesting: 4000/10000 (40%), 0 lines/s\nIngesting: 5000/10000 (50%), 500 lines/s\nIngesting: 10000/10000 (100%), 1500 lines/s\n');
  });

  it('writes nothing for a job that never started', () => {
    const { stream, written } = plainStream();
    progressBar('Idle', { stream }).stop();
    expect(written()).toBe('');
  });

  it('draws a bar in place on a terminal', () => {
    const { stream, written } = plainStream();
    const terminal = Object.assign(stream, { isTTY: true, columns: 80, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
    const bar = progressBar('Ingesting', { stream: terminal });
    bar.update(5, 10);
    bar.stop();
    expect(written()).toMatch(/Ingesting \[.*\] 50% \| 5\/10/);
  });
});
