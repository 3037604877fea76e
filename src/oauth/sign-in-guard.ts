/**
 * The checks in front of every password check: the sign-in page and the password grant
 * both come through here.
 *
 * - Per account: after `account.maxConsecutiveFailures` failures within `account.lockSeconds`
 *   (counted from the first of them) the account is locked for `account.lockSeconds`, even
 *   against the right password. The count and the
 *   lock live in the users table, so they hold across processes and restarts; a success
 *   clears the count, and so does the lock itself (after it ends, the count starts again).
 * - Per remote address: at most `address.maxFailures` failed sign-ins per
 *   `address.windowSeconds` (a fixed window from the first attempt); beyond that, attempts
 *   from the address are refused without looking at the password, with a retry-after.
 *   Counted by rate-limiter-flexible, in Redis when there is one (shared by every node),
 *   else in memory. An attempt takes a point before the password is checked and gives it
 *   back on success, so concurrent attempts cannot slip past the limit.
 * - Unknown usernames behave like real ones: they cost one argon2 verification, and
 *   after the same number of failures they answer "locked" too (counted by a limiter, not
 *   stored), so neither the time taken nor the lockout tells which usernames exist.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { isIPv6 } from 'node:net';
import { sha256Hex } from '../platform/crypto/secrets.js';
import type { SignInResult } from './oauth.types.js';
import type { SignInAccount, User } from './users.service.js';

export interface SignInPolicy {
  readonly account: { readonly maxConsecutiveFailures: number; readonly lockSeconds: number };
  readonly address: { readonly maxFailures: number; readonly windowSeconds: number };
}

export const SIGN_IN_POLICY: SignInPolicy = Object.freeze({
  account: Object.freeze({ maxConsecutiveFailures: 5, lockSeconds: 15 * 60 }),
  address: Object.freeze({ maxFailures: 20, windowSeconds: 15 * 60 }),
});

export const SIGN_IN_MESSAGES = Object.freeze({
  invalid: 'The username or password is incorrect.',
  locked: (retryAfterSeconds: number, until: Date) =>
    `This account is locked after repeated failed sign-ins. Try again after ${until.toISOString().slice(11, 16)} UTC (in ${describeWait(retryAfterSeconds)}).`,
  throttled: (retryAfterSeconds: number) =>
    `Too many failed sign-ins from this address. Try again in ${retryAfterSeconds} seconds.`,
});

/** What the guard needs of the user store (UsersService). */
export interface SignInAccounts {
  signInAccount(username: string): Promise<SignInAccount | undefined>;
  verifyPassword(username: string, password: string): Promise<User | undefined>;
  recordFailedSignIn(userId: number, maxFailures: number, lockUntil: Date, now: Date, windowStart: Date): Promise<{ lockedUntil: Date | null }>;
  recordSuccessfulSignIn(userId: number): Promise<void>;
}

export interface SignInGuardOptions {
  accounts: SignInAccounts;
  /** Shared counters; omitted: this process only. */
  redis?: Redis | undefined;
  policy?: SignInPolicy;
  /** The clock of the account lock (the address window runs on rate-limiter-flexible's own). */
  now?: () => Date;
  /** Prefix of the Redis keys; default `stockroom:sign-in`. */
  keyPrefix?: string;
}

export class SignInGuard {
  private readonly accounts: SignInAccounts;
  private readonly policy: SignInPolicy;
  private readonly now: () => Date;
  private readonly addresses: RateLimiterAbstract;
  private readonly unknownNames: RateLimiterAbstract;

  constructor(options: SignInGuardOptions) {
    this.accounts = options.accounts;
    this.policy = options.policy ?? SIGN_IN_POLICY;
    this.now = options.now ?? (() => new Date());
    const prefix = options.keyPrefix ?? 'stockroom:sign-in';
    this.addresses = limiter(options.redis, {
      keyPrefix: `${prefix}:address`,
      points: this.policy.address.maxFailures,
      duration: this.policy.address.windowSeconds,
    });
    // One point fewer than the failures that lock, and blocked on the next: the failure
    // that reaches the limit is the one that answers "locked", as for a real account.
    this.unknownNames = limiter(options.redis, {
      keyPrefix: `${prefix}:unknown`,
      points: this.policy.account.maxConsecutiveFailures - 1,
      duration: this.policy.account.lockSeconds,
      blockDuration: this.policy.account.lockSeconds,
    });
  }

  async signIn(username: string, password: string, remoteAddress: string): Promise<SignInResult> {
    const addressKey = addressBucket(remoteAddress);
    try {
      await this.addresses.consume(addressKey);
    } catch (reason) {
      const refused = refusal(reason);
      const retryAfterSeconds = Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
      return { ok: false, reason: 'throttled', message: SIGN_IN_MESSAGES.throttled(retryAfterSeconds), retryAfterSeconds };
    }

    const account = await this.accounts.signInAccount(username);
    const now = this.now();
    if (account?.lockedUntil && account.lockedUntil > now) return locked(account.lockedUntil, now);
    const unknownKey = sha256Hex(username);
    if (!account) {
      const seen = await this.unknownNames.get(unknownKey);
      if (seen && seen.consumedPoints > this.unknownNames.points) return locked(new Date(now.getTime() + seen.msBeforeNext), now);
    }

    const user = await this.accounts.verifyPassword(username, password);
    if (user && account) {
      await this.accounts.recordSuccessfulSignIn(user.id);
      await this.addresses.reward(addressKey).catch(() => undefined);
      return { ok: true, userId: user.id };
    }

    if (account) {
      const lockUntil = new Date(now.getTime() + this.policy.account.lockSeconds * 1000);
      const windowStart = new Date(now.getTime() - this.policy.account.lockSeconds * 1000);
      const { lockedUntil } = await this.accounts.recordFailedSignIn(account.userId, this.policy.account.maxConsecutiveFailures, lockUntil, now, windowStart);
      if (lockedUntil && lockedUntil > now) return locked(lockedUntil, now);
    } else {
      try {
        await this.unknownNames.consume(unknownKey);
      } catch (reason) {
        return locked(new Date(now.getTime() + refusal(reason).msBeforeNext), now);
      }
    }
    return { ok: false, reason: 'invalid', message: SIGN_IN_MESSAGES.invalid };
  }
}

function locked(until: Date, now: Date): SignInResult {
  const retryAfterSeconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return { ok: false, reason: 'locked', message: SIGN_IN_MESSAGES.locked(retryAfterSeconds, until), retryAfterSeconds };
}

function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * The throttle key of a remote address: IPv4 as is; IPv6 by its /64, which one host
 * usually holds whole (a per-address count would let it rotate through 2^64 addresses).
 */
export function addressBucket(remoteAddress: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped) return mapped[1]!;
  if (!isIPv6(remoteAddress)) return remoteAddress;
  return `${expandIPv6(remoteAddress).slice(0, 4).join(':')}::/64`;
}

function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right].map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''));
}

/** rate-limiter-flexible rejects with a RateLimiterRes when over the limit; anything else is a failure to pass on. */
function refusal(reason: unknown): RateLimiterRes {
  if (reason instanceof RateLimiterRes) return reason;
  throw reason;
}

function limiter(
  redis: Redis | undefined,
  options: { keyPrefix: string; points: number; duration: number; blockDuration?: number },
): RateLimiterAbstract {
  if (!redis) return new RateLimiterMemory(options);
  // As in platform/throttle: when Redis fails, a per-node count stands in rather than no limit.
  return new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options), rejectIfRedisNotReady: true });
}
