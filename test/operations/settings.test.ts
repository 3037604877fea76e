import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

/** The operations settings: metrics (off by default), and the bound on a shutdown. */
describe('operations settings', () => {
  const load = (env: Record<string, string>) => loadConfig({ STOCKROOM_DATA_DIR: '/tmp/unused', ...env }, '/');

  it('rule: by default there is no metrics port, no metrics token, and a shutdown waits 25 s', () => {
    expect(load({})).toMatchObject({ metricsPort: undefined, metricsToken: undefined, shutdownTimeoutSeconds: 25 });
  });

  it('rule: a metrics port is a port (1–65535); a token has at least 16 characters and no spaces', () => {
    expect(load({ STOCKROOM_METRICS_PORT: '9464', STOCKROOM_METRICS_TOKEN: 'a-long-enough-token' })).toMatchObject({ metricsPort: 9464, metricsToken: 'a-long-enough-token' });
    for (const port of ['0', '65536', 'metrics']) expect(() => load({ STOCKROOM_METRICS_PORT: port }), port).toThrow(/STOCKROOM_METRICS_PORT/);
    for (const token of ['short', 'a token with spaces in it']) {
      expect(() => load({ STOCKROOM_METRICS_TOKEN: token }), token).toThrow(ConfigError);
      expect(() => load({ STOCKROOM_METRICS_TOKEN: token }), token).toThrow(/STOCKROOM_METRICS_TOKEN must be at least 16 characters/);
    }
  });

  it('rule: the shutdown timeout is 1 to 3600 seconds', () => {
    expect(load({ STOCKROOM_SHUTDOWN_TIMEOUT: '5' }).shutdownTimeoutSeconds).toBe(5);
    for (const value of ['0', '3601', 'soon']) expect(() => load({ STOCKROOM_SHUTDOWN_TIMEOUT: value }), value).toThrow(/STOCKROOM_SHUTDOWN_TIMEOUT/);
  });
});
