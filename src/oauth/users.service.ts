import { hash, verify } from '@node-rs/argon2';
import { randomSecret } from '../platform/crypto/secrets.js';
import type { UserRow, UsersRepository } from './users.repository.js';

/** What a member of the library's staff may do in the back office: `editor` the catalogue, `admin` everything. */
export type StaffRole = 'editor' | 'admin';
export const STAFF_ROLES: readonly StaffRole[] = ['editor', 'admin'];

export function isStaffRole(value: unknown): value is StaffRole {
  return typeof value === 'string' && (STAFF_ROLES as readonly string[]).includes(value);
}

export interface User {
  id: number;
  username: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  team: string | null;
  /** A user of a partner site who holds credits. */
  partnerCredit: boolean;
  /** Staff: what they may do in the back office; null: a customer. */
  role: StaffRole | null;
}

/** A user as an operator lists them. */
export interface UserAccount extends User {
  /** When the account was disabled; null: it is enabled. */
  disabledAt: string | null;
  /** Sign-ins are refused until then after repeated failures; null: not locked. */
  lockedUntil: string | null;
  createdAt: string;
}

export interface NewUser {
  username: string;
  password: string;
  team?: string | null;
  partnerCredit?: boolean;
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  /** Default null: a customer. */
  role?: StaffRole | null;
}

/** A user's lockout state, as the sign-in guard reads it. */
export interface SignInAccount {
  userId: number;
  lockedUntil: Date | null;
}

export interface UsersServiceOptions {
  /** Revokes every token of a user (TokensService.revokeAllForUser); called on a password change. */
  revokeTokensOf?: (userId: number) => Promise<void>;
  now?: () => Date;
}

const MIN_PASSWORD_LENGTH = 8;
/** argon2 hashes the whole input: a bound keeps a megabyte "password" from costing more than one. */
const MAX_PASSWORD_LENGTH = 1024;

/** End users who sign in to authorize applications; passwords are kept as argon2id hashes. */
export class UsersService {
  private readonly revokeTokensOf: (userId: number) => Promise<void>;
  private readonly now: () => Date;
  /** A hash of nothing anyone knows, made with the same parameters as real ones, verified for unknown usernames. */
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly repository: UsersRepository,
    options: UsersServiceOptions = {},
  ) {
    this.revokeTokensOf = options.revokeTokensOf ?? (async () => undefined);
    this.now = options.now ?? (() => new Date());
  }

  async create(input: NewUser): Promise<User> {
    const username = input.username.trim();
    if (!username) throw new Error('a user needs a username');
    checkPasswordRules(input.password);
    if (input.role != null && !isStaffRole(input.role)) throw new Error(`unknown role ${String(input.role)} (known: ${STAFF_ROLES.join(', ')})`);
    const now = this.now().toISOString();
    const row = await this.repository.insert({
      username,
      password_hash: await hash(input.password),
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      email: input.email ?? null,
      team: input.team?.trim() || null,
      partner_credit: input.partnerCredit ? 1 : 0,
      failed_sign_ins: 0,
      locked_until: null,
      first_failed_at: null,
      password_changed_at: now,
      created_at: now,
      role: input.role ?? null,
    });
    return toUser(row);
  }

  /**
   * Sets a new password, lifts any lockout and revokes every access and refresh token of
   * the user (spec: tokens are revoked when the user changes the password). False when
   * there is no such user.
   */
  async changePassword(username: string, newPassword: string): Promise<boolean> {
    checkPasswordRules(newPassword);
    const row = await this.repository.findByUsername(username);
    if (!row) return false;
    const passwordHash = await hash(newPassword);
    if (!(await this.repository.updatePassword(row.id, passwordHash, this.now().toISOString()))) return false;
    await this.revokeTokensOf(row.id);
    return true;
  }

  /**
   * Disables an account: the user can no longer sign in or use the password grant, and every
   * token and code the user holds is revoked (as on a password change). The products, downloads
   * and ledger of the user stay. False when there is no such user.
   */
  async disable(username: string): Promise<boolean> {
    const row = await this.repository.findByUsername(username);
    if (!row) return false;
    // An account disabled before keeps the time it was first disabled at.
    if (row.disabled_at === null && !(await this.repository.setDisabledAt(row.id, this.now().toISOString()))) return false;
    await this.revokeTokensOf(row.id);
    return true;
  }

  /**
   * Lets a disabled user sign in again, with the same password; the failed sign-ins counted
   * while the account was disabled are forgotten. False when there is no such user.
   */
  async enable(username: string): Promise<boolean> {
    const row = await this.repository.findByUsername(username);
    if (!row || !(await this.repository.setDisabledAt(row.id, null))) return false;
    await this.repository.clearFailedSignIns(row.id);
    return true;
  }

  /**
   * Makes a user staff (`editor`, `admin`) or a customer again (null). Tokens are left alone:
   * the back office reads the role from the store on every request, so a change counts at once.
   * The user as they now are, or undefined when there is no such user.
   */
  async setRole(username: string, role: StaffRole | null): Promise<UserAccount | undefined> {
    if (role !== null && !isStaffRole(role)) throw new Error(`unknown role ${String(role)} (known: ${STAFF_ROLES.join(', ')})`);
    const row = await this.repository.findByUsername(username);
    if (!row) return undefined;
    await this.repository.setRole(row.id, role);
    return this.account(row.id);
  }

  /** Every user, by id, with the state of the account. */
  async list(): Promise<UserAccount[]> {
    return (await this.repository.list()).map(toAccount);
  }

  /**
   * A page of users whose username, name, email or team contains `text` (any letter case; all
   * users without one), of a role (or customers) and of a team when given, by id, and how many
   * match in all.
   */
  async search(query: { text?: string; role?: StaffRole | 'customer'; team?: string; offset: number; limit: number }): Promise<{ users: UserAccount[]; total: number }> {
    const text = query.text?.trim() ?? '';
    const { rows, total } = await this.repository.search({ text, role: query.role, team: query.team, offset: query.offset, limit: query.limit });
    return { users: rows.map(toAccount), total };
  }

  /** One user with the state of the account, or undefined. */
  async account(id: number): Promise<UserAccount | undefined> {
    const row = Number.isSafeInteger(id) ? await this.repository.findById(id) : undefined;
    return row ? toAccount(row) : undefined;
  }

  /**
   * The enabled user with this username and password, or undefined. An unknown username still costs
   * one argon2 verification, so the time taken does not tell which usernames exist.
   */
  async verifyPassword(username: string, password: string): Promise<User | undefined> {
    const row = username.length <= 200 ? await this.repository.findByUsername(username) : undefined;
    if (password.length > MAX_PASSWORD_LENGTH) return undefined;
    if (!row) {
      await verify(await this.dummyPasswordHash(), password).catch(() => false);
      return undefined;
    }
    // A disabled account costs the same verification, and fails like a wrong password.
    const matches = await verify(row.password_hash, password);
    return matches && row.disabled_at === null ? toUser(row) : undefined;
  }

  async findById(id: number): Promise<User | undefined> {
    const row = Number.isSafeInteger(id) ? await this.repository.findById(id) : undefined;
    return row ? toUser(row) : undefined;
  }

  /** The users of these ids that exist, by id: one query however many (names on a list of comments). */
  async findByIds(ids: readonly number[]): Promise<Map<number, User>> {
    const wanted = [...new Set(ids.filter((id) => Number.isSafeInteger(id)))];
    const rows = await this.repository.findByIds(wanted);
    return new Map(rows.map((row) => [row.id, toUser(row)]));
  }

  async findByUsername(username: string): Promise<User | undefined> {
    const row = await this.repository.findByUsername(username);
    return row ? toUser(row) : undefined;
  }

  /** The lockout state of the account with this username, or undefined when there is none. */
  async signInAccount(username: string): Promise<SignInAccount | undefined> {
    if (username.length > 200) return undefined;
    const row = await this.repository.findByUsername(username);
    if (!row) return undefined;
    return { userId: row.id, lockedUntil: row.locked_until ? new Date(row.locked_until) : null };
  }

  /** Counts a failed sign-in; the one that reaches `maxFailures` locks the account until `lockUntil`. */
  async recordFailedSignIn(userId: number, maxFailures: number, lockUntil: Date, now: Date, windowStart: Date): Promise<{ lockedUntil: Date | null }> {
    const result = await this.repository.recordFailedSignIn(userId, maxFailures, lockUntil.toISOString(), now.toISOString(), windowStart.toISOString());
    return { lockedUntil: result?.lockedUntil ? new Date(result.lockedUntil) : null };
  }

  async recordSuccessfulSignIn(userId: number): Promise<void> {
    await this.repository.clearFailedSignIns(userId);
  }

  private dummyPasswordHash(): Promise<string> {
    this.dummyHash ??= hash(randomSecret());
    return this.dummyHash;
  }
}

/** What is wrong with a password as a new one, or undefined: the one rule the command line and the back office apply. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `a password needs at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `a password has at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}

function checkPasswordRules(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw new Error(problem);
}

function toAccount(row: UserRow): UserAccount {
  return { ...toUser(row), disabledAt: row.disabled_at, lockedUntil: row.locked_until, createdAt: row.created_at };
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    team: row.team,
    partnerCredit: row.partner_credit === 1,
    role: isStaffRole(row.role) ? row.role : null,
  };
}
