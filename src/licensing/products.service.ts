import { invalidParameter } from '../platform/http/errors.js';
import { productNotFound, userNotFound } from './licensing.errors.js';
import { utcDateTime } from '../platform/http/date-time.js';
import { customerIdOf, userTokenRequired, type CustomerGrant } from './customer-access.js';
import {
  addPeriods,
  downloadsRemaining,
  isHeld,
  overageRemaining,
  paysWithCredits,
  periodState,
  type Entitlement,
} from './entitlements.js';
import { DOWNLOAD_LIMIT_DURATIONS, RESOLUTIONS, type DownloadLimitDuration } from './licensing-policy.js';
import type { ProductRow, ProductsRepository } from './products.repository.js';
import { ASSET_PRODUCT_TYPES, PRODUCT_TYPE_NAMES, PRODUCT_TYPES, type ProductType } from '../catalog/product-types.js';

export { PRODUCT_TYPES, type ProductType } from '../catalog/product-types.js';

/** The held types that license catalogue assets: what search limits a customer's results to. */
export const LICENSING_PRODUCT_TYPES: readonly ProductType[] = ASSET_PRODUCT_TYPES;

/** A product a customer holds, with everything that decides what it may still license. */
export interface Product extends Entitlement {
  userId: number;
  name: string;
  agreementName: string | null;
  applicationWebsite: string | null;
  noteRequired: boolean;
  projectCodeRequired: boolean;
  /** the project codes a download may name; empty: any */
  projectCodes: string[];
  /** AI generation products: units of the allowance an edit of a catalogue asset draws (1 unless the grant said otherwise) */
  assetEditCost: number;
}

export interface GrantInput {
  userId: number;
  type: string;
  /** default: the type's own name, e.g. "Premium Access" */
  name?: string | undefined;
  /** a Date or an ISO 8601 date or date-time; absent: it does not expire */
  expiresAt?: Date | string | null | undefined;
  /** credits of a credit product (creditpack); with `team`, they go to the user's team */
  credits?: number | undefined;
  /** the team's credits, not the user's own: the user must belong to a team */
  team?: boolean | undefined;
  /** downloads allowed, per `period` or in all */
  downloads?: number | undefined;
  /** AI generation products (aigen): generation requests allowed, per `period` or in all */
  generations?: number | undefined;
  /**
   * AI generation products (aigen): units of the generation allowance an edit of a catalogue
   * asset (reference_asset_id, and background generation) draws; default 1, 0 makes them free
   */
  assetEditCost?: number | undefined;
  period?: string | undefined;
  /** downloads allowed beyond the limit in a period */
  overage?: number | undefined;
  agreementName?: string | undefined;
  /** the largest size a download may have: x-small, small, medium, large, x-large */
  imagepackResolution?: string | undefined;
  applicationWebsite?: string | undefined;
  noteRequired?: boolean | undefined;
  projectCodeRequired?: boolean | undefined;
  projectCodes?: readonly string[] | undefined;
}

/**
 * The users, kept by the OAuth module and reached through its service (wired in app.ts):
 * licensing reads who a customer is, never the users table itself.
 */
export interface CustomerDirectory {
  findById(id: number): Promise<DirectoryUser | undefined>;
  findByUsername(username: string): Promise<DirectoryUser | undefined>;
}

/** What licensing reads of a user in the directory. */
export interface DirectoryUser {
  id: number;
  username: string;
  first_name: string | null;
  last_name: string | null;
  team: string | null;
  partnerCredit: boolean;
}

/** A user behind a token, as licensing needs one. */
export interface Customer {
  id: number;
  username: string;
  firstName: string | null;
  lastName: string | null;
  team: string | null;
  partnerCredit: boolean;
}

/** One line of a user's ledger. */
export interface LedgerEntryRecord {
  id: number;
  at: string;
  productId: number | null;
  /** set when the entry moved the team's pool */
  team: string | null;
  /** credit | download | overage | generation */
  unit: string;
  /** grant | download | extended_license | … */
  reason: string;
  /** positive for a grant, negative for a debit */
  amount: number;
  downloadId: number | null;
  extendedLicenseId: number | null;
  generationRequestId: string | null;
}

/** GET /products: one product in the spec's names (the contract's Product). */
export interface ProductRecord {
  id: number;
  name: string;
  type: ProductType;
  status: 'active' | 'inactive';
  credits_remaining: number | null;
  team_credits: number | null;
  download_limit: number | null;
  download_limit_duration: string | null;
  downloads_remaining: number | null;
  download_limit_reset_utc_date: string | null;
  expiration_utc_date: string | null;
  agreement_name: string | null;
  imagepack_resolution: string | null;
  application_website: string | null;
  overage: { limit: number | null; remaining: number | null; count: number | null; overages_reached: boolean | null };
  download_requirements?: { is_note_required: boolean; is_project_code_required: boolean; project_codes: string[] };
  ai_gen_requirements?: { is_note_required: boolean; is_project_code_required: boolean; project_codes: string[]; asset_edit_cost: number };
}

function isProductType(type: string): type is ProductType {
  return (PRODUCT_TYPES as readonly string[]).includes(type);
}

function wholeNumber(name: string, value: number | undefined): number | null {
  if (value === undefined) return null;
  if (!Number.isSafeInteger(value) || value < 0) throw invalidParameter(name, `'${value}' is not a whole number of at least 0`);
  return value;
}

/**
 * The products a customer holds: what they may license with, their credits, download limits and
 * requirements, and the team credits they may spend.
 */
export class ProductsService {
  constructor(
    private readonly repository: ProductsRepository,
    private readonly customers: CustomerDirectory,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Gives a user a product, active from now. Credits go to the product (or, with `team`, to the
   * user's team) and are written to the ledger with it. 400 for an unknown type, date, size or a
   * setting the type does not take; 404 for an unknown user.
   */
  async grant(input: GrantInput): Promise<Product> {
    const type = input.type.trim().toLowerCase();
    if (!isProductType(type)) throw invalidParameter('type', `'${input.type}' is not one of ${PRODUCT_TYPES.join(', ')}`);
    const name = input.name?.trim() || PRODUCT_TYPE_NAMES[type];
    const credits = wholeNumber('credits', input.credits);
    const generations = wholeNumber('generations', input.generations);
    if (generations !== null && type !== 'aigen') throw invalidParameter('generations', `a ${type} product makes no generations (AI generation products: aigen)`);
    if (generations !== null && input.downloads !== undefined) throw invalidParameter('generations', 'give generations or downloads, not both');
    const assetEditCost = wholeNumber('asset_edit_cost', input.assetEditCost);
    if (assetEditCost !== null && type !== 'aigen') throw invalidParameter('asset_edit_cost', `a ${type} product makes no generations (AI generation products: aigen)`);
    // An AI product's allowance is its generation requests, counted as other products count downloads.
    const downloads = generations ?? wholeNumber('downloads', input.downloads);
    const overage = wholeNumber('overage', input.overage);
    const takesCredits = paysWithCredits(type);
    if (credits !== null && !takesCredits) throw invalidParameter('credits', `a ${type} product takes no credits (credit products: creditpack)`);
    if (input.team && !takesCredits) throw invalidParameter('team', `team credits belong to credit products (creditpack), not ${type}`);
    const period = input.period?.trim().toLowerCase();
    if (period !== undefined && !(DOWNLOAD_LIMIT_DURATIONS as readonly string[]).includes(period)) {
      throw invalidParameter('period', `'${input.period}' is not one of ${DOWNLOAD_LIMIT_DURATIONS.join(', ')}`);
    }
    if (period !== undefined && downloads === null) throw invalidParameter('period', 'a period needs a download limit (downloads)');
    if (overage !== null && downloads === null) throw invalidParameter('overage', 'overage needs a download limit (downloads)');
    const resolution = input.imagepackResolution?.trim().toLowerCase();
    if (resolution !== undefined && !RESOLUTIONS.includes(resolution)) {
      throw invalidParameter('imagepack_resolution', `'${input.imagepackResolution}' is not one of ${RESOLUTIONS.join(', ')}`);
    }

    let team: string | null = null;
    if (input.team) {
      const customer = await this.customers.findById(input.userId);
      if (!customer) throw userNotFound(input.userId);
      if (!customer.team) throw invalidParameter('team', `user ${customer.username} belongs to no team`);
      team = customer.team;
    }

    const createdAt = this.now();
    const row = await this.repository.insert(
      {
        user_id: input.userId,
        type,
        name,
        status: 'active',
        expires_at: input.expiresAt == null ? null : isoInstant(input.expiresAt),
        created_at: createdAt.toISOString(),
        credits_remaining: takesCredits ? (team === null ? (credits ?? 0) : 0) : null,
        download_limit: downloads,
        download_limit_duration: period ?? null,
        download_period_ends_at: period === undefined ? null : addPeriods(createdAt, period as DownloadLimitDuration, 1).toISOString(),
        overage_limit: overage,
        agreement_name: input.agreementName?.trim() || null,
        imagepack_resolution: resolution ?? null,
        application_website: input.applicationWebsite?.trim() || null,
        note_required: input.noteRequired ? 1 : 0,
        project_code_required: input.projectCodeRequired ? 1 : 0,
        project_codes: JSON.stringify((input.projectCodes ?? []).map((code) => code.trim()).filter((code) => code !== '')),
        ...(assetEditCost === null ? {} : { asset_edit_cost: assetEditCost }),
      },
      team === null ? undefined : { team, credits: credits ?? 0 },
    );
    if (!row) throw userNotFound(input.userId);
    return toProduct(row);
  }

  /** A product that stops counting (and starts again with 'active'); 404 when there is no such product. */
  async setStatus(productId: number, status: 'active' | 'inactive'): Promise<void> {
    if (!(await this.repository.setStatus(productId, status))) throw productNotFound(`Product not found: ${productId}`);
  }

  /**
   * Takes a product back: it stops counting for searches and downloads at once (its status
   * becomes inactive), while the product, its downloads and its ledger stay as history. With
   * `userId`, the product must be that user's. 404 ProductNotFound when there is no such product
   * (of the user). Revoking a product again changes nothing.
   */
  async revoke(productId: number, options: { userId?: number } = {}): Promise<Product> {
    const row = Number.isSafeInteger(productId) ? await this.repository.findById(productId) : undefined;
    if (!row || (options.userId !== undefined && row.user_id !== options.userId)) {
      throw productNotFound(`Product not found: ${productId}${options.userId === undefined ? '' : ` (of user ${options.userId})`}`);
    }
    if (row.status !== 'inactive') await this.repository.setStatus(row.id, 'inactive');
    return { ...toProduct(row), status: 'inactive' };
  }

  /** Every product of a user, whatever its state. */
  async productsOf(userId: number): Promise<Product[]> {
    return (await this.repository.listForUser(userId)).map(toProduct);
  }

  /** The products of a user that are active and not expired at `now`, oldest first. */
  async heldProducts(userId: number, now: Date = this.now()): Promise<Product[]> {
    return (await this.productsOf(userId)).filter((product) => isHeld(product, now));
  }

  /** The types of the user's products that are active and not expired at `now`, each once, sorted. */
  heldProductTypes(userId: number, now: Date = this.now()): Promise<string[]> {
    return this.repository.activeTypes(userId, now.toISOString());
  }

  /**
   * The held types that license catalogue assets (LICENSING_PRODUCT_TYPES): what search limits
   * a customer's results to. Empty when the user holds none of them.
   */
  async licensingProductTypes(userId: number, now: Date = this.now()): Promise<string[]> {
    const held = await this.heldProductTypes(userId, now);
    return held.filter((type) => (LICENSING_PRODUCT_TYPES as readonly string[]).includes(type));
  }

  /**
   * A user's ledger, newest first: every grant of credits and every debit (credits, downloads,
   * overage, generations) with its reason, product and download.
   */
  async ledgerOf(userId: number, page: { offset: number; limit: number }): Promise<{ entries: LedgerEntryRecord[]; total: number }> {
    const { rows, total } = await this.repository.ledgerOf(userId, page.offset, page.limit);
    return {
      total,
      entries: rows.map((row) => ({
        id: row.id,
        at: row.created_at,
        productId: row.product_id,
        team: row.team,
        unit: row.unit,
        reason: row.reason,
        amount: row.amount,
        downloadId: row.download_id,
        extendedLicenseId: row.extended_license_id,
        generationRequestId: row.generation_request_id,
      })),
    };
  }

  /** The credits the team shares; 0 for a team without any. */
  teamCredits(team: string): Promise<number> {
    return this.repository.teamCredits(team);
  }

  async findCustomer(userId: number): Promise<Customer | undefined> {
    const user = await this.customers.findById(userId);
    return user ? toCustomer(user) : undefined;
  }

  /** A user named by username, or by id when no username is that number. */
  async findCustomerByName(user: string): Promise<Customer | undefined> {
    const found = (await this.customers.findByUsername(user)) ?? (/^\d+$/.test(user) ? await this.customers.findById(Number(user)) : undefined);
    return found ? toCustomer(found) : undefined;
  }

  /** The customer a token speaks for; 403 UserTokenRequired for a token of no (or no longer any) user. */
  async customerOf(grant: CustomerGrant): Promise<Customer> {
    const customer = await this.findCustomer(customerIdOf(grant));
    if (!customer) throw userTokenRequired();
    return customer;
  }

  /** GET /customers/current: the name of the user behind the token. */
  async currentCustomer(grant: CustomerGrant): Promise<{ first_name: string | null; middle_name: null; last_name: string | null }> {
    const customer = await this.customerOf(grant);
    return { first_name: customer.firstName, middle_name: null, last_name: customer.lastName };
  }

  /** GET /products for the user behind the token. */
  async productsForToken(grant: CustomerGrant, options: { downloadRequirements?: boolean } = {}): Promise<ProductRecord[]> {
    return this.productRecords(await this.customerOf(grant), options);
  }

  /**
   * GET /products: every product of the user in the spec's names, as of now — a download period
   * that has ended shows its limit whole again. team_credits is the pool of the user's team, on
   * the products that spend credits.
   */
  async productRecords(customer: Customer, options: { downloadRequirements?: boolean } = {}): Promise<ProductRecord[]> {
    const now = this.now();
    const products = await this.productsOf(customer.id);
    const teamCredits = customer.team !== null && products.some((p) => paysWithCredits(p.type)) ? await this.teamCredits(customer.team) : null;
    return products.map((product) => {
      const period = periodState(product, now);
      const overageLeft = overageRemaining(product, now);
      const record: ProductRecord = {
        id: product.id,
        name: product.name,
        type: product.type,
        status: isHeld(product, now) ? 'active' : 'inactive',
        credits_remaining: product.creditsRemaining,
        team_credits: paysWithCredits(product.type) ? teamCredits : null,
        download_limit: product.downloadLimit,
        download_limit_duration: product.downloadLimitDuration,
        downloads_remaining: downloadsRemaining(product, now),
        download_limit_reset_utc_date: utcDateTime(period.resetsAt),
        expiration_utc_date: utcDateTime(product.expiresAt),
        agreement_name: product.agreementName,
        imagepack_resolution: product.imagepackResolution,
        application_website: product.applicationWebsite,
        overage:
          product.overageLimit === null
            ? { limit: null, remaining: null, count: null, overages_reached: null }
            : { limit: product.overageLimit, remaining: overageLeft, count: period.overageCount, overages_reached: overageLeft === 0 },
      };
      if (options.downloadRequirements) {
        record.download_requirements = {
          is_note_required: product.noteRequired,
          is_project_code_required: product.projectCodeRequired,
          project_codes: product.projectCodes,
        };
      }
      // An AI product's notes and project codes rule its generation requests (the contract's ai_gen_requirements).
      if (product.type === 'aigen') {
        record.ai_gen_requirements = {
          is_note_required: product.noteRequired,
          is_project_code_required: product.projectCodeRequired,
          project_codes: product.projectCodes,
          asset_edit_cost: product.assetEditCost,
        };
      }
      return record;
    });
  }
}

/** The same instant, written the one way the store compares: toISOString(). */
function isoInstant(value: Date | string): string {
  const time = value instanceof Date ? value.getTime() : Date.parse(value);
  if (Number.isNaN(time)) throw invalidParameter('expires_at', `'${String(value)}' is not an ISO 8601 date-time`);
  return new Date(time).toISOString();
}

function parseCodes(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((code): code is string => typeof code === 'string') : [];
  } catch {
    return [];
  }
}

function toProduct(row: ProductRow): Product {
  return {
    id: row.id,
    userId: row.user_id,
    type: row.type as ProductType,
    name: row.name,
    status: row.status === 'inactive' ? 'inactive' : 'active',
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    creditsRemaining: row.credits_remaining,
    downloadLimit: row.download_limit,
    downloadLimitDuration: row.download_limit_duration as DownloadLimitDuration | null,
    downloadsUsed: row.downloads_used,
    downloadPeriodEndsAt: row.download_period_ends_at,
    overageLimit: row.overage_limit,
    overageCount: row.overage_count,
    agreementName: row.agreement_name,
    imagepackResolution: row.imagepack_resolution,
    applicationWebsite: row.application_website,
    noteRequired: row.note_required === 1,
    projectCodeRequired: row.project_code_required === 1,
    projectCodes: parseCodes(row.project_codes),
    assetEditCost: row.asset_edit_cost,
  };
}

function toCustomer(user: DirectoryUser): Customer {
  return {
    id: user.id,
    username: user.username,
    firstName: user.first_name,
    lastName: user.last_name,
    team: user.team,
    partnerCredit: user.partnerCredit,
  };
}
