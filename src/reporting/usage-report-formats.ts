import type { UsageReport, UsageReportGrouping, UsageReportRow } from './usage.service.js';

/*
 * The usage report written out, as `stockroom report usage` prints it and the back office's
 * sales page exports it: one writer of each format, so the two never differ.
 */

/** The columns of each grouping, in order. */
export const USAGE_REPORT_COLUMNS: Readonly<Record<UsageReportGrouping, ReadonlyArray<keyof UsageReportRow>>> = {
  asset: ['asset_id', 'asset_type', 'artist', 'licensed_downloads', 'reported_usages', 'reported_quantity'],
  artist: ['artist', 'assets', 'licensed_downloads', 'reported_usages', 'reported_quantity'],
  client: ['client_id', 'client_name', 'licensed_downloads', 'reported_usages', 'reported_quantity'],
  day: ['period', 'licensed_downloads', 'reported_usages', 'reported_quantity'],
  month: ['period', 'licensed_downloads', 'reported_usages', 'reported_quantity'],
};

/**
 * One CSV field (RFC 4180). Text that a spreadsheet would run as a formula (=, +, -, @ first)
 * is prefixed with an apostrophe: artist and client names come from outside.
 */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function usageReportCsv(report: UsageReport): string {
  const columns = USAGE_REPORT_COLUMNS[report.by];
  const lines = [columns.join(','), ...report.rows.map((row) => columns.map((column) => csvField(row[column])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

export function usageReportJson(report: UsageReport): string {
  const columns = USAGE_REPORT_COLUMNS[report.by];
  const rows = report.rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column] ?? null])));
  return `${JSON.stringify({ from: report.from, to: report.to, by: report.by, rows }, null, 2)}\n`;
}
