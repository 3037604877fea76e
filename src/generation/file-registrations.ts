import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import type { BlobStore } from '../platform/blobs/blob-store.js';
import { ApiError, badRequest, invalidParameter, notFound } from '../platform/http/errors.js';
import { applyWatermark } from '../media/watermark.js';
import type { AiGenerationLicensing } from '../licensing/ai-generation.service.js';
import type { CustomerGrant } from '../licensing/customer-access.js';
import type { ProductsService } from '../licensing/products.service.js';
import type { GenerationRepository } from './generation.repository.js';
import { PREVIEW_LONG_SIDE } from './generation-jobs.js';

export const REGISTRATION_CATEGORIES = ['ImageReference', 'CustomerProduct'] as const;
export type RegistrationCategory = (typeof REGISTRATION_CATEGORIES)[number];

const ID_PATTERN = /^fr_[0-9a-f]{32}$/;

export interface RegistrationBody {
  url?: string | null | undefined;
  rights_claimed?: boolean | null | undefined;
  category?: RegistrationCategory | null | undefined;
}

export interface FileRegistrationsDeps {
  repository: GenerationRepository;
  blobs: BlobStore;
  products: ProductsService;
  licensing: AiGenerationLicensing;
  uploads: { fileOf(clientId: number, fileUrl: string, parameter: string): Promise<{ bytes: Buffer; mediaType: string }> };
  signPath: (path: string) => string;
  now: () => Date;
}

/**
 * Files a customer registers as references (POST /beta/ai/file-registrations): an upload of the
 * same API key, which the customer says they own or licensed, kept as a picture of theirs for
 * the influence operations (ImageReference) and background generation (CustomerProduct).
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
    const { bytes } = await this.deps.uploads.fileOf(clientId, url, 'url');
    let image: Buffer;
    let preview: { data: Buffer; info: sharp.OutputInfo };
    try {
      image = await sharp(bytes).autoOrient().png().toBuffer();
      const meta = await sharp(image).metadata();
      const scale = Math.min(1, PREVIEW_LONG_SIDE / Math.max(meta.width, meta.height));
      const width = Math.max(1, Math.round(meta.width * scale));
      const height = Math.max(1, Math.round(meta.height * scale));
      preview = await applyWatermark(sharp(image).resize(width, height, { fit: 'fill' }).flatten({ background: '#ffffff' }), width, height)
        .jpeg({ quality: 82 })
        .toBuffer({ resolveWithObject: true });
    } catch {
      throw invalidParameter('url', 'the uploaded file does not decode as an image');
    }
    const id = `fr_${randomBytes(16).toString('hex')}`;
    const imageKey = `generation/registrations/${id}.png`;
    const previewKey = `generation/registrations/${id}-preview.jpg`;
    await this.deps.blobs.put(imageKey, image);
    await this.deps.blobs.put(previewKey, preview.data);
    await this.deps.repository.insertRegistration({
      id,
      user_id: customer.id,
      category,
      image_key: imageKey,
      preview_key: previewKey,
      preview_width: preview.info.width,
      preview_height: preview.info.height,
      created_at: this.deps.now().toISOString(),
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

  /** The picture of a registration of the user's, which must be of `category`. */
  async imageOf(userId: number, id: string, category: RegistrationCategory): Promise<Buffer> {
    const row = await this.own(userId, id);
    if (row.category !== category) throw badRequest('InvalidReference', `File registration ${id} is of category ${row.category}; this operation takes ${category}`);
    const data = await this.deps.blobs.get(row.image_key);
    if (!data) throw notFound('FileRegistrationIdNotFound', `The file of registration ${id} is no longer kept`);
    return data;
  }

  /** The blob key of a registration's preview (the signed preview route). */
  async previewKey(id: string): Promise<string | undefined> {
    return ID_PATTERN.test(id) ? (await this.deps.repository.findRegistration(id))?.preview_key : undefined;
  }

  private async own(userId: number, id: string) {
    const row = ID_PATTERN.test(id) ? await this.deps.repository.findRegistration(id) : undefined;
    if (!row) throw notFound('FileRegistrationIdNotFound', `File registration not found: ${id}`);
    if (row.user_id !== userId) throw new ApiError(403, 'NotAuthorized', `File registration ${id} belongs to another user`);
    return row;
  }
}
