import type { JobDesk } from '../platform/jobs/job-runner.js';
import type { JobState, JobView } from '../platform/jobs/lease-queue.js';
import type { AuditLog } from './audit-log.service.js';
import { jobKindNotFound, jobNotFailed } from './back-office.errors.js';
import { requireRole, type Actor } from './staff-policy.js';

/** Jobs a page of the jobs page lists. */
export const JOBS_PAGE_SIZE = 50;

/** One kind of job as the jobs page sums it up. */
export interface JobKindSummary {
  name: string;
  label: string;
  counts: Record<JobState, number>;
}

/**
 * The jobs at work, for admins: every kind of job whose failures people look after (generation
 * jobs, video transcodes), how many wait, run and failed, each job with its error, and running a
 * failed one again (audited). Reads and writes through the platform's job runner.
 */
export class JobsDesk {
  constructor(
    private readonly desk: JobDesk,
    private readonly auditLog: AuditLog,
    private readonly now: () => Date,
  ) {}

  async summary(actor: Actor): Promise<JobKindSummary[]> {
    requireRole(actor, 'admin');
    const now = this.now();
    return Promise.all(this.desk.kinds().map(async (kind) => ({ ...kind, counts: await this.desk.tally(kind.name, now) })));
  }

  async list(actor: Actor, kind: string, state: JobState, page: number): Promise<JobView[]> {
    requireRole(actor, 'admin');
    this.labelOf(kind);
    return this.desk.inState(kind, state, this.now(), JOBS_PAGE_SIZE, (page - 1) * JOBS_PAGE_SIZE);
  }

  /** Queues a failed job again; refuses one that has not failed (409 JobNotFailed). */
  async runAgain(actor: Actor, kind: string, key: readonly unknown[], reason: string | null): Promise<void> {
    const staff = requireRole(actor, 'admin');
    const label = this.labelOf(kind);
    if (!(await this.desk.requeueFailed(kind, key))) throw jobNotFailed(label.toLowerCase());
    await this.auditLog.record(staff, 'job.run-again', { kind: `job:${kind}`, id: key.join(' ') }, { state: 'failed', reason }, { state: 'waiting' });
  }

  private labelOf(kind: string): string {
    const found = this.desk.kinds().find((candidate) => candidate.name === kind);
    if (!found) throw jobKindNotFound(kind);
    return found.label;
  }
}
