import { html } from '../web/web-html.js';
import type { UsageReport, UsageReportGrouping, UsageReportRow } from '../reporting/usage.service.js';
import type { StaffFrame } from './back-office-site.js';
import { layout } from './back-office.pages.js';
import { salesChart } from './sales-chart.js';

/** Rows the page's table shows; the CSV holds them all. */
export const SALES_TABLE_ROWS = 200;

const GROUPINGS: ReadonlyArray<{ value: UsageReportGrouping; label: string }> = [
  { value: 'day', label: 'Day' },
  { value: 'month', label: 'Month' },
  { value: 'asset', label: 'Asset' },
  { value: 'artist', label: 'Artist' },
  { value: 'client', label: 'Application' },
];

/** The first column of each grouping: what a row is. */
function nameOf(row: UsageReportRow, by: UsageReportGrouping) {
  if (by === 'day' || by === 'month') return html`${row.period}`;
  if (by === 'asset') return html`<a href="/${row.asset_type === 'video' ? 'videos' : 'images'}/${row.asset_id}">${row.asset_id}</a> <span class="muted">${row.asset_type}</span>`;
  if (by === 'client') return html`<a href="/admin/applications/${row.client_id}">${row.client_name ?? `Application ${row.client_id}`}</a>`;
  return row.artist === null || row.artist === undefined ? html`<span class="muted">No artist</span>` : html`${row.artist}`;
}

/** What sold: the window and grouping, the chart, the table and its CSV. */
export function salesPage(frame: StaffFrame, report: UsageReport): string {
  const { by } = report;
  const query = new URLSearchParams({ from: report.from, to: report.to, by }).toString();
  const shown = by === 'day' || by === 'month' ? report.rows : [...report.rows].sort((a, b) => b.licensed_downloads - a.licensed_downloads || b.reported_usages - a.reported_usages);
  const totals = report.rows.reduce(
    (sum, row) => ({ downloads: sum.downloads + row.licensed_downloads, usages: sum.usages + row.reported_usages, quantity: sum.quantity + row.reported_quantity }),
    { downloads: 0, usages: 0, quantity: 0 },
  );
  const heading = GROUPINGS.find((grouping) => grouping.value === by)!.label;
  return layout(
    frame,
    html`<h1>What sold</h1>
    <form class="filters" method="get" action="/admin/sales" aria-label="Choose the window and the grouping">
      <div class="field"><label for="sales-from">From (day)</label><input id="sales-from" name="from" type="date" value="${report.from}" required></div>
      <div class="field"><label for="sales-to">To (day, included)</label><input id="sales-to" name="to" type="date" value="${report.to}" required></div>
      <div class="field"><label for="sales-by">One row per</label><select id="sales-by" name="by">${GROUPINGS.map(
        (grouping) => html`<option value="${grouping.value}"${grouping.value === by ? html` selected` : ''}>${grouping.label}</option>`,
      )}</select></div>
      <div class="actions"><button type="submit">Show</button> <a href="/admin/sales.csv?${query}" download>Download CSV</a></div>
    </form>
    <dl class="facts totals">
      <dt>Licensed downloads</dt><dd>${totals.downloads}</dd>
      <dt>Reported usages</dt><dd>${totals.usages} (quantity ${totals.quantity})</dd>
    </dl>
    ${salesChart(report)}
    ${
      report.rows.length === 0
        ? ''
        : html`<table class="sales">
      <caption>${by === 'day' || by === 'month' ? `Per ${by}, in order` : `Per ${heading.toLowerCase()}, best-selling first`}${shown.length > SALES_TABLE_ROWS ? ` (the first ${SALES_TABLE_ROWS} of ${shown.length}; the CSV has every row)` : ''}</caption>
      <thead><tr><th scope="col">${heading}</th>${by === 'asset' ? html`<th scope="col">Artist</th>` : ''}${by === 'artist' ? html`<th scope="col">Assets</th>` : ''}<th scope="col" class="number">Licensed downloads</th><th scope="col" class="number">Reported usages</th><th scope="col" class="number">Reported quantity</th></tr></thead>
      <tbody>${shown.slice(0, SALES_TABLE_ROWS).map(
        (row) => html`<tr><th scope="row">${nameOf(row, by)}</th>${by === 'asset' ? html`<td>${row.artist ?? '—'}</td>` : ''}${by === 'artist' ? html`<td>${row.assets}</td>` : ''}<td class="number">${row.licensed_downloads}</td><td class="number">${row.reported_usages}</td><td class="number">${row.reported_quantity}</td></tr>`,
      )}</tbody></table>`
    }`,
  );
}
