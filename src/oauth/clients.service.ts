import { digestsEqual, randomApiKey, randomSecret, sha256Hex } from '../platform/crypto/secrets.js';
import type { ApiClientRow, ClientsRepository } from './clients.repository.js';

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
}

export interface NewClient {
  name: string;
  sandbox?: boolean;
  queriesPerSecond?: number | null;
  queriesPerDay?: number | null;
}

/** Shown once at creation; only hashes are stored. */
export interface ClientCredentials {
  client: ApiClient;
  apiKey: string;
  apiSecret: string;
}

// A key looked up moments ago is trusted for this long, so the hot path does not hit the
// store on every request; disabling a key in this process takes effect at once.
const KEY_CACHE_MS = 5_000;
const KEY_CACHE_LIMIT = 10_000;

export class ClientsService {
  private readonly keyCache = new Map<string, { client: ApiClient | undefined; until: number }>();

  constructor(private readonly repository: ClientsRepository) {}

  async create(input: NewClient): Promise<ClientCredentials> {
    const name = input.name.trim();
    if (!name) throw new Error('a client needs a name');
    const apiKey = randomApiKey();
    const apiSecret = randomSecret();
    const row = await this.repository.insert({
      name,
      key_hash: sha256Hex(apiKey),
      key_hint: apiKey.slice(-4),
      secret_hash: sha256Hex(apiSecret),
      sandbox: input.sandbox ? 1 : 0,
      queries_per_second: input.queriesPerSecond ?? null,
      queries_per_day: input.queriesPerDay ?? null,
      disabled: 0,
      created_at: new Date().toISOString(),
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

  /** Checks a key and secret pair (for the token endpoint's client authentication). */
  async verifySecret(apiKey: string, apiSecret: string): Promise<ApiClient | undefined> {
    const row = await this.repository.findByKeyHash(sha256Hex(apiKey));
    if (!row || row.disabled) return undefined;
    return digestsEqual(row.secret_hash, sha256Hex(apiSecret)) ? toClient(row) : undefined;
  }

  async disable(apiKey: string): Promise<boolean> {
    this.keyCache.delete(apiKey);
    return this.repository.setDisabled(sha256Hex(apiKey), true);
  }

  async enable(apiKey: string): Promise<boolean> {
    this.keyCache.delete(apiKey);
    return this.repository.setDisabled(sha256Hex(apiKey), false);
  }
}

function toClient(row: ApiClientRow): ApiClient {
  return {
    id: row.id,
    throttleKey: row.key_hash.slice(0, 32),
    name: row.name,
    sandbox: row.sandbox === 1,
    queriesPerSecond: row.queries_per_second,
    queriesPerDay: row.queries_per_day,
  };
}
