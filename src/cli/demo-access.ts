import fs from 'node:fs';
import path from 'node:path';
import { randomSecret } from '../platform/crypto/secrets.js';
import type { Services } from '../app.js';

/** The demo's credentials, so that a newcomer can call the API at once. */
export interface DemoAccess {
  api_key: string;
  api_secret: string;
  username: string;
  password: string;
  /** The demo's administrator of the back office (/admin); absent in a file written before there was one. */
  admin_username?: string;
  admin_password?: string;
}

export interface DemoAccessState {
  access: DemoAccess;
  /** Made just now: the secret and the password may be shown this once. */
  created: boolean;
  /** The administrator was made just now (on the first start, or the first after an upgrade): the password may be shown this once. */
  adminCreated: boolean;
  /** Where they are kept, readable by its owner only. */
  file: string;
}

const FILE_NAME = 'demo-access.json';

export function demoAccessFile(dataDir: string): string {
  return path.join(dataDir, FILE_NAME);
}

/**
 * The store keeps only hashes, so the demo's plain credentials are written once to a file
 * in the data folder, readable by its owner only: logs get the secret and the password on
 * the first start at most, and later starts point to the file.
 */
export function readDemoAccess(dataDir: string): DemoAccess | undefined {
  try {
    return JSON.parse(fs.readFileSync(demoAccessFile(dataDir), 'utf8')) as DemoAccess;
  } catch {
    return undefined;
  }
}

export async function ensureDemoAccess(services: Services): Promise<DemoAccessState> {
  const dataDir = services.config.dataDir;
  const file = demoAccessFile(dataDir);
  const existing = readDemoAccess(dataDir);
  if (existing && (await services.clients.authenticate(existing.api_key))) {
    // A file written by an earlier version, or opened up since, is closed again.
    fs.chmodSync(file, 0o600);
    const user = await services.users.findByUsername(existing.username);
    if (user) await grantGenerationsOnce(services, user.id);
    if (existing.admin_username !== undefined) return { access: existing, created: false, adminCreated: false, file };
    // A demo made before the back office: its administrator now, shown this once.
    const access = { ...existing, ...(await createDemoAdmin(services)) };
    writeOwnerOnly(file, `${JSON.stringify(access, null, 2)}\n`);
    return { access, created: false, adminCreated: true, file };
  }
  // The demo is for trying the API: its application may use every grant, password included.
  const { apiKey, apiSecret } = await services.clients.create({
    name: 'Demo application',
    grantTypes: ['authorization_code', 'implicit', 'password', 'client_credentials', 'refresh_token'],
  });
  let username = 'demo';
  for (let n = 2; await services.users.findByUsername(username); n++) username = `demo${n}`;
  const password = randomSecret(12);
  const user = await services.users.create({ username, password, first_name: 'Demo', last_name: 'User', email: `${username}@example.com` });
  // Products to license with, so that downloads can be tried at once: between them they license every demo collection.
  // Each with the agreement it licenses under, which download links and the download history name.
  await services.products.grant({ userId: user.id, type: 'premiumaccess', downloads: 100, period: 'month', agreementName: 'Demo premium access agreement' });
  await services.products.grant({ userId: user.id, type: 'creditpack', credits: 100, agreementName: 'Demo credit pack agreement' });
  await grantGenerationsOnce(services, user.id);
  const access: DemoAccess = { api_key: apiKey, api_secret: apiSecret, username, password, ...(await createDemoAdmin(services)) };
  writeOwnerOnly(file, `${JSON.stringify(access, null, 2)}\n`);
  return { access, created: true, adminCreated: true, file };
}

/** The demo's administrator, so that the back office can be tried at once (as the demo user lets the API be). */
async function createDemoAdmin(services: Services): Promise<{ admin_username: string; admin_password: string }> {
  let username = 'demo-admin';
  for (let n = 2; await services.users.findByUsername(username); n++) username = `demo-admin${n}`;
  const password = randomSecret(12);
  await services.users.create({ username, password, first_name: 'Demo', last_name: 'Administrator', role: 'admin' });
  return { admin_username: username, admin_password: password };
}

/**
 * An AI generation product, so that the built-in engine's edits of demo pictures can be tried
 * at once; a demo user made before there was one gets it on the next start, and one whose AI
 * product an operator revoked does not get another.
 */
async function grantGenerationsOnce(services: Services, userId: number): Promise<void> {
  const products = await services.products.productsOf(userId);
  if (products.some((product) => product.type === 'aigen')) return;
  await services.products.grant({ userId, type: 'aigen', generations: 100, period: 'month' });
}

/** Writes a file that only its owner may read, whole or not at all (a stale one of the name is replaced). */
function writeOwnerOnly(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(partial, text, { mode: 0o600 });
  // The mode given to writeFileSync applies only to a file it creates.
  fs.chmodSync(partial, 0o600);
  fs.renameSync(partial, file);
}
