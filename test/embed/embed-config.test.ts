import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { siteRoutes } from '../../src/embed/site-url.js';
import { parseManifestLine } from '../../src/catalog/ingest/ingest.schemas.js';

const PUBLIC = 'https://media.example.com';
const load = (env: Record<string, string>) => loadConfig({ STOCKROOM_PUBLIC_URL: PUBLIC, ...env }, '/');

describe('STOCKROOM_EMBED_URL and STOCKROOM_SHORT_URL', () => {
  it('default to paths of the public URL', () => {
    const config = load({});
    expect([config.embedUrl, config.shortUrl]).toEqual([`${PUBLIC}/embed`, `${PUBLIC}/s`]);
  });

  it('take hosts of their own, trailing slashes stripped', () => {
    const config = load({ STOCKROOM_EMBED_URL: 'https://embed.example.com/', STOCKROOM_SHORT_URL: 'https://sho.rt' });
    expect([config.embedUrl, config.shortUrl]).toEqual(['https://embed.example.com', 'https://sho.rt']);
  });

  it('refuse a short URL that is the public URL: every one-segment path would be a short link', () => {
    expect(() => load({ STOCKROOM_SHORT_URL: `${PUBLIC}/` })).toThrow(new ConfigError('STOCKROOM_SHORT_URL must differ from the public URL: give it a path (such as /s) or another host'));
  });

  it('refuse two of the auth, embed and short URLs that are the same', () => {
    expect(() => load({ STOCKROOM_EMBED_URL: `${PUBLIC}/auth` })).toThrow(/STOCKROOM_EMBED_URL must differ from STOCKROOM_AUTH_URL/);
    expect(() => load({ STOCKROOM_EMBED_URL: 'https://e.example.com', STOCKROOM_SHORT_URL: 'https://e.example.com/' })).toThrow(
      /STOCKROOM_SHORT_URL must differ from STOCKROOM_EMBED_URL/,
    );
  });

  it('refuse a path that is not plain segments, a query, or another scheme', () => {
    expect(() => load({ STOCKROOM_EMBED_URL: `${PUBLIC}/a%20b` })).toThrow(/STOCKROOM_EMBED_URL's path must be plain segments/);
    expect(() => load({ STOCKROOM_SHORT_URL: `${PUBLIC}/s?x=1` })).toThrow(/STOCKROOM_SHORT_URL must be a base URL without a query/);
    expect(() => load({ STOCKROOM_SHORT_URL: 'ftp://sho.rt' })).toThrow(/STOCKROOM_SHORT_URL must use http: or https:/);
  });
});

describe('where a site URL is served', () => {
  it('at its path on the API host, for any host', () => {
    expect(siteRoutes(`${PUBLIC}/embed`, PUBLIC)).toEqual({ prefix: '/embed', host: undefined });
  });

  it('below the public URL path, as a proxy passes {public URL}/… on as /…', () => {
    expect(siteRoutes(`${PUBLIC}/api/embed`, `${PUBLIC}/api`)).toEqual({ prefix: '/embed', host: undefined });
    expect(siteRoutes(`${PUBLIC}/other`, `${PUBLIC}/api`)).toEqual({ prefix: '/other', host: undefined });
  });

  it('on a host of its own, for that host only (a port is part of the host)', () => {
    expect(siteRoutes('https://sho.rt', PUBLIC)).toEqual({ prefix: '', host: 'sho.rt' });
    expect(siteRoutes('https://EMBED.example.com:8443/e', PUBLIC)).toEqual({ prefix: '/e', host: 'embed.example.com:8443' });
  });
});

describe('the ingest field embeddable', () => {
  it('takes true or false on images and videos; null or absent is no value (embeddable)', () => {
    for (const assetType of ['image', 'video']) {
      expect(parseManifestLine({ asset_type: assetType, id: 'a', embeddable: false })).toMatchObject({ ok: true, record: { embeddable: false } });
      expect(parseManifestLine({ asset_type: assetType, id: 'a', embeddable: true })).toMatchObject({ ok: true, record: { embeddable: true } });
      const withNull = parseManifestLine({ asset_type: assetType, id: 'a', embeddable: null });
      expect(withNull.ok && 'embeddable' in withNull.record).toBe(false);
    }
  });

  it('refuses anything else, and names a misspelling', () => {
    expect(parseManifestLine({ asset_type: 'image', id: 'a', embeddable: 'yes' })).toEqual({ ok: false, reason: 'embeddable must be true or false (got "yes")' });
    expect(parseManifestLine({ asset_type: 'image', id: 'a', embedable: true })).toEqual({ ok: false, reason: "unknown field 'embedable' (did you mean 'embeddable'?)" });
  });
});
