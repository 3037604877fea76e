import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Selectable } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.js';
import { isStoreUnavailable } from '../http/error-handler.js';
import type { JobState, JobView, LeaseQueue } from './lease-queue.js';

/** How many times a job is claimed before one more interruption counts as its failure. */
export const MAX_ATTEMPTS = 3;

/** A job whose nodes stopped in the middle of it too often: it may be what stops them. */
export class JobInterruptedError extends Error {
  override name = 'JobInterruptedError';
  constructor() {
    super(`the job was interrupted ${MAX_ATTEMPTS} times (its node stopped each time)`);
  }
}

/** What a handler is told about the job it runs. */
export interface JobLease {
  /** The node that holds the job: every write of the job's outcome is conditional on it. */
  readonly node: string;
  /** Aborts when the job stopped being this node's (its lease was taken over) or the node is stopping. */
  readonly signal: AbortSignal;
}

/**
 * One kind of job: the table its jobs are rows of, how many this node runs at once, and the
 * work. `run` does a job and writes its outcome through the queue (conditional on the lease);
 * it throws when the job failed, and `fail` records why. A job whose node stops, or whose store
 * goes away, is neither: it goes back to the queue and runs again.
 */
export interface JobHandler<Name extends keyof Tables> {
  readonly queue: LeaseQueue<Name>;
  /** Once at start, before the first claim. */
  onStart?(): Promise<void>;
  run(job: Selectable<Tables[Name]>, lease: JobLease): Promise<void>;
  fail(job: Selectable<Tables[Name]>, error: unknown, lease: JobLease): Promise<void>;
}

/** How this node runs one kind of job. */
export interface JobSettings {
  /** Jobs of this kind this node runs at once; 0: none (another node runs them). */
  concurrency: number;
  /** How long a claim holds without being renewed: a node that stopped loses its jobs after this (default a minute). */
  leaseMs?: number | undefined;
  /** How often an idle node looks for jobs another node queued (default half a second). */
  pollMs?: number | undefined;
}

/** A kind of job as registered: what its handler keeps to say "look now". */
export interface RegisteredJobKind {
  /** Looks for jobs of this kind now (one was just queued here). */
  wake(): void;
  /** Jobs of this kind running on this node. */
  runningHere(): number;
}

/** The jobs of every kind whose failures people look after, as the back office's jobs page reads and runs them again. */
export interface JobDesk {
  kinds(): Array<{ name: string; label: string }>;
  tally(name: string, now: Date): Promise<Record<JobState, number>>;
  inState(name: string, state: JobState, now: Date, limit: number, offset: number): Promise<JobView[]>;
  /** Queues a failed job of the kind again (its key's values, in order), and looks for work at once; false when it had not failed. */
  requeueFailed(name: string, keyValues: readonly unknown[]): Promise<boolean>;
}

const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_POLL_MS = 500;

interface Kind {
  readonly name: string;
  readonly handler: JobHandler<keyof Tables>;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly running: Set<AbortController>;
  active: boolean;
  timer: NodeJS.Timeout | undefined;
  filling: Promise<void> | undefined;
  /** A wake came while a claim round was under way: that round may have looked before the job was queued. */
  wokenWhileFilling: boolean;
}

export interface JobRunnerOptions {
  /** SQLite: this process is the only runner there is, so a job held at its start was held by a process that is gone. */
  soleRunner: boolean;
  log: Logger;
  now: () => Date;
}

/**
 * This node's runner of every kind of job in the store, each under a name with its handler: it
 * claims jobs (any node may run any job) up to each kind's concurrency, renews each claim while
 * its handler works, and gives its jobs back when it stops. A job whose node stopped without
 * giving it back is claimed again once its lease lapses, or at once when this process is the
 * store's only runner.
 */
export class JobRunner {
  readonly node = `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly kinds = new Map<string, Kind>();

  constructor(private readonly options: JobRunnerOptions) {}

  /** Adds a kind of job; one handler per name. */
  register<Name extends keyof Tables>(name: string, handler: JobHandler<Name>, settings: JobSettings): RegisteredJobKind {
    if (this.kinds.has(name)) throw new Error(`jobs named '${name}' already have a handler`);
    this.kinds.set(name, {
      name,
      handler: handler as unknown as JobHandler<keyof Tables>,
      concurrency: settings.concurrency,
      leaseMs: settings.leaseMs ?? DEFAULT_LEASE_MS,
      pollMs: settings.pollMs ?? DEFAULT_POLL_MS,
      running: new Set(),
      active: false,
      timer: undefined,
      filling: undefined,
      wokenWhileFilling: false,
    });
    return { wake: () => this.wake(name), runningHere: () => this.runningHere(name) };
  }

  /**
   * The kinds of job whose failures people look after (their table says how a failure is kept),
   * for the back office's jobs page: what each is called, and its jobs by state.
   */
  desk(): JobDesk {
    // Read at each call: a module built after the desk's registers its kinds later.
    const kinds = () => [...this.kinds.values()].filter((kind) => kind.handler.queue.description.failures !== undefined);
    const find = (name: string) => kinds().find((kind) => kind.name === name);
    return {
      kinds: () => kinds().map((kind) => ({ name: kind.name, label: kind.handler.queue.description.failures!.label })),
      tally: (name, now) => find(name)?.handler.queue.tally(now) ?? Promise.resolve({ waiting: 0, running: 0, failed: 0 }),
      inState: (name, state, now, limit, offset) => find(name)?.handler.queue.inState(state, now, limit, offset) ?? Promise.resolve([]),
      requeueFailed: async (name, keyValues) => {
        const kind = find(name);
        if (!kind || !(await kind.handler.queue.requeueFailed(keyValues))) return false;
        this.wake(kind.name);
        return true;
      },
    };
  }

  /** Starts claiming every kind this node runs. */
  async start(): Promise<void> {
    for (const kind of this.kinds.values()) {
      if (kind.concurrency === 0) continue;
      // A restart would otherwise leave the process's own earlier jobs waiting out their leases.
      if (this.options.soleRunner) await kind.handler.queue.releaseAll();
      kind.active = true;
      await kind.handler.onStart?.();
      kind.timer = setInterval(() => this.wake(kind.name), kind.pollMs);
      kind.timer.unref();
      this.wake(kind.name);
    }
  }

  private wake(name: string): void {
    const kind = this.kinds.get(name);
    if (!kind?.active) return;
    if (kind.filling) {
      kind.wokenWhileFilling = true;
      return;
    }
    kind.wokenWhileFilling = false;
    kind.filling = this.fill(kind)
      .catch((error: unknown) => this.options.log.error({ err: error }, `claiming ${name} jobs failed`))
      .finally(() => {
        kind.filling = undefined;
        // Otherwise a job queued during the round would wait for the next poll.
        if (kind.wokenWhileFilling) this.wake(name);
      });
  }

  private runningHere(name: string): number {
    return this.kinds.get(name)?.running.size ?? 0;
  }

  /**
   * Stops claiming, tells every running job to stop, and gives this node's jobs back to the
   * queue. A handler that ignores the signal is not waited for: what it writes afterwards is
   * conditional on a lease it no longer holds.
   */
  async close(): Promise<void> {
    for (const kind of this.kinds.values()) {
      kind.active = false;
      clearInterval(kind.timer);
      for (const controller of kind.running) controller.abort();
    }
    for (const kind of this.kinds.values()) {
      await kind.filling;
      await kind.handler.queue.release(this.node).catch(() => undefined);
    }
  }

  private async fill(kind: Kind): Promise<void> {
    const { handler } = kind;
    while (kind.active && kind.running.size < kind.concurrency) {
      const now = this.options.now();
      const job = await handler.queue.claim(this.node, now, new Date(now.getTime() + kind.leaseMs));
      if (!job) return;
      const controller = new AbortController();
      kind.running.add(controller);
      // run() handles its own failures; this catch only keeps a bug there from ending the process.
      void this.run(kind, job, controller)
        .catch((error: unknown) => this.options.log.error({ err: error, job: handler.queue.keyOf(job) }, `a ${kind.name} job ended with an unexpected error`))
        .finally(() => {
          kind.running.delete(controller);
          this.wake(kind.name);
        });
    }
  }

  private async run(kind: Kind, job: Selectable<Tables[keyof Tables]>, controller: AbortController): Promise<void> {
    const { handler, name, leaseMs } = kind;
    const { log } = this.options;
    const lease: JobLease = { node: this.node, signal: controller.signal };
    const renew = setInterval(() => {
      const now = this.options.now();
      handler.queue.renew(job, this.node, new Date(now.getTime() + leaseMs)).then(
        (still) => {
          if (!still) controller.abort();
        },
        (error: unknown) => log.warn({ err: error, job: handler.queue.keyOf(job) }, `renewing the lease of a ${name} job failed`),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    try {
      if ((handler.queue.attemptsOf(job) ?? 0) > MAX_ATTEMPTS) throw new JobInterruptedError();
      await handler.run(job, lease);
    } catch (error) {
      // Stopping gives the job back to the queue rather than failing it.
      if (controller.signal.aborted && !kind.active) return;
      // The store went away (a PostgreSQL restart): the job is not at fault. Its lease lapses and
      // a node runs it again once the store is back.
      if (isStoreUnavailable(error)) {
        log.warn({ err: error, job: handler.queue.keyOf(job) }, `the store could not be reached while running a ${name} job; it will run again`);
        return;
      }
      try {
        await handler.fail(job, error, lease);
      } catch (recordError) {
        log.warn({ err: recordError, job: handler.queue.keyOf(job) }, `a failed ${name} job could not be recorded; its lease will lapse and it will run again`);
      }
    } finally {
      clearInterval(renew);
    }
  }
}
