import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Selectable } from 'kysely';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Tables } from '../../../src/platform/db/tables.js';
import { JobRunner, type JobHandler, type JobLease, type JobSettings } from '../../../src/platform/jobs/job-runner.js';
import { LeaseQueue } from '../../../src/platform/jobs/lease-queue.js';
import { openTestStore, STORES, type TestStore } from '../../helpers/test-store.js';
import type { ClaimingProcessSettings } from './claiming-process.js';
import { JOB_TABLES, type JobTable } from './job-tables.js';

/*
 * The lease queue's contract, on every store and every table the product runs jobs from: a job
 * is claimed by one node only, even by two processes claiming at once; a lapsed lease is taken
 * over and a renewed one is not; a runner that closes gives its jobs back; and the jobs of a
 * process that died are taken back when a runner starts. Times are handed to the queue, so no
 * test waits for a lease to run out.
 */

const RUN_TS = path.resolve('bin/run-ts.js');
const CLAIMING_PROCESS = path.resolve('test/platform/jobs/claiming-process.ts');
const LEASE_MS = 60_000;

type Row = Selectable<Tables[keyof Tables]>;

const later = (time: Date, ms: number) => new Date(time.getTime() + ms);

interface ClaimingProcess {
  child: ChildProcessWithoutNullStreams;
  /** What the process claimed, once it has. */
  claimed: Promise<string[]>;
  go(): void;
  exited: Promise<void>;
}

const processes: ClaimingProcess[] = [];

/** A node in a process of its own, ready to claim at "go". */
async function claimingProcess(settings: ClaimingProcessSettings): Promise<ClaimingProcess> {
  const child = spawn(process.execPath, [RUN_TS, CLAIMING_PROCESS], { env: { ...process.env, CLAIMING_PROCESS: JSON.stringify(settings) }, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const lines = readline.createInterface({ input: child.stdout });
  const ended = exited.then(() => Promise.reject(new Error(`the claiming process ${settings.node} ended early: ${errors}`)));
  ended.catch(() => undefined);
  const line = (match: (text: string) => boolean) =>
    Promise.race([
      new Promise<string>((resolve) => {
        const listener = (text: string) => {
          if (!match(text)) return;
          lines.off('line', listener);
          resolve(text);
        };
        lines.on('line', listener);
      }),
      ended,
    ]);
  const claimed = line((text) => text.startsWith('{')).then((text) => (JSON.parse(text) as { claimed: string[] }).claimed);
  claimed.catch(() => undefined);
  const started: ClaimingProcess = { child, claimed, go: () => child.stdin.write('go\n'), exited };
  processes.push(started);
  await line((text) => text === 'ready');
  return started;
}

/** The contract's kind of job: one at a time, on short leases. */
const HOLDING: JobSettings = { concurrency: 1, leaseMs: LEASE_MS, pollMs: LEASE_MS };

/** A runner's handler of one kind of job that holds each job it runs until the runner stops it, and says which it took. */
function holdingHandler(queue: LeaseQueue<keyof Tables>) {
  let took!: (job: Row) => void;
  const taken = new Promise<Row>((resolve) => {
    took = resolve;
  });
  const handler: JobHandler<keyof Tables> = {
    queue,
    run: (job: Row, lease: JobLease) => {
      took(job);
      return new Promise<void>((resolve) => lease.signal.addEventListener('abort', () => resolve()));
    },
    fail: async (job: Row, error: unknown) => {
      throw new Error(`a held job failed: ${String(error)}`);
    },
  };
  return { handler, taken };
}

describe.each(STORES)('the lease queue, on $name', ({ name, url }) => {
  let store: TestStore;
  let dir: string;
  const runners: JobRunner[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stockroom-lease-queue-'));
    // A file, not memory: the claiming processes open the same SQLite store.
    store = await openTestStore(url, path.join(dir, 'store.sqlite'));
  });

  beforeEach(async () => {
    const { db } = store.database;
    await db.deleteFrom('generation_downloads').execute();
    await db.deleteFrom('video_transcodes').execute();
    await db.deleteFrom('generation_requests').execute();
  });

  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.close();
    for (const { child, exited } of processes.splice(0)) {
      child.kill('SIGKILL');
      await exited;
    }
  });

  afterAll(async () => {
    await store?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const runner = (now: () => Date) => {
    const made = new JobRunner({ soleRunner: name === 'sqlite', log: pino({ level: 'silent' }), now });
    runners.push(made);
    return made;
  };

  describe.each(Object.entries(JOB_TABLES))('of %s', (_label, table: JobTable) => {
    const queue = () => new LeaseQueue(store.database.db, store.database.dialect, table.description);
    const stored = async (key: string) => {
      const rows = (await store.database.db.selectFrom(table.description.table).selectAll().execute()) as Array<Record<string, unknown>>;
      return rows.find((row) => table.keyOf(row) === key);
    };
    const attempts = (row: Record<string, unknown> | undefined) => (table.description.attempts === undefined ? undefined : Number(row?.[table.description.attempts]));

    it('rule: a job is claimed by one node only, when two processes claim at once', { timeout: 60_000 }, async () => {
      const keys = await table.addJobs(store.database.db, 40, new Date());
      const nodes = ['node-a', 'node-b'];
      const claimers = await Promise.all(nodes.map((node) => claimingProcess({ store: store.options, table: _label, node, mode: 'drain', leaseMs: LEASE_MS })));
      for (const claimer of claimers) claimer.go();
      const claimed = await Promise.all(claimers.map((claimer) => claimer.claimed));

      // Every job claimed, none twice.
      expect(claimed.flat().sort()).toEqual([...keys].sort());
      for (const [index, node] of nodes.entries()) {
        for (const key of claimed[index]!) {
          const row = await stored(key);
          expect(row?.claimed_by).toBe(node);
          expect(row?.status).toBe(table.description.status.held);
          if (table.description.attempts !== undefined) expect(attempts(row)).toBe(1);
        }
      }
    });

    it('rule: a lapsed lease is taken over, and its former holder can no longer write the job', async () => {
      const [key] = await table.addJobs(store.database.db, 1, new Date());
      const start = new Date();
      const held = (await queue().claim('node-a', start, later(start, 1000)))!;
      expect(table.keyOf(held)).toBe(key);

      expect(await queue().claim('node-b', later(start, 999), later(start, LEASE_MS))).toBeUndefined();
      const taken = (await queue().claim('node-b', later(start, 1001), later(start, LEASE_MS))) as Record<string, unknown>;
      expect(table.keyOf(taken)).toBe(key);
      expect(taken.claimed_by).toBe('node-b');
      if (table.description.attempts !== undefined) expect(attempts(taken)).toBe(2);

      expect(await queue().renew(held, 'node-a', later(start, LEASE_MS))).toBe(false);
      expect(await queue().finish(held, 'node-a', { status: table.done })).toBe(false);
      expect((await stored(key!))?.claimed_by).toBe('node-b');
    });

    it('rule: a renewal keeps the job its holder’s, until the renewed lease runs out', async () => {
      const [key] = await table.addJobs(store.database.db, 1, new Date());
      const start = new Date();
      const held = (await queue().claim('node-a', start, later(start, 1000)))!;
      expect(await queue().renew(held, 'node-a', later(start, 5000))).toBe(true);

      expect(await queue().claim('node-b', later(start, 2000), later(start, LEASE_MS))).toBeUndefined();
      expect(await queue().renew(held, 'node-b', later(start, LEASE_MS))).toBe(false);
      const taken = (await queue().claim('node-b', later(start, 5001), later(start, LEASE_MS)))!;
      expect(table.keyOf(taken)).toBe(key);
    });

    it('rule: a finished job is claimed no more', async () => {
      await table.addJobs(store.database.db, 1, new Date());
      const start = new Date();
      const held = (await queue().claim('node-a', start, later(start, 1000)))!;
      expect(await queue().finish(held, 'node-a', { status: table.done })).toBe(true);
      expect(await queue().claim('node-b', later(start, 10 * LEASE_MS), later(start, 11 * LEASE_MS))).toBeUndefined();
    });

    it('rule: a runner that closes gives its jobs back, ready for any node at once', async () => {
      const [key] = await table.addJobs(store.database.db, 1, new Date());
      const closing = runner(() => new Date());
      const { handler, taken } = holdingHandler(queue());
      closing.register('contract', handler, HOLDING);
      await closing.start();
      const job = await taken;
      expect(table.keyOf(job)).toBe(key);
      expect((await stored(key!))?.claimed_by).toBe(closing.node);

      await closing.close();
      expect(await stored(key!)).toMatchObject({ claimed_by: null, lease_until: null, status: table.description.status.waiting });
      const next = (await queue().claim('node-b', new Date(), later(new Date(), LEASE_MS)))!;
      expect(table.keyOf(next)).toBe(key);
    });

    it('rule: a job queued while the runner is looking for work is run at once, not at the next poll', async () => {
      // A claim round that found nothing is held open while a job is queued and the runner woken
      // for it: the round already looked, so the wake must start another (the poll is an hour away).
      let roundsLeftToHold = 1;
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      class HeldQueue extends LeaseQueue<keyof Tables> {
        override async claim(node: string, now: Date, leaseUntil: Date) {
          const claimed = await super.claim(node, now, leaseUntil);
          if (claimed === undefined && roundsLeftToHold-- > 0) {
            holding();
            await released;
          }
          return claimed;
        }
      }
      const waking = runner(() => new Date());
      const { handler, taken } = holdingHandler(new HeldQueue(store.database.db, store.database.dialect, table.description));
      const kind = waking.register('contract', handler, { ...HOLDING, pollMs: 3_600_000 });
      await waking.start();
      await held;
      const [key] = await table.addJobs(store.database.db, 1, new Date());
      kind.wake();
      release();
      expect(table.keyOf(await taken)).toBe(key);
    });

    it('rule: the job of a process that died is taken back when a runner starts (SQLite: at once; PostgreSQL: once its lease has lapsed)', { timeout: 60_000 }, async () => {
      const [key] = await table.addJobs(store.database.db, 1, new Date());
      const dying = await claimingProcess({ store: store.options, table: _label, node: 'node-that-dies', mode: 'hold', leaseMs: LEASE_MS });
      dying.go();
      expect(await dying.claimed).toEqual([key]);
      dying.child.kill('SIGKILL');
      await dying.exited;
      expect((await stored(key!))?.claimed_by).toBe('node-that-dies');

      // SQLite has one process at a time: the one starting takes the job back though its lease runs
      // on. PostgreSQL's nodes cannot know that the other died: its lease has to lapse first.
      const clock = name === 'sqlite' ? () => new Date() : () => later(new Date(), 2 * LEASE_MS);
      const starting = runner(clock);
      const { handler, taken } = holdingHandler(queue());
      starting.register('contract', handler, HOLDING);
      await starting.start();
      const job = (await taken) as Record<string, unknown>;
      expect(table.keyOf(job)).toBe(key);
      expect(job.claimed_by).toBe(starting.node);
      if (table.description.attempts !== undefined) expect(attempts(job)).toBe(2);
    });
  });
});
