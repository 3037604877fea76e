import type { LedgerEntryRecord, ProductRecord, ProductsService } from '../licensing/products.service.js';
import { grantInputFromText, type GrantTermsText } from '../licensing/grant-terms.js';
import { type StaffRole, type UserAccount, type UsersService } from '../oauth/users.service.js';
import { randomSecret } from '../platform/crypto/secrets.js';
import type { AuditLog } from './audit-log.service.js';
import { cannotDemoteYourself, invalidField, teamNotFound, userNotFound, usernameTaken } from './back-office.errors.js';
import { requireRole, type Actor } from './staff-policy.js';

export const USERS_PAGE_SIZE = 50;
export const LEDGER_PAGE_SIZE = 100;

/** A user as the audit log keeps them (never a password). */
function snapshot(user: UserAccount) {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    enabled: user.disabledAt === null,
    team: user.team,
    partner_credit: user.partnerCredit,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
  };
}

/** A product as the audit log keeps it: GET /v3/products' record, with whose it is. */
function productSnapshot(record: ProductRecord | undefined, user: UserAccount) {
  return record === undefined ? null : { ...record, user_id: user.id, username: user.username };
}

export interface NewAccount {
  username: string;
  first_name?: string | undefined;
  last_name?: string | undefined;
  email?: string | undefined;
  team?: string | undefined;
  partnerCredit?: boolean | undefined;
  role?: StaffRole | null | undefined;
}

/** One user's page: the account, the products with their balances, and a page of the ledger. */
export interface UserDetail {
  user: UserAccount;
  products: ProductRecord[];
  teamCredits: number | null;
  ledger: { entries: LedgerEntryRecord[]; total: number; page: number; pageSize: number };
}

/**
 * A password made by the server, shown once to the admin who asked for it: no one invents (or
 * reuses) it, it is as strong as the API's secrets, and it is never stored but as a hash.
 */
function newPassword(): string {
  return randomSecret(15);
}

/**
 * Users and teams as admins manage them: accounts, roles, passwords, the products people hold
 * and their ledger. Admins only; each change is recorded in the audit log right after the
 * OAuth and licensing modules made it (they keep their own writes).
 */
export class CustomersService {
  constructor(
    private readonly users: UsersService,
    private readonly products: ProductsService,
    private readonly auditLog: AuditLog,
  ) {}

  async search(actor: Actor, query: { text?: string | undefined; role?: StaffRole | 'customer' | undefined; page: number }): Promise<{ users: UserAccount[]; total: number; page: number; pageSize: number }> {
    requireRole(actor, 'admin');
    const found = await this.users.search({
      ...(query.text === undefined ? {} : { text: query.text }),
      ...(query.role === undefined ? {} : { role: query.role }),
      offset: (query.page - 1) * USERS_PAGE_SIZE,
      limit: USERS_PAGE_SIZE,
    });
    return { ...found, page: query.page, pageSize: USERS_PAGE_SIZE };
  }

  async account(actor: Actor, id: number): Promise<UserAccount> {
    requireRole(actor, 'admin');
    const user = await this.users.account(id);
    if (!user) throw userNotFound(String(id));
    return user;
  }

  async detail(actor: Actor, id: number, ledgerPage = 1): Promise<UserDetail> {
    const user = await this.account(actor, id);
    const customer = (await this.products.findCustomer(id))!;
    const [products, ledger] = await Promise.all([
      this.products.productRecords(customer, { downloadRequirements: true }),
      this.products.ledgerOf(id, { offset: (ledgerPage - 1) * LEDGER_PAGE_SIZE, limit: LEDGER_PAGE_SIZE }),
    ]);
    const teamCredits = user.team === null ? null : await this.products.teamCredits(user.team);
    return { user, products, teamCredits, ledger: { ...ledger, page: ledgerPage, pageSize: LEDGER_PAGE_SIZE } };
  }

  /** Creates an account with a password made here; the password, to be shown once. */
  async create(actor: Actor, input: NewAccount): Promise<{ user: UserAccount; password: string }> {
    requireRole(actor, 'admin');
    const username = input.username.trim();
    if (!username) throw invalidField('Username: this is needed');
    if (await this.users.findByUsername(username)) throw usernameTaken(username);
    const password = newPassword();
    const created = await this.users.create({
      username,
      password,
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      email: input.email ?? null,
      team: input.team ?? null,
      partnerCredit: input.partnerCredit ?? false,
      role: input.role ?? null,
    });
    const user = (await this.users.account(created.id))!;
    await this.auditLog.record(actor, 'user.create', { kind: 'user', id: user.id }, null, snapshot(user));
    return { user, password };
  }

  async setEnabled(actor: Actor, id: number, enabled: boolean): Promise<UserAccount> {
    const staff = requireRole(actor, 'admin');
    const before = await this.account(actor, id);
    if (!enabled && id === staff.id) throw cannotDemoteYourself('You cannot disable your own account: another administrator can.');
    if (!(enabled ? await this.users.enable(before.username) : await this.users.disable(before.username))) throw userNotFound(String(id));
    const after = await this.account(actor, id);
    await this.auditLog.record(actor, enabled ? 'user.enable' : 'user.disable', { kind: 'user', id }, snapshot(before), snapshot(after));
    return after;
  }

  /** A new password made here, shown once; every token the user held is revoked. */
  async resetPassword(actor: Actor, id: number): Promise<{ user: UserAccount; password: string }> {
    requireRole(actor, 'admin');
    const user = await this.account(actor, id);
    const password = newPassword();
    if (!(await this.users.changePassword(user.username, password))) throw userNotFound(String(id));
    await this.auditLog.record(actor, 'user.reset-password', { kind: 'user', id }, { password: 'old' }, { password: 'new', tokens: 'revoked' });
    return { user, password };
  }

  /** Makes a user staff or a customer; an admin cannot take away their own role (no one else might be left to give it back). */
  async setRole(actor: Actor, id: number, role: StaffRole | null): Promise<UserAccount> {
    const staff = requireRole(actor, 'admin');
    const before = await this.account(actor, id);
    if (id === staff.id && role !== 'admin') throw cannotDemoteYourself('You cannot take away your own administrator role: another administrator can.');
    const after = await this.users.setRole(before.username, role);
    if (!after) throw userNotFound(String(id));
    await this.auditLog.record(actor, 'user.set-role', { kind: 'user', id }, snapshot(before), snapshot(after));
    return after;
  }

  /** Grants a product under the rules of `stockroom admin product grant`; the product as GET /v3/products shows it. */
  async grant(actor: Actor, userId: number, terms: GrantTermsText): Promise<ProductRecord> {
    requireRole(actor, 'admin');
    const user = await this.account(actor, userId);
    const granted = await this.products.grant(grantInputFromText(userId, terms));
    const record = await this.productRecord(user, granted.id);
    await this.auditLog.record(actor, 'product.grant', { kind: 'product', id: granted.id }, null, productSnapshot(record, user));
    return record!;
  }

  /** Takes a product back as `stockroom admin product revoke --user` does: it must be the user's; its downloads and ledger stay. */
  async revoke(actor: Actor, userId: number, productId: number): Promise<ProductRecord> {
    requireRole(actor, 'admin');
    const user = await this.account(actor, userId);
    const before = await this.productRecord(user, productId);
    await this.products.revoke(productId, { userId });
    const after = await this.productRecord(user, productId);
    await this.auditLog.record(actor, 'product.revoke', { kind: 'product', id: productId }, productSnapshot(before, user), productSnapshot(after, user));
    return after!;
  }

  /** A team: its members and the credits they share. */
  async team(actor: Actor, name: string): Promise<{ name: string; members: UserAccount[]; credits: number }> {
    requireRole(actor, 'admin');
    const { users } = await this.users.search({ team: name, offset: 0, limit: 1000 });
    if (users.length === 0) throw teamNotFound(name);
    return { name, members: users, credits: await this.products.teamCredits(name) };
  }

  private async productRecord(user: UserAccount, productId: number): Promise<ProductRecord | undefined> {
    const customer = (await this.products.findCustomer(user.id))!;
    return (await this.products.productRecords(customer, { downloadRequirements: true })).find((record) => record.id === productId);
  }
}
