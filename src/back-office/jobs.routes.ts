import type { FastifyInstance } from 'fastify';
import { JOB_STATES } from '../platform/jobs/lease-queue.js';
import { optionalChoice, optionalText, pageNumber, queryFields, requiredText } from './back-office-fields.js';
import type { BackOfficeRoutesOptions } from './back-office.routes.js';
import { invalidField } from './back-office.errors.js';
import { JOBS_PAGE_SIZE } from './jobs-desk.service.js';
import { jobsPage } from './jobs.pages.js';

/** The jobs at work, for admins: counts by kind and state, each job with its error, and running a failed one again. */
export async function jobsRoutes(app: FastifyInstance, { site, jobs }: BackOfficeRoutesOptions): Promise<void> {
  site.addSection({ key: 'jobs', label: 'Jobs', href: '/admin/jobs', role: 'admin', order: 50 });

  site.page(app, { url: '/admin/jobs', role: 'admin', title: 'Jobs', section: 'jobs' }, async (request, reply, { actor, frame }) => {
    const query = queryFields(request.query);
    const kinds = await jobs.summary(actor);
    const kind = optionalChoice(query, 'kind', 'Kind', kinds.map((candidate) => candidate.name)) ?? kinds.find((candidate) => candidate.counts.failed > 0)?.name ?? kinds[0]!.name;
    const counts = kinds.find((candidate) => candidate.name === kind)!.counts;
    const state = optionalChoice(query, 'state', 'State', JOB_STATES) ?? (counts.failed > 0 ? 'failed' : counts.running > 0 ? 'running' : 'waiting');
    const page = pageNumber(query);
    const done = optionalText(query, 'done', 'Done') === 'requeued' ? 'Queued again: a node will take it up shortly.' : undefined;
    return site.send(reply, 200, jobsPage(frame, { kinds, kind, state, jobs: await jobs.list(actor, kind, state, page), page, pageSize: JOBS_PAGE_SIZE, done }));
  });

  site.form(app, { url: '/admin/jobs/run-again', role: 'admin', title: 'Jobs', section: 'jobs' }, async (_request, reply, { actor, form }) => {
    const kind = requiredText(form, 'kind', 'Kind', 100);
    const key = keyOf(requiredText(form, 'key', 'Job', 2000));
    await jobs.runAgain(actor, kind, key, null);
    return reply.redirect(`/admin/jobs?${new URLSearchParams({ kind, state: 'failed', done: 'requeued' }).toString()}`, 303);
  });
}

/** A job's key as the page wrote it: a JSON array of its key columns' values (text or whole numbers). */
function keyOf(text: string): Array<string | number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidField('Job: not a job of this page (reload it)');
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((value) => typeof value === 'string' || Number.isSafeInteger(value))) {
    throw invalidField('Job: not a job of this page (reload it)');
  }
  return parsed as Array<string | number>;
}
