import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FILE_FORM_LARGEST_BYTES } from '../../src/back-office/file-form.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { backOfficeFixture, hiddenFields, type BackOfficeFixture } from './back-office-fixtures.js';

/*
 * The catalogue's pages over HTTP, as a browser uses them: the review queue with its pictures and
 * problems, the bulk form, an asset's edit page (problems beside their fields, nothing half
 * written), the moves between states, the lists, and what the public search sees after each.
 */

describe('the back office catalogue pages', () => {
  let f: BackOfficeFixture;
  let editor: string;
  let csrf: string;

  beforeEach(async () => {
    f = await backOfficeFixture({ env: { STOCKROOM_SEARCH_SNAPSHOT: 'false' } });
    editor = await f.signIn('editor');
    csrf = await f.csrfOf(editor, '/admin/catalogue');
  }, 60_000);
  afterEach(async () => {
    await f?.t.close();
  });

  async function draft(id: string, fields: Record<string, unknown>) {
    await f.t.services.ingest.applyRecord({ asset_type: 'image', id, file: `${id}.jpg`, ...fields }, await makeJpeg(320, 240), { publication: 'draft' });
  }
  const creative = { asset_family: 'creative', license_model: 'royaltyfree', product_types: ['creditpack'] };
  const stored = async (id: string) => (await f.t.services.catalogEditing.read(id)).asset;
  const searchIds = async (phrase: string) => {
    await f.t.services.changeFeed.poll();
    await f.t.services.search.settled();
    const response = await f.t.app.inject({ method: 'GET', url: `/v3/search/images?phrase=${encodeURIComponent(phrase)}&fields=id`, headers: { 'api-key': f.t.apiKey } });
    return (response.json().images as Array<{ id: string }>).map((image) => image.id);
  };

  it('the queue shows each draft with its staff-only picture, title, type and problems', async () => {
    await draft('q1', { title: 'Harbour at dawn', ...creative });
    await draft('q2', {});
    await draft('q3', { title: 'Court', asset_family: 'editorial', product_types: ['royaltyfreesubscription'] });
    const queue = await f.get('/admin/catalogue', editor);
    expect(queue.statusCode).toBe(200);
    const rowOf = (id: string) => queue.body.split('<tr>').find((row) => row.includes(`<code>${id}</code>`))!;
    expect(rowOf('q1')).toContain('Harbour at dawn');
    expect(rowOf('q1')).toContain('<span class="muted">none</span>');
    expect(rowOf('q1')).toContain('src="/admin/catalogue/assets/q1/picture/thumb.jpg"');
    expect(rowOf('q1')).toContain('name="select.q1"');
    expect(rowOf('q2')).toContain('No title');
    expect(rowOf('q2')).toMatch(/no product_types/i);
    expect(rowOf('q3')).toMatch(/royaltyfreesubscription/);
    // Never a public, signed display URL for something no client may see.
    expect(queue.body).not.toContain('/display/');

    const picture = await f.get('/admin/catalogue/assets/q1/picture/thumb.jpg', editor);
    expect(picture.statusCode).toBe(200);
    expect(picture.headers['content-type']).toBe('image/jpeg');
    expect(picture.headers['cache-control']).toMatch(/^private/);
    expect(picture.rawPayload.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect((await f.get('/admin/catalogue/assets/q1/picture/thumb.jpg')).statusCode).toBe(303);
    const customer = await f.get('/admin/catalogue/assets/q1/picture/thumb.jpg', await f.signIn('customer'));
    expect([customer.statusCode, customer.body]).toEqual([403, expect.stringContaining('<code>StaffOnly</code>')]);
    expect((await f.get('/admin/catalogue/assets/q1/picture/original.jpg', editor)).statusCode).toBe(404);
    expect((await f.get('/admin/catalogue/assets/nobody/picture/thumb.jpg', editor)).statusCode).toBe(404);
    // The public display route does not serve a draft.
    expect((await f.get('/display/q1/thumb.jpg')).statusCode).not.toBe(200);
  });

  it('the edit page shows every field; a refused value comes back beside its field and nothing is stored', async () => {
    await draft('e1', { title: 'Pier', ...creative, keywords: ['gull'] });
    const page = await f.get('/admin/catalogue/assets/e1', editor);
    expect(page.statusCode).toBe(200);
    for (const label of ['Title', 'Caption', 'Keywords', 'Family', 'Collection code', 'Licence model', 'Product types that license it', 'Usage restrictions', 'Release information', 'People shown', 'City', 'Country', 'Date created']) {
      expect(page.body).toContain(`>${label}<`);
    }
    expect(page.body).toContain('action="/admin/catalogue/assets/e1/publish"');
    expect(page.body).toContain('src="/admin/catalogue/assets/e1/picture/comp.jpg"');
    const form = { ...hiddenFields(page.body), title: 'Pier at noon', caption: 'Gulls', keywords: 'gull\nsea', asset_family: 'creative', license_model: 'royaltyfree', 'product_types.creditpack': 'on', date_created: '2024-13-45', city: 'Brighton' };

    const refused = await f.post('/admin/catalogue/assets/e1', form, editor);
    expect(refused.statusCode).toBe(400);
    const field = /<input id="field-date_created" name="date_created" value="2024-13-45" aria-describedby="([^"]+)" aria-invalid="true">/.exec(refused.body);
    expect(field, refused.body).not.toBeNull();
    const problemId = field![1]!.split(' ').find((id) => id.endsWith('-problem'))!;
    expect(refused.body).toMatch(new RegExp(`<span class="field-problem" id="${problemId}">date_created must be an ISO 8601 date`));
    // What was typed is kept on the page; nothing of it is stored.
    expect(refused.body).toContain('value="Pier at noon"');
    expect((await stored('e1')).fields).toMatchObject({ title: 'Pier' });

    const saved = await f.post('/admin/catalogue/assets/e1', { ...form, date_created: '2024-05-01', usage_restrictions: 'No use in tobacco advertising', release_info: 'Model released' }, editor);
    expect([saved.statusCode, saved.headers.location]).toEqual([303, '/admin/catalogue/assets/e1?done=saved']);
    const after = await stored('e1');
    expect(after.fields).toMatchObject({ title: 'Pier at noon', caption: 'Gulls', date_created: '2024-05-01T00:00:00Z', allowed_use: { usage_restrictions: ['No use in tobacco advertising'], release_info: 'Model released' } });
    expect((after.fields.keywords as Array<{ text: string }>).map((keyword) => keyword.text)).toEqual(['gull', 'sea']);
    expect(after.publication).toBe('draft');
    const { entries } = await f.t.services.auditLog.read({ id: f.ids.admin, username: 'ada', role: 'admin' }, { page: 1 });
    expect(entries[0]).toMatchObject({ actor: { username: 'eddie' }, action: 'asset.edit', target: { kind: 'asset', id: 'e1' }, before: { title: 'Pier' }, after: { title: 'Pier at noon' } });
    // The page shows it back as stored; posting it again changes nothing.
    const again = await f.get('/admin/catalogue/assets/e1?done=saved', editor);
    expect(again.body).toContain('Saved.');
    const unchanged = await f.post('/admin/catalogue/assets/e1', formOf(again.body), editor);
    expect(unchanged.headers.location).toBe('/admin/catalogue/assets/e1?done=unchanged');
  });

  it("a video's page offers a video's fields and choices", async () => {
    await f.t.services.ingest.applyRecord({ asset_type: 'video', id: 'v1', title: 'Surf', asset_family: 'creative' }, undefined, { publication: 'draft' });
    const page = await f.get('/admin/catalogue/assets/v1', editor);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<option value="rightsready">rightsready</option>');
    expect(page.body).not.toContain('>Date shot<');
    expect(page.body).toContain('No file yet.');
    const saved = await f.post('/admin/catalogue/assets/v1', { ...formOf(page.body, 'v1'), license_model: 'rightsready' }, editor);
    expect(saved.headers.location).toBe('/admin/catalogue/assets/v1?done=saved');
    expect((await stored('v1')).fields).toMatchObject({ title: 'Surf', license_model: 'rightsready', asset_family: 'creative' });
  });

  /** Posts a file form as a browser does (multipart/form-data). */
  async function postFile(path: string, fields: Record<string, string>, file: { name: string; data: Buffer } | undefined) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob(file ? [new Uint8Array(file.data)] : []), file?.name ?? '');
    const request = new Request('https://stockroom.example/', { method: 'POST', body: form });
    return f.t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': request.headers.get('content-type')!, cookie: `__Host-stockroom-session=${editor}` },
      payload: Buffer.from(await request.arrayBuffer()),
    });
  }

  it("replaces an asset's file from its page: the size and picture are made again, the fields stay; a file ingest cannot read is shown beside the file", async () => {
    await draft('r1', { title: 'Pier', ...creative });
    const before = await stored('r1');
    expect([before.width, before.height]).toEqual([320, 240]);
    const page = await f.get('/admin/catalogue/assets/r1', editor);
    expect(page.body).toContain('action="/admin/catalogue/assets/r1/file" enctype="multipart/form-data"');

    const replaced = await postFile('/admin/catalogue/assets/r1/file', { csrf }, { name: 'pier-wide.jpg', data: await makeJpeg(640, 360, '#aa3300') });
    expect([replaced.statusCode, replaced.headers.location]).toEqual([303, '/admin/catalogue/assets/r1?done=replaced']);
    const after = await stored('r1');
    expect([after.width, after.height, after.fields.title, after.publication]).toEqual([640, 360, 'Pier', 'draft']);
    expect(after.original!.key).not.toBe(before.original!.key);
    const comp = await f.get('/admin/catalogue/assets/r1/picture/comp.jpg', editor);
    expect(comp.statusCode).toBe(200);
    const { entries } = await f.t.services.auditLog.read({ id: f.ids.admin, username: 'ada', role: 'admin' }, { page: 1 });
    expect(entries[0]).toMatchObject({ action: 'asset.replace_file', target: { id: 'r1' }, after: expect.objectContaining({ file: 'pier-wide.jpg' }) });

    const unreadable = await postFile('/admin/catalogue/assets/r1/file', { csrf }, { name: 'notes.jpg', data: Buffer.from('these are not the bytes of a picture') });
    expect(unreadable.statusCode).toBe(400);
    expect(unreadable.body).toMatch(/<input type="file" id="field-file" name="file" required aria-describedby="field-file-hint field-file-problem" aria-invalid="true">/);
    expect(unreadable.body).toMatch(/<span class="field-problem" id="field-file-problem">[^<]*notes\.jpg/);
    expect((await stored('r1')).original!.key).toBe(after.original!.key);

    const none = await postFile('/admin/catalogue/assets/r1/file', { csrf }, undefined);
    expect(none.headers.location).toBe('/admin/catalogue/assets/r1?done=no_file');
    const forged = await postFile('/admin/catalogue/assets/r1/file', {}, { name: 'x.jpg', data: await makeJpeg(100, 100) });
    expect([forged.statusCode, forged.body]).toEqual([403, expect.stringContaining('<code>CsrfCheckFailed</code>')]);
    expect((await stored('r1')).width).toBe(640);

    // Bodies above the server's usual limit (1 MB) are this form's to take, up to its own largest.
    const large = await postFile('/admin/catalogue/assets/r1/file', { csrf }, { name: 'large.jpg', data: Buffer.alloc(3 * 1024 * 1024, 7) });
    expect([large.statusCode, large.body]).toEqual([400, expect.stringContaining('id="field-file-problem"')]);
    const huge = await f.t.app.inject({
      method: 'POST',
      url: '/admin/catalogue/assets/r1/file',
      headers: { 'content-type': 'multipart/form-data; boundary=x', cookie: `__Host-stockroom-session=${editor}` },
      payload: Buffer.alloc(FILE_FORM_LARGEST_BYTES + 1),
    });
    expect([huge.statusCode, huge.body]).toEqual([413, expect.stringContaining('<code>FileTooLarge</code>')]);
    // Without a session the body is not read at all.
    const stranger = await f.t.app.inject({ method: 'POST', url: '/admin/catalogue/assets/r1/file', headers: { 'content-type': 'multipart/form-data; boundary=x' }, payload: Buffer.alloc(1024) });
    expect([stranger.statusCode, stranger.body]).toEqual([403, expect.stringContaining('<code>CsrfCheckFailed</code>')]);
  });

  it('refuses a form without the session token (CSRF), and changes nothing', async () => {
    await draft('c1', { title: 'Pier', ...creative });
    const forged = await f.post('/admin/catalogue/assets/c1', { title: 'Forged' }, editor);
    expect([forged.statusCode, forged.body]).toEqual([403, expect.stringContaining('<code>CsrfCheckFailed</code>')]);
    const publish = await f.post('/admin/catalogue/assets/c1/publish', { csrf: 'not the token' }, editor);
    expect(publish.statusCode).toBe(403);
    const bulk = await f.post('/admin/catalogue/bulk', { 'select.c1': 'on', action: 'publish' }, editor);
    expect(bulk.statusCode).toBe(403);
    expect(await stored('c1')).toMatchObject({ publication: 'draft', fields: expect.objectContaining({ title: 'Pier' }) });
  });

  it('bulk: sets a field and adds and removes keywords over the selection, publishes the selection, and lists the ones refused', async () => {
    await draft('b1', { title: 'One', ...creative, keywords: ['old'] });
    await draft('b2', { title: 'Two', ...creative });
    await draft('b3', { title: 'Three', ...creative });
    const edited = await f.post('/admin/catalogue/bulk', { csrf, 'select.b1': 'on', 'select.b2': 'on', action: 'edit', set_field: 'city', set_value: 'Hove', add_keywords: 'sea, pier', remove_keywords: 'old' }, editor);
    expect([edited.statusCode, edited.headers.location]).toEqual([303, '/admin/catalogue?done=bulk_edited']);
    for (const id of ['b1', 'b2']) {
      const asset = await stored(id);
      expect(asset.fields.city).toBe('Hove');
      expect((asset.fields.keywords as Array<{ text: string }>).map((keyword) => keyword.text)).toEqual(['sea', 'pier']);
    }
    expect((await stored('b3')).fields.city ?? null).toBeNull();

    const refused = await f.post('/admin/catalogue/bulk', { csrf, 'select.b1': 'on', 'select.b3': 'on', action: 'edit', set_field: 'date_created', set_value: 'soon', add_keywords: 'later' }, editor);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(/b1<\/a>: date_created: date_created must be an ISO 8601 date/);
    // Refused the first change, a draft is left out of the next: no keyword was added.
    expect(((await stored('b1')).fields.keywords as Array<{ text: string }>).map((keyword) => keyword.text)).toEqual(['sea', 'pier']);
    expect(refused.body).toContain('name="select.b1" form="bulk" checked');
    const nothing = await f.post('/admin/catalogue/bulk', { csrf, action: 'publish' }, editor);
    expect([nothing.statusCode, nothing.body]).toEqual([400, expect.stringContaining('Select at least one draft first.')]);

    const published = await f.post('/admin/catalogue/bulk', { csrf, 'select.b1': 'on', 'select.b2': 'on', action: 'publish' }, editor);
    expect([published.statusCode, published.headers.location]).toEqual([303, '/admin/catalogue?done=bulk_published']);
    expect([(await stored('b1')).publication, (await stored('b2')).publication, (await stored('b3')).publication]).toEqual(['published', 'published', 'draft']);
    const queue = await f.get('/admin/catalogue?done=bulk_published', editor);
    expect(queue.body).toContain('The selected drafts are published.');
    expect(queue.body).not.toContain('<code>b1</code>');
  });

  it('rule: publishing through the page makes the asset searchable; withdrawing through the page takes it out; bringing it back returns it', async () => {
    await f.t.services.search.build();
    await draft('p1', { title: 'Quokka on a jetty', ...creative });
    expect(await searchIds('quokka')).toEqual([]);
    const publish = await f.post('/admin/catalogue/assets/p1/publish', { csrf }, editor);
    expect([publish.statusCode, publish.headers.location]).toEqual([303, '/admin/catalogue/assets/p1?done=published']);
    expect(await searchIds('quokka')).toEqual(['p1']);
    const page = await f.get('/admin/catalogue/assets/p1', editor);
    expect(page.body).toContain('action="/admin/catalogue/assets/p1/withdraw"');
    expect(page.body).not.toContain('action="/admin/catalogue/assets/p1/publish"');

    expect((await f.post('/admin/catalogue/assets/p1/withdraw', { csrf }, editor)).statusCode).toBe(303);
    expect(await searchIds('quokka')).toEqual([]);
    const refused = await f.post('/admin/catalogue/assets/p1/publish', { csrf }, editor);
    expect([refused.statusCode, refused.body]).toEqual([409, expect.stringContaining('<code>PublicationMoveRefused</code>')]);
    expect((await f.post('/admin/catalogue/assets/p1/restore', { csrf }, editor)).statusCode).toBe(303);
    expect(await searchIds('quokka')).toEqual(['p1']);
  });

  it('the published and withdrawn lists find by id or title words, a page at a time', async () => {
    for (let n = 1; n <= 53; n += 1) {
      await f.t.services.ingest.applyRecord({ asset_type: 'image', id: `l${n}`, title: n % 2 === 0 ? `Lighthouse ${n}` : `Meadow ${n}`, ...creative });
    }
    await f.t.services.catalogEditing.withdraw(['l1', 'l2']);
    const first = await f.get('/admin/catalogue/published', editor);
    expect(first.body).toContain('Page 1 of 2 (51 in all)');
    expect(first.body).toContain('href="/admin/catalogue/published?page=2"');
    const found = await f.get('/admin/catalogue/published?q=lighthouse', editor);
    expect(found.body).toContain('Page 1 of 1 (25 in all)');
    expect(found.body).not.toContain('Meadow');
    const byId = await f.get('/admin/catalogue/published?q=l7', editor);
    expect(byId.body).toContain('<code>l7</code>');
    const withdrawn = await f.get('/admin/catalogue/withdrawn', editor);
    expect(withdrawn.body).toContain('<code>l1</code>');
    expect(withdrawn.body).toContain('<code>l2</code>');
    expect(withdrawn.body).toContain('(2 in all)');
    expect((await f.get('/admin/catalogue/published?type=sound', editor)).statusCode).toBe(400);
  });
});

/** The fields a browser would post from an edit page as it is shown. */
function formOf(page: string, id = 'e1'): Record<string, string> {
  const form = page.slice(page.indexOf(`<form method="post" action="/admin/catalogue/assets/${id}" class="form-grid edit"`));
  const fields: Record<string, string> = { ...hiddenFields(form) };
  const unescape = (text: string) => text.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
  for (const match of form.matchAll(/<input id="[^"]+" name="([^"]+)" value="([^"]*)"/g)) fields[match[1]!] = unescape(match[2]!);
  for (const match of form.matchAll(/<textarea id="[^"]+" name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) fields[match[1]!] = unescape(match[2]!);
  for (const match of form.matchAll(/<select id="[^"]+" name="([^"]+)"[^>]*>(.*?)<\/select>/gs)) {
    const selected = /<option value="([^"]*)" selected>/.exec(match[2]!);
    fields[match[1]!] = selected ? unescape(selected[1]!) : '';
  }
  for (const match of form.matchAll(/<input type="checkbox" id="[^"]+" name="([^"]+)" checked>/g)) fields[match[1]!] = 'on';
  return fields;
}
