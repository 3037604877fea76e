import type { Kysely } from 'kysely';
import type { Services } from '../../src/app.js';
import { createHash } from 'node:crypto';
import type { AssetInput, AssetRecord, AssetType, OriginalFile } from '../../src/catalog/catalog.records.js';
import type { DeliverySpec, DownloadCatalog } from '../../src/licensing/downloads.service.js';
import { downloadSizesFor } from '../../src/media/image-probe.js';
import type { Tables } from '../../src/platform/db/tables.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';

/** The download sizes ingest derives for a 4000×3000 original: x-small 594 … x-large 4000 wide. */
export const IMAGE_SIZES = downloadSizesFor({ width: 4000, height: 3000, dpi: 300, bytes: 3_000_000, media_type: 'image/jpeg' });

export const VIDEO_SIZES = [
  { name: 'hd_web', width: 1280, height: 720, bytes: 9_000_000, format: 'mov', content_type: 'video/quicktime' },
  { name: '1080p', width: 1920, height: 1080, bytes: 40_000_000, format: 'mov', content_type: 'video/quicktime' },
  { name: '4k', width: 3840, height: 2160, bytes: 160_000_000, format: 'mov', content_type: 'video/quicktime' },
];

/** A creative royalty-free image every licensing type but the editorial subscription may license. */
export function creativeImageFields(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'A creative image',
    asset_family: 'creative',
    license_model: 'royaltyfree',
    product_types: ['premiumaccess', 'easyaccess', 'royaltyfreesubscription', 'imagepack', 'creditpack'],
    partner_collection: 'essentials',
    partner_licenses: [
      { license_type: 'Standard', credits: 1 },
      { license_type: 'Multiseat', credits: 2 },
      { license_type: 'Unlimited', credits: 4 },
    ],
    max_dimensions: { width: 4000, height: 3000 },
    download_sizes: IMAGE_SIZES,
    ...overrides,
  };
}

/** An editorial rights-managed image: premium access and the editorial subscription license it. */
export function editorialImageFields(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return creativeImageFields({
    asset_family: 'editorial',
    license_model: 'rightsmanaged',
    product_types: ['editorialsubscription', 'premiumaccess'],
    partner_collection: undefined,
    partner_licenses: undefined,
    ...overrides,
  });
}

export function creativeVideoFields(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return creativeImageFields({ title: 'A creative video', partner_licenses: [{ license_type: 'Standard', credits: 6 }], download_sizes: VIDEO_SIZES, ...overrides });
}

/** A record as the catalogue returns it; its file is only named (the rules never read it). */
export function assetRecord(
  assetType: AssetType,
  id: string,
  fields: Record<string, unknown>,
  options: { withFile?: boolean } = {},
): AssetRecord {
  const original = options.withFile === false ? null : { key: `originals/${assetType}-${id}.jpg`, media_type: 'image/jpeg' };
  return { id, asset_type: assetType, fields, width: null, height: null, original, visual_signature: null };
}

/** The catalogue's part of a download, from records in memory. */
export function memoryCatalog(records: readonly AssetRecord[]): DownloadCatalog & { add(record: AssetRecord): void } {
  const byKey = new Map(records.map((record) => [`${record.asset_type}:${record.id}`, record]));
  return {
    add(record) {
      byKey.set(`${record.asset_type}:${record.id}`, record);
    },
    async findAssets(assetType, ids) {
      const found: AssetRecord[] = [];
      const notFound: string[] = [];
      for (const id of ids) {
        const record = byKey.get(`${assetType}:${id}`);
        if (record) found.push(record);
        else notFound.push(id);
      }
      return { found, notFound };
    },
    async countDownload(assetType, id) {
      const record = byKey.get(`${assetType}:${id}`);
      if (record) record.downloads = (record.downloads ?? 0) + 1;
    },
    async thumbUris(assetType, ids) {
      return new Map(ids.filter((id) => byKey.has(`${assetType}:${id}`)).map((id) => [id, `https://display.test/${id}/thumb.jpg`]));
    },
    // Records in memory are all published: none was withdrawn.
    async wasWithdrawn() {
      return false;
    },
  };
}

/** A stand-in for the media module's signed delivery URL: the same spec always gives the same URL. */
export function fakeDeliveryUri(spec: DeliverySpec): string {
  const size = spec.assetType === 'image' ? `${spec.width}x${spec.height}` : spec.sizeName;
  return `https://delivery.test/${spec.downloadId}/${spec.assetId}/${size}${spec.fileType ? `.${spec.fileType}` : ''}`;
}

/**
 * Stores catalogue assets with their download_sizes as given and one small stored file for their
 * originals: downloads here sign fake delivery URLs, so the file's pixels are never read.
 * `withFile: false` stores the records alone, the way a manifest without files does.
 */
export async function addAssets(
  services: Services,
  assetType: AssetType,
  ids: readonly string[],
  fields: Record<string, unknown>,
  options: { withFile?: boolean } = {},
): Promise<void> {
  let original: OriginalFile | undefined;
  if (options.withFile !== false) {
    const file = await makeJpeg(8, 6);
    original = { key: `originals/${createHash('sha256').update(file).digest('hex')}.jpg`, media_type: 'image/jpeg', width: 8, height: 6, dpi: 72, bytes: file.length };
    await services.blobs.put(original.key, file);
  }
  for (const id of ids) {
    const input: AssetInput = { asset_type: assetType, id, fields, original };
    await services.catalog.upsertAsset(input);
  }
}

let userCount = 0;

/** A user straight in the store (no password hashing), with a team and partner credit when asked. */
export async function insertUser(
  db: Kysely<Tables>,
  options: { team?: string | null; partnerCredit?: boolean; firstName?: string; lastName?: string } = {},
): Promise<number> {
  userCount += 1;
  const now = new Date().toISOString();
  const row = await db
    .insertInto('users')
    .values({
      username: `customer${userCount}-${Math.random().toString(36).slice(2, 8)}`,
      password_hash: 'not-a-real-hash',
      first_name: options.firstName ?? 'Casey',
      last_name: options.lastName ?? 'Customer',
      email: null,
      team: options.team ?? null,
      partner_credit: options.partnerCredit ? 1 : 0,
      password_changed_at: now,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** What the ledger says: the balance of a product's own credits, of a team's pool, and its debits. */
export async function ledgerOf(db: Kysely<Tables>, where: { productId?: number; team?: string }) {
  let query = db.selectFrom('download_ledger').selectAll().where('unit', '=', 'credit');
  query = where.team !== undefined ? query.where('team', '=', where.team) : query.where('product_id', '=', where.productId!).where('team', 'is', null);
  const rows = await query.orderBy('id').execute();
  return {
    rows,
    balance: rows.reduce((sum, row) => sum + row.amount, 0),
    debits: rows.filter((row) => row.amount < 0),
  };
}
