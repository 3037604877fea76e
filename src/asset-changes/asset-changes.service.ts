import { invalidRequest } from '../platform/http/errors.js';
import { changeSetNotFound, channelNotFound, channelsNotFound, unauthorizedToAccessResource } from './asset-changes.errors.js';
import { utcDateTime } from '../platform/http/date-time.js';
import type { Clock } from '../platform/platform.js';
import type { AssetChangesRepository, ChangeSetRow, ChannelRow, ChannelScope, PendingEntry } from './asset-changes.repository.js';

export const ASSET_FAMILIES = ['creative', 'editorial', 'both'] as const;
export const CHANNEL_ASSET_TYPES = ['image', 'film'] as const;
export type ChannelFamily = (typeof ASSET_FAMILIES)[number];
export type ChannelAssetType = (typeof CHANNEL_ASSET_TYPES)[number];

/** The most notices one change set holds (the contract's batch_size maximum and default). */
export const MAX_BATCH_SIZE = 2200;
/** Notices older than this are dropped from every channel (the contract). */
export const NOTICE_LIFETIME_DAYS = 60;
export const MAX_REGISTRATION_IDS = 1000;

/** A channel as an operator sees it. */
export interface Channel {
  id: number;
  clientId: number;
  assetFamily: ChannelFamily;
  assetType: ChannelAssetType;
  metadata: string | null;
  createdAt: string;
}

/** A channel in the contract's shape, with its live counts. */
export interface ChannelRecord {
  ChannelId: number;
  AssetFamily: 'Creative' | 'Editorial' | 'Both';
  AssetChangeType: string | null;
  CreateDateUtc: string;
  NotificationCount: number;
  AssetType: 'Image' | 'Film';
  OldestChangeNotificationDateUtc: string;
  Metadata: string | null;
}

export interface ChangeNotice {
  asset_changed_utc_datetime: string;
  asset_lifecycle: 'New' | 'Update' | 'Delete';
  asset_type: 'Image' | 'Film' | null;
  id: string;
  /** The download link to POST; New notices only. */
  uri: string | null;
}

export interface HandedOutSet {
  change_set_id: string;
  changed_assets: ChangeNotice[];
  /** True when the set was made by this hand-out; false when it is the open set handed out again. */
  created: boolean;
}

export interface Registration {
  registered_asset_ids: string[];
  invalid_assets: string[];
}

/** Which assets the catalogue holds (the catalogue's service). */
export interface RegistrationCatalog {
  findAssets(assetType: 'image' | 'video', ids: readonly string[]): Promise<{ found: ReadonlyArray<{ id: string }>; notFound: string[] }>;
}

const LIFECYCLE: Readonly<Record<string, ChangeNotice['asset_lifecycle']>> = { insert: 'New', update: 'Update', delete: 'Delete' };
const NOTICE_ASSET_TYPE: Readonly<Record<string, ChangeNotice['asset_type']>> = { image: 'Image', video: 'Film' };
const FAMILY_NAME: Readonly<Record<ChannelFamily, ChannelRecord['AssetFamily']>> = { creative: 'Creative', editorial: 'Editorial', both: 'Both' };
const TYPE_NAME: Readonly<Record<ChannelAssetType, ChannelRecord['AssetType']>> = { image: 'Image', film: 'Film' };
const DAY_MS = 24 * 60 * 60 * 1000;


export interface AssetChangesServiceOptions {
  repository: AssetChangesRepository;
  catalog: RegistrationCatalog;
  /** Where download links point (the configured public URL). */
  publicUrl: string;
  now: Clock;
}

/**
 * The asset-change feed of partner clients: channels, the change sets handed out on them and
 * their confirmation, and the assets a client registers as kept. A channel hears of the
 * catalogue's change log after its confirmed position; one change set at a time is open on a
 * channel, handed out again unchanged until confirmed (see docs/asset-changes.md).
 */
export class AssetChangesService {
  private readonly repository: AssetChangesRepository;
  private readonly catalog: RegistrationCatalog;
  private readonly publicUrl: string;
  private readonly now: Clock;

  constructor(options: AssetChangesServiceOptions) {
    this.repository = options.repository;
    this.catalog = options.catalog;
    this.publicUrl = options.publicUrl;
    this.now = options.now;
  }

  // ── channels (the operator) ───────────────────────────────────────────────

  /** Gives a client a channel; it hears of the changes of the last 60 days on. */
  async createChannel(input: { clientId: number; assetFamily: string; assetType: string; metadata?: string | undefined }): Promise<Channel> {
    const family = input.assetFamily.trim().toLowerCase();
    if (!(ASSET_FAMILIES as readonly string[]).includes(family)) {
      throw new Error(`asset family '${input.assetFamily}' is not one of ${ASSET_FAMILIES.join(', ')}`);
    }
    const typeText = input.assetType.trim().toLowerCase();
    // Videos are films in the feed's words; either name is taken.
    const assetType = typeText === 'video' ? 'film' : typeText;
    if (!(CHANNEL_ASSET_TYPES as readonly string[]).includes(assetType)) {
      throw new Error(`asset type '${input.assetType}' is not one of ${CHANNEL_ASSET_TYPES.join(', ')}`);
    }
    const metadata = input.metadata?.trim() || null;
    const row = await this.repository.createChannel({
      client_id: input.clientId,
      asset_family: family,
      asset_type: assetType,
      metadata,
      created_at: this.now().toISOString(),
    });
    return toChannel(row);
  }

  /** Every channel, or a client's, by id. */
  async listChannels(clientId?: number): Promise<Channel[]> {
    return (await this.repository.listChannels(clientId)).map(toChannel);
  }

  /** Removes a channel with its change sets; false when there is none. */
  deleteChannel(id: number): Promise<boolean> {
    return this.repository.deleteChannel(id);
  }

  // ── the feed (the partner) ────────────────────────────────────────────────

  /** The client's channels with their live counts; 404 ChannelsNotFound when it has none. */
  async channelRecords(clientId: number): Promise<ChannelRecord[]> {
    const channels = await this.repository.listChannels(clientId);
    if (channels.length === 0) throw channelsNotFound();
    const now = this.now();
    return Promise.all(
      channels.map(async (row) => {
        const channel = toChannel(row);
        const pending = await this.repository.pendingSummary(this.scope(row, now));
        return {
          ChannelId: channel.id,
          AssetFamily: FAMILY_NAME[channel.assetFamily],
          AssetChangeType: null,
          CreateDateUtc: utcDateTime(channel.createdAt),
          NotificationCount: pending.count,
          AssetType: TYPE_NAME[channel.assetType],
          // With nothing pending, nothing waits from before now.
          OldestChangeNotificationDateUtc: utcDateTime(pending.oldest ?? now),
          Metadata: channel.metadata,
        };
      }),
    );
  }

  /**
   * The channel's open change set, or a new one of at most `batchSize` notices when none is
   * open; undefined when the channel has nothing to hand out. The channel's row is held while
   * the set is chosen, so that consumers on any node are handed the same set.
   */
  async handOut(clientId: number, channelId: number, batchSize: number): Promise<HandedOutSet | undefined> {
    await this.ownedChannel(clientId, channelId);
    const now = this.now();
    const since = cutoff(now);
    const result = await this.repository.withChannel(channelId, async (trx, channel) => {
      let position = channel.confirmed_seq;
      if (channel.open_change_set_id !== null) {
        const open = await this.repository.changeSet(trx, channel.open_change_set_id);
        if (open) {
          const notices = JSON.parse(open.notices) as ChangeNotice[];
          const newest = notices[notices.length - 1]?.asset_changed_utc_datetime ?? open.created_at;
          if (newest >= since) return { change_set_id: String(open.id), changed_assets: notices, created: false };
          // Every notice of it is past the lifetime: dropped, as a notice not yet handed out would be.
          await this.repository.deleteChangeSet(trx, open.id);
          position = open.through_seq;
        }
      }
      const latest = await this.repository.latestSeq(trx);
      const entries = await this.repository.pending(trx, this.scope({ ...channel, confirmed_seq: position }, now), latest, batchSize);
      if (entries.length === 0) {
        // Nothing up to the end of the log is for this channel: the next hand-out starts after it.
        await this.repository.setChannelPosition(trx, channel.id, { confirmedSeq: Math.max(position, latest), openChangeSetId: null });
        return undefined;
      }
      // A full set ends at its last notice; a shorter one read the log to its end.
      const throughSeq = entries.length === batchSize ? entries[entries.length - 1]!.seq : latest;
      const notices = entries.map((entry) => this.notice(entry));
      const id = await this.repository.insertChangeSet(trx, {
        channel_id: channel.id,
        after_seq: position,
        through_seq: throughSeq,
        notice_count: notices.length,
        notices: JSON.stringify(notices),
        created_at: now.toISOString(),
      });
      await this.repository.setChannelPosition(trx, channel.id, { confirmedSeq: position, openChangeSetId: id });
      return { change_set_id: String(id), changed_assets: notices, created: true };
    });
    if (result === null) throw channelNotFound(channelId);
    return result;
  }

  /**
   * Confirms a change set: its notices are never handed out again, and the channel's next
   * hand-out starts after it. Confirming it again changes nothing.
   */
  async confirm(clientId: number, changeSetId: number): Promise<void> {
    const set = await this.repository.findChangeSet(changeSetId);
    if (!set) throw changeSetNotFound(changeSetId);
    if (set.client_id !== clientId) throw unauthorizedToAccessResource(`Change set ${changeSetId} belongs to a channel of another API client`);
    if (set.confirmed_at !== null) return;
    const now = this.now();
    await this.repository.withChannel(set.channel_id, async (trx, channel) => {
      const current: ChangeSetRow | undefined = await this.repository.changeSet(trx, set.id);
      if (!current || current.confirmed_at !== null) return;
      if (channel.open_change_set_id === set.id) {
        await this.repository.setChannelPosition(trx, channel.id, { confirmedSeq: set.through_seq, openChangeSetId: null });
      }
      await this.repository.markConfirmed(trx, set.id, now.toISOString());
      await this.repository.forgetConfirmedBefore(trx, channel.id, cutoff(now));
    });
  }

  // ── registrations ─────────────────────────────────────────────────────────

  /**
   * Registers assets the client keeps copies of: from now on a change of any of them reaches
   * every channel of the client of its asset type, whatever the channel's family (a withdrawal
   * reaches them already). Ids the catalogue does not hold are answered in invalid_assets and
   * not registered.
   */
  async register(clientId: number, assetIds: readonly string[]): Promise<Registration> {
    const ids = [...new Set(assetIds.map((id) => id.trim()).filter((id) => id !== ''))];
    if (ids.length === 0) throw invalidRequest('asset_ids names no asset');
    const images = await this.catalog.findAssets('image', ids);
    const videos = images.notFound.length > 0 ? await this.catalog.findAssets('video', images.notFound) : { found: [], notFound: [] };
    const known = new Set([...images.found, ...videos.found].map((record) => record.id));
    const registered = ids.filter((id) => known.has(id));
    await this.repository.register(clientId, registered, this.now().toISOString());
    return { registered_asset_ids: registered, invalid_assets: ids.filter((id) => !known.has(id)) };
  }

  registeredCount(clientId: number): Promise<number> {
    return this.repository.registeredCount(clientId);
  }

  // ── helpers ───────────────────────────────────────────────────────────────

  private async ownedChannel(clientId: number, channelId: number): Promise<ChannelRow> {
    const channel = await this.repository.findChannel(channelId);
    if (!channel) throw channelNotFound(channelId);
    if (channel.client_id !== clientId) throw unauthorizedToAccessResource(`Channel ${channelId} belongs to another API client`);
    return channel;
  }

  private scope(channel: ChannelRow, now: Date): ChannelScope {
    return {
      clientId: channel.client_id,
      entityType: channel.asset_type === 'film' ? 'video' : 'image',
      family: channel.asset_family === 'both' ? null : (channel.asset_family as 'creative' | 'editorial'),
      afterSeq: channel.confirmed_seq,
      since: cutoff(now),
    };
  }

  private notice(entry: PendingEntry): ChangeNotice {
    const lifecycle = LIFECYCLE[entry.operation] ?? 'Update';
    const assetType = NOTICE_ASSET_TYPE[entry.entity_type] ?? null;
    return {
      asset_changed_utc_datetime: utcDateTime(entry.changed_at),
      asset_lifecycle: lifecycle,
      asset_type: assetType,
      id: entry.entity_id,
      uri: lifecycle === 'New' ? `${this.publicUrl}/v3/downloads/${entry.entity_type}s/${encodeURIComponent(entry.entity_id)}` : null,
    };
  }
}

function toChannel(row: ChannelRow): Channel {
  return {
    id: row.id,
    clientId: row.client_id,
    assetFamily: row.asset_family as ChannelFamily,
    assetType: row.asset_type as ChannelAssetType,
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}

/** The oldest instant a notice may have to be handed out (ISO 8601, comparable as text with the log's). */
function cutoff(now: Date): string {
  return new Date(now.getTime() - NOTICE_LIFETIME_DAYS * DAY_MS).toISOString();
}
