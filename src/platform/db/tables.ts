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
  /** Downloads of the asset (licensing counts them; search's most_popular ranks by them). */
  download_count: Generated<number>;
  /** JSON (MediaFacts): what the pixels say (dominant colours, black and white, nudity scores); null until computed. */
  media_facts: string | null;
  /** The MEDIA_FACTS_VERSION media_facts were computed by; null: never (what `stockroom backfill` looks for). */
  media_facts_version: number | null;
  /** The classifier's nudity score, 0–1; null: not classified. */
  nudity_score: number | null;
  /** draft | published | withdrawn: only a published asset is shown to clients (the catalogue's reads keep the rule). */
  publication: Generated<'draft' | 'published' | 'withdrawn'>;
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
  /** insert | update | delete | count */
  operation: string;
  changed_at: string;
  /** creative | editorial (lower case) of an image or video as it was then; null otherwise. */
  asset_family: string | null;
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
  /** 1: may report usage (PUT /usage-batches). */
  usage_reporting: Generated<number>;
  /** 1: may read order metadata (GET /orders/{id}). */
  order_metadata: Generated<number>;
  /** 1: a redirect_uri must equal a registered one exactly (no unregistered local URI): the catalogue browser's own client. */
  exact_redirects: Generated<number>;
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
  /** When an operator disabled the account; null: enabled. */
  disabled_at: string | null;
  /** Staff: `editor` (the catalogue) or `admin` (the whole back office); null: a customer. */
  role: Generated<string | null>;
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
  /** Who sent it: the user whose token came with it, or 0 for the API key alone. */
  user_id: number;
  /** The file name the sender chose; unique per API client and user. */
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
  /** Personal credits; null: the product does not take credits. */
  credits_remaining: number | null;
  /** Downloads allowed per period (or in all, without a duration); null: no limit. */
  download_limit: number | null;
  /** day | month | year; null: the limit never resets. */
  download_limit_duration: string | null;
  /** Downloads counted in the period ending at download_period_ends_at. */
  downloads_used: Generated<number>;
  download_period_ends_at: string | null;
  /** Downloads allowed beyond the limit in a period; null: none. */
  overage_limit: number | null;
  overage_count: Generated<number>;
  agreement_name: string | null;
  /** The largest download size the product allows (a size name); null: any. */
  imagepack_resolution: string | null;
  application_website: string | null;
  note_required: Generated<number>;
  project_code_required: Generated<number>;
  /** JSON array of the project codes a download may name; [] means any. */
  project_codes: Generated<string>;
  /** AI generation products: units of the generation allowance an edit of a catalogue asset draws (default 1; 0: free). */
  asset_edit_cost: Generated<number>;
}

/** The credits a team shares (users.team), spent with use_team_credits=true. */
export interface TeamCreditsTable {
  team: string;
  credits: number;
  updated_at: string;
}

/** One download: the history, and the record every debit of it belongs to. */
export interface DownloadsTable {
  id: Generated<number>;
  user_id: number;
  client_id: number;
  product_id: number;
  product_type: string;
  /** The user's team at the time (company_downloads). */
  team: string | null;
  asset_id: string;
  /** image | video */
  asset_type: string;
  size_name: string | null;
  width: number | null;
  height: number | null;
  dpi: number | null;
  bytes: number | null;
  /** jpg when the request named it; null: the size's own format */
  file_type: string | null;
  license_model: string | null;
  download_notes: string | null;
  project_code: string | null;
  downloaded_at: string;
  /** api: made through the API; otherwise the host of the catalogue browser that made it. */
  source: Generated<string>;
  /** 1: this download licensed the asset under its product (a purchase); 0: a free re-download. */
  new_license: number;
  credits_spent: Generated<number>;
  used_team_credits: Generated<number>;
  idempotency_key: string | null;
  /** SHA-256 of what the request asked for; a key reused for another request is refused. */
  request_fingerprint: string | null;
  delivery_uri: string | null;
  delivery_issued_at: string | null;
  /** The order of a purchase (set in its transaction); null for a free re-download. */
  order_id: Generated<number | null>;
  /** A download of a generated image: the id POST /v3/ai/redownloads names; null for catalogue assets. */
  generated_asset_id: Generated<string | null>;
}

/** An asset licensed under a product: downloading it again under that product is free. */
export interface AssetLicensesTable {
  product_id: number;
  asset_id: string;
  user_id: number;
  /** The download that licensed it. */
  download_id: number;
  licensed_at: string;
}

export interface ExtendedLicensesTable {
  id: Generated<number>;
  user_id: number;
  asset_id: string;
  /** multiseat | unlimited | resale | indemnification */
  license_type: string;
  credits: number;
  product_id: number | null;
  team: string | null;
  acquired_at: string;
  /** The order these licenses were bought under. */
  order_id: Generated<number | null>;
}

/** Every grant and debit of credits, downloads and overage; a debit belongs to a download or an extended license. */
export interface DownloadLedgerTable {
  id: Generated<number>;
  user_id: number;
  product_id: number | null;
  /** Set when the entry moves the team's pool rather than the product's own credits. */
  team: string | null;
  /** credit | download | overage */
  unit: string;
  /** grant | download | extended_license */
  reason: string;
  /** Positive for a grant, negative for a debit. */
  amount: number;
  download_id: number | null;
  extended_license_id: number | null;
  /** The generation an allowance was used (or given back) for. */
  generation_request_id: Generated<string | null>;
  created_at: string;
}

export interface BoardsTable {
  /** Random, never a sequence. */
  id: string;
  owner_id: number;
  name: string;
  description: string | null;
  /** Kept with every change to board_assets, in the same transaction. */
  asset_count: Generated<number>;
  comment_count: Generated<number>;
  date_created: string;
  date_last_updated: string;
  /** Random; the invitation token is derived from it with a key kept in the settings. */
  invitation_nonce: string;
  /** SHA-256 (hex) of the invitation token; the token itself is never stored. */
  invitation_hash: string;
  share_nonce: string;
  /** SHA-256 (hex) of the share token. */
  share_hash: string;
  /** 1: the page the share link opens shows the comments too (the owner's choice); 0: it does not. */
  share_comments: Generated<number>;
}

/** A colleague who accepted a board's invitation. */
export interface BoardMembersTable {
  board_id: string;
  user_id: number;
  /** editor */
  role: string;
  joined_at: string;
}

export interface BoardAssetsTable {
  board_id: string;
  asset_id: string;
  /** image | video */
  asset_type: string;
  date_added: string;
  /** A note on the asset, for the people of the board; null: none. */
  note: Generated<string | null>;
  /** Its place in the owner's order, from 0; null: added since the owner last ordered the board (shown first, newest first). */
  position: Generated<number | null>;
}

export interface BoardCommentsTable {
  /** Random, never a sequence. */
  id: string;
  board_id: string;
  /** null once the author's account is gone. */
  author_id: number | null;
  text: string;
  date_created: string;
}

/** An asset sent to a person: one row an asset each time a board is sent to an email address. */
export interface AssetSendEventsTable {
  seq: Generated<number>;
  /** The API client the send was made through: each client reads its own. */
  client_id: number;
  user_id: number;
  board_id: string;
  asset_id: string;
  email_address: string;
  /** YYYY-MM-DDTHH:MM:SS.ffffffZ, unique per client: the feed's offset. */
  sent_at: string;
}

/** What one or more purchases were bought under; purchases naming the same purchase order number share one. */
export interface OrdersTable {
  id: Generated<number>;
  user_id: number;
  purchase_order_number: string | null;
  end_client: string | null;
  licensee_name: string | null;
  project_title: string | null;
  /** As given; null: the purchasing user's name is shown. */
  ordered_by: string | null;
  order_date: string;
}

/** A partner's report of its use of licensed assets, under its own transaction id. */
export interface UsageBatchesTable {
  id: Generated<number>;
  client_id: number;
  transaction_id: string;
  user_id: number;
  usage_count: number;
  received_at: string;
}

export interface AssetUsagesTable {
  id: Generated<number>;
  batch_id: number;
  client_id: number;
  asset_id: string;
  /** image | video */
  asset_type: string;
  quantity: number;
  /** YYYY-MM-DD */
  usage_date: string;
}

/** A partner client's feed of asset changes of one family and type, read from the change log. */
export interface AssetChangeChannelsTable {
  id: Generated<number>;
  client_id: number;
  /** creative | editorial | both */
  asset_family: string;
  /** image | film */
  asset_type: string;
  metadata: string | null;
  created_at: string;
  /** Every change-log entry up to here is confirmed (or matched nothing of the channel). */
  confirmed_seq: Generated<number>;
  /** The change set handed out and not yet confirmed. */
  open_change_set_id: number | null;
}

/** Notices handed out together; handed out again, unchanged, until confirmed. */
export interface AssetChangeSetsTable {
  id: Generated<number>;
  channel_id: number;
  /** The change-log entries after_seq < seq <= through_seq were read for it. */
  after_seq: number;
  through_seq: number;
  notice_count: number;
  /** JSON array of the notices as handed out. */
  notices: string;
  created_at: string;
  confirmed_at: string | null;
}

/** An asset a client keeps a copy of: its changes and withdrawal reach the client's channels. */
export interface AssetRegistrationsTable {
  client_id: number;
  asset_id: string;
  registered_at: string;
}

/** A generation request: a job in the store, then its history entry. */
export interface GenerationRequestsTable {
  id: string;
  user_id: number;
  client_id: number;
  team: string | null;
  product_id: number;
  /** The contract's GenerationType. */
  generation_type: string;
  /** JSON: what the engine is asked, pictures by blob key. */
  job: string;
  /** pending | running | done | failed */
  status: string;
  prompt: string | null;
  negative_prompt: string | null;
  seed: number;
  media_type: string | null;
  aspect_ratio: string | null;
  mood: string | null;
  notes: string | null;
  project_code: string | null;
  original_asset_id: string | null;
  source_request_id: string | null;
  source_index: number | null;
  /** charged | refunded | free */
  charge: string;
  engine: string | null;
  failure: string | null;
  attempts: Generated<number>;
  claimed_by: string | null;
  lease_until: string | null;
  created_at: string;
  finished_at: string | null;
  expires_at: string;
}

export interface GenerationResultsTable {
  request_id: string;
  result_index: number;
  is_blocked: number;
  seed: number;
  /** null for a blocked result: its pixels are never kept. */
  image_key: string | null;
  preview_key: string | null;
  width: number | null;
  height: number | null;
  preview_width: number | null;
  preview_height: number | null;
}

export interface GenerationFileRegistrationsTable {
  id: string;
  user_id: number;
  /** The API key it was registered with (null: registered before keys were recorded). */
  client_id: number | null;
  /** The bytes it keeps, picture and preview (0: registered before sizes were recorded). */
  byte_size: number;
  /** ImageReference | CustomerProduct */
  category: string;
  image_key: string;
  preview_key: string;
  preview_width: number;
  preview_height: number;
  created_at: string;
}

export interface GenerationDownloadsTable {
  id: Generated<number>;
  generated_asset_id: string;
  request_id: string;
  result_index: number;
  size_name: string;
  user_id: number;
  /** preparing | ready | failed */
  status: string;
  file_key: string | null;
  width: number | null;
  height: number | null;
  claimed_by: string | null;
  lease_until: string | null;
  created_at: string;
}

/** A file made from a video original (a smaller download size, the preview clip), as a job. */
export interface VideoTranscodesTable {
  original_key: string;
  kind: string;
  /** pending | running | done | failed */
  status: string;
  output_key: string | null;
  failure: string | null;
  attempts: Generated<number>;
  claimed_by: string | null;
  lease_until: string | null;
  created_at: string;
  finished_at: string | null;
}

/** An upload of the back office (src/asset-uploads), from its creation to what its ingest made of it. */
export interface AssetUploadsTable {
  id: string;
  user_id: number;
  file_name: string;
  byte_size: number;
  /** uploading | waiting (its ingest queued) | ingesting | done | refused | abandoned */
  status: string;
  asset_id: string | null;
  asset_type: string | null;
  /** Why ingest refused the file, in ingest's words. */
  problem: string | null;
  attempts: Generated<number>;
  claimed_by: string | null;
  lease_until: string | null;
  created_at: string;
  active_at: string;
  finished_at: string | null;
}

/** The lease on publishing the search snapshot into the blob store (src/search): one row, 'search'. */
export interface SearchSnapshotLeaseTable {
  name: string;
  /** Always 'open': the lease alone says whether a node holds the row. */
  status: string;
  holder: string | null;
  lease_until: string | null;
  /** The object the holder is uploading (null between uploads): left behind by a node that stopped, it is removed by the next. */
  uploading_key: string | null;
}

/** How far the ingest of a manifest has come, while it runs (src/catalog/ingest): what a stopped run continues from. */
export interface IngestCheckpointsTable {
  /** A fingerprint of the manifest and the run's options. */
  manifest: string;
  /** Every line up to this one has been stored or refused. */
  through_line: number;
  inserted: number;
  updated: number;
  failed: number;
  saved_at: string;
}

/** A session of the catalogue browser (src/web); tokens and the PKCE verifier are sealed. */
export interface WebSessionsTable {
  /** SHA-256 of the cookie's random id. */
  id_hash: string;
  /** The synchronizer token every form of the session carries. */
  csrf_token: string;
  /** null until the browser has signed in. */
  user_id: number | null;
  access_token: string | null;
  refresh_token: string | null;
  /** A sign-in under way: SHA-256 of its `state`, its PKCE verifier and the page to return to. */
  sign_in_state_hash: string | null;
  sign_in_verifier: string | null;
  sign_in_return: string | null;
  created_at: string;
  expires_at: string;
}

/** One back-office action: who, when, what, on what, and the target before and after (JSON). */
export interface AuditLogTable {
  id: Generated<number>;
  actor_id: number;
  /** The actor's username when they acted. */
  actor_username: string;
  at: string;
  action: string;
  target_kind: string;
  target_id: string;
  before: string | null;
  after: string | null;
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
  team_credits: TeamCreditsTable;
  downloads: DownloadsTable;
  asset_licenses: AssetLicensesTable;
  extended_licenses: ExtendedLicensesTable;
  download_ledger: DownloadLedgerTable;
  boards: BoardsTable;
  board_members: BoardMembersTable;
  board_assets: BoardAssetsTable;
  board_comments: BoardCommentsTable;
  asset_send_events: AssetSendEventsTable;
  orders: OrdersTable;
  usage_batches: UsageBatchesTable;
  asset_usages: AssetUsagesTable;
  asset_change_channels: AssetChangeChannelsTable;
  asset_change_sets: AssetChangeSetsTable;
  asset_registrations: AssetRegistrationsTable;
  generation_requests: GenerationRequestsTable;
  generation_results: GenerationResultsTable;
  generation_file_registrations: GenerationFileRegistrationsTable;
  generation_downloads: GenerationDownloadsTable;
  video_transcodes: VideoTranscodesTable;
  asset_uploads: AssetUploadsTable;
  search_snapshot_lease: SearchSnapshotLeaseTable;
  ingest_checkpoints: IngestCheckpointsTable;
  web_sessions: WebSessionsTable;
  audit_log: AuditLogTable;
}
