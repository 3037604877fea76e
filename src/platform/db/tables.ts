import type { Generated } from 'kysely';

/*
 * The shape of every table, as Kysely sees it. The same types serve SQLite and
 * PostgreSQL: booleans are stored as 0/1 integers, JSON as text and instants as
 * ISO 8601 text, so that one set of queries reads the same values from both.
 */

export interface SettingsTable {
  key: string;
  value: string;
}

export interface CollectionsTable {
  id: number;
  code: string;
  name: string;
  asset_family: string | null;
  license_model: string | null;
  /** JSON array of product type names. */
  product_types: string;
}

export interface ArtistsTable {
  id: Generated<number>;
  name: string;
}

export interface AssetsTable {
  id: string;
  /** image | video */
  asset_type: string;
  asset_family: string | null;
  title: string | null;
  caption: string | null;
  artist_id: number | null;
  collection_id: number | null;
  license_model: string | null;
  orientation: string | null;
  max_width: number | null;
  max_height: number | null;
  quality_rank: number | null;
  date_created: string | null;
  date_submitted: string | null;
  /** JSON object: every other field of the record, in the spec's names. */
  details: string;
  /** Blob key of the original file, when one was ingested. */
  original_key: string | null;
  original_media_type: string | null;
  updated_at: string;
  /** "v<version>:<base64>": the visual signature of the original, for search by image. */
  visual_signature: string | null;
}

export interface KeywordsTable {
  id: number;
  text: string;
  type: string | null;
  /** JSON array of strings. */
  entity_uris: string;
  /** JSON array of strings. */
  entity_types: string;
  /** JSON object: language tag → localized text. */
  translations: string;
}

export interface AssetKeywordsTable {
  asset_id: string;
  keyword_id: number;
  relevance: number | null;
  position: number;
}

export interface EventsTable {
  id: number;
  name: string;
  start_date: string | null;
  parent_id: number | null;
  type: string | null;
  /** JSON array of segment names. */
  editorial_segments: string;
  hero_image_id: string | null;
  city: string | null;
  country: string | null;
  state_province: string | null;
  venue: string | null;
  /** JSON array of keyword objects. */
  keywords: string;
  updated_at: string;
}

export interface AssetEventsTable {
  asset_id: string;
  event_id: number;
}

export interface ChangeLogTable {
  seq: Generated<number>;
  /** image | video | event | collection */
  entity_type: string;
  entity_id: string;
  /** insert | update | delete */
  operation: string;
  changed_at: string;
}

export interface ApiClientsTable {
  id: Generated<number>;
  name: string;
  /** SHA-256 (hex) of the API key; the key itself is never stored. */
  key_hash: string;
  /** Last characters of the key, so that an operator can tell keys apart. */
  key_hint: string;
  /** SHA-256 (hex) of the API secret. */
  secret_hash: string;
  sandbox: number;
  /** Per-key throttle limits; null means the configured default. */
  queries_per_second: number | null;
  queries_per_day: number | null;
  disabled: number;
  created_at: string;
  /** 1: holds a secret it can keep (web server); 0: a public client (browser, mobile) with no secret. */
  confidential: Generated<number>;
  /** JSON array of registered redirect URIs (local ones need no registration). */
  redirect_uris: Generated<string>;
  /** JSON array of the grants the client may use; null: the defaults for its kind. */
  grant_types: string | null;
}

export interface UsersTable {
  id: Generated<number>;
  username: string;
  /** argon2id hash */
  password_hash: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  password_changed_at: string;
  created_at: string;
  team: string | null;
  /** 1: a user of a partner site who holds credits. */
  partner_credit: Generated<number>;
  /** Failed sign-ins since first_failed_at (reset by a success, a lock or the window's end). */
  failed_sign_ins: Generated<number>;
  /** Sign-ins are refused until this instant. */
  locked_until: string | null;
  /** When the current run of failures began: a run older than the lock window starts again. */
  first_failed_at: string | null;
}

export interface AccessTokensTable {
  /** SHA-256 (hex) of the bearer token. */
  token_hash: string;
  client_id: number;
  user_id: number | null;
  grant_type: string;
  issued_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** SHA-256 of the authorization code the token descends from (revoked together if the code is replayed). */
  code_hash: string | null;
  /** The refresh-token family that issued it (revoked together on refresh-token reuse). */
  refresh_family: string | null;
}

export interface AuthorizationCodesTable {
  /** SHA-256 (hex) of the code. */
  code_hash: string;
  client_id: number;
  user_id: number;
  /** Exactly as the authorization request carried it; the token request must repeat it. */
  redirect_uri: string;
  /** PKCE S256 challenge, when the request had one. */
  code_challenge: string | null;
  issued_at: string;
  expires_at: string;
  /** Set once, when the code is exchanged; a second exchange is a replay. */
  used_at: string | null;
}

export interface RefreshTokensTable {
  /** SHA-256 (hex) of the refresh token. */
  token_hash: string;
  client_id: number;
  user_id: number;
  /** Random id shared by a chain of rotated refresh tokens. */
  family: string;
  code_hash: string | null;
  issued_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** Set when a rotation replaced it (public clients); presenting it again is reuse. */
  replaced_at: string | null;
}

export interface SearchUploadsTable {
  client_id: number;
  /** The file name the client chose; unique per API client. */
  name: string;
  blob_key: string;
  media_type: string;
  byte_size: number;
  /** "v<version>:<base64>", computed when the file arrived. */
  visual_signature: string;
  uploaded_at: string;
  expires_at: string;
}

export interface ProductsTable {
  id: Generated<number>;
  user_id: number;
  /** premiumaccess, easyaccess, editorialsubscription, imagepack, royaltyfreesubscription, creditpack, sandbox, aigen */
  type: string;
  name: string;
  /** active | inactive */
  status: string;
  expires_at: string | null;
  created_at: string;
}

export interface Tables {
  settings: SettingsTable;
  collections: CollectionsTable;
  artists: ArtistsTable;
  assets: AssetsTable;
  keywords: KeywordsTable;
  asset_keywords: AssetKeywordsTable;
  events: EventsTable;
  asset_events: AssetEventsTable;
  change_log: ChangeLogTable;
  api_clients: ApiClientsTable;
  users: UsersTable;
  access_tokens: AccessTokensTable;
  authorization_codes: AuthorizationCodesTable;
  refresh_tokens: RefreshTokensTable;
  search_uploads: SearchUploadsTable;
  products: ProductsTable;
}
