import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/back-office/staff-policy.js';
import { ApiError } from '../../src/platform/http/errors.js';
import { expiryDate } from '../../src/cli/options.js';
import { tokenRequest } from '../helpers/oauth-fixtures.js';
import { STORES } from '../helpers/test-store.js';
import { backOfficeFixture, PEOPLE, type BackOfficeFixture } from './back-office-fixtures.js';

/*
 * The back office's services on their own (no page in front): each refuses whoever lacks the
 * role, records what it did with the target before and after, rotates a secret so that the old
 * one is refused by the token endpoint, and grants and revokes as the command line does.
 */

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return `${error.statusCode} ${error.code}`;
    throw error;
  }
  throw new Error('it was not refused');
}

describe.each(STORES)('back-office services on $name', ({ url }) => {
  let f: BackOfficeFixture;
  let admin: Actor;
  let editor: Actor;
  let customer: Actor;

  beforeAll(async () => {
    f = await backOfficeFixture({ databaseUrl: url });
    admin = { id: f.ids.admin, username: PEOPLE.admin.username, role: 'admin' };
    editor = { id: f.ids.editor, username: PEOPLE.editor.username, role: 'editor' };
    customer = { id: f.ids.customer, username: PEOPLE.customer.username, role: null };
  }, 60_000);
  afterAll(async () => {
    await f?.t.close();
  });

  it('refuses an editor (AdminOnly) and a customer (StaffOnly) every admin action, and changes nothing', async () => {
    const { applications, customers, auditLog } = f.t.services;
    const { applicationId, targetId, productId } = f.things;
    const before = await f.t.services.products.productsOf(targetId);
    const clientsBefore = await f.t.services.clients.list();
    const actions: Array<[string, (actor: Actor) => Promise<unknown>]> = [
      ['list applications', (actor) => applications.list(actor)],
      ['create an application', (actor) => applications.create(actor, { name: 'Refused' })],
      ['rotate a secret', (actor) => applications.rotateSecret(actor, applicationId)],
      ['disable an application', (actor) => applications.setEnabled(actor, applicationId, false)],
      ['edit an application', (actor) => applications.update(actor, applicationId, { queriesPerSecond: 1 })],
      ['find users', (actor) => customers.search(actor, { page: 1 })],
      ['create a user', (actor) => customers.create(actor, { username: 'refused' })],
      ['disable a user', (actor) => customers.setEnabled(actor, targetId, false)],
      ['reset a password', (actor) => customers.resetPassword(actor, targetId)],
      ['set a role', (actor) => customers.setRole(actor, actor.id, 'admin')],
      ['grant a product', (actor) => customers.grant(actor, targetId, { type: 'creditpack', credits: '10' })],
      ['revoke a product', (actor) => customers.revoke(actor, targetId, productId)],
      ['read a team', (actor) => customers.team(actor, f.things.team)],
      ['read the audit log', (actor) => auditLog.read(actor, { page: 1 })],
    ];
    for (const [name, action] of actions) {
      expect(await refusal(action(editor)), `${name} as an editor`).toBe('403 AdminOnly');
      expect(await refusal(action(customer)), `${name} as a customer`).toBe('403 StaffOnly');
    }
    // A customer's action is never recorded either.
    expect(await refusal(auditLog.record(customer, 'anything', { kind: 'user', id: 1 }, null, null))).toBe('403 StaffOnly');
    expect(await f.t.services.products.productsOf(targetId)).toEqual(before);
    expect(await f.t.services.clients.list()).toEqual(clientsBefore);
    expect((await auditLog.read(admin, { page: 1 })).total).toBe(0);
  });

  it('records each action with who, what, the target, and the target before and after (no secret)', async () => {
    const { applications, customers, auditLog } = f.t.services;
    const created = await applications.create(admin, { name: 'Audited', queriesPerSecond: 5 });
    await applications.update(admin, created.client.id, { queriesPerSecond: 9, usageReporting: true });
    await applications.setEnabled(admin, created.client.id, false);
    const user = await customers.create(admin, { username: 'audited-user', team: 'Audit team' });
    await customers.setRole(admin, user.user.id, 'editor');

    const { entries } = await auditLog.read(admin, { page: 1, targetKind: 'application', targetId: String(created.client.id) });
    expect(entries.map((entry) => entry.action)).toEqual(['application.disable', 'application.update', 'application.create']);
    for (const entry of entries) expect(entry.actor).toEqual({ id: admin.id, username: admin.username });
    const [disable, update, create] = entries;
    expect(create!.before).toBeNull();
    expect(create!.after).toMatchObject({ id: created.client.id, name: 'Audited', queries_per_second: 5, enabled: true });
    expect(update!.before).toMatchObject({ queries_per_second: 5, usage_reporting: false });
    expect(update!.after).toMatchObject({ queries_per_second: 9, usage_reporting: true });
    expect(disable!.before).toMatchObject({ enabled: true });
    expect(disable!.after).toMatchObject({ enabled: false });
    const all = JSON.stringify(await auditLog.read(admin, { page: 1 }));
    expect(all).not.toContain(created.apiKey);
    expect(all).not.toContain(created.apiSecret!);
    expect(all).not.toContain(user.password);

    const role = (await auditLog.read(admin, { page: 1, action: 'user.set-role' })).entries[0]!;
    expect(role.target).toEqual({ kind: 'user', id: String(user.user.id) });
    expect(role.before).toMatchObject({ role: null });
    expect(role.after).toMatchObject({ role: 'editor' });
    // Filters: by actor (username or id) and by period.
    expect((await auditLog.read(admin, { page: 1, actor: String(admin.id) })).total).toBe((await auditLog.read(admin, { page: 1, actor: admin.username })).total);
    expect((await auditLog.read(admin, { page: 1, actor: 'nobody' })).total).toBe(0);
    expect((await auditLog.read(admin, { page: 1, until: '2000-01-01' })).total).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect((await auditLog.read(admin, { page: 1, from: today, until: today })).total).toBeGreaterThanOrEqual(5);
  });

  it('rotating a secret: the token endpoint refuses the old one at once and takes the new one', async () => {
    const { applications } = f.t.services;
    const created = await applications.create(admin, { name: 'Rotated' });
    const token = (secret: string) => tokenRequest(f.t.app, '/oauth2', { grant_type: 'client_credentials' }, { basic: { clientId: created.apiKey, clientSecret: secret } });
    expect((await token(created.apiSecret!)).statusCode).toBe(200);
    const rotated = await applications.rotateSecret(admin, created.client.id);
    expect(rotated.apiSecret).not.toBe(created.apiSecret);
    const refused = await token(created.apiSecret!);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: 'invalid_client' });
    expect((await token(rotated.apiSecret)).statusCode).toBe(200);
    // A public client has no secret to rotate.
    const browser = await applications.create(admin, { name: 'Public', confidential: false, redirectUris: ['https://app.example/cb'] });
    expect(await refusal(applications.rotateSecret(admin, browser.client.id))).toBe('400 InvalidClientMetadata');
  });

  it('refuses an application setting with the message `stockroom admin client` gives', async () => {
    const { applications } = f.t.services;
    const cli = await f.t.services.clients.create({ name: 'x', grantTypes: ['password'], confidential: false }).catch((error: Error) => error.message);
    const error = await applications.create(admin, { name: 'x', grantTypes: ['password'], confidential: false }).catch((caught: ApiError) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe(cli);
    expect((error as ApiError).statusCode).toBe(400);
  });

  it('grants and revokes as `stockroom admin product` does: the same products, the same refusals', async () => {
    const { customers, products, users } = f.t.services;
    const viaBackOffice = await customers.create(admin, { username: 'granted-here', team: 'Grant team' });
    const viaCli = await users.create({ username: 'granted-there', password: 'cli password 55555', team: 'Grant team 2' });
    // The CLI's options, read by its own parsers: --type creditpack --credits 12 --team --expires 2031-05-06 --agreement Yearly
    const cliGrant = await products.grant({ userId: viaCli.id, type: 'creditpack', credits: 12, team: true, expiresAt: expiryDate('2031-05-06'), agreementName: 'Yearly' });
    const record = await customers.grant(admin, viaBackOffice.user.id, { type: 'creditpack', credits: '12', team: true, expires: '2031-05-06', agreement: 'Yearly' });
    const cliRecord = (await products.productRecords((await products.findCustomer(viaCli.id))!)).find((entry) => entry.id === cliGrant.id)!;
    const { id: _here, download_requirements: _requirements, ...here } = record;
    const { id: _there, ...there } = cliRecord;
    expect(here).toEqual(there);

    const grantRefusal = async (terms: Parameters<typeof customers.grant>[2]) => {
      const fromService = await products.grant({ userId: viaCli.id, type: terms.type, period: terms.period, downloads: terms.downloads === undefined ? undefined : Number(terms.downloads) }).catch((error: ApiError) => `${error.statusCode} ${error.message}`);
      const fromBackOffice = await customers.grant(admin, viaBackOffice.user.id, terms).catch((error: ApiError) => `${error.statusCode} ${error.message}`);
      expect(fromBackOffice).toBe(fromService);
      return fromBackOffice;
    };
    expect(await grantRefusal({ type: 'premiumaccess', period: 'month' })).toMatch(/^400 .*a period needs a download limit/);
    expect(await grantRefusal({ type: 'nothing' })).toMatch(/^400 /);
    expect(await refusal(customers.grant(admin, viaBackOffice.user.id, { type: 'creditpack', credits: 'twelve' }))).toBe('400 InvalidParameterValue');
    expect(await refusal(customers.grant(admin, viaBackOffice.user.id, { type: 'creditpack', expires: '31/12/2030' }))).toBe('400 InvalidParameterValue');

    const revoked = await customers.revoke(admin, viaBackOffice.user.id, record.id);
    expect(revoked.status).toBe('inactive');
    // Another user's product is not theirs to revoke, as `revoke --user` says.
    expect(await refusal(customers.revoke(admin, viaBackOffice.user.id, cliGrant.id))).toBe('404 ProductNotFound');
    const ledger = (await customers.detail(admin, viaBackOffice.user.id)).ledger.entries;
    expect(ledger.map((entry) => [entry.reason, entry.unit, entry.amount, entry.team])).toEqual([['grant', 'credit', 12, 'Grant team']]);
  });

  it('an admin cannot disable themselves or take away their own role; a reset password signs in, the old one no longer', async () => {
    const { customers, users } = f.t.services;
    expect(await refusal(customers.setEnabled(admin, admin.id, false))).toBe('409 CannotChangeOwnAccount');
    expect(await refusal(customers.setRole(admin, admin.id, 'editor'))).toBe('409 CannotChangeOwnAccount');
    const reset = await customers.resetPassword(admin, f.things.targetId);
    expect(await users.verifyPassword('tess', 'target password 4444')).toBeUndefined();
    expect(await users.verifyPassword('tess', reset.password)).toMatchObject({ id: f.things.targetId });
    expect(await refusal(customers.create(admin, { username: 'tess' }))).toBe('409 UsernameTaken');
    const team = await customers.team(admin, f.things.team);
    expect(team.members.map((member) => member.username).sort()).toEqual(['cora', 'tess']);
    expect(await refusal(customers.team(admin, 'No such team'))).toBe('404 TeamNotFound');
  });
});

describe('the demo’s administrator', () => {
  it('the demo access makes an admin of the back office once, kept in the file with the demo user; an older file gets one', async () => {
    const { ensureDemoAccess } = await import('../../src/cli/demo-access.js');
    const fs = await import('node:fs');
    const f = await backOfficeFixture();
    try {
      const first = await ensureDemoAccess(f.t.services);
      expect(first).toMatchObject({ created: true, adminCreated: true });
      const admin = await f.t.services.users.findByUsername(first.access.admin_username!);
      expect(admin?.role).toBe('admin');
      expect(await f.t.services.users.verifyPassword(first.access.admin_username!, first.access.admin_password!)).toMatchObject({ id: admin!.id });
      expect(await ensureDemoAccess(f.t.services)).toMatchObject({ created: false, adminCreated: false, access: { admin_username: first.access.admin_username } });
      // A file written before the back office had no administrator: the next start makes one.
      const { admin_username: _name, admin_password: _password, ...older } = first.access;
      fs.writeFileSync(first.file, JSON.stringify(older));
      const upgraded = await ensureDemoAccess(f.t.services);
      expect(upgraded).toMatchObject({ created: false, adminCreated: true });
      expect(upgraded.access.admin_username).toBe('demo-admin2');
      expect((await f.t.services.users.findByUsername('demo-admin2'))?.role).toBe('admin');
    } finally {
      await f.t.close();
    }
  });
});
