import type { AssetRecord, AssetType } from '../catalog/catalog.records.js';
import { invalidRequest } from '../platform/http/errors.js';
import { reportWindowReversed, reportWindowTooLong, transactionIdDuplicated, unauthorizedToReportUsage } from './reporting.errors.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';
import { customerIdOf, type CustomerGrant } from '../licensing/customer-access.js';
import type { NewUsage, UsageRepository } from './usage.repository.js';
import { parseUsageDate } from './usage-dates.js';
import type { UsageBatch } from './usage.schemas.js';


/** The API clients (oauth's clients service). */
export interface UsageClients {
  byId(id: number): Promise<{ usageReporting: boolean } | undefined>;
  list(): Promise<Array<{ id: number; name: string }>>;
}

/**
 * Which assets exist, and their artists (the catalogue). Usage and sales are of assets a customer
 * licensed, which the catalogue may have withdrawn since: they are still known here (drafts are not).
 */
export interface UsageCatalog {
  /** The type of each known asset among the ids (a lean read that leaves the record cache alone). */
  assetTypesOf(ids: readonly string[], options: { includeWithdrawn: boolean }): Promise<Map<string, AssetType>>;
  findSoldOrSellableAssets(assetType: AssetType, ids: readonly string[]): Promise<AssetRecord[]>;
}

/** The purchases a report sets usage beside (licensing's downloads). */
export interface LicensedDownloads {
  licensedDownloads(fromDay: string, toDay: string): Promise<Array<{ asset_id: string; asset_type: string; client_id: number; day: string; downloads: number }>>;
}

export interface UsageServiceDeps {
  repository: UsageRepository;
  clients: UsageClients;
  catalog: UsageCatalog;
  downloads: LicensedDownloads;
  now?: () => Date;
}

export interface ReportBatchRequest {
  grant: CustomerGrant;
  transactionId: string;
  /** The batch, as the route's schema took it (UsageBatchBody). */
  body: UsageBatch;
}

export interface ReportBatchResult {
  invalid_assets: string[];
  total_asset_usages_processed: number;
}

/** One row per asset, artist or client; or per day or month of the window (the series a chart draws). */
export type UsageReportGrouping = 'asset' | 'artist' | 'client' | 'day' | 'month';
export const USAGE_REPORT_GROUPINGS: readonly UsageReportGrouping[] = ['asset', 'artist', 'client', 'day', 'month'];

export interface UsageReportRow {
  /** by asset */
  asset_id?: string;
  asset_type?: string;
  /** by asset and by artist; null: the asset names none (or is no longer in the catalogue) */
  artist?: string | null;
  /** by artist: how many assets have downloads or usage */
  assets?: number;
  /** by client */
  client_id?: number;
  client_name?: string | null;
  /** by day (YYYY-MM-DD) or month (YYYY-MM): every one of the window, those without sales too */
  period?: string;
  licensed_downloads: number;
  reported_usages: number;
  reported_quantity: number;
}

export interface UsageReport {
  from: string;
  to: string;
  by: UsageReportGrouping;
  rows: UsageReportRow[];
}


/**
 * Usage batches (PUT /usage-batches/{id}): partners report how they used the assets they
 * licensed; and the usage report an operator draws from them, beside the licensed downloads.
 */
export class UsageService {
  private readonly now: () => Date;

  constructor(private readonly deps: UsageServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * The customer of a grant whose client may report usage (403 UnauthorizedToReportUsage, or
   * UserTokenRequired for a token of no customer). The route asks it before the body is read.
   */
  async requireReporter(grant: CustomerGrant): Promise<number> {
    const userId = customerIdOf(grant);
    const client = await this.deps.clients.byId(grant.clientId);
    if (!client?.usageReporting) {
      throw unauthorizedToReportUsage();
    }
    return userId;
  }

  /**
   * Records a batch: a user token of a client enabled for usage reporting, 1 to 1,000 entries,
   * each with a known asset, a positive quantity and a usage date that has come. Any unknown
   * asset: nothing is stored and the answer lists them (the transaction id stays unused).
   */
  async report(request: ReportBatchRequest): Promise<ReportBatchResult> {
    const userId = await this.requireReporter(request.grant);
    const transactionId = request.transactionId;
    const now = this.now();
    const entries = checkedEntries(request.body, now);
    if (await this.deps.repository.hasBatch(request.grant.clientId, transactionId)) throw transactionIdDuplicated(transactionId);

    const { known, unknown } = await this.assetTypes(entries.map((entry) => entry.assetId));
    if (unknown.length > 0) return { invalid_assets: unknown, total_asset_usages_processed: 0 };
    const usages: NewUsage[] = entries.map((entry) => ({ ...entry, assetType: known.get(entry.assetId)! }));
    try {
      await this.deps.repository.insertBatch({
        clientId: request.grant.clientId,
        transactionId,
        userId,
        receivedAt: now.toISOString(),
        usages,
      });
    } catch (error) {
      // The same id at the same moment: the other batch was stored first.
      if (isUniqueViolation(error)) throw transactionIdDuplicated(transactionId);
      throw error;
    }
    return { invalid_assets: [], total_asset_usages_processed: usages.length };
  }

  /** The type of each known asset, and the unknown ids in the order first given. */
  private async assetTypes(ids: readonly string[]): Promise<{ known: Map<string, AssetType>; unknown: string[] }> {
    const known = await this.deps.catalog.assetTypesOf(ids, { includeWithdrawn: true });
    return { known, unknown: [...new Set(ids)].filter((id) => !known.has(id)) };
  }

  /**
   * Licensed downloads and reported usage from `from` to `to` (YYYY-MM-DD, both included), per
   * asset, artist or client: what a contributor's royalty statement is built from. Downloads count
   * by their UTC day, usage by the day the partner reported.
   */
  async usageReport(from: string, to: string, by: UsageReportGrouping): Promise<UsageReport> {
    if (from > to) throw reportWindowReversed(from, to);
    if (by === 'day' || by === 'month') {
      const most = MOST_PERIODS[by];
      if (periodsOf(from, to, by, most + 1).length > most) throw reportWindowTooLong(by, most);
    }
    const [usage, downloads] = await Promise.all([this.deps.repository.totals(from, to), this.deps.downloads.licensedDownloads(from, to)]);
    const empty = () => ({ licensed_downloads: 0, reported_usages: 0, reported_quantity: 0 });
    type Cell = { asset_id: string; asset_type: string; client_id: number; day: string } & ReturnType<typeof empty>;
    const cells = new Map<string, Cell>();
    const cell = (assetId: string, assetType: string, clientId: number, day: string) => {
      const key = JSON.stringify([assetId, assetType, clientId, day]);
      let found = cells.get(key);
      if (!found) cells.set(key, (found = { asset_id: assetId, asset_type: assetType, client_id: clientId, day, ...empty() }));
      return found;
    };
    for (const row of downloads) cell(row.asset_id, row.asset_type, row.client_id, row.day).licensed_downloads += row.downloads;
    for (const row of usage) {
      const target = cell(row.asset_id, row.asset_type, row.client_id, row.day);
      target.reported_usages += row.reported_usages;
      target.reported_quantity += row.reported_quantity;
    }

    const rows = new Map<string, UsageReportRow & { assetSet?: Set<string> }>();
    const add = (key: string, make: () => UsageReportRow & { assetSet?: Set<string> }, from: ReturnType<typeof empty>, assetKey?: string) => {
      let row = rows.get(key);
      if (!row) rows.set(key, (row = make()));
      row.licensed_downloads += from.licensed_downloads;
      row.reported_usages += from.reported_usages;
      row.reported_quantity += from.reported_quantity;
      if (assetKey !== undefined) row.assetSet!.add(assetKey);
    };
    if (by === 'day' || by === 'month') {
      const periodOf = (day: string) => (by === 'day' ? day : day.slice(0, 7));
      // Every period of the window, in order, those without sales too: a series a chart can draw.
      for (const period of periodsOf(from, to, by)) rows.set(period, { period, ...empty() });
      for (const c of cells.values()) add(periodOf(c.day), () => ({ period: periodOf(c.day), ...empty() }), c);
      return { from, to, by, rows: [...rows.values()] };
    }
    if (by === 'client') {
      const names = new Map((await this.deps.clients.list()).map((client) => [client.id, client.name]));
      for (const c of cells.values()) add(String(c.client_id), () => ({ client_id: c.client_id, client_name: names.get(c.client_id) ?? null, ...empty() }), c);
      return { from, to, by, rows: [...rows.values()].sort((a, b) => a.client_id! - b.client_id!) };
    }
    const artists = await this.artists([...cells.values()]);
    for (const c of cells.values()) {
      const artist = artists.get(`${c.asset_type}:${c.asset_id}`) ?? null;
      if (by === 'asset') add(`${c.asset_type}:${c.asset_id}`, () => ({ asset_id: c.asset_id, asset_type: c.asset_type, artist, ...empty() }), c);
      else add(JSON.stringify(artist), () => ({ artist, assets: 0, ...empty(), assetSet: new Set() }), c, `${c.asset_type}:${c.asset_id}`);
    }
    const listed = [...rows.values()].map(({ assetSet, ...row }) => (assetSet === undefined ? row : { ...row, assets: assetSet.size }));
    const text = (value: string | null | undefined) => value ?? '\uffff';
    listed.sort((a, b) =>
      by === 'asset' ? compare(a.asset_id!, b.asset_id!) || compare(a.asset_type!, b.asset_type!) : compare(text(a.artist), text(b.artist)),
    );
    return { from, to, by, rows: listed };
  }

  /** The artist of each asset, by "type:id"; assets no longer in the catalogue have none. */
  private async artists(cells: ReadonlyArray<{ asset_id: string; asset_type: string }>): Promise<Map<string, string>> {
    const artists = new Map<string, string>();
    for (const assetType of ['image', 'video'] as const) {
      const ids = [...new Set(cells.filter((c) => c.asset_type === assetType).map((c) => c.asset_id))];
      for (let start = 0; start < ids.length; start += 1000) {
        const found = await this.deps.catalog.findSoldOrSellableAssets(assetType, ids.slice(start, start + 1000));
        for (const record of found) {
          if (typeof record.fields.artist === 'string' && record.fields.artist !== '') artists.set(`${assetType}:${record.id}`, record.fields.artist);
        }
      }
    }
    return artists;
  }
}

/** The most rows a report by day or month has: ten years of either is a series no chart or sheet needs more of. */
const MOST_PERIODS = { day: 3660, month: 1200 } as const;

/** Every day (YYYY-MM-DD) or month (YYYY-MM) from the day `from` to the day `to`, both included; at most `limit`. */
export function periodsOf(from: string, to: string, by: 'day' | 'month', limit = Infinity): string[] {
  const periods: string[] = [];
  if (by === 'day') {
    for (let time = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); time <= end && periods.length < limit; time += 24 * 3600 * 1000) {
      periods.push(new Date(time).toISOString().slice(0, 10));
    }
    return periods;
  }
  let [year, month] = from.split('-').map(Number) as [number, number];
  const last = to.slice(0, 7);
  for (let period = from.slice(0, 7); period <= last && periods.length < limit; period = `${year}-${String(month).padStart(2, '0')}`) {
    periods.push(period);
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return periods;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}


/**
 * The entries of a batch, as stored: its shape is the route's schema (UsageBatchBody); what the
 * schema cannot say, a usage date in one of its written forms and not in the future, is read
 * here. 400 InvalidRequest names the first entry at fault.
 */
function checkedEntries(body: UsageBatch, now: Date): Array<Omit<NewUsage, 'assetType'>> {
  return body.asset_usages.map((entry, n) => {
    const parsed = parseUsageDate(entry.usage_date, now);
    if (!parsed.ok) throw invalidRequest(`asset_usages[${n}].usage_date ${parsed.problem}`);
    return { assetId: entry.asset_id.trim(), quantity: entry.quantity, usageDate: parsed.date.day };
  });
}
