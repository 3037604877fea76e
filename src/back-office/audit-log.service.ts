import type { Kysely } from 'kysely';
import type { Tables } from '../platform/db/tables.js';
import type { AuditLogRepository, AuditQuery, AuditRow } from './audit-log.repository.js';
import { requireRole, type Actor } from './staff-policy.js';

/** What an action was done to: a kind (`application`, `user`, `product`, `asset`, …) and its id. */
export interface AuditTarget {
  kind: string;
  id: string | number;
}

/** One recorded action, as the audit page shows it. */
export interface AuditEntry {
  id: number;
  at: string;
  actor: { id: number; username: string };
  action: string;
  target: { kind: string; id: string };
  /** The target as it was before and after (parsed JSON); null where there was none (a creation, a removal). */
  before: unknown;
  after: unknown;
}

/** The audit page's filter; absent: any. `from` and `until` are days (YYYY-MM-DD, UTC), both included. */
export interface AuditFilter {
  actor?: string | undefined;
  action?: string | undefined;
  targetKind?: string | undefined;
  targetId?: string | undefined;
  from?: string | undefined;
  until?: string | undefined;
  page: number;
}

export const AUDIT_PAGE_SIZE = 50;

/**
 * The back office's audit log: who did what to what, when, and the target before and after.
 * Every back-office service records its actions here, and other modules' pages may too (the
 * module exports it). Rows are only added; admins read them.
 */
export class AuditLog {
  constructor(
    private readonly repository: AuditLogRepository,
    private readonly now: () => Date,
  ) {}

  /**
   * Records an action of a member of the staff. `within`: the transaction the change itself is
   * written in, so that the change and its record commit together or not at all; without it the
   * record is written at once after the change (a change made through another module's service,
   * which keeps its own transactions). Secrets never belong in `before` or `after`.
   */
  async record(actor: Actor, action: string, target: AuditTarget, before: unknown, after: unknown, within?: Kysely<Tables>): Promise<void> {
    const staff = requireRole(actor, 'editor');
    await this.repository.insert(
      {
        actor_id: staff.id,
        actor_username: staff.username,
        at: this.now().toISOString(),
        action,
        target_kind: target.kind,
        target_id: String(target.id),
        before: before === undefined || before === null ? null : JSON.stringify(before),
        after: after === undefined || after === null ? null : JSON.stringify(after),
      },
      within,
    );
  }

  /** A page of the log, newest first, for an admin. */
  async read(actor: Actor, filter: AuditFilter): Promise<{ entries: AuditEntry[]; total: number; page: number; pageSize: number }> {
    requireRole(actor, 'admin');
    const query: AuditQuery = {
      actor: filter.actor,
      action: filter.action,
      targetKind: filter.targetKind,
      targetId: filter.targetId,
      from: filter.from === undefined ? undefined : `${filter.from}T00:00:00.000Z`,
      until: filter.until === undefined ? undefined : nextDay(filter.until),
      offset: (filter.page - 1) * AUDIT_PAGE_SIZE,
      limit: AUDIT_PAGE_SIZE,
    };
    const { rows, total } = await this.repository.find(query);
    return { entries: rows.map(toEntry), total, page: filter.page, pageSize: AUDIT_PAGE_SIZE };
  }

  /** The actions and target kinds recorded so far (the filter's choices), for an admin. */
  async vocabulary(actor: Actor): Promise<{ actions: string[]; targetKinds: string[] }> {
    requireRole(actor, 'admin');
    return this.repository.vocabulary();
  }
}

/** The first instant after a day (YYYY-MM-DD, UTC). */
function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString();
}

function parsed(json: string | null): unknown {
  if (json === null) return null;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    actor: { id: row.actor_id, username: row.actor_username },
    action: row.action,
    target: { kind: row.target_kind, id: row.target_id },
    before: parsed(row.before),
    after: parsed(row.after),
  };
}
