/**
 * Per-API-key throttling: a calls-per-second and a calls-per-day limit for
 * every key (spec, Limits and Errors: exceeding either answers 403).
 *
 * Counting is done by rate-limiter-flexible: `RateLimiterMemory` by default,
 * `RateLimiterRedis` when an ioredis client is given, so that many nodes share
 * one set of counters. Limits differ per key, and a limiter has one fixed
 * number of points, so there is one limiter per distinct (window, points)
 * pair, created lazily and kept in a Map per window (keyed by the number, so
 * finding it allocates nothing).
 *
 * How the two windows interact (each request counts against both or neither):
 *
 * 1. The second window is consumed first. A request it refuses never reaches
 *    the day window, so a burst over the per-second limit does not eat the
 *    daily allowance.
 * 2. Only then is the day window consumed. If the day window refuses, the
 *    point just taken from the second window is given back (`reward`), so a
 *    request refused for the day limit does not count against the second
 *    window either. The give-back is skipped when that second window has
 *    already ended (rewarding a fresh window would put a -1 in it and grant an
 *    extra call). The day point a refused call took is given back as well,
 *    so a counter holds allowed calls only: with Redis a key's day count
 *    carries over when its limits change (see below), and a day of refused
 *    calls must not use up a raised allowance. (The second window's counter
 *    is left over-counted by refused calls: it is gone within a second.)
 *    The two steps are not atomic: while a day-refused request
 *    holds its second-window point, a concurrent request of the same key may
 *    be refused for the second limit. That happens only at the moment a key
 *    runs out of its day allowance, and is accepted.
 *    Rejected alternatives: consuming the day first (and giving back on a
 *    per-second refusal) pays the extra store call on bursts, the common
 *    refusal; consuming both at once (one Redis round trip instead of two,
 *    giving back whichever point was taken in vain) lets a concurrent burst
 *    over the per-second limit inflate the day counter for a moment, enough
 *    to refuse calls with "day" when the allowance is not used up.
 * 3. Refusals are answered locally once the outcome is certain. Counters only
 *    grow within a window, so when this node has seen a window with no
 *    remaining points, later calls in that window are refused without asking
 *    the store (no Redis round trip for a client hammering past its limit, and
 *    nothing consumed, which keeps 1. and 2. true). The second window's local
 *    refusal lasts until that window ends. The day window's is trusted for at
 *    most DAY_RECHECK_MS at a time and then asked again, so that an
 *    exhaustion seen through the Redis insurance limiter during an outage (or
 *    an operator deleting a key's counter) cannot stick for up to a day. When
 *    both are known to be exhausted, "day" is reported.
 *
 * Windows are fixed, starting at a key's first call (rate-limiter-flexible's
 * `duration`): 1 s and 86400 s. `x-ratelimit-reset` is the time left until the
 * day window ends.
 *
 * Redis: counters are stored under `<keyPrefix>:s:<api key>` and
 * `<keyPrefix>:d:<api key>`; the points are not part of the name, so when a
 * key's limits change its current count carries over to the new limit. (In
 * memory each limiter has its own storage, so a change of limits starts a
 * fresh count for that key.) When Redis is unreachable the API keeps serving:
 * every Redis limiter has an `insuranceLimiter` (an in-memory limiter with the
 * same limits) that answers whenever a Redis call fails, and with
 * `rejectIfRedisNotReady` it answers at once while the client is not connected
 * instead of queueing the command until a reconnect. During an outage limits
 * are therefore enforced per node and counted from zero. A connection that is
 * up but stalled is only detected by the client: give it a `commandTimeout`
 * (and a small `maxRetriesPerRequest`) so such calls fail over to the
 * insurance limiter too.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

export interface ThrottleLimits {
  perSecond: number;
  perDay: number;
}

export type ThrottleDecision =
  | { allowed: true; headers: Record<string, string> }
  | { allowed: false; exceeded: 'second' | 'day'; headers: Record<string, string> };

export interface Throttle {
  consume(key: string, limits: ThrottleLimits): Promise<ThrottleDecision>;
  /** Drops in-memory state. Does not quit a Redis client: that belongs to the caller. */
  close(): Promise<void>;
}

export interface ThrottleOptions {
  /** Counters shared by every node using the same Redis; omitted: in this process only. */
  redis?: Redis;
  /** Prefix of the Redis keys; default `stockroom:throttle`. */
  keyPrefix?: string;
}

export type ThrottleRefusal = { message: string; detail: string };

const SECOND_WINDOW_S = 1;
const DAY_WINDOW_S = 86_400;
const DAY_WINDOW_MS = DAY_WINDOW_S * 1000;
/** How long a day exhaustion seen by this node is trusted before the store is asked again. */
const DAY_RECHECK_MS = 1000;
/** The per-key state map is swept of stale entries when it grows past this (then twice its size). */
const MIN_SWEEP_SIZE = 1024;

const SECOND_REFUSAL: ThrottleRefusal = Object.freeze({
  message: 'Account Over Queries Per Second Limit',
  detail: 'Account Over Queries Per Second Limit',
});
const DAY_REFUSAL: ThrottleRefusal = Object.freeze({
  message: 'Account Over Rate Limit',
  detail: 'Account Over Rate Limit',
});

/**
 * The message and `X-Error-Detail` of the spec's 403 for a refused decision.
 * Returns a shared frozen object.
 */
export function throttleRefusal(decision: { exceeded: 'second' | 'day' }): ThrottleRefusal {
  return decision.exceeded === 'second' ? SECOND_REFUSAL : DAY_REFUSAL;
}

/** One limiter for one (window, points) pair. */
interface WindowLimiter {
  readonly limiter: RateLimiterAbstract;
  /** The in-memory limiter standing in for Redis, if any (kept to clear its timers on close). */
  readonly insurance: RateLimiterMemory | undefined;
  readonly points: number;
  /** `String(points)`, made once. */
  readonly limitHeader: string;
}

/**
 * What this node last saw of one API key's windows; mutated in place, one
 * object per active key. `sLimit`/`dLimit` are the limits it was seen under:
 * when a key's limits change, that half is ignored.
 */
class KeyState {
  sLimit = -1;
  sRemaining = 0;
  sResetAt = 0;
  dLimit = -1;
  dRemaining = 0;
  dResetAt = 0;
  /** Until when a day exhaustion (`dRemaining === 0`) may be answered locally. */
  dTrustUntil = 0;
}

/**
 * rate-limiter-flexible rejects with a RateLimiterRes when the limit is
 * exceeded; anything else (a store failure with no insurance) is rethrown.
 */
function refusedResult(reason: unknown): RateLimiterRes {
  if (reason instanceof RateLimiterRes) return reason;
  throw reason;
}

function ignore(): void {
  // A failed give-back (only possible without insurance) leaves one point too many.
}

function seconds(ms: number): number {
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}

function assertLimit(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`throttle: ${name} must be a non-negative integer, got ${String(value)}`);
  }
}

export function createThrottle(options: ThrottleOptions = {}): Throttle {
  const redis = options.redis;
  const prefix = options.keyPrefix ?? 'stockroom:throttle';
  const secondWindows = new Map<number, WindowLimiter>();
  const dayWindows = new Map<number, WindowLimiter>();
  const states = new Map<string, KeyState>();
  let sweepAt = MIN_SWEEP_SIZE;
  let closed = false;

  // With rejectIfRedisNotReady a client that was created with lazyConnect
  // would never be asked anything, hence never connect: start it here.
  if (redis !== undefined && redis.status === 'wait') {
    redis.connect().catch(() => {
      // Failures surface as client 'error' events; meanwhile the insurance limiter answers.
    });
  }

  function makeWindow(tag: 's' | 'd', duration: number, points: number): WindowLimiter {
    const keyPrefix = `${prefix}:${tag}`;
    if (redis === undefined) {
      return { limiter: new RateLimiterMemory({ points, duration, keyPrefix }), insurance: undefined, points, limitHeader: String(points) };
    }
    const insurance = new RateLimiterMemory({ points, duration, keyPrefix });
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      points,
      duration,
      keyPrefix,
      insuranceLimiter: insurance,
      rejectIfRedisNotReady: true,
    });
    return { limiter, insurance, points, limitHeader: String(points) };
  }

  function secondWindow(points: number): WindowLimiter {
    let window = secondWindows.get(points);
    if (window === undefined) {
      assertLimit('perSecond', points);
      window = makeWindow('s', SECOND_WINDOW_S, points);
      secondWindows.set(points, window);
    }
    return window;
  }

  function dayWindow(points: number): WindowLimiter {
    let window = dayWindows.get(points);
    if (window === undefined) {
      assertLimit('perDay', points);
      window = makeWindow('d', DAY_WINDOW_S, points);
      dayWindows.set(points, window);
    }
    return window;
  }

  function stateOf(key: string, now: number): KeyState {
    let state = states.get(key);
    if (state === undefined) {
      if (states.size >= sweepAt) sweep(now);
      state = new KeyState();
      states.set(key, state);
    }
    return state;
  }

  /** Forgets keys whose windows have all ended; amortised O(1) per new key. */
  function sweep(now: number): void {
    for (const [key, state] of states) {
      if (state.sResetAt <= now && state.dResetAt <= now) states.delete(key);
    }
    sweepAt = Math.max(MIN_SWEEP_SIZE, states.size * 2);
  }

  function headers(sec: WindowLimiter, sRemaining: number, day: WindowLimiter, dRemaining: number, dResetMs: number): Record<string, string> {
    return {
      'x-ratelimit-limit-second': sec.limitHeader,
      'x-ratelimit-remaining-second': String(sRemaining),
      'x-ratelimit-limit-day': day.limitHeader,
      'x-ratelimit-remaining-day': String(dRemaining),
      'x-ratelimit-reset': String(seconds(dResetMs)),
    };
  }

  function refusal(
    exceeded: 'second' | 'day',
    sec: WindowLimiter,
    sRemaining: number,
    day: WindowLimiter,
    dRemaining: number,
    dResetMs: number,
    retryMs: number,
  ): ThrottleDecision {
    return {
      allowed: false,
      exceeded,
      headers: {
        'x-ratelimit-limit-second': sec.limitHeader,
        'x-ratelimit-remaining-second': String(sRemaining),
        'x-ratelimit-limit-day': day.limitHeader,
        'x-ratelimit-remaining-day': String(dRemaining),
        'x-ratelimit-reset': String(seconds(dResetMs)),
        'retry-after': String(Math.max(1, seconds(retryMs))),
      },
    };
  }

  /** A per-second refusal: the day window was not consumed; report what is known of it. */
  async function secondRefusal(key: string, sec: WindowLimiter, day: WindowLimiter, state: KeyState, now: number): Promise<ThrottleDecision> {
    const retryMs = state.sResetAt - now;
    if (state.dLimit === day.points && state.dResetAt > now) {
      return refusal('second', sec, 0, day, state.dRemaining, state.dResetAt - now, retryMs);
    }
    // This node has not seen the key's day window: read it (no consumption)
    // and remember it for the next refusals.
    const res = await day.limiter.get(key);
    if (res === null) {
      // No day window yet: report a full allowance. Remembered so that a key
      // refused every second (perSecond 0) is not read again and again; the
      // next day consumption replaces it with the store's window.
      state.dRemaining = day.points;
      state.dResetAt = now + DAY_WINDOW_MS;
      state.dTrustUntil = 0;
      return refusal('second', sec, 0, day, day.points, DAY_WINDOW_MS, retryMs);
    }
    rememberDay(state, res, now);
    return refusal('second', sec, 0, day, res.remainingPoints, res.msBeforeNext, retryMs);
  }

  function rememberDay(state: KeyState, res: RateLimiterRes, now: number): void {
    state.dRemaining = res.remainingPoints;
    state.dResetAt = now + res.msBeforeNext;
    state.dTrustUntil = Math.min(state.dResetAt, now + DAY_RECHECK_MS);
  }

  async function consume(key: string, limits: ThrottleLimits): Promise<ThrottleDecision> {
    if (closed) throw new Error('throttle: consume() after close()');
    const sec = secondWindow(limits.perSecond);
    const day = dayWindow(limits.perDay);
    const now = Date.now();
    const state = stateOf(key, now);
    if (state.sLimit !== sec.points) {
      state.sLimit = sec.points;
      state.sResetAt = 0;
    }
    if (state.dLimit !== day.points) {
      state.dLimit = day.points;
      state.dResetAt = 0;
      state.dTrustUntil = 0;
    }

    // Local refusals (see 3. above); nothing is consumed. A known day
    // exhaustion wins: its retry-after is the one that tells the truth.
    if (state.dRemaining === 0 && state.dTrustUntil > now) {
      const sRemaining = state.sResetAt > now ? state.sRemaining : sec.points;
      const dResetMs = state.dResetAt - now;
      return refusal('day', sec, sRemaining, day, 0, dResetMs, dResetMs);
    }
    if (state.sRemaining === 0 && state.sResetAt > now) {
      return secondRefusal(key, sec, day, state, now);
    }

    // Times are taken from `now` (before the store answered), so locally
    // known windows end no later than the store's.
    let s: RateLimiterRes;
    try {
      s = await sec.limiter.consume(key);
    } catch (reason) {
      s = refusedResult(reason);
      state.sRemaining = 0;
      state.sResetAt = now + s.msBeforeNext;
      return secondRefusal(key, sec, day, state, now);
    }
    state.sRemaining = s.remainingPoints;
    state.sResetAt = now + s.msBeforeNext;

    let d: RateLimiterRes;
    let dayRefused = false;
    try {
      d = await day.limiter.consume(key);
    } catch (reason) {
      d = refusedResult(reason);
      dayRefused = true;
    }
    rememberDay(state, d, now);
    if (!dayRefused) {
      return { allowed: true, headers: headers(sec, s.remainingPoints, day, d.remainingPoints, d.msBeforeNext) };
    }

    // Refused for the day: give both points back (see 2. above), each only
    // while its window lasts. Not awaited: the refusal need not wait, and
    // later calls through the same client are sent after them. The second
    // window allowed this call, so it had at most `points` consumed and one
    // more remains now.
    const later = Date.now();
    if (later < state.dResetAt) day.limiter.reward(key).catch(ignore);
    let sRemaining = s.remainingPoints;
    if (later < state.sResetAt) {
      sec.limiter.reward(key).catch(ignore);
      sRemaining += 1;
      state.sRemaining = sRemaining;
    }
    return refusal('day', sec, sRemaining, day, 0, d.msBeforeNext, d.msBeforeNext);
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    // Memory limiters hold an unref'd timer per key and window; delete the
    // keys this node knows so those go now. Redis counters are shared with
    // other nodes and are left to expire.
    const windows = [...secondWindows.values(), ...dayWindows.values()];
    const deletions: Promise<unknown>[] = [];
    for (const key of states.keys()) {
      for (const window of windows) {
        const memory = window.insurance ?? (redis === undefined ? window.limiter : undefined);
        if (memory !== undefined) deletions.push(memory.delete(key));
      }
    }
    await Promise.all(deletions);
    states.clear();
    secondWindows.clear();
    dayWindows.clear();
  }

  return { consume, close };
}
