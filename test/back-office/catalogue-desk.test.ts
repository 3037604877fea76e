import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';

/*
 * The back office's catalogue actions check the role in the service (a page that forgot would
 * still refuse) and record each action in the audit log with the asset before and after.
 */

describe.each(STORES)('the catalogue desk on $name', ({ url }) => {
  let t: TestApp;
  const editor = { id: 0, username: 'eddie', role: 'editor' as const };
  const admin = { id: 0, username: 'ada', role: 'admin' as const };
  const customer = { id: 0, username: 'cora', role: null };

  beforeEach(async () => {
    t = await createTestApp({ databaseUrl: url });
    editor.id = (await t.services.users.create({ username: editor.username, password: 'editor password 22', role: 'editor' })).id;
    admin.id = (await t.services.users.create({ username: admin.username, password: 'admin password 333', role: 'admin' })).id;
    customer.id = (await t.services.users.create({ username: customer.username, password: 'customer password 1', role: null })).id;
    await t.services.ingest.applyRecord(
      { asset_type: 'image', id: 'd1', file: 'd1.jpg', title: 'Pier', asset_family: 'creative', license_model: 'royaltyfree', product_types: ['creditpack'] },
      await makeJpeg(320, 240),
      { publication: 'draft' },
    );
  });
  afterEach(async () => {
    await t.close();
  });

  it('rule: a customer is refused every catalogue action, in the service (StaffOnly)', async () => {
    const desk = t.services.catalogueDesk;
    await expect(desk.list(customer, { publication: 'draft', page: 1, pageSize: 10 })).rejects.toMatchObject({ statusCode: 403, code: 'StaffOnly' });
    await expect(desk.update(customer, 'd1', { title: 'x' })).rejects.toMatchObject({ code: 'StaffOnly' });
    await expect(desk.publish(customer, ['d1'])).rejects.toMatchObject({ code: 'StaffOnly' });
    expect((await t.services.catalogEditing.read('d1')).asset).toMatchObject({ publication: 'draft', fields: expect.objectContaining({ title: 'Pier' }) });
  });

  it('records each edit and move with the asset before and after; a refused edit and a move that did nothing record nothing', async () => {
    const desk = t.services.catalogueDesk;
    expect((await desk.update(editor, 'd1', { title: 'Pier at noon', caption: 'Gulls' })).ok).toBe(true);
    expect((await desk.update(editor, 'd1', { caption: 7 })).ok).toBe(false);
    await desk.updateMany(editor, ['d1'], { kind: 'add_keywords', keywords: ['gull'] });
    await desk.publish(editor, ['d1']);
    await desk.publish(editor, ['d1']);
    await desk.withdraw(admin, ['d1']);
    const { entries } = await t.services.auditLog.read(admin, { page: 1 });
    expect(entries.map((entry) => [entry.actor.username, entry.action, entry.target, entry.before, entry.after]).reverse()).toEqual([
      ['eddie', 'asset.edit', { kind: 'asset', id: 'd1' }, { title: 'Pier', caption: null }, { title: 'Pier at noon', caption: 'Gulls' }],
      ['eddie', 'asset.bulk_edit', { kind: 'asset', id: 'd1' }, { keywords: null }, { keywords: ['gull'] }],
      ['eddie', 'asset.publish', { kind: 'asset', id: 'd1' }, { publication: 'draft' }, { publication: 'published' }],
      ['ada', 'asset.withdraw', { kind: 'asset', id: 'd1' }, { publication: 'published' }, { publication: 'withdrawn' }],
    ]);
  });
});
