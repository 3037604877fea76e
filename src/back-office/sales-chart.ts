import { html, type Html } from '../web/web-html.js';
import type { UsageReport, UsageReportRow } from '../reporting/usage.service.js';

/*
 * The sales chart, drawn on the server as SVG: no script and no chart library in the page (the
 * page policy allows neither), and the same picture for every browser and for a screenshot.
 * Colours come from the stylesheet (classes), so the chart follows the back office's palette.
 * The table under it carries every number; the chart is the shape of them.
 */

const WIDTH = 960;
const HEIGHT = 320;
const MARGIN = { top: 16, right: 16, bottom: 48, left: 56 };
/** Rows a chart by asset, artist or client shows: the best-selling, the rest in the table and the CSV. */
export const CHART_MOST_BARS = 15;

/** What one bar (or pair of bars) stands for. */
interface Bar {
  label: string;
  downloads: number;
  usages: number;
}

/** The sales report as a chart: a time series by day or month, the best sellers by asset, artist or client. */
export function salesChart(report: UsageReport): Html {
  const over = report.by === 'day' || report.by === 'month';
  const bars = over ? report.rows.map((row) => ({ label: row.period!, downloads: row.licensed_downloads, usages: row.reported_usages })) : bestSellers(report.rows, report.by);
  const what = over ? `per ${report.by}` : `the ${Math.min(CHART_MOST_BARS, bars.length)} best-selling by ${report.by === 'client' ? 'application' : report.by}`;
  const title = `Licensed downloads and reported usages, ${what}, ${report.from} to ${report.to}`;
  const total = bars.reduce((sum, bar) => sum + bar.downloads, 0);
  const desc = bars.length === 0 ? 'Nothing sold in this window.' : `${total} licensed downloads in the bars shown; the table below gives every number.`;
  if (bars.length === 0) return html`<p class="muted">Nothing was licensed or reported from ${report.from} to ${report.to}.</p>`;
  return over ? columns(bars, title, desc) : rowsChart(bars, title, desc);
}

/** The rows with the most licensed downloads (then reported usages), at most CHART_MOST_BARS. */
function bestSellers(rows: readonly UsageReportRow[], by: UsageReport['by']): Bar[] {
  const labelled = rows.map((row) => ({
    label: by === 'asset' ? `${row.asset_type} ${row.asset_id}` : by === 'client' ? (row.client_name ?? `client ${row.client_id}`) : (row.artist ?? 'No artist'),
    downloads: row.licensed_downloads,
    usages: row.reported_usages,
  }));
  return labelled.sort((a, b) => b.downloads - a.downloads || b.usages - a.usages).slice(0, CHART_MOST_BARS);
}

/** A round top for the value axis (1, 2 or 5 times a power of ten) at or above `most`, and its step. */
export function niceScale(most: number, ticks = 4): { top: number; step: number } {
  if (most <= 0) return { top: ticks, step: 1 };
  const rough = most / ticks;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough)!;
  return { top: Math.max(step, Math.ceil(most / step) * step), step: Math.max(1, step) };
}

function frame(title: string, desc: string, body: Html, height = HEIGHT): Html {
  return html`<figure class="chart">
    <svg viewBox="0 0 ${WIDTH} ${height.toFixed(0)}" role="img" aria-labelledby="sales-chart-title sales-chart-desc" preserveAspectRatio="xMidYMid meet">
      <title id="sales-chart-title">${title}</title>
      <desc id="sales-chart-desc">${desc}</desc>
      ${body}
    </svg>
    <figcaption><span class="key downloads"></span> Licensed downloads <span class="key usages"></span> Reported usages</figcaption>
  </figure>`;
}

/** Pairs of columns along time: a label under every column that has room for one. */
function columns(bars: readonly Bar[], title: string, desc: string): Html {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const { top, step } = niceScale(Math.max(...bars.map((bar) => Math.max(bar.downloads, bar.usages))));
  const slot = plotWidth / bars.length;
  const barWidth = Math.max(1, (slot * 0.8) / 2);
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight;
  // About one label per 70 pixels: a month's label is 7 characters, a day's 10.
  const every = Math.max(1, Math.ceil(70 / slot));
  const grid = [];
  for (let value = 0; value <= top; value += step) grid.push(value);
  return frame(
    title,
    desc,
    html`${grid.map(
      (value) => html`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"></line>
      <text class="axis" x="${MARGIN.left - 8}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${value}</text>`,
    )}
    ${bars.map((bar, index) => {
      const x = MARGIN.left + index * slot + slot * 0.1;
      return html`<g><title>${bar.label}: ${bar.downloads} licensed downloads, ${bar.usages} reported usages</title>
        <rect class="downloads" x="${x.toFixed(1)}" y="${y(bar.downloads).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(0) - y(bar.downloads)).toFixed(1)}"></rect>
        <rect class="usages" x="${(x + barWidth).toFixed(1)}" y="${y(bar.usages).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(0) - y(bar.usages)).toFixed(1)}"></rect>
        ${index % every === 0 ? html`<text class="axis" x="${(x + barWidth).toFixed(1)}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${bar.label}</text>` : ''}
      </g>`;
    })}`,
  );
}

/** One row of bars a name: the best sellers, longest first, each with its numbers at its end. */
function rowsChart(bars: readonly Bar[], title: string, desc: string): Html {
  const labelWidth = 220;
  const rowHeight = 20;
  const height = MARGIN.top + bars.length * rowHeight * 1.6 + 8;
  const plotWidth = WIDTH - labelWidth - MARGIN.right - 80;
  const { top } = niceScale(Math.max(...bars.map((bar) => Math.max(bar.downloads, bar.usages))));
  const width = (value: number) => (value / top) * plotWidth;
  const clipped = (label: string) => (label.length > 32 ? `${label.slice(0, 31)}…` : label);
  return frame(
    title,
    desc,
    html`${bars.map((bar, index) => {
      const y = MARGIN.top + index * rowHeight * 1.6;
      return html`<g><title>${bar.label}: ${bar.downloads} licensed downloads, ${bar.usages} reported usages</title>
        <text class="axis" x="${labelWidth - 8}" y="${(y + rowHeight * 0.75).toFixed(1)}" text-anchor="end">${clipped(bar.label)}</text>
        <rect class="downloads" x="${labelWidth}" y="${y.toFixed(1)}" width="${width(bar.downloads).toFixed(1)}" height="${(rowHeight * 0.6).toFixed(1)}"></rect>
        <rect class="usages" x="${labelWidth}" y="${(y + rowHeight * 0.6).toFixed(1)}" width="${width(bar.usages).toFixed(1)}" height="${(rowHeight * 0.6).toFixed(1)}"></rect>
        <text class="value" x="${(labelWidth + Math.max(width(bar.downloads), width(bar.usages)) + 6).toFixed(1)}" y="${(y + rowHeight * 0.75).toFixed(1)}">${bar.downloads} / ${bar.usages}</text>
      </g>`;
    })}`,
    height,
  );
}
