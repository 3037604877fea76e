import fs from 'node:fs';
import path from 'node:path';
import { randomSecret } from '../platform/crypto/secrets.js';
import type { Services } from '../app.js';

/** What `npm start` prints so that a newcomer can call the API at once. */
export interface DemoAccess {
  api_key: string;
  api_secret: string;
  username: string;
  password: string;
}

const FILE_NAME = 'demo-access.json';

/**
 * The store keeps only hashes, so the demo's plain credentials are written once to a file
 * in the data folder (readable by its owner only) and printed from there at every start.
 */
export function readDemoAccess(dataDir: string): DemoAccess | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, FILE_NAME), 'utf8')) as DemoAccess;
  } catch {
    return undefined;
  }
}

export async function ensureDemoAccess(services: Services): Promise<DemoAccess> {
  const dataDir = services.config.dataDir;
  const existing = readDemoAccess(dataDir);
  if (existing && (await services.clients.authenticate(existing.api_key))) return existing;
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
  await services.products.grant({ userId: user.id, type: 'premiumaccess', downloads: 100, period: 'month' });
  await services.products.grant({ userId: user.id, type: 'creditpack', credits: 100 });
  const access: DemoAccess = { api_key: apiKey, api_secret: apiSecret, username, password };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, FILE_NAME), `${JSON.stringify(access, null, 2)}\n`, { mode: 0o600 });
  return access;
}
