import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hiddenFields, backOfficeFixture, type BackOfficeFixture } from './back-office-fixtures.js';
import { STORES } from '../helpers/test-store.js';

/*
 * The jobs at work: every kind of job whose failures people look after, its counts by state,
 * each job with its error, and running a failed one again, on both stores. Transcodes are not
 * run on this node (STOCKROOM_VIDEO_TRANSCODES=false), so a job queued again stays waiting.
 */
describe.each(STORES)('the back office: jobs, on $name', ({ url }) => {
  let f: BackOfficeFixture;
  let admin: string;
  const now = Date.now();
  const at = (secondsAgo: number) => new Date(now - secondsAgo * 1000).toISOString();

  beforeAll(async () => {
    f = await backOfficeFixture({ databaseUrl: url, env: { STOCKROOM_VIDEO_TRANSCODES: 'false' } });
    const transcode = (original_key: string, status: string, extra: Record<string, string | null> = {}) => ({
      original_key,
      kind: 'preview',
      status,
      output_key: null,
      failure: null,
      claimed_by: null,
      lease_until: null,
      created_at: at(600),
      finished_at: null,
      ...extra,
    });
    await f.t.services.database.db
      .insertInto('video_transcodes')
      .values([
        transcode('videos/broken.mp4', 'failed', { failure: 'ffmpeg exited with code 1: moov atom not found', finished_at: at(60) }),
        transcode('videos/waiting.mp4', 'pending'),
        transcode('videos/running.mp4', 'running', { claimed_by: 'node-a-1234', lease_until: new Date(now + 3_600_000).toISOString() }),
        // Held under a lease that lapsed: its node stopped; it waits for another.
        transcode('videos/orphan.mp4', 'running', { claimed_by: 'node-gone', lease_until: at(30) }),
        transcode('videos/done.mp4', 'done', { output_key: 'videos/done-preview.mp4', finished_at: at(10) }),
      ])
      .execute();
    admin = await f.signIn('admin');
  }, 120_000);
  afterAll(async () => {
    await f?.t.close();
  });

  it('counts each kind by state and lists the failed with their errors first', async () => {
    const response = await f.get('/admin/jobs?kind=video-transcode', admin);
    expect(response.statusCode).toBe(200);
    const page = response.body;
    expect(page).toMatch(/<th scope="row">Generation jobs<\/th>/);
    expect(page).toMatch(/<th scope="row">Video transcodes<\/th><td class="number"><a [^>]*>2<span class="visually-hidden"> video transcodes waiting/);
    expect(page).toMatch(/>1<span class="visually-hidden"> video transcodes running/);
    expect(page).toMatch(/>1<span class="visually-hidden"> video transcodes failed/);
    expect(page).toContain('<h2>Video transcodes: failed</h2>');
    expect(page).toContain('<code>videos/broken.mp4 preview</code>');
    expect(page).toContain('ffmpeg exited with code 1: moov atom not found');
    expect(page).not.toContain('videos/done.mp4');
    const running = (await f.get('/admin/jobs?kind=video-transcode&state=running', admin)).body;
    expect(running).toContain('<code>node-a-1234</code>');
    const waiting = (await f.get('/admin/jobs?kind=video-transcode&state=waiting', admin)).body;
    expect(waiting).toContain('videos/waiting.mp4');
    expect(waiting).toContain('videos/orphan.mp4');
  });

  it('runs a failed job again once: queued, its error cleared, the action audited; a second try is refused', async () => {
    const page = (await f.get('/admin/jobs?kind=video-transcode&state=failed', admin)).body;
    const form = page.slice(page.indexOf('<form method="post" action="/admin/jobs/run-again">'));
    const fields = hiddenFields(form.slice(0, form.indexOf('</form>')));
    expect(JSON.parse(fields.key!)).toEqual(['videos/broken.mp4', 'preview']);
    const response = await f.post('/admin/jobs/run-again', fields, admin);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/admin/jobs?kind=video-transcode&state=failed&done=requeued');
    const row = await f.t.services.database.db.selectFrom('video_transcodes').selectAll().where('original_key', '=', 'videos/broken.mp4').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', failure: null, finished_at: null, attempts: 0, claimed_by: null });
    const audit = (await f.get('/admin/audit?action=job.run-again', admin)).body;
    expect(audit).toContain('videos/broken.mp4 preview');

    const again = await f.post('/admin/jobs/run-again', fields, admin);
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('<code>JobNotFailed</code>');
  });

  it('refuses a kind it does not know, a key that is not one, and anyone but an admin', async () => {
    const csrf = await f.csrfOf(admin, '/admin/jobs');
    expect((await f.get('/admin/jobs?kind=mining', admin)).statusCode).toBe(400);
    expect((await f.post('/admin/jobs/run-again', { csrf, kind: 'mining', key: '["x"]' }, admin)).statusCode).toBe(404);
    expect((await f.post('/admin/jobs/run-again', { csrf, kind: 'video-transcode', key: '{"not":"a key"}' }, admin)).statusCode).toBe(400);
    const editor = await f.signIn('editor');
    expect((await f.get('/admin/jobs', editor)).statusCode).toBe(403);
    await expect(f.t.services.jobsDesk.runAgain({ id: f.ids.editor, username: 'eddie', role: 'editor' }, 'video-transcode', ['videos/waiting.mp4', 'preview'], null)).rejects.toMatchObject({
      code: 'AdminOnly',
    });
  });
});
