import type { LightMyRequestResponse } from 'fastify';
import type { Services } from '../../src/app.js';
import type { TestApp } from '../helpers/test-app.js';

export interface Notice {
  asset_changed_utc_datetime: string;
  asset_lifecycle: 'New' | 'Update' | 'Delete';
  asset_type: string | null;
  id: string;
  uri: string | null;
}

export interface ChangeSet {
  change_set_id: string;
  changed_assets: Notice[];
}

/** Adds or changes an asset in the catalogue (no file: the feed is about the change log). */
export async function putAsset(
  services: Services,
  id: string,
  options: { type?: 'image' | 'video'; family?: 'creative' | 'editorial'; title?: string } = {},
): Promise<void> {
  await services.catalog.upsertAsset({
    asset_type: options.type ?? 'image',
    id,
    fields: { asset_family: options.family ?? 'creative', title: options.title ?? `Title of ${id}`, license_model: 'royaltyfree' },
  });
}

/** A partner client of its own with a token, as a second consumer or a stranger. */
export async function partnerClient(t: TestApp, name = 'Partner'): Promise<{ apiKey: string; clientId: number; token: string }> {
  const { apiKey, client } = await t.services.clients.create({ name, queriesPerSecond: 100_000, queriesPerDay: 10_000_000 });
  const { token } = await t.services.tokens.issue({ clientId: client.id, userId: null, grantType: 'client_credentials', lifetimeSeconds: 3600 });
  return { apiKey, clientId: client.id, token };
}

export interface Caller {
  apiKey: string;
  token: string;
}

export function feed(t: TestApp, caller: Caller) {
  const headers = { 'api-key': caller.apiKey, authorization: `Bearer ${caller.token}` };
  return {
    channels: () => t.app.inject({ method: 'GET', url: '/v3/asset-changes/channels', headers }),
    handOut: (query: string) => t.app.inject({ method: 'PUT', url: `/v3/asset-changes/change-sets?${query}`, headers }),
    confirm: (id: string) => t.app.inject({ method: 'DELETE', url: `/v3/asset-changes/change-sets/${id}`, headers }),
    register: (body: unknown) => t.app.inject({ method: 'POST', url: '/v3/asset-registrations', headers, payload: body as object }),
  };
}

/** The set in a hand-out's answer; undefined for the empty answer of a channel with nothing to hand out. */
export function setOf(response: LightMyRequestResponse): ChangeSet | undefined {
  if (response.statusCode !== 200 && response.statusCode !== 201) throw new Error(`hand-out answered ${response.statusCode}: ${response.body}`);
  return response.body === '' ? undefined : (response.json() as ChangeSet);
}
