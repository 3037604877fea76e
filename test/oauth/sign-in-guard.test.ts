import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, createTestApp, type TestApp } from '../helpers/test-app.js';
import { addressBucket, SIGN_IN_MESSAGES, SignInGuard, type SignInAccounts } from '../../src/oauth/sign-in-guard.js';
import { UsersRepository } from '../../src/oauth/users.repository.js';
import { UsersService } from '../../src/oauth/users.service.js';

const PASSWORD = 'correct horse battery';

describe('the sign-in guard', () => {
  let t: TestApp;
  let clock: Date;
  const now = () => clock;
  let users: UsersService;
  let count = 0;
  let addressCount = 0;
  /** Each test signs in from addresses of its own, so that the address limit of one does not reach the next. */
  const freshAddress = () => `10.1.${Math.floor(++addressCount / 250)}.${addressCount % 250}`;
  const newUser = async () => (await users.create({ username: `guarded-${++count}`, password: PASSWORD })).username;
  /** Counts the password checks, to see which attempts never reach one. */
  const counting = (accounts: SignInAccounts) => {
    const checked = { passwords: 0 };
    const wrapped: SignInAccounts = {
      signInAccount: (username) => accounts.signInAccount(username),
      verifyPassword: (username, password) => {
        checked.passwords += 1;
        return accounts.verifyPassword(username, password);
      },
      recordFailedSignIn: (...args) => accounts.recordFailedSignIn(...args),
      recordSuccessfulSignIn: (userId) => accounts.recordSuccessfulSignIn(userId),
    };
    return { checked, wrapped };
  };

  beforeAll(async () => {
    t = await createTestApp();
    clock = new Date();
    users = new UsersService(new UsersRepository(t.services.database.db), { now });
  });
  afterAll(async () => {
    await t.close();
  });

  it('signs a user in with the right password', async () => {
    const guard = new SignInGuard({ accounts: users, now });
    const username = await newUser();
    const result = await guard.signIn(username, PASSWORD, freshAddress());
    expect(result).toEqual({ ok: true, userId: (await users.findByUsername(username))!.id });
  });

  it('refuses a wrong password or an unknown username with one message that tells neither apart', async () => {
    const guard = new SignInGuard({ accounts: users, now });
    const username = await newUser();
    const wrong = await guard.signIn(username, 'wrong password', freshAddress());
    const unknown = await guard.signIn('nobody-at-all', PASSWORD, freshAddress());
    expect(wrong).toEqual({ ok: false, reason: 'invalid', message: 'The username or password is incorrect.' });
    expect(unknown).toEqual(wrong);
  });

  it('locks an account for 15 minutes after 5 consecutive failures, even against the right password', async () => {
    const { checked, wrapped } = counting(users);
    const guard = new SignInGuard({ accounts: wrapped, now });
    const username = await newUser();
    const address = freshAddress();
    for (let i = 1; i <= 4; i++) expect((await guard.signIn(username, 'wrong password', address)).ok).toBe(false);
    const fifth = await guard.signIn(username, 'wrong password', address);
    expect(fifth).toMatchObject({ ok: false, reason: 'locked', retryAfterSeconds: 900 });
    const passwordsChecked = checked.passwords;
    const right = await guard.signIn(username, PASSWORD, freshAddress());
    expect(right).toMatchObject({ ok: false, reason: 'locked', retryAfterSeconds: 900 });
    if (!right.ok) expect(right.message).toMatch(/^This account is locked after repeated failed sign-ins\. Try again after \d\d:\d\d UTC \(in 15 minutes\)\.$/);
    expect(checked.passwords).toBe(passwordsChecked);
  });

  it('lifts the lock when the 15 minutes are over', async () => {
    const guard = new SignInGuard({ accounts: users, now });
    const username = await newUser();
    for (let i = 0; i < 5; i++) await guard.signIn(username, 'wrong password', freshAddress());
    const lockedAt = clock;
    try {
      clock = new Date(lockedAt.getTime() + 14 * 60_000);
      expect(await guard.signIn(username, PASSWORD, freshAddress())).toMatchObject({ ok: false, reason: 'locked', retryAfterSeconds: 60 });
      clock = new Date(lockedAt.getTime() + 15 * 60_000);
      expect(await guard.signIn(username, PASSWORD, freshAddress())).toMatchObject({ ok: true });
    } finally {
      clock = new Date();
    }
  });

  it('counts only consecutive failures: a success starts the count again', async () => {
    const guard = new SignInGuard({ accounts: users, now });
    const username = await newUser();
    for (let i = 0; i < 4; i++) await guard.signIn(username, 'wrong password', freshAddress());
    expect((await guard.signIn(username, PASSWORD, freshAddress())).ok).toBe(true);
    for (let i = 0; i < 4; i++) expect(await guard.signIn(username, 'wrong password', freshAddress())).toMatchObject({ reason: 'invalid' });
    expect((await guard.signIn(username, PASSWORD, freshAddress())).ok).toBe(true);
  });

  it('counts failures within 15 minutes of the first: failures spread wider never lock (as for an unknown name)', async () => {
    const guard = new SignInGuard({ accounts: users, now });
    const username = await newUser();
    const start = clock;
    try {
      for (let i = 0; i < 8; i++) {
        clock = new Date(start.getTime() + i * 4 * 60_000);
        expect(await guard.signIn(username, 'wrong password', freshAddress()), `failure ${i + 1}`).toMatchObject({ reason: 'invalid' });
      }
    } finally {
      clock = new Date();
    }
  });

  it('keeps the lock in the store, so that every process sees it', async () => {
    const username = await newUser();
    const first = new SignInGuard({ accounts: users, now });
    for (let i = 0; i < 5; i++) await first.signIn(username, 'wrong password', freshAddress());
    const otherProcess = new SignInGuard({ accounts: new UsersService(new UsersRepository(t.services.database.db), { now }), now });
    expect(await otherProcess.signIn(username, PASSWORD, freshAddress())).toMatchObject({ ok: false, reason: 'locked' });
  });

  it('counts concurrent failures one by one', async () => {
    const guard = new SignInGuard({ accounts: users, now });
    const username = await newUser();
    await Promise.all(Array.from({ length: 5 }, () => guard.signIn(username, 'wrong password', freshAddress())));
    expect(await guard.signIn(username, PASSWORD, freshAddress())).toMatchObject({ ok: false, reason: 'locked' });
  });

  it('answers "locked" for an unknown username after as many failures, so the lock does not reveal which accounts exist', async () => {
    const guard = new SignInGuard({ accounts: users, now });
    for (let i = 1; i <= 4; i++) expect(await guard.signIn('no-such-user', 'guess', freshAddress())).toMatchObject({ reason: 'invalid' });
    expect(await guard.signIn('no-such-user', 'guess', freshAddress())).toMatchObject({ reason: 'locked', retryAfterSeconds: 900 });
    expect(await guard.signIn('no-such-user', 'guess', freshAddress())).toMatchObject({ reason: 'locked' });
  });

  it('refuses an address after 20 failed sign-ins in 15 minutes without checking the password, and says when to retry', async () => {
    const { checked, wrapped } = counting(users);
    const guard = new SignInGuard({ accounts: wrapped, now });
    const address = freshAddress();
    const victims = await Promise.all(Array.from({ length: 5 }, () => newUser()));
    // Spread over five accounts so that no account locks first.
    for (let i = 0; i < 20; i++) expect((await guard.signIn(victims[i % 5]!, 'wrong password', address)).ok).toBe(false);
    const username = await newUser();
    const refused = await guard.signIn(username, PASSWORD, address);
    expect(refused).toMatchObject({ ok: false, reason: 'throttled' });
    if (refused.ok) return;
    expect(refused.retryAfterSeconds).toBeGreaterThan(890);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(900);
    expect(refused.message).toBe(SIGN_IN_MESSAGES.throttled(refused.retryAfterSeconds!));
    expect(refused.message).toMatch(/^Too many failed sign-ins from this address\. Try again in \d+ seconds\.$/);
    expect(checked.passwords).toBe(20);
    expect((await guard.signIn(username, PASSWORD, freshAddress())).ok).toBe(true);
  });

  it('does not count successful sign-ins against the address', async () => {
    const guard = new SignInGuard({ accounts: users, now });
    const address = freshAddress();
    const username = await newUser();
    for (let i = 0; i < 25; i++) expect((await guard.signIn(username, PASSWORD, address)).ok).toBe(true);
  });

  it('counts an IPv6 host by its /64 and an IPv4-mapped address as IPv4', () => {
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressBucket('192.0.2.7')).toBe('192.0.2.7');
  });
});

describe.skipIf(!REDIS_URL)('the sign-in guard with Redis', () => {
  let t: TestApp;
  const keyPrefix = `stockroom-test:${randomBytes(6).toString('hex')}:sign-in`;
  const clients: Redis[] = [];

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    const redis = clients[0];
    if (redis) {
      const keys = await redis.keys(`${keyPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await Promise.all(clients.map((client) => client.quit()));
    await t.close();
  });

  /** A node of its own: a guard on its own Redis connection, counting with the others. */
  async function node(): Promise<SignInGuard> {
    const redis = new Redis(REDIS_URL!, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    // Until the client is ready the insurance limiter would answer, and the test would pass without Redis.
    await redis.ping();
    return new SignInGuard({ accounts: t.services.users, redis, keyPrefix });
  }

  it('counts the failures of an address on every node together', async () => {
    const [a, b] = [await node(), await node()];
    for (let i = 0; i < 10; i++) await a.signIn(`nobody-${i}`, 'wrong password', '192.0.2.10');
    for (let i = 10; i < 20; i++) await b.signIn(`nobody-${i}`, 'wrong password', '192.0.2.10');
    expect(await a.signIn('nobody-else', 'wrong password', '192.0.2.10')).toMatchObject({ ok: false, reason: 'throttled' });
    expect(await b.signIn('nobody-else', 'wrong password', '192.0.2.10')).toMatchObject({ ok: false, reason: 'throttled' });
    expect(await b.signIn('nobody-else', 'wrong password', '192.0.2.11')).toMatchObject({ ok: false, reason: 'invalid' });
  });
});
