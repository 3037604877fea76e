import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { ClientsRepository } from './clients.repository.js';
import { ClientsService } from './clients.service.js';
import { TokensService } from './tokens.service.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';
import { OAuthStore } from './oauth.store.js';
import { OAuthService } from './oauth.service.js';
import { SignInGuard } from './sign-in-guard.js';
import { oauthRoutes } from './oauth.routes.js';
import { FirstPartyClients } from './first-party-clients.js';

export interface OAuthExports {
  /** Applications and their API keys. */
  clients: ClientsService;
  /** Access and refresh tokens. */
  tokens: TokensService;
  /** The people who sign in. */
  users: UsersService;
  /** The rules of the OAuth endpoints (token, authorization, sign-in). */
  oauth: OAuthService;
  /** The server's own clients (the docs page's), registered once for every node. */
  firstPartyClients: FirstPartyClients;
}

/** OAuth 2.0: clients, users, tokens, and the token and authorization endpoints of every family. */
export function oauthModule(platform: Platform): StockroomModule<OAuthExports> {
  const { config, database, redis, clock, log } = platform;
  const clients = new ClientsService(new ClientsRepository(database.db));
  const store = new OAuthStore(database.db);
  const tokens = new TokensService(store, clock);
  const users = new UsersService(new UsersRepository(database.db), { revokeTokensOf: (userId) => tokens.revokeAllForUser(userId), now: clock });
  const oauth = new OAuthService({
    clients,
    tokens,
    store,
    guard: new SignInGuard({ accounts: users, redis, now: clock }),
    lifetimes: config,
    now: clock,
  });
  return {
    name: 'oauth',
    exports: { clients, tokens, users, oauth, firstPartyClients: new FirstPartyClients(database.db, clients, log) },
    routes: {
      async root(root) {
        await root.register(oauthRoutes, { oauth, publicUrl: config.publicUrl, authUrl: config.authUrl });
      },
    },
  };
}
