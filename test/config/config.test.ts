import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  it('has a default for every setting', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: '/srv/app/data',
      databaseUrl: undefined,
      redisUrl: undefined,
      publicUrl: 'http://127.0.0.1:3000',
      throttle: { perSecond: 50, perDay: 100_000 },
      seedDemoOnEmptyStore: true,
      searchSnapshot: true,
      searchSnapshotPublishMinutes: 0,
      recordCacheSize: 10_000,
      heapGrowthPercent: 30,
    });
  });

  it('publishes the shared search snapshot every 30 minutes in a cluster (DATABASE_URL), never on SQLite, unless told', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/stockroom' }, '/srv/app').searchSnapshotPublishMinutes).toBe(30);
    expect(loadConfig({}, '/srv/app').searchSnapshotPublishMinutes).toBe(0);
    expect(loadConfig({ STOCKROOM_SEARCH_SNAPSHOT_PUBLISH_MINUTES: '5' }, '/srv/app').searchSnapshotPublishMinutes).toBe(5);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/stockroom', STOCKROOM_SEARCH_SNAPSHOT_PUBLISH_MINUTES: '0' }, '/srv/app').searchSnapshotPublishMinutes).toBe(0);
  });

  it('reads every documented variable', () => {
    const config = loadConfig(
      {
        PORT: '8080',
        HOST: '0.0.0.0',
        STOCKROOM_DATA_DIR: '/var/lib/stockroom',
        DATABASE_URL: 'postgres://db/stockroom',
        REDIS_URL: 'redis://cache:6379',
        STOCKROOM_PUBLIC_URL: 'https://media.example.com/',
        STOCKROOM_THROTTLE_PER_SECOND: '5',
        STOCKROOM_THROTTLE_PER_DAY: '5000',
        STOCKROOM_SEARCH_SNAPSHOT: 'false',
        STOCKROOM_SEARCH_SNAPSHOT_PUBLISH_MINUTES: '15',
        STOCKROOM_RECORD_CACHE: '0',
        STOCKROOM_HEAP_GROWTH_PERCENT: '0',
      },
      '/srv/app',
    );
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/var/lib/stockroom',
      databaseUrl: 'postgres://db/stockroom',
      redisUrl: 'redis://cache:6379',
      publicUrl: 'https://media.example.com',
      throttle: { perSecond: 5, perDay: 5000 },
      searchSnapshot: false,
      searchSnapshotPublishMinutes: 15,
      recordCacheSize: 0,
      heapGrowthPercent: 0,
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://cache'],
    ['STOCKROOM_PUBLIC_URL', 'ftp://x'],
    ['STOCKROOM_SEARCH_SNAPSHOT', 'sometimes'],
    ['STOCKROOM_SEARCH_SNAPSHOT_PUBLISH_MINUTES', '-1'],
    ['STOCKROOM_RECORD_CACHE', '-1'],
    ['STOCKROOM_HEAP_GROWTH_PERCENT', '1000'],
    ['STOCKROOM_THROTTLE_PER_SECOND', '0'],
    ['STOCKROOM_SEED_DEMO', 'maybe'],
    ['STOCKROOM_LOG_LEVEL', 'loud'],
    ['HOST', 'bad..host'],
    ['HOST', 'with space'],
    ['HOST', 'not-a-host'],
    ['HOST', 'example.123'],
    ['HOST', 'http://example.com'],
    ['STOCKROOM_PUBLIC_URL', 'http://x/p?q=1'],
    ['STOCKROOM_AUTH_URL', 'ftp://auth.example.com'],
    ['STOCKROOM_AUTH_URL', 'https://auth.example.com/#top'],
    ['STOCKROOM_AUTH_URL', 'https://auth.example.com/?tenant=1'],
    ['STOCKROOM_AUTH_URL', 'not a url'],
    ['STOCKROOM_ACCESS_TOKEN_TTL', '1801'],
    ['STOCKROOM_ACCESS_TOKEN_TTL', '59'],
    ['STOCKROOM_ACCESS_TOKEN_TTL', '30m'],
    ['STOCKROOM_IMPLICIT_TOKEN_TTL', '59'],
    ['STOCKROOM_IMPLICIT_TOKEN_TTL', String(2 * 31_536_000 + 1)],
    ['STOCKROOM_REFRESH_TOKEN_TTL', '0'],
    ['STOCKROOM_REFRESH_TOKEN_TTL', String(2 * 31_536_000 + 1)],
    ['STOCKROOM_UPLOADS_PER_USER', '0'],
    ['STOCKROOM_UPLOAD_MB_PER_KEY', '1.5'],
    ['STOCKROOM_REGISTRATION_RETENTION_DAYS', '0'],
    ['STOCKROOM_IMAGE_DECODES', '0'],
    ['STOCKROOM_IMAGE_DECODE_QUEUE', '-1'],
  ])('stops with one line naming %s when it is %s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name} `));
  });

  it('puts the auth URL under the public URL and gives tokens the spec’s lifetimes by default', () => {
    expect(loadConfig({ STOCKROOM_PUBLIC_URL: 'https://media.example.com/' })).toMatchObject({
      authUrl: 'https://media.example.com/auth',
      accessTokenTtlSeconds: 1800,
      implicitTokenTtlSeconds: 31_536_000,
      refreshTokenTtlSeconds: 31_536_000,
    });
  });

  it('takes as HOST an IP address, localhost, this machine’s name or a fully qualified name', () => {
    for (const host of ['0.0.0.0', '::', '::1', '10.1.2.3', 'localhost', 'LocalHost', 'api.localhost', os.hostname(), 'media.example.com', 'media.example.com.']) {
      expect(loadConfig({ HOST: host }).host, host).toBe(host);
    }
    expect(() => loadConfig({ HOST: 'not-a-host' })).toThrow(/^HOST must be an IP address .*; got 'not-a-host'$/);
  });

  it('reads the auth URL (trailing slash stripped) and the token lifetimes', () => {
    const config = loadConfig({
      STOCKROOM_AUTH_URL: 'https://auth.example.com/',
      STOCKROOM_ACCESS_TOKEN_TTL: '60',
      STOCKROOM_IMPLICIT_TOKEN_TTL: '86400',
      STOCKROOM_REFRESH_TOKEN_TTL: String(2 * 31_536_000),
    });
    expect(config).toMatchObject({
      authUrl: 'https://auth.example.com',
      accessTokenTtlSeconds: 60,
      implicitTokenTtlSeconds: 86_400,
      refreshTokenTtlSeconds: 2 * 31_536_000,
    });
  });

  it('refuses an auth URL that is the public URL itself, where the newer endpoints would cover the earlier ones', () => {
    expect(() => loadConfig({ STOCKROOM_PUBLIC_URL: 'https://media.example.com', STOCKROOM_AUTH_URL: 'https://media.example.com/' })).toThrow(
      /^STOCKROOM_AUTH_URL must differ from the public URL/,
    );
    expect(loadConfig({ STOCKROOM_PUBLIC_URL: 'https://media.example.com', STOCKROOM_AUTH_URL: 'https://auth.example.com' }).authUrl).toBe(
      'https://auth.example.com',
    );
  });

  it('refuses an auth URL whose path is not plain segments', () => {
    expect(() => loadConfig({ STOCKROOM_AUTH_URL: 'https://auth.example.com/a:b' })).toThrow(/^STOCKROOM_AUTH_URL's path must be plain segments/);
  });

  it('believes no proxy by default, and the hops or addresses STOCKROOM_TRUST_PROXY names', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ STOCKROOM_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ STOCKROOM_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ STOCKROOM_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8, ::1, loopback' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'loopback',
    ]);
    for (const bad of ['true', 'proxy.example.com', '10.0.0.0/33', '11', '10.0.0.1/8/1']) {
      expect(() => loadConfig({ STOCKROOM_TRUST_PROXY: bad })).toThrow(/^STOCKROOM_TRUST_PROXY /);
    }
  });

  it('keeps download (delivery) URIs valid for a day by default, and from a minute to a week when set', () => {
    expect(loadConfig({}).deliveryUrlTtlSeconds).toBe(86_400);
    expect(loadConfig({ STOCKROOM_DELIVERY_URL_TTL: '60' }).deliveryUrlTtlSeconds).toBe(60);
    expect(loadConfig({ STOCKROOM_DELIVERY_URL_TTL: String(7 * 86_400) }).deliveryUrlTtlSeconds).toBe(7 * 86_400);
    for (const bad of ['59', String(7 * 86_400 + 1), '1d', '-60']) {
      expect(() => loadConfig({ STOCKROOM_DELIVERY_URL_TTL: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ STOCKROOM_DELIVERY_URL_TTL: bad })).toThrow(/^STOCKROOM_DELIVERY_URL_TTL must be a whole number from 60 to 604800/);
    }
  });

  it('gives uploads and file registrations quotas, registrations a retention, and decodes a bound, by default and as set', () => {
    const MB = 1024 * 1024;
    expect(loadConfig({})).toMatchObject({
      storedFiles: {
        uploadsPerKey: { files: 1000, bytes: 2000 * MB },
        uploadsPerUser: { files: 100, bytes: 200 * MB },
        registrationsPerKey: { files: 2000, bytes: 5000 * MB },
        registrationsPerUser: { files: 200, bytes: 500 * MB },
        registrationRetentionDays: 30,
      },
      imageDecodes: { concurrency: 2, queue: 32 },
    });
    const set = loadConfig({
      STOCKROOM_UPLOADS_PER_KEY: '10',
      STOCKROOM_UPLOAD_MB_PER_KEY: '20',
      STOCKROOM_UPLOADS_PER_USER: '3',
      STOCKROOM_UPLOAD_MB_PER_USER: '4',
      STOCKROOM_REGISTRATIONS_PER_KEY: '5',
      STOCKROOM_REGISTRATION_MB_PER_KEY: '6',
      STOCKROOM_REGISTRATIONS_PER_USER: '7',
      STOCKROOM_REGISTRATION_MB_PER_USER: '8',
      STOCKROOM_REGISTRATION_RETENTION_DAYS: '9',
      STOCKROOM_IMAGE_DECODES: '1',
      STOCKROOM_IMAGE_DECODE_QUEUE: '0',
    });
    expect(set.storedFiles).toEqual({
      uploadsPerKey: { files: 10, bytes: 20 * MB },
      uploadsPerUser: { files: 3, bytes: 4 * MB },
      registrationsPerKey: { files: 5, bytes: 6 * MB },
      registrationsPerUser: { files: 7, bytes: 8 * MB },
      registrationRetentionDays: 9,
    });
    expect(set.imageDecodes).toEqual({ concurrency: 1, queue: 0 });
  });

  it('is frozen once read', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.throttle)).toBe(true);
  });
});
