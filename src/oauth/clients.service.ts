import { digestsEqual, randomApiKey, randomSecret, sha256Hex } from '../platform/crypto/secrets.js';
import type { ApiClientRow, ClientsRepository } from './clients.repository.js';
import { clientKind, effectiveGrants, grantListProblem, type ClientKind } from './grant-policy.js';
import { InvalidClientMetadata } from './oauth.errors.js';
import { GRANT_TYPES, type GrantType } from './oauth.types.js';
import { checkRegistrableRedirectUri } from './redirect-uris.js';

/** An application allowed to call the API, as the request pipeline sees it. */
export interface ApiClient {
  id: number;
  /** A digest of the API key: names the client's throttle counters without revealing the key. */
  throttleKey: string;
  name: string;
  sandbox: boolean;
  /** null: the configured default applies */
  queriesPerSecond: number | null;
  queriesPerDay: number | null;
  /** Holds a secret (web application with a server side); false: a public client (browser, mobile). */
  confidential: boolean;
  /** Registered redirect URIs; local ones need no registration, unless exactRedirects. */
  redirectUris: readonly string[];
  /**
   * A redirect_uri must be one of redirectUris exactly: no unregistered local URI, no added
   * query parameter. The server's own clients (the catalogue browser's, the docs page's) are held
   * to this: a page on the user's machine must not receive their codes. Third-party clients keep
   * the local exemption (development), and the consent screen: only a client held to exact
   * redirects signs people in on the site's own page (AuthorizationRequest.firstParty), and no
   * command registers one.
   */
  exactRedirects: boolean;
  /** The grants it may use (its own list, or the defaults of its kind). */
  grantTypes: readonly GrantType[];
  /** May report usage of licensed assets (PUT /usage-batches/{id}). */
  usageReporting: boolean;
  /** May read order metadata (GET /orders/{id}). */
  orderMetadata: boolean;
}

/** What an operator enables a client for, beyond the API itself; absent: unchanged. */
export interface ClientPermissions {
  usageReporting?: boolean;
  orderMetadata?: boolean;
}

/** A client as an operator lists it: never its key or secret, only the key's last characters. */
export interface ClientListing extends ApiClient {
  kind: ClientKind;
  disabled: boolean;
  /** The last four characters of the API key, to tell keys apart. */
  keyHint: string;
  createdAt: string;
}

export interface NewClient {
  name: string;
  sandbox?: boolean;
  /** Default true. A public client gets no secret. */
  confidential?: boolean;
  redirectUris?: readonly string[];
  /** Default false: see ApiClient. */
  exactRedirects?: boolean;
  /** Default: the grants of the client's kind (see grant-policy.ts). */
  grantTypes?: readonly GrantType[];
  queriesPerSecond?: number | null;
  queriesPerDay?: number | null;
  /** Default false: see ApiClient. */
  usageReporting?: boolean;
  orderMetadata?: boolean;
}

/** Shown once at creation; only hashes are stored. */
export interface ClientCredentials {
  client: ApiClient;
  apiKey: string;
  /** undefined for a public client: it has none. */
  apiSecret: string | undefined;
}

/** A client id as an operator types it; API keys are longer (24 characters). */
const CLIENT_ID = /^[1-9][0-9]{0,14}$/;

/** A public client's stored secret hash: matches no secret (a digest is never empty). */
const NO_SECRET = '';

// A key looked up moments ago is trusted for this long, so the hot path does not hit the
// store on every request; disabling a key in this process takes effect at once.
const KEY_CACHE_MS = 5_000;
const KEY_CACHE_LIMIT = 10_000;

export class ClientsService {
  private readonly keyCache = new Map<string, { client: ApiClient | undefined; until: number }>();

  constructor(private readonly repository: ClientsRepository) {}

  /** Registers a client. Throws InvalidClientMetadata for a bad redirect URI or a grant its kind may not have. */
  async create(input: NewClient & { confidential?: true }): Promise<ClientCredentials & { apiSecret: string }>;
  async create(input: NewClient): Promise<ClientCredentials>;
  async create(input: NewClient): Promise<ClientCredentials> {
    const name = input.name.trim();
    if (!name) throw new InvalidClientMetadata('a client needs a name');
    const sandbox = input.sandbox ?? false;
    const confidential = input.confidential ?? true;
    if (sandbox && !confidential) throw new InvalidClientMetadata('a sandbox client uses client credentials, so it needs a secret: it cannot be public');
    const kind = clientKind({ sandbox, confidential });
    const grantTypes = input.grantTypes ? checkedGrants(kind, input.grantTypes) : null;
    const redirectUris = checkedRedirectUris(input.redirectUris ?? []);
    checkLimits(input);

    const apiKey = randomApiKey();
    const apiSecret = confidential ? randomSecret() : undefined;
    const row = await this.repository.insert({
      name,
      key_hash: sha256Hex(apiKey),
      key_hint: apiKey.slice(-4),
      secret_hash: apiSecret === undefined ? NO_SECRET : sha256Hex(apiSecret),
      sandbox: sandbox ? 1 : 0,
      confidential: confidential ? 1 : 0,
      redirect_uris: JSON.stringify(redirectUris),
      grant_types: grantTypes ? JSON.stringify(grantTypes) : null,
      queries_per_second: input.queriesPerSecond ?? null,
      queries_per_day: input.queriesPerDay ?? null,
      disabled: 0,
      created_at: new Date().toISOString(),
      usage_reporting: input.usageReporting ? 1 : 0,
      order_metadata: input.orderMetadata ? 1 : 0,
      exact_redirects: input.exactRedirects ? 1 : 0,
    });
    return { client: toClient(row), apiKey, apiSecret };
  }

  /** The enabled client holding this API key, or undefined for a missing, unknown or disabled key. */
  async authenticate(apiKey: string | undefined): Promise<ApiClient | undefined> {
    if (!apiKey || apiKey.length > 200) return undefined;
    const now = Date.now();
    const cached = this.keyCache.get(apiKey);
    if (cached && cached.until > now) return cached.client;
    const keyHash = sha256Hex(apiKey);
    const row = await this.repository.findByKeyHash(keyHash);
    // The lookup is by hash; the compare guards against a store that matches loosely.
    const client = row && !row.disabled && digestsEqual(row.key_hash, keyHash) ? toClient(row) : undefined;
    if (this.keyCache.size >= KEY_CACHE_LIMIT) this.keyCache.clear();
    this.keyCache.set(apiKey, { client, until: now + KEY_CACHE_MS });
    return client;
  }

  /**
   * The enabled client holding this API key, read from the store (no cache): the OAuth
   * endpoints see a disabled client at once.
   */
  async find(apiKey: string | undefined): Promise<ApiClient | undefined> {
    if (!apiKey || apiKey.length > 200) return undefined;
    const row = await this.repository.findByKeyHash(sha256Hex(apiKey));
    return row && !row.disabled ? toClient(row) : undefined;
  }

  /** Checks a key and secret pair (for the token endpoint's client authentication). A public client has no secret to match. */
  async verifySecret(apiKey: string, apiSecret: string): Promise<ApiClient | undefined> {
    if (apiKey.length > 200 || apiSecret.length > 200) return undefined;
    const row = await this.repository.findByKeyHash(sha256Hex(apiKey));
    if (!row || row.disabled || !row.confidential || row.secret_hash === NO_SECRET) return undefined;
    return digestsEqual(row.secret_hash, sha256Hex(apiSecret)) ? toClient(row) : undefined;
  }

  /**
   * Disables the client named by its API key or its id (digits; an API key is 24 characters);
   * its requests then answer 403. False when there is no such client.
   */
  async disable(keyOrId: string): Promise<boolean> {
    return this.setDisabled(keyOrId, true);
  }

  /** Enables a disabled client again, named like disable(); false when there is no such client. */
  async enable(keyOrId: string): Promise<boolean> {
    return this.setDisabled(keyOrId, false);
  }

  /**
   * The client with this id as the store has it now (no cache): a permission an operator has
   * just taken away is refused at once. Undefined for an unknown id.
   */
  async byId(id: number): Promise<ApiClient | undefined> {
    const row = await this.repository.findById(id);
    return row ? toClient(row) : undefined;
  }

  /**
   * Enables or disables usage reporting and order metadata for the client named by its API key
   * or its id (as disable() takes it); the client as it now is, or undefined when there is none.
   */
  async setPermissions(keyOrId: string, permissions: ClientPermissions): Promise<ApiClient | undefined> {
    const reference = keyOrId.trim();
    const changes: { usage_reporting?: number; order_metadata?: number } = {};
    if (permissions.usageReporting !== undefined) changes.usage_reporting = permissions.usageReporting ? 1 : 0;
    if (permissions.orderMetadata !== undefined) changes.order_metadata = permissions.orderMetadata ? 1 : 0;
    const where = CLIENT_ID.test(reference) ? { id: Number(reference) } : { keyHash: sha256Hex(reference) };
    const row = await this.repository.setPermissions(where, changes);
    return row ? toClient(row) : undefined;
  }

  /** Every client, by id. */
  async list(): Promise<ClientListing[]> {
    return (await this.repository.list()).map(toListing);
  }

  /** One client as an operator sees it (enabled or not), or undefined for an unknown id. */
  async listing(id: number): Promise<ClientListing | undefined> {
    const row = Number.isSafeInteger(id) ? await this.repository.findById(id) : undefined;
    return row ? toListing(row) : undefined;
  }

  /**
   * A new secret for a confidential client: only its hash is stored, and the old one stops
   * working at once (the token endpoint reads the hash from the store, never from a cache).
   * Tokens already issued stay valid until they expire or are revoked. Undefined for an unknown
   * id; InvalidClientMetadata for a public client, which has no secret.
   */
  async rotateSecret(id: number): Promise<{ client: ClientListing; apiSecret: string } | undefined> {
    const row = Number.isSafeInteger(id) ? await this.repository.findById(id) : undefined;
    if (!row) return undefined;
    if (row.confidential !== 1) throw new InvalidClientMetadata('a public client has no secret to rotate');
    const apiSecret = randomSecret();
    const updated = await this.repository.update(id, { secret_hash: sha256Hex(apiSecret) });
    return updated ? { client: toListing(updated), apiSecret } : undefined;
  }

  /**
   * Changes a client's name, redirect URIs, grants (null: its kind's defaults), limits (null:
   * the configured default) and permissions, under the rules of create(); absent: unchanged.
   * The client as it now is, or undefined for an unknown id.
   */
  async update(id: number, changes: ClientChanges): Promise<ClientListing | undefined> {
    const row = Number.isSafeInteger(id) ? await this.repository.findById(id) : undefined;
    if (!row) return undefined;
    const kind = clientKind({ sandbox: row.sandbox === 1, confidential: row.confidential === 1 });
    const values: Parameters<ClientsRepository['update']>[1] = {};
    if (changes.name !== undefined) {
      const name = changes.name.trim();
      if (!name) throw new InvalidClientMetadata('a client needs a name');
      values.name = name;
    }
    if (changes.redirectUris !== undefined) values.redirect_uris = JSON.stringify(checkedRedirectUris(changes.redirectUris));
    if (changes.grantTypes !== undefined) values.grant_types = changes.grantTypes === null ? null : JSON.stringify(checkedGrants(kind, changes.grantTypes));
    checkLimits(changes);
    if (changes.queriesPerSecond !== undefined) values.queries_per_second = changes.queriesPerSecond;
    if (changes.queriesPerDay !== undefined) values.queries_per_day = changes.queriesPerDay;
    if (changes.usageReporting !== undefined) values.usage_reporting = changes.usageReporting ? 1 : 0;
    if (changes.orderMetadata !== undefined) values.order_metadata = changes.orderMetadata ? 1 : 0;
    // A cached key would keep its old limits and grants for a few seconds more.
    this.keyCache.clear();
    const updated = await this.repository.update(id, values);
    return updated ? toListing(updated) : undefined;
  }

  private async setDisabled(keyOrId: string, disabled: boolean): Promise<boolean> {
    const reference = keyOrId.trim();
    if (CLIENT_ID.test(reference)) {
      // The cache is keyed by API key, which an id does not give.
      this.keyCache.clear();
      return this.repository.setDisabled({ id: Number(reference) }, disabled);
    }
    this.keyCache.delete(reference);
    return this.repository.setDisabled({ keyHash: sha256Hex(reference) }, disabled);
  }
}

/** What update() may change; absent: unchanged. */
export interface ClientChanges extends ClientPermissions {
  name?: string;
  redirectUris?: readonly string[];
  /** null: the defaults of the client's kind. */
  grantTypes?: readonly GrantType[] | null;
  /** null: the configured default. */
  queriesPerSecond?: number | null;
  queriesPerDay?: number | null;
}

/** A grant list without repeats, each a known grant its kind may have; InvalidClientMetadata otherwise. */
function checkedGrants(kind: ClientKind, grants: readonly GrantType[]): GrantType[] {
  const grantTypes = [...new Set(grants)];
  const unknown = grantTypes.find((grant) => !GRANT_TYPES.includes(grant));
  if (unknown !== undefined) throw new InvalidClientMetadata(`unknown grant ${String(unknown)} (known: ${GRANT_TYPES.join(', ')})`);
  const problem = grantListProblem(kind, grantTypes);
  if (problem) throw new InvalidClientMetadata(problem);
  return grantTypes;
}

function checkedRedirectUris(uris: readonly string[]): string[] {
  const redirectUris = [...new Set(uris)];
  for (const uri of redirectUris) {
    const check = checkRegistrableRedirectUri(uri);
    if (!check.ok) throw new InvalidClientMetadata(`redirect URI ${uri} ${check.reason}`);
  }
  return redirectUris;
}

/** Limits are whole numbers of at least 1 (the command line's own rule), or null for the default. */
function checkLimits(limits: { queriesPerSecond?: number | null; queriesPerDay?: number | null }): void {
  for (const [name, value] of [
    ['calls per second', limits.queriesPerSecond],
    ['calls per day', limits.queriesPerDay],
  ] as const) {
    if (value !== undefined && value !== null && !(Number.isSafeInteger(value) && value >= 1)) throw new InvalidClientMetadata(`${name} must be a whole number of at least 1`);
  }
}

function toListing(row: ApiClientRow): ClientListing {
  const client = toClient(row);
  return { ...client, kind: clientKind(client), disabled: row.disabled === 1, keyHint: row.key_hint, createdAt: row.created_at };
}

function parseList(json: string | null): unknown[] | null {
  if (json === null) return null;
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

function toClient(row: ApiClientRow): ApiClient {
  const sandbox = row.sandbox === 1;
  const confidential = row.confidential === 1;
  const listedGrants = parseList(row.grant_types)?.filter((g): g is GrantType => GRANT_TYPES.includes(g as GrantType)) ?? null;
  return {
    id: row.id,
    throttleKey: row.key_hash.slice(0, 32),
    name: row.name,
    sandbox,
    queriesPerSecond: row.queries_per_second,
    queriesPerDay: row.queries_per_day,
    confidential,
    redirectUris: (parseList(row.redirect_uris) ?? []).filter((uri): uri is string => typeof uri === 'string'),
    grantTypes: effectiveGrants(clientKind({ sandbox, confidential }), listedGrants),
    usageReporting: row.usage_reporting === 1,
    orderMetadata: row.order_metadata === 1,
    exactRedirects: row.exact_redirects === 1,
  };
}
