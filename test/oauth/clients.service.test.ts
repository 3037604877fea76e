import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { InvalidClientMetadata } from '../../src/oauth/oauth.errors.js';

describe('registering API clients', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('gives a confidential client (the default) a secret that verifies', async () => {
    const { client, apiKey, apiSecret } = await t.services.clients.create({ name: 'Web app' });
    expect(client).toMatchObject({ confidential: true, sandbox: false, redirectUris: [] });
    expect(apiSecret).toEqual(expect.any(String));
    expect(await t.services.clients.verifySecret(apiKey, apiSecret)).toMatchObject({ id: client.id });
  });

  it('gives a public client no secret, and no secret ever verifies for it', async () => {
    const { client, apiKey, apiSecret } = await t.services.clients.create({ name: 'Mobile app', confidential: false });
    expect(apiSecret).toBeUndefined();
    expect(client.confidential).toBe(false);
    expect(await t.services.clients.verifySecret(apiKey, '')).toBeUndefined();
    expect(await t.services.clients.verifySecret(apiKey, 'anything')).toBeUndefined();
    // Its key still works as an Api-Key.
    expect(await t.services.clients.authenticate(apiKey)).toMatchObject({ id: client.id });
  });

  it('gives each kind of client its default grants', async () => {
    const confidential = await t.services.clients.create({ name: 'c' });
    const publicClient = await t.services.clients.create({ name: 'p', confidential: false });
    const sandbox = await t.services.clients.create({ name: 's', sandbox: true });
    expect(confidential.client.grantTypes).toEqual(['authorization_code', 'implicit', 'refresh_token', 'client_credentials']);
    expect(publicClient.client.grantTypes).toEqual(['authorization_code', 'implicit', 'refresh_token']);
    expect(sandbox.client.grantTypes).toEqual(['client_credentials']);
  });

  it('grants password only when asked, and only to a confidential client', async () => {
    const partner = await t.services.clients.create({ name: 'Partner', grantTypes: ['password', 'client_credentials'] });
    expect(partner.client.grantTypes).toEqual(['password', 'refresh_token', 'client_credentials']);
    await expect(t.services.clients.create({ name: 'x', confidential: false, grantTypes: ['password'] })).rejects.toThrow(
      /public client .* cannot use the password grant/,
    );
  });

  it('never lets a public client use client credentials', async () => {
    await expect(t.services.clients.create({ name: 'x', confidential: false, grantTypes: ['client_credentials'] })).rejects.toThrow(
      InvalidClientMetadata,
    );
  });

  it('lets a sandbox client use client credentials only, and never be public', async () => {
    await expect(t.services.clients.create({ name: 'x', sandbox: true, grantTypes: ['client_credentials', 'implicit'] })).rejects.toThrow(
      /sandbox client can use only the client_credentials grant, not implicit/,
    );
    await expect(t.services.clients.create({ name: 'x', sandbox: true, confidential: false })).rejects.toThrow(/sandbox/);
  });

  it('takes a list of grants as complete, adding only the refresh grant that codes and passwords imply', async () => {
    const codeOnly = await t.services.clients.create({ name: 'Code only', grantTypes: ['authorization_code'] });
    expect(codeOnly.client.grantTypes).toEqual(['authorization_code', 'refresh_token']);
    const implicitOnly = await t.services.clients.create({ name: 'Implicit only', confidential: false, grantTypes: ['implicit'] });
    expect(implicitOnly.client.grantTypes).toEqual(['implicit']);
  });

  it('refuses an unknown grant or an empty list of grants', async () => {
    await expect(t.services.clients.create({ name: 'x', grantTypes: ['magic' as never] })).rejects.toThrow(/unknown grant magic/);
    await expect(t.services.clients.create({ name: 'x', grantTypes: [] })).rejects.toThrow(/at least one grant/);
  });

  it('stores redirect URIs checked against the redirect URI rules', async () => {
    const { client } = await t.services.clients.create({
      name: 'Web',
      redirectUris: ['https://app.example.com/callback', 'https://app.example.com/callback', 'http://localhost:3000/cb'],
    });
    expect(client.redirectUris).toEqual(['https://app.example.com/callback', 'http://localhost:3000/cb']);
    for (const bad of ['http://app.example.com/callback', 'https://app.example.com/cb#x', '/relative', 'https://u@app.example.com/']) {
      await expect(t.services.clients.create({ name: 'x', redirectUris: [bad] }), bad).rejects.toThrow(InvalidClientMetadata);
    }
  });

  it('finds an enabled client by its key without the cache, so that a disabled one is refused at once', async () => {
    const { apiKey, client } = await t.services.clients.create({ name: 'Soon disabled' });
    expect(await t.services.clients.find(apiKey)).toMatchObject({ id: client.id });
    await t.services.clients.disable(apiKey);
    expect(await t.services.clients.find(apiKey)).toBeUndefined();
    expect(await t.services.clients.verifySecret(apiKey, 'x')).toBeUndefined();
    await t.services.clients.enable(apiKey);
    expect(await t.services.clients.find(apiKey)).toMatchObject({ id: client.id });
  });
  it('lists every client with its kind, state, grants and limits, but no key or secret', async () => {
    const { apiKey, apiSecret, client } = await t.services.clients.create({ name: 'Listed', sandbox: true, queriesPerSecond: 3, queriesPerDay: 300 });
    await t.services.clients.disable(apiKey);
    const listed = (await t.services.clients.list()).find((entry) => entry.id === client.id);
    expect(listed).toMatchObject({
      name: 'Listed',
      kind: 'sandbox',
      disabled: true,
      grantTypes: ['client_credentials'],
      queriesPerSecond: 3,
      queriesPerDay: 300,
      keyHint: apiKey.slice(-4),
    });
    expect(JSON.stringify(listed)).not.toContain(apiKey);
    expect(JSON.stringify(listed)).not.toContain(apiSecret);
    const ids = (await t.services.clients.list()).map((entry) => entry.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('disables and enables a client by its id as well as by its key', async () => {
    const { apiKey, client } = await t.services.clients.create({ name: 'By id' });
    expect(await t.services.clients.authenticate(apiKey)).toMatchObject({ id: client.id });
    expect(await t.services.clients.disable(String(client.id))).toBe(true);
    // The key looked up a moment ago is not trusted from the cache once its client is disabled.
    expect(await t.services.clients.authenticate(apiKey)).toBeUndefined();
    expect(await t.services.clients.enable(String(client.id))).toBe(true);
    expect(await t.services.clients.authenticate(apiKey)).toMatchObject({ id: client.id });
    expect(await t.services.clients.disable('987654')).toBe(false);
    expect(await t.services.clients.enable('no-such-key')).toBe(false);
  });
});
