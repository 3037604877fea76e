import { invalidParameter, notFound } from '../platform/http/errors.js';
import type { ProductRow, ProductsRepository } from './products.repository.js';
import { ASSET_PRODUCT_TYPES, PRODUCT_TYPES, type ProductType } from './product-types.js';

export { PRODUCT_TYPES, type ProductType } from './product-types.js';


/** The held types that license catalogue assets: what search limits a customer's results to. */
export const LICENSING_PRODUCT_TYPES: readonly ProductType[] = ASSET_PRODUCT_TYPES;

const DEFAULT_NAMES: Readonly<Record<ProductType, string>> = {
  premiumaccess: 'Premium Access',
  easyaccess: 'Easy Access',
  editorialsubscription: 'Editorial Subscription',
  imagepack: 'Image Pack',
  royaltyfreesubscription: 'Royalty-Free Subscription',
  creditpack: 'Credit Pack',
  sandbox: 'Sandbox',
  aigen: 'AI Generation',
};

export interface Product {
  id: number;
  userId: number;
  type: ProductType;
  name: string;
  status: 'active' | 'inactive';
  /** ISO 8601 (UTC); null: it does not expire */
  expiresAt: string | null;
  createdAt: string;
}

export interface GrantInput {
  userId: number;
  type: string;
  /** default: the type's own name, e.g. "Premium Access" */
  name?: string;
  /** a Date or an ISO 8601 date-time; absent: it does not expire */
  expiresAt?: Date | string | null;
}

function isProductType(type: string): type is ProductType {
  return (PRODUCT_TYPES as readonly string[]).includes(type);
}

/**
 * The products a customer holds: what they may license with. Credits, download limits and
 * downloads belong here as well once licensing comes; this is the part search needs.
 */
export class ProductsService {
  constructor(
    private readonly repository: ProductsRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Gives a user a product, active from now. 400 for an unknown type or date, 404 for an unknown user. */
  async grant(input: GrantInput): Promise<Product> {
    const type = input.type.trim().toLowerCase();
    if (!isProductType(type)) throw invalidParameter('type', `'${input.type}' is not one of ${PRODUCT_TYPES.join(', ')}`);
    const name = input.name?.trim() || DEFAULT_NAMES[type];
    const row = await this.repository.insert({
      user_id: input.userId,
      type,
      name,
      status: 'active',
      expires_at: input.expiresAt == null ? null : isoInstant(input.expiresAt),
      created_at: this.now().toISOString(),
    });
    if (!row) throw notFound('UserNotFound', `User not found: ${input.userId}`);
    return toProduct(row);
  }

  /** A product that stops counting (and starts again with 'active'); 404 when there is no such product. */
  async setStatus(productId: number, status: 'active' | 'inactive'): Promise<void> {
    if (!(await this.repository.setStatus(productId, status))) throw notFound('ProductNotFound', `Product not found: ${productId}`);
  }

  /** Every product of a user, whatever its state. */
  async productsOf(userId: number): Promise<Product[]> {
    return (await this.repository.listForUser(userId)).map(toProduct);
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
}

/** The same instant, written the one way the store compares: toISOString(). */
function isoInstant(value: Date | string): string {
  const time = value instanceof Date ? value.getTime() : Date.parse(value);
  if (Number.isNaN(time)) throw invalidParameter('expires_at', `'${String(value)}' is not an ISO 8601 date-time`);
  return new Date(time).toISOString();
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
  };
}
