import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it, expect, afterAll } from 'vitest';
import { Redis } from 'ioredis';
import {
  createThrottle,
  throttleRefusal,
  type Throttle,
  type ThrottleDecision,
  type ThrottleLimits,
} from '../../src/platform/throttle/throttle.js';

const redisUrl = process.env.STOCKROOM_TEST_REDIS_URL;
const runPrefix = `stockroom-test:throttle:${randomBytes(6).toString('hex')}`;

let keyCounter = 0;
/** A fresh API key per test, so tests never share counters. */
function newKey(): string {
  keyCounter += 1;
  return `key-${keyCounter}-${randomBytes(3).toString('hex')}`;
}

async function consumeTimes(throttle: Throttle, key: string, limits: ThrottleLimits, times: number): Promise<ThrottleDecision[]> {
  const decisions: ThrottleDecision[] = [];
  for (let i = 0; i < times; i++) decisions.push(await throttle.consume(key, limits));
  return decisions;
}

function refused(decision: ThrottleDecision): 'second' | 'day' | undefined {
  return decision.allowed ? undefined : decision.exceeded;
}

interface Store {
  /** A throttle of this store; for Redis, each call is one more "node" on the same Redis. */
  node(): Promise<Throttle>;
}

/** The rules every store must follow. */
function throttleRules(store: Store): void {
  it('allows up to perSecond in one second then refuses with exceeded second', async () => {
    const throttle = await store.node();
    const key = newKey();
    const decisions = await consumeTimes(throttle, key, { perSecond: 3, perDay: 100 }, 5);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(refused(decisions[3]!)).toBe('second');
    expect(refused(decisions[4]!)).toBe('second');
  });

  it('concurrent calls never exceed perSecond', async () => {
    const throttle = await store.node();
    const key = newKey();
    const limits = { perSecond: 5, perDay: 100 };
    const decisions = await Promise.all(Array.from({ length: 20 }, () => throttle.consume(key, limits)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect(decisions.filter((d) => refused(d) === 'second')).toHaveLength(15);
  });

  it('refuses with exceeded day once the day allowance is used', async () => {
    const throttle = await store.node();
    const key = newKey();
    const decisions = await consumeTimes(throttle, key, { perSecond: 10, perDay: 3 }, 5);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(refused(decisions[3]!)).toBe('day');
    expect(refused(decisions[4]!)).toBe('day');
  });

  it('a request refused by one window does not count against the other', async () => {
    const throttle = await store.node();
    // Refused by the second window: the day allowance is untouched.
    const burst = newKey();
    await consumeTimes(throttle, burst, { perSecond: 2, perDay: 10 }, 6);
    const [last] = (await consumeTimes(throttle, burst, { perSecond: 2, perDay: 10 }, 1)) as [ThrottleDecision];
    expect(last.headers['x-ratelimit-remaining-day']).toBe('8');
    // Refused by the day window: the refused calls give their second-window point back.
    const daily = newKey();
    const decisions = await consumeTimes(throttle, daily, { perSecond: 10, perDay: 2 }, 5);
    expect(decisions.map(refused)).toEqual([undefined, undefined, 'day', 'day', 'day']);
    for (const decision of decisions.slice(2)) {
      expect(decision.headers['x-ratelimit-remaining-second']).toBe('8');
    }
    // The same through the store: three calls at once reach it before any
    // answer is known; the third is refused for the day and gives its point
    // back, so with a raised day limit one more call fits in this second.
    const racing = newKey();
    const racers = await Promise.all([1, 2, 3].map(() => throttle.consume(racing, { perSecond: 3, perDay: 2 })));
    expect(racers.map(refused)).toEqual([undefined, undefined, 'day']);
    const raised = await consumeTimes(throttle, racing, { perSecond: 3, perDay: 100 }, 2);
    expect(raised.map(refused)).toEqual([undefined, 'second']);
    expect(raised[0]!.headers['x-ratelimit-remaining-second']).toBe('0');
  });

  it('limits are per key', async () => {
    const throttle = await store.node();
    const limits = { perSecond: 2, perDay: 100 };
    const busy = newKey();
    const quiet = newKey();
    const busyDecisions = await consumeTimes(throttle, busy, limits, 3);
    expect(refused(busyDecisions[2]!)).toBe('second');
    const quietDecisions = await consumeTimes(throttle, quiet, limits, 2);
    expect(quietDecisions.every((d) => d.allowed)).toBe(true);
    expect(quietDecisions[1]!.headers['x-ratelimit-remaining-second']).toBe('0');
  });

  it('different limits for different keys coexist', async () => {
    const throttle = await store.node();
    const small = newKey();
    const large = newKey();
    const smallLimits = { perSecond: 1, perDay: 100 };
    const largeLimits = { perSecond: 4, perDay: 5 };
    // Interleaved, so the limiters for both pairs are in use at the same time.
    const results: [string, boolean][] = [];
    for (let i = 0; i < 6; i++) {
      results.push(['small', (await throttle.consume(small, smallLimits)).allowed]);
      results.push(['large', (await throttle.consume(large, largeLimits)).allowed]);
    }
    expect(results.filter(([who, ok]) => who === 'small' && ok)).toHaveLength(1);
    expect(results.filter(([who, ok]) => who === 'large' && ok)).toHaveLength(4);
    const smallHeaders = (await throttle.consume(small, smallLimits)).headers;
    expect(smallHeaders['x-ratelimit-limit-second']).toBe('1');
    expect(smallHeaders['x-ratelimit-limit-day']).toBe('100');
    const largeHeaders = (await throttle.consume(large, largeLimits)).headers;
    expect(largeHeaders['x-ratelimit-limit-second']).toBe('4');
    expect(largeHeaders['x-ratelimit-limit-day']).toBe('5');
  });

  it('headers report limit and remaining', async () => {
    const throttle = await store.node();
    const key = newKey();
    const limits = { perSecond: 5, perDay: 100 };
    const [first, second] = (await consumeTimes(throttle, key, limits, 2)) as [ThrottleDecision, ThrottleDecision];
    expect(first).toEqual({
      allowed: true,
      headers: {
        'x-ratelimit-limit-second': '5',
        'x-ratelimit-remaining-second': '4',
        'x-ratelimit-limit-day': '100',
        'x-ratelimit-remaining-day': '99',
        'x-ratelimit-reset': expect.stringMatching(/^\d+$/) as unknown as string,
      },
    });
    const reset = Number(first.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(86_399);
    expect(reset).toBeLessThanOrEqual(86_400);
    expect(second.headers['x-ratelimit-remaining-second']).toBe('3');
    expect(second.headers['x-ratelimit-remaining-day']).toBe('98');
  });

  it('retry-after present on refusal', async () => {
    const throttle = await store.node();
    const perSecondKey = newKey();
    const bySecond = await consumeTimes(throttle, perSecondKey, { perSecond: 1, perDay: 100 }, 2);
    expect(bySecond[0]!.headers).not.toHaveProperty('retry-after');
    expect(refused(bySecond[1]!)).toBe('second');
    expect(bySecond[1]!.headers['retry-after']).toBe('1');
    expect(bySecond[1]!.headers['x-ratelimit-remaining-second']).toBe('0');

    const perDayKey = newKey();
    const byDay = await consumeTimes(throttle, perDayKey, { perSecond: 10, perDay: 1 }, 2);
    expect(refused(byDay[1]!)).toBe('day');
    const retryAfter = Number(byDay[1]!.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(86_399);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(byDay[1]!.headers['x-ratelimit-remaining-day']).toBe('0');
  });

  it('after the second window passes, requests are allowed again', async () => {
    const throttle = await store.node();
    const key = newKey();
    const limits = { perSecond: 2, perDay: 100 };
    const before = await consumeTimes(throttle, key, limits, 3);
    expect(refused(before[2]!)).toBe('second');
    await sleep(1100);
    const after = await consumeTimes(throttle, key, limits, 3);
    expect(after.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(after[1]!.headers['x-ratelimit-remaining-day']).toBe('96');
  });

  it('rejects limits that are not non-negative integers', async () => {
    const throttle = await store.node();
    await expect(throttle.consume(newKey(), { perSecond: -1, perDay: 10 })).rejects.toThrow(RangeError);
    await expect(throttle.consume(newKey(), { perSecond: 1, perDay: 1.5 })).rejects.toThrow(RangeError);
  });
}

describe('throttleRefusal', () => {
  it('gives the spec texts for each window', () => {
    expect(throttleRefusal({ exceeded: 'second' })).toEqual({
      message: 'Account Over Queries Per Second Limit',
      detail: 'Account Over Queries Per Second Limit',
    });
    expect(throttleRefusal({ exceeded: 'day' })).toEqual({
      message: 'Account Over Rate Limit',
      detail: 'Account Over Rate Limit',
    });
  });
});

describe('throttle, memory store', () => {
  const throttles: Throttle[] = [];
  afterAll(async () => {
    await Promise.all(throttles.map((t) => t.close()));
  });
  throttleRules({
    async node() {
      const throttle = createThrottle({});
      throttles.push(throttle);
      return throttle;
    },
  });

  it('refuses consume after close', async () => {
    const throttle = createThrottle({});
    await throttle.consume(newKey(), { perSecond: 1, perDay: 1 });
    await throttle.close();
    await expect(throttle.consume(newKey(), { perSecond: 1, perDay: 1 })).rejects.toThrow(/close/);
  });
});

describe.skipIf(!redisUrl)('throttle, redis store', () => {
  const clients: Redis[] = [];
  const throttles: Throttle[] = [];
  const keyPrefix = `${runPrefix}:shared`;

  /**
   * A connected client. Until a client is ready the throttle answers from its
   * insurance limiter, which would make these tests pass without Redis.
   */
  async function client(): Promise<Redis> {
    const redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    await redis.ping();
    return redis;
  }

  afterAll(async () => {
    await Promise.all(throttles.map((t) => t.close()));
    const redis = clients[0];
    if (redis !== undefined) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${runPrefix}:*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
    await Promise.all(clients.map((c) => c.quit()));
  });

  throttleRules({
    async node() {
      const throttle = createThrottle({ redis: await client(), keyPrefix });
      throttles.push(throttle);
      return throttle;
    },
  });

  it('two Throttle instances sharing one Redis share the counters', async () => {
    const nodeA = createThrottle({ redis: await client(), keyPrefix });
    const nodeB = createThrottle({ redis: await client(), keyPrefix });
    throttles.push(nodeA, nodeB);
    const perSecond = newKey();
    const limits = { perSecond: 3, perDay: 100 };
    expect((await nodeA.consume(perSecond, limits)).allowed).toBe(true);
    expect((await nodeB.consume(perSecond, limits)).allowed).toBe(true);
    expect((await nodeA.consume(perSecond, limits)).allowed).toBe(true);
    const overB = await nodeB.consume(perSecond, limits);
    expect(refused(overB)).toBe('second');
    expect(refused(await nodeA.consume(perSecond, limits))).toBe('second');

    const perDay = newKey();
    const dayLimits = { perSecond: 10, perDay: 2 };
    expect((await nodeA.consume(perDay, dayLimits)).headers['x-ratelimit-remaining-day']).toBe('1');
    expect((await nodeB.consume(perDay, dayLimits)).headers['x-ratelimit-remaining-day']).toBe('0');
    expect(refused(await nodeA.consume(perDay, dayLimits))).toBe('day');
    expect(refused(await nodeB.consume(perDay, dayLimits))).toBe('day');
  });

  it('stores counters under the key prefix, counting allowed calls only', async () => {
    const redis = await client();
    const nodeA = createThrottle({ redis, keyPrefix });
    const nodeB = createThrottle({ redis, keyPrefix });
    throttles.push(nodeA, nodeB);
    const key = newKey();
    await nodeA.consume(key, { perSecond: 5, perDay: 50 });
    expect(await redis.get(`${keyPrefix}:s:${key}`)).toBe('1');
    expect(await redis.get(`${keyPrefix}:d:${key}`)).toBe('1');
    expect(await redis.pttl(`${keyPrefix}:d:${key}`)).toBeGreaterThan(86_000_000);

    // Refused for the second: the day counter is not touched.
    const bursty = newKey();
    await consumeTimes(nodeA, bursty, { perSecond: 1, perDay: 5 }, 2);
    expect(await redis.get(`${keyPrefix}:d:${bursty}`)).toBe('1');

    // Refused for the day at the store (node B has not seen the key): both
    // points are given back. Same client, so the reads come after the give-backs.
    const daily = newKey();
    expect((await nodeA.consume(daily, { perSecond: 5, perDay: 1 })).allowed).toBe(true);
    expect(refused(await nodeB.consume(daily, { perSecond: 5, perDay: 1 }))).toBe('day');
    expect(await redis.get(`${keyPrefix}:s:${daily}`)).toBe('1');
    expect(await redis.get(`${keyPrefix}:d:${daily}`)).toBe('1');
  });

  it('connects a lazyConnect client itself', async () => {
    const redis = new Redis(redisUrl!, { lazyConnect: true });
    clients.push(redis);
    const ready = once(redis, 'ready');
    const throttle = createThrottle({ redis, keyPrefix });
    throttles.push(throttle);
    await ready;
    const key = newKey();
    await throttle.consume(key, { perSecond: 5, perDay: 50 });
    expect(await redis.get(`${keyPrefix}:d:${key}`)).toBe('1');
  });
});

// Needs no Redis server: nothing listens on port 1, so it runs everywhere.
describe('throttle, redis store unreachable', () => {
  const redis = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  redis.on('error', () => {
    // Connection refusals are expected here.
  });
  const throttle = createThrottle({ redis, keyPrefix: `${runPrefix}:unreachable` });

  afterAll(async () => {
    await throttle.close();
    redis.disconnect();
  });

  it('Redis unreachable still answers via the insurance limiter', async () => {
    const key = newKey();
    const started = performance.now();
    const decisions = await consumeTimes(throttle, key, { perSecond: 2, perDay: 100 }, 3);
    expect(performance.now() - started).toBeLessThan(500);
    expect(decisions.map(refused)).toEqual([undefined, undefined, 'second']);
    expect(decisions[0]!.headers['x-ratelimit-remaining-day']).toBe('99');

    const daily = newKey();
    const byDay = await consumeTimes(throttle, daily, { perSecond: 10, perDay: 1 }, 2);
    expect(byDay.map(refused)).toEqual([undefined, 'day']);
    expect(Number(byDay[1]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('does not wait for a client with an offline queue and retries to reconnect', async () => {
    // ioredis defaults: commands would sit in the offline queue through 20 reconnection attempts.
    const patient = new Redis('redis://127.0.0.1:1');
    patient.on('error', () => {});
    const throttleOnPatient = createThrottle({ redis: patient, keyPrefix: `${runPrefix}:unreachable` });
    try {
      const started = performance.now();
      const decisions = await consumeTimes(throttleOnPatient, newKey(), { perSecond: 1, perDay: 100 }, 2);
      expect(performance.now() - started).toBeLessThan(500);
      expect(decisions.map(refused)).toEqual([undefined, 'second']);
    } finally {
      await throttleOnPatient.close();
      patient.disconnect();
    }
  });
});
