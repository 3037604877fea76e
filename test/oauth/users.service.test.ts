import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as argon2 from '@node-rs/argon2';
import { STORES, createTestApp, type TestApp } from '../helpers/test-app.js';
import { tokenRequest, uniqueName } from '../helpers/oauth-fixtures.js';

vi.mock('@node-rs/argon2', async (importOriginal) => {
  const original = await importOriginal<typeof argon2>();
  return { ...original, verify: vi.fn(original.verify) };
});

const PASSWORD = 'correct horse battery';

describe.each(STORES)('users on $name', ({ url }) => {
  let t: TestApp;
  let count = 0;
  const username = () => `user-${++count}`;

  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url });
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a user with a team and partner credit, keeping only an argon2id hash of the password', async () => {
    const user = await t.services.users.create({ username: 'partner-user', password: PASSWORD, team: 'Newsroom', partnerCredit: true });
    expect(user).toMatchObject({ username: 'partner-user', team: 'Newsroom', partnerCredit: true });
    const row = await t.services.database.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
    const plain = await t.services.users.create({ username: username(), password: PASSWORD });
    expect(plain).toMatchObject({ team: null, partnerCredit: false });
  });

  it('refuses a password shorter than 8 characters', async () => {
    await expect(t.services.users.create({ username: username(), password: 'short' })).rejects.toThrow(/at least 8/);
  });

  it('still verifies a password (against a dummy hash) for an unknown username, so timing does not tell', async () => {
    const verify = vi.mocked(argon2.verify);
    verify.mockClear();
    expect(await t.services.users.verifyPassword('nobody-here', PASSWORD)).toBeUndefined();
    expect(verify).toHaveBeenCalledTimes(1);
    const name = username();
    await t.services.users.create({ username: name, password: PASSWORD });
    verify.mockClear();
    expect(await t.services.users.verifyPassword(name, 'wrong password')).toBeUndefined();
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('changes a password: the old one stops working, the new one works', async () => {
    const name = username();
    await t.services.users.create({ username: name, password: PASSWORD });
    expect(await t.services.users.changePassword(name, 'a brand new secret')).toBe(true);
    expect(await t.services.users.verifyPassword(name, PASSWORD)).toBeUndefined();
    expect(await t.services.users.verifyPassword(name, 'a brand new secret')).toMatchObject({ username: name });
  });

  it('answers false when changing the password of no such user', async () => {
    expect(await t.services.users.changePassword('nobody-here', 'a brand new secret')).toBe(false);
  });

  it('revokes every access and refresh token of the user on a password change, and no one else’s', async () => {
    const name = username();
    const user = await t.services.users.create({ username: name, password: PASSWORD });
    const other = await t.services.users.create({ username: username(), password: PASSWORD });
    const { tokens } = t.services;
    const access = await tokens.issue({ clientId: t.clientId, userId: user.id, grantType: 'implicit', lifetimeSeconds: 3600 });
    const refresh = await tokens.issueRefreshToken({ clientId: t.clientId, userId: user.id, expiresAt: new Date(Date.now() + 3600_000) });
    const othersAccess = await tokens.issue({ clientId: t.clientId, userId: other.id, grantType: 'implicit', lifetimeSeconds: 3600 });
    expect((await tokens.verify(access.token, t.clientId)).valid).toBe(true);

    await t.services.users.changePassword(name, 'a brand new secret');

    expect(await tokens.verify(access.token, t.clientId)).toEqual({ valid: false, reason: 'The access token has been revoked' });
    expect((await tokens.findRefreshToken(refresh.token))?.revoked_at).toEqual(expect.any(String));
    expect((await tokens.verify(othersAccess.token, t.clientId)).valid).toBe(true);
  });

  it('lifts a lockout on a password change', async () => {
    const name = username();
    const user = await t.services.users.create({ username: name, password: PASSWORD });
    const now = new Date();
    const windowStart = new Date(now.getTime() - 900_000);
    await t.services.users.recordFailedSignIn(user.id, 2, new Date(now.getTime() + 900_000), now, windowStart);
    await t.services.users.recordFailedSignIn(user.id, 2, new Date(now.getTime() + 900_000), now, windowStart);
    expect((await t.services.users.signInAccount(name))?.lockedUntil).toBeInstanceOf(Date);
    await t.services.users.changePassword(name, 'a brand new secret');
    expect(await t.services.users.signInAccount(name)).toEqual({ userId: user.id, lockedUntil: null });
  });
});

describe.each(STORES)('disabling and enabling users on $name', ({ url }) => {
  let t: TestApp;
  let client: { apiKey: string; apiSecret: string; id: number };
  beforeAll(async () => {
    t = await createTestApp({ databaseUrl: url });
    const created = await t.services.clients.create({ name: 'Partner site', grantTypes: ['password', 'refresh_token'] });
    client = { apiKey: created.apiKey, apiSecret: created.apiSecret, id: created.client.id };
  });
  afterAll(async () => {
    await t.close();
  });

  const passwordGrant = (username: string, password: string) =>
    tokenRequest(t.app, '/auth/oauth2', { grant_type: 'password', username, password, client_id: client.apiKey, client_secret: client.apiSecret });

  it('verifies the password of a disabled user all the same (timing does not tell), and refuses it', async () => {
    const username = uniqueName('timed');
    await t.services.users.create({ username, password: PASSWORD });
    await t.services.users.disable(username);
    const verify = vi.mocked(argon2.verify);
    verify.mockClear();
    expect(await t.services.users.verifyPassword(username, PASSWORD)).toBeUndefined();
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('refuses a disabled user the password grant and revokes every token the user held; enabling lets the user in again', async () => {
    const username = uniqueName('reporter');
    const user = await t.services.users.create({ username, password: PASSWORD });
    const granted = await passwordGrant(username, PASSWORD);
    expect(granted.statusCode).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken } = granted.json<{ access_token: string; refresh_token: string }>();

    expect(await t.services.users.disable(username)).toBe(true);
    expect(await t.services.tokens.verify(accessToken, client.id)).toEqual({ valid: false, reason: 'The access token has been revoked' });
    const refreshed = await tokenRequest(t.app, '/auth/oauth2', {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: client.apiKey,
      client_secret: client.apiSecret,
    });
    expect(refreshed.statusCode).toBe(400);
    const refused = await passwordGrant(username, PASSWORD);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await t.services.users.verifyPassword(username, PASSWORD)).toBeUndefined();
    expect((await t.services.users.list()).find((listed) => listed.id === user.id)).toMatchObject({ username, disabledAt: expect.any(String) });

    // Attempts while disabled count as failures; enabling forgets them, lifting the lock they brought.
    for (let attempt = 0; attempt < 5; attempt++) await passwordGrant(username, PASSWORD);
    expect((await t.services.users.signInAccount(username))?.lockedUntil).toBeInstanceOf(Date);
    expect(await t.services.users.enable(username)).toBe(true);
    expect(await t.services.users.signInAccount(username)).toEqual({ userId: user.id, lockedUntil: null });
    expect(await t.services.users.verifyPassword(username, PASSWORD)).toMatchObject({ id: user.id });
    expect((await passwordGrant(username, PASSWORD)).statusCode).toBe(200);
    expect((await t.services.users.list()).find((listed) => listed.id === user.id)).toMatchObject({ disabledAt: null });
  });

  it('says false for a user that does not exist', async () => {
    expect(await t.services.users.disable('nobody-at-all')).toBe(false);
    expect(await t.services.users.enable('nobody-at-all')).toBe(false);
  });

  it('lists users by id with team, partner credit and account state, never a password hash', async () => {
    const username = uniqueName('listed');
    const user = await t.services.users.create({ username, password: PASSWORD, team: 'Desk', partnerCredit: true });
    const listed = await t.services.users.list();
    expect(listed.find((entry) => entry.id === user.id)).toMatchObject({ username, team: 'Desk', partnerCredit: true, disabledAt: null, lockedUntil: null });
    expect(JSON.stringify(listed)).not.toMatch(/argon2/);
    expect(listed.map((entry) => entry.id)).toEqual(listed.map((entry) => entry.id).sort((a, b) => a - b));
  });
});
