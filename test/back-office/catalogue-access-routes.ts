import type { Services } from '../../src/app.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';
import type { AccessRoute, RouteContext } from './back-office-routes.js';

/*
 * The catalogue's pages and forms for the access matrix, a line each. The assets they act on are
 * made the first time a row asks, once per app: a draft to edit and publish, a published asset
 * to withdraw, a withdrawn one to bring back, and drafts for the bulk form. A move asked again
 * of an asset already moved is no refusal, so the editor's row and the admin's both succeed.
 */

const made = new WeakMap<Services, Promise<void>>();

async function makeAssets(services: Services): Promise<void> {
  const picture = await makeJpeg(64, 48);
  const creative = { asset_family: 'creative', license_model: 'royaltyfree', product_types: ['creditpack'] };
  const add = (id: string, publication: 'draft' | 'published') =>
    services.ingest.applyRecord({ asset_type: 'image', id, file: `${id}.jpg`, title: `Matrix ${id}`, ...creative }, picture, { publication });
  await add('matrix-draft', 'draft');
  await add('matrix-bulk', 'draft');
  await add('matrix-published', 'published');
  await add('matrix-withdrawn', 'published');
  await services.catalogEditing.withdraw(['matrix-withdrawn']);
}

/** The path, once the assets exist. */
const at = (path: string) => async ({ services }: RouteContext) => {
  if (!made.has(services)) made.set(services, makeAssets(services));
  await made.get(services);
  return path;
};

const page = (pattern: string, path = pattern): AccessRoute => ({ method: 'GET', pattern, role: 'editor', path: at(path) });
const form = (pattern: string, path: string, fields: Record<string, string> = {}): AccessRoute => ({ method: 'POST', pattern, role: 'editor', path: at(path), form: () => fields });

export const CATALOGUE_ROUTES: readonly AccessRoute[] = [
  page('/admin/catalogue', '/admin/catalogue?q=matrix&type=image'),
  page('/admin/catalogue/published'),
  page('/admin/catalogue/withdrawn', '/admin/catalogue/withdrawn?page=1'),
  form('/admin/catalogue/bulk', '/admin/catalogue/bulk', { 'select.matrix-bulk': 'on', action: 'edit', add_keywords: 'matrix' }),
  page('/admin/catalogue/assets/:id', '/admin/catalogue/assets/matrix-draft'),
  page('/admin/catalogue/assets/:id/picture/:file', '/admin/catalogue/assets/matrix-draft/picture/thumb.jpg'),
  form('/admin/catalogue/assets/:id', '/admin/catalogue/assets/matrix-draft', { title: 'Matrix draft, retitled', caption: 'Made by the matrix' }),
  // The matrix posts plain forms: a file form without a file changes nothing (its file is tested in catalogue-pages.test.ts).
  form('/admin/catalogue/assets/:id/file', '/admin/catalogue/assets/matrix-draft/file'),
  form('/admin/catalogue/assets/:id/publish', '/admin/catalogue/assets/matrix-draft/publish'),
  form('/admin/catalogue/assets/:id/withdraw', '/admin/catalogue/assets/matrix-published/withdraw'),
  form('/admin/catalogue/assets/:id/restore', '/admin/catalogue/assets/matrix-withdrawn/restore'),
];
