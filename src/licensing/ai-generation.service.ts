import { invalidParameter } from '../platform/http/errors.js';
import { aiGenerationProductRequired, invalidProduct, notesRequired, productQuotaExceeded, projectCodeRequired } from './licensing.errors.js';
import type { Customer, Product, ProductsService } from './products.service.js';
import { utcDateTime } from '../platform/http/date-time.js';
import { periodState } from './entitlements.js';
import type { AiGenerationRepository, GeneratedDownloadRow } from './ai-generation.repository.js';

export interface AiProductChoice {
  /** product_id of the request, when it named one */
  productId?: number | undefined;
  notes?: string | null | undefined;
  projectCode?: string | null | undefined;
}

/**
 * What licensing decides for generative images: which AI generation product (aigen) a request
 * uses and whether it carries what the product requires, its allowance (charged once per
 * request, given back when the job fails), and whether a customer licensed a catalogue asset
 * that an edit starts from.
 */
export class AiGenerationLicensing {
  constructor(
    private readonly repository: AiGenerationRepository,
    private readonly products: ProductsService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The held aigen product a request uses: the one it names, or the only one held. 403
   * AiGenerationProductRequired without any; 400 InvalidProduct for a product_id that is not a
   * held AI product, or none when several are held; then the product's note and project-code rules.
   */
  async chooseProduct(customer: Customer, choice: AiProductChoice): Promise<Product> {
    const held = (await this.products.heldProducts(customer.id, this.now())).filter((product) => product.type === 'aigen');
    let product: Product | undefined;
    if (choice.productId !== undefined) {
      product = held.find((candidate) => candidate.id === choice.productId);
      if (!product) {
        throw invalidProduct(`Product ${choice.productId} is not an active AI generation product of this user${held.length ? ` (theirs: ${held.map((p) => p.id).join(', ')})` : ''}`);
      }
    } else {
      if (held.length === 0) throw aiGenerationProductRequired();
      if (held.length > 1) {
        throw invalidProduct(`product_id is required: this user holds several AI generation products (${held.map((p) => p.id).join(', ')})`);
      }
      product = held[0]!;
    }
    const notes = choice.notes?.trim();
    const code = choice.projectCode?.trim();
    if (product.noteRequired && !notes) throw notesRequired(product.id);
    if (product.projectCodeRequired && !code) throw projectCodeRequired(product.id);
    if (!product.projectCodeRequired && code && product.projectCodes.length === 0) {
      throw invalidParameter('project_code', `product ${product.id} takes no project_code; leave it out`);
    }
    if (code && product.projectCodes.length > 0 && !product.projectCodes.includes(code)) {
      throw invalidParameter('project_code', `'${code}' is not one of the project codes of product ${product.id}: ${product.projectCodes.join(', ')}`);
    }
    return product;
  }

  /**
   * Uses the product's allowance for the request (once, whoever asks again): one generation, or
   * for an edit of a catalogue asset (`assetEdit`) the product's asset_edit_cost, all of it or
   * none. 403 ProductQuotaExceeded when not that many are left.
   */
  async charge(product: Product, requestId: string, options: { assetEdit?: boolean } = {}): Promise<'charged' | 'free'> {
    const now = this.now();
    const units = options.assetEdit ? product.assetEditCost : 1;
    const counted = await this.repository.charge(product.id, product.userId, requestId, units, now);
    if (counted === undefined) {
      const resetsAt = periodState(product, now).resetsAt;
      const until = resetsAt === null ? '' : ` until ${utcDateTime(resetsAt)}`;
      throw productQuotaExceeded(
        units === 1
          ? `Product ${product.id} has no generations left${until}`
          : `Product ${product.id} has fewer than the ${units} generations an edit of a catalogue asset uses left${until}`,
      );
    }
    return counted === 'free' ? 'free' : 'charged';
  }

  /** Gives back a failed request's charge, once. */
  refund(requestId: string): Promise<void> {
    return this.repository.refund(requestId, this.now());
  }

  /** The customer has licensed (downloaded) the catalogue asset under some product. */
  hasLicensed(userId: number, assetId: string): Promise<boolean> {
    return this.repository.hasLicensed(userId, assetId);
  }

  /**
   * Downloading the result of an edit of a catalogue asset needs a conventional product with
   * download access to the original and a prior download of it: a download that licensed the
   * original under a product (not an AI one) that the user still holds.
   */
  async mayDownloadEditOf(userId: number, assetId: string): Promise<boolean> {
    const licensedUnder = new Set(await this.repository.licensingProductIds(userId, assetId));
    if (licensedUnder.size === 0) return false;
    const held = await this.products.heldProducts(userId, this.now());
    return held.some((product) => product.type !== 'aigen' && licensedUnder.has(product.id));
  }

  /** Puts a download of a generated image in the download history; the URI is made from its id. */
  recordGeneratedDownload(row: GeneratedDownloadRow, deliveryUri: (downloadId: number) => string): Promise<{ id: number; deliveryUri: string }> {
    return this.repository.recordGeneratedDownload(row, deliveryUri, this.now());
  }

  /** The user's latest download of a generated image (GET …/download answers about it). */
  latestGeneratedDownload(userId: number, generatedAssetId: string): Promise<{ id: number; size_name: string | null } | undefined> {
    return this.repository.latestGeneratedDownload(userId, generatedAssetId);
  }
}
