import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import type { DecodeSlots } from '../platform/decode-slots.js';
import type { FileQuota } from '../config/config.js';
import { invalidParameter } from '../platform/http/errors.js';
import { fileRegistrationNotFound, invalidReference, notAuthorized, registrationQuotaExceeded } from './generation.errors.js';
import { applyWatermark } from '../media/watermark.js';
import type { AiGenerationLicensing } from '../licensing/ai-generation.service.js';
import type { CustomerGrant } from '../licensing/customer-access.js';
import type { ProductsService } from '../licensing/products.service.js';
import type { GenerationRepository, RegistrationRow } from './generation.repository.js';
import { PREVIEW_LONG_SIDE } from './generation-jobs.js';

export const REGISTRATION_CATEGORIES = ['ImageReference', 'CustomerProduct'] as const;
export type RegistrationCategory = (typeof REGISTRATION_CATEGORIES)[number];

const ID_PATTERN = /^fr_[0-9a-f]{32}$/;
const DAY_MS = 86_400_000;
/** The file kept of a registration: the upload's own bytes, under the extension of its type. */
const EXTENSION_OF: Readonly<Record<string, string>> = { 'image/jpeg': 'jpg', 'image/png': 'png' };

export interface RegistrationBody {
  url?: string | null | undefined;
  rights_claimed?: boolean | null | undefined;
  category?: RegistrationCategory | null | undefined;
}

/** Uploads (search's), read by their owner: the user whose token came with the upload, or the API key alone. */
export interface OwnedUploads {
  fileOf(owner: { clientId: number; userId: number | null }, fileUrl: string, parameter: string): Promise<{ bytes: Buffer; mediaType: string }>;
}

export interface FileRegistrationsDeps {
  repository: GenerationRepository;
  blobs: BlobStore;
  products: ProductsService;
  licensing: AiGenerationLicensing;
  uploads: OwnedUploads;
  signPath: (path: string) => string;
  /** How many registrations (and bytes) an API key may keep, all its users together, and a user, through any key. */
  quotas: { perKey: FileQuota; perUser: FileQuota };
  /** How long a registration is kept; then it is deleted with its files. */
  retentionDays: number;
  /** The platform's bound on pictures decoded at once. */
  decodes: DecodeSlots;
  now: () => Date;
}

/**
 * Files a customer registers as references (POST /beta/ai/file-registrations): an upload of the
 * customer's own (sent with their token), which they say they own or licensed, kept as a picture
 * of theirs for the influence operations (ImageReference) and background generation
 * (CustomerProduct). What is kept is the upload's own bytes (at most 10 MB: never a decoded copy)
 * and a watermarked preview, for the retention, within the quotas of the key and the user.
 */
export class FileRegistrations {
  constructor(private readonly deps: FileRegistrationsDeps) {}

  async register(grant: CustomerGrant, clientId: number, body: RegistrationBody): Promise<{ id: string }> {
    const customer = await this.deps.products.customerOf(grant);
    const url = body.url?.trim();
    if (!url) throw invalidParameter('url', 'the URL of an uploaded file is required (PUT /v3/search/by-image/uploads/{file-name})');
    if (body.rights_claimed !== true) throw invalidParameter('rights_claimed', 'must be true: you own the file or licensed it');
    const category = body.category ?? 'ImageReference';
    await this.deps.licensing.chooseProduct(customer, {});
    const { bytes, mediaType } = await this.deps.uploads.fileOf({ clientId, userId: customer.id }, url, 'url');
    // Refused before decoding when already over a quota; checked again, exactly, under the locks.
    await this.checkQuotas(this.deps.repository, clientId, customer.id, bytes.length);
    const preview = await this.deps.decodes.run(() => watermarkedPreview(bytes));

    await this.purgeExpired();
    const id = `fr_${randomBytes(16).toString('hex')}`;
    const imageKey = `generation/registrations/${id}.${EXTENSION_OF[mediaType] ?? 'img'}`;
    const previewKey = `generation/registrations/${id}-preview.jpg`;
    const byteSize = bytes.length + preview.data.length;
    await this.deps.repository.withRegistrationLocks(clientId, customer.id, async (repository) => {
      await this.checkQuotas(repository, clientId, customer.id, byteSize);
      await this.deps.blobs.put(imageKey, bytes);
      await this.deps.blobs.put(previewKey, preview.data);
      await repository.insertRegistration({
        id,
        user_id: customer.id,
        client_id: clientId,
        category,
        image_key: imageKey,
        preview_key: previewKey,
        preview_width: preview.width,
        preview_height: preview.height,
        byte_size: byteSize,
        created_at: this.deps.now().toISOString(),
      });
    });
    return { id };
  }

  async describe(grant: CustomerGrant, id: string) {
    const customer = await this.deps.products.customerOf(grant);
    const row = await this.own(customer.id, id);
    return {
      id: row.id,
      preview_urls: [
        { preview_size: `${PREVIEW_LONG_SIDE}px`, image_url: this.deps.signPath(`/generated/registrations/${row.id}.jpg`), width: row.preview_width, height: row.preview_height },
      ],
    };
  }

  /** The picture of a registration of the user's, which must be of `category`: the upload's bytes as they came. */
  async imageOf(userId: number, id: string, category: RegistrationCategory): Promise<Buffer> {
    const row = await this.own(userId, id);
    if (row.category !== category) throw invalidReference(`File registration ${id} is of category ${row.category}; this operation takes ${category}`);
    const data = await this.deps.blobs.get(row.image_key);
    if (!data) throw fileRegistrationNotFound(`The file of registration ${id} is no longer kept`);
    return data;
  }

  /** The blob key of a registration's preview (the signed preview route); none once it is past the retention. */
  async previewKey(id: string): Promise<string | undefined> {
    const row = ID_PATTERN.test(id) ? await this.deps.repository.findRegistration(id) : undefined;
    return row && !this.expired(row) ? row.preview_key : undefined;
  }

  /** Deletes the registrations past the retention, and their files. */
  async purgeExpired(): Promise<void> {
    const keys = await this.deps.repository.deleteRegistrationsBefore(this.cutoff());
    for (const key of keys) await this.deps.blobs.delete(key);
  }

  /** Registrations made at or before this instant are past the retention. */
  private cutoff(): string {
    return new Date(this.deps.now().getTime() - this.deps.retentionDays * DAY_MS).toISOString();
  }

  private expired(row: RegistrationRow): boolean {
    return row.created_at <= this.cutoff();
  }

  /** 429 RegistrationQuotaExceeded when `bytes` more would take the key or the user past a quota. */
  private async checkQuotas(repository: GenerationRepository, clientId: number, userId: number, bytes: number): Promise<void> {
    const since = this.cutoff();
    const check = (usage: { files: number; bytes: number }, quota: FileQuota, whose: string) => {
      const over = usage.files + 1 > quota.files ? `${quota.files} registrations` : usage.bytes + bytes > quota.bytes ? `${Math.round((quota.bytes / (1024 * 1024)) * 10) / 10} MB` : undefined;
      if (over === undefined) return;
      throw registrationQuotaExceeded(whose, over, this.deps.retentionDays);
    };
    check(await repository.registrationUsage({ clientId }, since), this.deps.quotas.perKey, 'This API key');
    check(await repository.registrationUsage({ userId }, since), this.deps.quotas.perUser, 'You');
  }

  /** A registration of the user's, within the retention (another user's is 403; an unknown or expired one 404). */
  private async own(userId: number, id: string): Promise<RegistrationRow> {
    const row = ID_PATTERN.test(id) ? await this.deps.repository.findRegistration(id) : undefined;
    if (!row) throw fileRegistrationNotFound(`File registration not found: ${id}`);
    if (row.user_id !== userId) throw notAuthorized(`File registration ${id} belongs to another user`);
    if (this.expired(row)) throw fileRegistrationNotFound(`File registration ${id} was kept ${this.deps.retentionDays} days and is gone; register the file again`);
    return row;
  }
}

/**
 * The watermarked preview (at most PREVIEW_LONG_SIDE on its long side) of an uploaded picture,
 * made from the upload's bytes directly: a JPEG is shrunk while it is decoded, so a large
 * photograph never exists at full size in memory.
 */
async function watermarkedPreview(bytes: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  try {
    const meta = await sharp(bytes).metadata();
    // Orientations 5 to 8 turn the picture a quarter: its upright width is the stored height.
    const turned = (meta.orientation ?? 1) >= 5;
    const uprightWidth = turned ? meta.height : meta.width;
    const uprightHeight = turned ? meta.width : meta.height;
    const scale = Math.min(1, PREVIEW_LONG_SIDE / Math.max(uprightWidth, uprightHeight));
    const width = Math.max(1, Math.round(uprightWidth * scale));
    const height = Math.max(1, Math.round(uprightHeight * scale));
    const { data, info } = await applyWatermark(sharp(bytes).autoOrient().resize(width, height, { fit: 'fill' }).flatten({ background: '#ffffff' }), width, height)
      .jpeg({ quality: 82 })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch {
    throw invalidParameter('url', 'the uploaded file does not decode as an image');
  }
}
