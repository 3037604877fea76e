import { InvalidArgumentError, Option, type Command } from 'commander';
import type { UsageReport, UsageReportGrouping, UsageReportRow } from '../../reporting/usage.service.js';
import { withServices } from '../options.js';

const COLUMNS: Readonly<Record<UsageReportGrouping, ReadonlyArray<keyof UsageReportRow>>> = {
  asset: ['asset_id', 'asset_type', 'artist', 'licensed_downloads', 'reported_usages', 'reported_quantity'],
  artist: ['artist', 'assets', 'licensed_downloads', 'reported_usages', 'reported_quantity'],
  client: ['client_id', 'client_name', 'licensed_downloads', 'reported_usages', 'reported_quantity'],
};

/** A calendar day, YYYY-MM-DD, that exists. */
function day(value: string): string {
  const text = value.trim();
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== text) throw new InvalidArgumentError('must be a day, YYYY-MM-DD');
  return text;
}

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
  const columns = COLUMNS[report.by];
  const lines = [columns.join(','), ...report.rows.map((row) => columns.map((column) => csvField(row[column])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

export function usageReportJson(report: UsageReport): string {
  const columns = COLUMNS[report.by];
  const rows = report.rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column] ?? null])));
  return `${JSON.stringify({ from: report.from, to: report.to, by: report.by, rows }, null, 2)}\n`;
}

export function addReportCommand(program: Command): void {
  const report = program.command('report').description('reports drawn from the store');
  report
    .command('usage')
    .description('licensed downloads beside reported usage (PUT /v3/usage-batches), per asset, artist or client: what royalty statements are built from')
    .requiredOption('--from <day>', 'first day (YYYY-MM-DD, included)', day)
    .requiredOption('--to <day>', 'last day (YYYY-MM-DD, included)', day)
    .addOption(new Option('--by <grouping>', 'one row per asset, artist or client').choices(['asset', 'artist', 'client']).default('asset'))
    .addOption(new Option('--format <format>', 'csv or json').choices(['csv', 'json']).default('csv'))
    .action(async (options: { from: string; to: string; by: UsageReportGrouping; format: 'csv' | 'json' }) => {
      if (options.from > options.to) {
        process.stderr.write(`stockroom: --from ${options.from} is after --to ${options.to}\n`);
        process.exitCode = 1;
        return;
      }
      await withServices(async (services) => {
        const result = await services.usage.usageReport(options.from, options.to, options.by);
        process.stdout.write(options.format === 'json' ? usageReportJson(result) : usageReportCsv(result));
      });
    });
}
