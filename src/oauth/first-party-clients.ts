import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../platform/db/tables.js';
import { getOrCreateSetting } from '../platform/db/settings.js';
import type { ClientsService } from './clients.service.js';

/** One of this server's own OAuth clients: a page of the site that signs people in. */
export interface FirstPartyClient {
  /** Its display name, as `stockroom admin client list` shows it. */
  name: string;
  /** The one redirect URI it is registered for, and held to exactly. */
  redirectUri: string;
}

/**
 * Registers the server's own public clients (no secret: a page in the browser holds none), with
 * the authorization-code and refresh-token grants only, held to their one redirect exactly — which
 * also makes them first-party: people sign in on the site's page without the consent wording.
 * Each is remembered in settings under its redirect URI, so every node uses the same one and
 * another public URL gets a client of its own.
 */
export class FirstPartyClients {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly clients: ClientsService,
    private readonly log: Logger,
  ) {}

  /**
   * The API key (client_id) of the client, registered now if it is not yet. Throws the clients
   * service's error when the redirect URI may not be registered (neither https nor local).
   */
  async keyOf(client: FirstPartyClient, settingPrefix: string): Promise<string> {
    const settingKey = `${settingPrefix}:${client.redirectUri}`;
    const stored = await this.db.selectFrom('settings').select('value').where('key', '=', settingKey).executeTakeFirst();
    if (stored !== undefined) return stored.value;
    const created = await this.clients.create({
      name: client.name,
      confidential: false,
      redirectUris: [client.redirectUri],
      exactRedirects: true,
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    const clientKey = await getOrCreateSetting(this.db, settingKey, () => created.apiKey);
    // Another node registered first: its client is the one; ours is switched off, never used.
    if (clientKey !== created.apiKey) await this.clients.disable(created.apiKey);
    else this.log.info({ clientId: created.client.id, redirectUri: client.redirectUri }, `registered the ${client.name} OAuth client`);
    return clientKey;
  }
}
