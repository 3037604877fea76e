import type { FastifyRequest } from 'fastify';

/** The licensing module's part in search: the product types a customer's results are limited to. */
export interface LicensingLimits {
  licensingProductTypes(userId: number): Promise<string[]>;
}

/**
 * The token rule (see licensingFilter in search-query.ts) for one request: the product types
 * its customer may license with, or none (no limit) without a token or without a customer.
 * An invalid or expired token is refused (401) here.
 */
export async function licensingTypesOf(request: FastifyRequest, limits: LicensingLimits): Promise<string[]> {
  const grant = await request.optionalBearer();
  return grant?.userId != null ? limits.licensingProductTypes(grant.userId) : [];
}
