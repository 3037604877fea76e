import type { BoardsService } from '../boards/boards.service.js';
import type { CatalogService } from '../catalog/catalog.service.js';
import type { DownloadsService } from '../licensing/downloads.service.js';
import type { ProductsService } from '../licensing/products.service.js';
import type { ClientsService } from '../oauth/clients.service.js';
import type { OAuthService } from '../oauth/oauth.service.js';
import type { TokensService } from '../oauth/tokens.service.js';
import { randomSecret } from '../platform/crypto/secrets.js';
import { getOrCreateSetting } from '../platform/db/settings.js';
import { signInUnavailable } from './web.errors.js';
import type { StockroomModule } from '../platform/module.js';
import type { Platform } from '../platform/platform.js';
import type { AssetSearch } from '../search/asset-search.js';
import { webRoutes } from './web.routes.js';
import type { WebPeople } from './web-site.js';
import { WebService, type GridPicture, type LicensedFile } from './web.service.js';
import { WebSessionsRepository } from './web-sessions.repository.js';
import { Sealer, WebSessions, type WebOAuth } from './web-sessions.service.js';
import { BrowserSessions } from './browser-sessions.js';
import { SessionCookie } from './web-cookies.js';

export interface WebNeeds {
  /** The search module's use case: the pages search as the JSON search does. */
  assetSearch: AssetSearch;
  catalog: CatalogService;
  products: ProductsService;
  downloads: DownloadsService;
  boards: BoardsService;
  /** The OAuth module: the browser's own client is registered through it, and signs in through its endpoints. */
  clients: ClientsService;
  oauth: OAuthService;
  tokens: TokensService;
  people: WebPeople;
  /** The media module's lightly marked grid picture of an asset (MediaService.gridPicture). */
  gridPicture: GridPicture;
  /** The file of a size a person licensed, as its delivery URL serves it (media's deliver): a board's zip holds these. */
  licensedFile: LicensedFile;
}

/** The catalogue browser's exports: its page models, for whatever else shows the catalogue to people. */
export interface WebExports {
  web: WebService;
  /** Who a browser's session is signed in as, and its form token: the back office signs in through the browser's sign-in. */
  browserSessions: BrowserSessions;
}

/** Where the browser's sign-in comes back to; its client is registered for exactly this address. */
export function webRedirectUri(publicUrl: string): string {
  return `${publicUrl}/signin/callback`;
}

/**
 * The catalogue browser at `/`: search, asset pages, sign-in through this server's own OAuth,
 * downloads and boards, as server-rendered pages. It reads and writes only through the other
 * modules' services, the JSON API's own code.
 */
export async function webModule(platform: Platform, needs: WebNeeds): Promise<StockroomModule<WebExports>> {
  const { config, database, clock, log } = platform;
  const web = new WebService(needs);
  const sealer = new Sealer(await getOrCreateSetting(database.db, 'web_session_key', () => randomSecret()));
  const redirectUri = webRedirectUri(config.publicUrl);
  const settingKey = `web_client:${redirectUri}`;
  const disabled = () =>
    signInUnavailable('Sign-in is switched off: an operator disabled the "Stockroom web" OAuth client (stockroom admin client enable turns it on again)');
  let registered: Promise<{ clientKey: string; clientId: number; redirectUri: string }> | undefined;

  /**
   * The browser's OAuth client: a public client (no secret: the browser's session is the
   * party) with only the authorization-code and refresh-token grants, registered for the
   * callback of this public URL on first sign-in and remembered in settings, so every node uses
   * the same one. A new public URL gets a client of its own.
   */
  async function registerClient(): Promise<{ clientKey: string; clientId: number; redirectUri: string }> {
    const stored = await database.db.selectFrom('settings').select('value').where('key', '=', settingKey).executeTakeFirst();
    let clientKey = stored?.value;
    if (clientKey === undefined) {
      let created;
      try {
        created = await needs.clients.create({ name: 'Stockroom web', confidential: false, redirectUris: [redirectUri], exactRedirects: true, grantTypes: ['authorization_code', 'refresh_token'] });
      } catch (error) {
        throw signInUnavailable(
          `Sign-in needs STOCKROOM_PUBLIC_URL to be an https address (or a local one): ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      clientKey = await getOrCreateSetting(database.db, settingKey, () => created.apiKey);
      // Another node registered first: its client is the one; ours is switched off, never used.
      if (clientKey !== created.apiKey) await needs.clients.disable(created.apiKey);
      else log.info({ clientId: created.client.id, redirectUri }, 'registered the web browser OAuth client');
    }
    const client = await needs.clients.find(clientKey);
    if (!client) throw disabled();
    return { clientKey, clientId: client.id, redirectUri };
  }

  const oauth: WebOAuth = {
    webClient() {
      registered ??= registerClient().catch((error: unknown) => {
        registered = undefined;
        throw error;
      });
      return registered;
    },
    async requireEnabled(clientKey) {
      if (!(await needs.clients.authenticate(clientKey))) throw disabled();
    },
    exchange: (form, remoteAddress) => needs.oauth.token(form, undefined, remoteAddress),
    verify: async (token, clientId) => {
      const check = await needs.tokens.verify(token, clientId);
      return check.valid ? { valid: true, grant: { userId: check.grant.userId, issuedAt: check.grant.issuedAt } } : { valid: false };
    },
  };
  const sessions = new WebSessions({ repository: new WebSessionsRepository(database.db), oauth, sealer, now: clock });
  return {
    name: 'web',
    exports: { web, browserSessions: new BrowserSessions(sessions, new SessionCookie(config.publicUrl)) },
    routes: {
      async root(root) {
        await root.register(webRoutes, { web, sessions, boards: needs.boards, people: needs.people, publicUrl: config.publicUrl });
      },
    },
  };
}
