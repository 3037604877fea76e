import { InvalidArgumentError, Option, type Command } from 'commander';
import { usageReportCsv, usageReportJson } from '../../reporting/usage-report-formats.js';
import { USAGE_REPORT_GROUPINGS, type UsageReportGrouping } from '../../reporting/usage.service.js';
import { withServices } from '../options.js';

/** A calendar day, YYYY-MM-DD, that exists. */
function day(value: string): string {
  const text = value.trim();
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== text) throw new InvalidArgumentError('must be a day, YYYY-MM-DD');
  return text;
}

export function addReportCommand(program: Command): void {
  const report = program.command('report').description('reports drawn from the store');
  report
    .command('usage')
    .description('licensed downloads beside reported usage (PUT /v3/usage-batches), per asset, artist, client, day or month: what royalty statements are built from')
    .requiredOption('--from <day>', 'first day (YYYY-MM-DD, included)', day)
    .requiredOption('--to <day>', 'last day (YYYY-MM-DD, included)', day)
    .addOption(new Option('--by <grouping>', 'one row per asset, artist or client, or per day or month of the window').choices(USAGE_REPORT_GROUPINGS).default('asset'))
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
