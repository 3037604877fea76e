import { html } from '../web/web-html.js';
import { JOB_STATES, type JobState, type JobView } from '../platform/jobs/lease-queue.js';
import type { StaffFrame } from './back-office-site.js';
import { csrfField, layout, notice, pager, when } from './back-office.pages.js';
import type { JobKindSummary } from './jobs-desk.service.js';

export interface JobsPageModel {
  kinds: readonly JobKindSummary[];
  kind: string;
  state: JobState;
  jobs: readonly JobView[];
  page: number;
  pageSize: number;
  done: string | undefined;
}

const STATE_NAMES: Readonly<Record<JobState, string>> = { waiting: 'Waiting', running: 'Running', failed: 'Failed' };

/** The jobs at work: each kind's counts by state (each a link), and the jobs of the chosen kind and state. */
export function jobsPage(frame: StaffFrame, model: JobsPageModel): string {
  const current = model.kinds.find((kind) => kind.name === model.kind)!;
  const link = (kind: string, state: JobState) => `/admin/jobs?${new URLSearchParams({ kind, state }).toString()}`;
  return layout(
    frame,
    html`<h1>Jobs</h1>
    ${notice(model.done)}
    <table class="job-kinds">
      <caption>Every kind of job, on every node</caption>
      <thead><tr><th scope="col">Kind</th>${JOB_STATES.map((state) => html`<th scope="col" class="number">${STATE_NAMES[state]}</th>`)}</tr></thead>
      <tbody>${model.kinds.map(
        (kind) => html`<tr><th scope="row">${kind.label}</th>${JOB_STATES.map((state) => {
          const chosen = kind.name === model.kind && state === model.state;
          return html`<td class="number"><a href="${link(kind.name, state)}"${chosen ? html` aria-current="true"` : ''}>${kind.counts[state]}<span class="visually-hidden"> ${kind.label.toLowerCase()} ${state}</span></a></td>`;
        })}</tr>`,
      )}</tbody>
    </table>
    <h2>${current.label}: ${STATE_NAMES[model.state].toLowerCase()}</h2>
    ${
      model.jobs.length === 0
        ? html`<p class="muted">None.</p>`
        : html`<table class="jobs">
      <caption class="visually-hidden">${current.label}, ${STATE_NAMES[model.state].toLowerCase()}</caption>
      <thead><tr><th scope="col">Job</th><th scope="col">What</th><th scope="col">Queued</th><th scope="col" class="number">Attempts</th>${
        model.state === 'failed' ? html`<th scope="col">Failed</th><th scope="col">Error</th><th scope="col"><span class="visually-hidden">Action</span></th>` : model.state === 'running' ? html`<th scope="col">Node</th>` : ''
      }</tr></thead>
      <tbody>${model.jobs.map(
        (job) => html`<tr>
        <td><code>${job.key.join(' ')}</code></td>
        <td>${job.what}</td>
        <td>${when(job.created)}</td>
        <td class="number">${job.attempts ?? '—'}</td>
        ${
          model.state === 'failed'
            ? html`<td>${when(job.finished)}</td><td class="error">${job.reason ?? '—'}</td>
          <td><form method="post" action="/admin/jobs/run-again">${csrfField(frame.csrfToken)}
            <input type="hidden" name="kind" value="${model.kind}"><input type="hidden" name="key" value="${JSON.stringify(job.key)}">
            <button type="submit" class="secondary">Run again<span class="visually-hidden"> ${job.key.join(' ')}</span></button></form></td>`
            : model.state === 'running'
              ? html`<td><code>${job.holder ?? '—'}</code></td>`
              : ''
        }
      </tr>`,
      )}</tbody></table>`
    }
    ${pager('/admin/jobs', { kind: model.kind, state: model.state }, model.page, model.pageSize, current.counts[model.state])}`,
  );
}
