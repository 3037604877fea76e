import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageReportCsv } from '../../src/reporting/usage-report-formats.js';
import { addAssets, creativeImageFields } from '../licensing/licensing-fixtures.js';
import { backOfficeFixture, type BackOfficeFixture } from './back-office-fixtures.js';

/*
 * What sold: the back office's sales page draws the reporting module's usage report (the query
 * `stockroom report usage` runs) as a chart and a table, and exports the CLI's own CSV.
 */
describe('the back office: what sold', () => {
  let f: BackOfficeFixture;
  let admin: string;
  const today = new Date().toISOString().slice(0, 10);
  const month = today.slice(0, 7);

  beforeAll(async () => {
    f = await backOfficeFixture();
    const { services } = f.t;
    await addAssets(services, 'image', ['s1', 's2'], creativeImageFields({ artist: 'Ada Lens' }));
    await addAssets(services, 'image', ['s3'], creativeImageFields({ artist: 'Bo Frame' }));
    await services.products.grant({ userId: f.things.targetId, type: 'creditpack', credits: 10 });
    const grant = { clientId: f.things.applicationId, userId: f.things.targetId, issuedAt: new Date() };
    for (const assetId of ['s1', 's2', 's3']) await services.downloads.download({ grant, assetType: 'image', assetId, useTeamCredits: false });
    admin = await f.signIn('admin');
  }, 120_000);
  afterAll(async () => {
    await f?.t.close();
  });

  it('shows the window by day by default: totals, a server-drawn chart with a title, a row a day', async () => {
    const response = await f.get('/admin/sales', admin);
    expect(response.statusCode).toBe(200);
    const page = response.body;
    expect(page).toContain('<h1>What sold</h1>');
    expect(page).toMatch(/<dt>Licensed downloads<\/dt><dd>3<\/dd>/);
    expect(page).toMatch(/<svg viewBox="0 0 960 320" role="img" aria-labelledby="sales-chart-title sales-chart-desc"/);
    expect(page).toContain(`<title id="sales-chart-title">Licensed downloads and reported usages, per day,`);
    // 30 days, each a pair of bars and a row of the table.
    expect(page.match(/<rect class="downloads"/g)).toHaveLength(30);
    expect(page).toContain(`<th scope="row">${today}</th><td class="number">3</td>`);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('groups by artist and by application, best-selling first, with the chart of the best sellers', async () => {
    const byArtist = (await f.get(`/admin/sales?from=${today}&to=${today}&by=artist`, admin)).body;
    expect(byArtist.indexOf('Ada Lens')).toBeLessThan(byArtist.indexOf('Bo Frame'));
    expect(byArtist).toContain('the 2 best-selling by artist');
    expect(byArtist.match(/<rect class="downloads"/g)).toHaveLength(2);
    const byClient = (await f.get(`/admin/sales?from=${today}&to=${today}&by=client`, admin)).body;
    expect(byClient).toContain(`<a href="/admin/applications/${f.things.applicationId}">Matrix application</a>`);
    const byMonth = (await f.get(`/admin/sales?from=${today}&to=${today}&by=month`, admin)).body;
    expect(byMonth).toContain(`<th scope="row">${month}</th><td class="number">3</td>`);
  });

  it('exports the CSV `stockroom report usage` writes, from the same query', async () => {
    const response = await f.get(`/admin/sales.csv?from=${today}&to=${today}&by=asset`, admin);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="sales-by-asset-${today}-to-${today}.csv"`);
    expect(response.body).toBe(usageReportCsv(await f.t.services.usage.usageReport(today, today, 'asset')));
    expect(response.body.split('\r\n').slice(1, 4)).toEqual(['s1,image,Ada Lens,1,0,0', 's2,image,Ada Lens,1,0,0', 's3,image,Bo Frame,1,0,0']);
  });

  it('refuses a grouping it does not know, a day that is not one, a reversed or too long window: 400 pages naming the code', async () => {
    const unknown = await f.get('/admin/sales?by=week', admin);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('One row per: one of asset, artist, client, day, month');
    expect((await f.get('/admin/sales?from=2024-02-30', admin)).statusCode).toBe(400);
    const reversed = await f.get('/admin/sales?from=2024-03-02&to=2024-03-01', admin);
    expect(reversed.statusCode).toBe(400);
    expect(reversed.body).toContain('<code>ReportWindowReversed</code>');
    const long = await f.get('/admin/sales.csv?from=1990-01-01&to=2024-03-01&by=day', admin);
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('<code>ReportWindowTooLong</code>');
  });

  it('is for admins only, in the service as on the page', async () => {
    const editor = await f.signIn('editor');
    expect((await f.get('/admin/sales', editor)).statusCode).toBe(403);
    const desk = f.t.services.salesDesk;
    await expect(desk.report({ id: f.ids.editor, username: 'eddie', role: 'editor' }, today, today, 'day')).rejects.toMatchObject({ statusCode: 403, code: 'AdminOnly' });
  });
});
