import type { UsageReport, UsageReportGrouping } from '../reporting/usage.service.js';
import { requireRole, type Actor } from './staff-policy.js';

/** The usage report of the reporting module: the one query `stockroom report usage` runs. */
export interface SalesReports {
  usageReport(from: string, to: string, by: UsageReportGrouping): Promise<UsageReport>;
}

/** What sold, for admins: the reporting module's usage report, behind the role check. */
export class SalesDesk {
  constructor(private readonly reports: SalesReports) {}

  /** Licensed downloads and reported usage from `from` to `to` (days, both included), grouped `by`. */
  async report(actor: Actor, from: string, to: string, by: UsageReportGrouping): Promise<UsageReport> {
    requireRole(actor, 'admin');
    return this.reports.usageReport(from, to, by);
  }
}
