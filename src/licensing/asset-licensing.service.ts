import type { AssetRecord, AssetType } from '../catalog/catalog.records.js';
import type { AssetLicensingRepository, CreditSource } from './asset-licensing.repository.js';
import type { CustomerGrant } from './customer-access.js';
import { PaymentRefusedError } from './downloads.repository.js';
import {
  invalidRequestParameters,
  notEnoughCreditsForPurchase,
  orderNotesConflict,
  partnerCreditsRequired,
  standardLicenseNotFound,
  teamCreditsNotAvailable,
} from './licensing.errors.js';
import { OrderNotesConflictError, type OrderNotes } from './orders.repository.js';
import { choiceOrder, paysWithCredits } from './entitlements.js';
import { EXTENDED_LICENSE_CREDITS, EXTENDED_LICENSE_TYPES, type ExtendedLicenseType } from './licensing-policy.js';
import type { ProductsService } from './products.service.js';

export interface AcquireRequest {
  grant: CustomerGrant;
  assetId: string;
  /** multiseat, unlimited, resale, indemnification, in any letter case */
  extendedLicenses: readonly string[];
  useTeamCredits: boolean;
  /** What the order of this purchase says. */
  order?: OrderNotes | undefined;
}

export interface AcquireResult {
  credits_used: number;
  acquired_licenses: ExtendedLicenseType[];
}

export interface AssetLicensingDeps {
  repository: AssetLicensingRepository;
  products: ProductsService;
  catalog: { findAssets(assetType: AssetType, ids: readonly string[]): Promise<{ found: AssetRecord[] }> };
  now?: () => Date;
}

function isExtendedLicense(value: string): value is ExtendedLicenseType {
  return (EXTENDED_LICENSE_TYPES as readonly string[]).includes(value);
}

/**
 * POST /asset-licensing/{assetId}: extended licenses (multiseat, unlimited, resale,
 * indemnification) bought with credits, for partner-credit users, on assets they have downloaded.
 */
export class AssetLicensingService {
  private readonly now: () => Date;

  constructor(private readonly deps: AssetLicensingDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Acquires the licenses not held yet and pays for them from one source: the team's pool with
   * use_team_credits, else the first credit product (in the choice order) that can pay the whole.
   * A license already held is listed again and costs nothing.
   */
  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    const { repository, products } = this.deps;
    const customer = await products.customerOf(request.grant);
    if (!customer.partnerCredit) {
      throw partnerCreditsRequired();
    }
    const wanted = normalizeLicenses(request.extendedLicenses);
    if (!(await repository.hasDownloaded(customer.id, request.assetId))) {
      throw standardLicenseNotFound(request.assetId);
    }
    if (request.useTeamCredits && customer.team === null) {
      throw teamCreditsNotAvailable('use_team_credits needs a user who belongs to a team');
    }

    const held = await repository.held(customer.id, request.assetId);
    const prices = await this.prices(request.assetId);
    const toBuy = wanted.filter((type) => !held.has(type)).map((type) => ({ type, credits: prices[type] }));
    const total = toBuy.reduce((sum, license) => sum + license.credits, 0);
    if (toBuy.length === 0) return { credits_used: 0, acquired_licenses: wanted };

    const now = this.now();
    let source: CreditSource;
    if (request.useTeamCredits) {
      source = { team: customer.team! };
    } else {
      const creditProducts = (await products.heldProducts(customer.id, now)).filter((product) => paysWithCredits(product.type));
      const payer = choiceOrder(creditProducts, new Set()).find((product) => (product.creditsRemaining ?? 0) >= total);
      if (!payer) throw notEnoughCreditsForPurchase(total, 'none of your credit products has that many left');
      source = { productId: payer.id };
    }
    try {
      const spent = await repository.acquire(customer.id, request.assetId, toBuy, source, now.toISOString(), request.order);
      return { credits_used: spent, acquired_licenses: wanted };
    } catch (error) {
      if (error instanceof OrderNotesConflictError) throw orderNotesConflict(error);
      if (error instanceof PaymentRefusedError) {
        throw notEnoughCreditsForPurchase(total, source.team === undefined ? `product ${source.productId} has fewer left` : `team ${source.team} has fewer left`);
      }
      throw error;
    }
  }

  /** Each extended license's credits: the asset's partner_licenses say, else the policy table. */
  private async prices(assetId: string): Promise<Record<ExtendedLicenseType, number>> {
    const prices = { ...EXTENDED_LICENSE_CREDITS };
    for (const assetType of ['image', 'video'] as const) {
      const record = (await this.deps.catalog.findAssets(assetType, [assetId])).found[0];
      if (!record) continue;
      const listed = Array.isArray(record.fields.partner_licenses) ? (record.fields.partner_licenses as Array<Record<string, unknown>>) : [];
      for (const license of listed) {
        const type = typeof license.license_type === 'string' ? license.license_type.toLowerCase() : '';
        if (isExtendedLicense(type) && typeof license.credits === 'number' && Number.isSafeInteger(license.credits) && license.credits >= 0) {
          prices[type] = license.credits;
        }
      }
      break;
    }
    return prices;
  }
}

/** The requested licenses in lower case, each once; 400 InvalidRequestParameters for none or an unknown one. */
function normalizeLicenses(values: readonly string[]): ExtendedLicenseType[] {
  const wanted: ExtendedLicenseType[] = [];
  for (const value of values) {
    const type = value.trim().toLowerCase();
    if (!isExtendedLicense(type)) {
      throw invalidRequestParameters(`'${value}' is not an extended license: use ${EXTENDED_LICENSE_TYPES.join(', ')}`);
    }
    if (!wanted.includes(type)) wanted.push(type);
  }
  if (wanted.length === 0) throw invalidRequestParameters(`extended_licenses must name at least one of ${EXTENDED_LICENSE_TYPES.join(', ')}`);
  return wanted;
}
