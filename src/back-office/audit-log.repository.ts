import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AuditLogTable, Tables } from '../platform/db/tables.js';

export type AuditRow = Selectable<AuditLogTable>;

/** What the audit page filters by; absent: any. */
export interface AuditQuery {
  actor?: string | undefined;
  action?: string | undefined;
  targetKind?: string | undefined;
  targetId?: string | undefined;
  /** ISO instants: from (inclusive) and until (exclusive) */
  from?: string | undefined;
  until?: string | undefined;
  offset: number;
  limit: number;
}

export class AuditLogRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  /** Adds one row, through `executor` when given (a transaction the change is written in). */
  async insert(values: Insertable<AuditLogTable>, executor: Kysely<Tables> = this.db): Promise<void> {
    await executor.insertInto('audit_log').values(values).execute();
  }

  /** A page of rows matching the query, newest first, and how many match in all. */
  async find(query: AuditQuery): Promise<{ rows: AuditRow[]; total: number }> {
    let select = this.db.selectFrom('audit_log');
    if (query.actor !== undefined) {
      const actor = query.actor;
      select = /^[0-9]{1,15}$/.test(actor)
        ? select.where((eb) => eb.or([eb('actor_id', '=', Number(actor)), eb('actor_username', '=', actor)]))
        : select.where('actor_username', '=', actor);
    }
    if (query.action !== undefined) select = select.where('action', '=', query.action);
    if (query.targetKind !== undefined) select = select.where('target_kind', '=', query.targetKind);
    if (query.targetId !== undefined) select = select.where('target_id', '=', query.targetId);
    if (query.from !== undefined) select = select.where('at', '>=', query.from);
    if (query.until !== undefined) select = select.where('at', '<', query.until);
    const [rows, counted] = await Promise.all([
      select.selectAll().orderBy('at', 'desc').orderBy('id', 'desc').limit(query.limit).offset(query.offset).execute(),
      select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(counted.total) };
  }

  /** The names of the actions recorded so far, and the kinds of target, for the filter's choices. */
  async vocabulary(): Promise<{ actions: string[]; targetKinds: string[] }> {
    const [actions, kinds] = await Promise.all([
      this.db.selectFrom('audit_log').select('action').distinct().orderBy('action').execute(),
      this.db.selectFrom('audit_log').select('target_kind').distinct().orderBy('target_kind').execute(),
    ]);
    return { actions: actions.map((row) => row.action), targetKinds: kinds.map((row) => row.target_kind) };
  }
}
