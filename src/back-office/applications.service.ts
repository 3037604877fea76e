import type { ClientChanges, ClientListing, ClientsService, NewClient } from '../oauth/clients.service.js';
import { InvalidClientMetadata } from '../oauth/oauth.errors.js';
import type { AuditLog } from './audit-log.service.js';
import { applicationNotFound, invalidApplication } from './back-office.errors.js';
import { requireRole, type Actor } from './staff-policy.js';

/** An application as the audit log keeps it: everything but its key and secret (only the key's last characters). */
function snapshot(client: ClientListing) {
  return {
    id: client.id,
    name: client.name,
    kind: client.kind,
    enabled: !client.disabled,
    key_hint: client.keyHint,
    grants: client.grantTypes,
    redirect_uris: client.redirectUris,
    queries_per_second: client.queriesPerSecond,
    queries_per_day: client.queriesPerDay,
    usage_reporting: client.usageReporting,
    order_metadata: client.orderMetadata,
  };
}

/** The OAuth module's refusals of a client's settings become the back office's, with the same message as `stockroom admin client`. */
async function asApplicationRule<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof InvalidClientMetadata) throw invalidApplication(error.message);
    throw error;
  }
}

/**
 * Applications (API clients) as the back office manages them: admins only, every change
 * recorded in the audit log right after the OAuth module made it (that module keeps its own
 * writes). The key and secret are shown once, never recorded.
 */
export class ApplicationsService {
  constructor(
    private readonly clients: ClientsService,
    private readonly auditLog: AuditLog,
  ) {}

  async list(actor: Actor): Promise<ClientListing[]> {
    requireRole(actor, 'admin');
    return this.clients.list();
  }

  async show(actor: Actor, id: number): Promise<ClientListing> {
    requireRole(actor, 'admin');
    const client = await this.clients.listing(id);
    if (!client) throw applicationNotFound(String(id));
    return client;
  }

  /** Registers an application; its key and (for a confidential one) its secret, to be shown once. */
  async create(actor: Actor, input: NewClient): Promise<{ client: ClientListing; apiKey: string; apiSecret: string | undefined }> {
    requireRole(actor, 'admin');
    const created = await asApplicationRule(() => this.clients.create(input));
    const client = (await this.clients.listing(created.client.id))!;
    await this.auditLog.record(actor, 'application.create', { kind: 'application', id: client.id }, null, snapshot(client));
    return { client, apiKey: created.apiKey, apiSecret: created.apiSecret };
  }

  /** A new secret, shown once; the old one is refused from now on. */
  async rotateSecret(actor: Actor, id: number): Promise<{ client: ClientListing; apiSecret: string }> {
    requireRole(actor, 'admin');
    const before = await this.show(actor, id);
    const rotated = await asApplicationRule(() => this.clients.rotateSecret(id));
    if (!rotated) throw applicationNotFound(String(id));
    // The secret itself is never recorded: that it changed, and when, is the record.
    await this.auditLog.record(actor, 'application.rotate-secret', { kind: 'application', id }, { ...snapshot(before), secret: 'old' }, { ...snapshot(rotated.client), secret: 'new' });
    return rotated;
  }

  async setEnabled(actor: Actor, id: number, enabled: boolean): Promise<ClientListing> {
    requireRole(actor, 'admin');
    const before = await this.show(actor, id);
    if (!(enabled ? await this.clients.enable(String(id)) : await this.clients.disable(String(id)))) throw applicationNotFound(String(id));
    const after = await this.show(actor, id);
    await this.auditLog.record(actor, enabled ? 'application.enable' : 'application.disable', { kind: 'application', id }, snapshot(before), snapshot(after));
    return after;
  }

  /** Changes the name, redirect URIs, grants, limits and flags, under `stockroom admin client`'s rules. */
  async update(actor: Actor, id: number, changes: ClientChanges): Promise<ClientListing> {
    requireRole(actor, 'admin');
    const before = await this.show(actor, id);
    const after = await asApplicationRule(() => this.clients.update(id, changes));
    if (!after) throw applicationNotFound(String(id));
    await this.auditLog.record(actor, 'application.update', { kind: 'application', id }, snapshot(before), snapshot(after));
    return after;
  }
}
