import v8 from 'node:v8';
import type { Command } from 'commander';
import { buildApp } from '../../app.js';
import { DEFAULT_DEMO } from '../../catalog/demo/demo-catalog.js';
import { ConfigError, loadConfig, type Config } from '../../config/config.js';
import { keepRequestGarbageYoung } from '../../platform/serving-heap.js';
import { listenForScrapes } from '../../platform/metrics/metrics-server.js';
import { trackRequestsInFlight } from '../../platform/http/requests-in-flight.js';
import { ensureDemoAccess, type DemoAccessState } from '../demo-access.js';
import { seedDemoCatalogue } from './seed-demo.js';

async function serve(): Promise<void> {
  const config = loadConfig();
  keepRequestGarbageYoung();
  const { app, services } = await buildApp(config);
  // A server's heap holds a large, stable live set (the search index's strings, the record
  // cache) and makes garbage with every request; left to itself V8 lets the heap grow to about
  // four times the live set between full collections. A tighter bound trades a little
  // collector time on the other core for hundreds of megabytes (see docs/design.md). It is set
  // once the index is built: a build from the store makes its garbage fastest while the live
  // set grows, and under the bound collected so often that it read a third fewer assets a
  // second (the first two minutes of a boot on ten million: 2,600 a second, 4,100 without).
  if (config.heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  if (config.seedDemoOnEmptyStore && (await services.catalog.countAssets()) === 0) {
    const started = Date.now();
    const seeded = await seedDemoCatalogue(services, DEFAULT_DEMO);
    app.log.info({ ...seeded, seconds: (Date.now() - started) / 1000 }, 'seeded the demo catalogue');
  }
  const demo = config.seedDemoOnEmptyStore ? await ensureDemoAccess(services) : undefined;
  const log = app.log;
  // Fastify closes its listener first, then runs the onClose hooks last-registered first: this
  // one runs once the requests in flight are done, before the modules close.
  app.addHook('onClose', async () => {
    await services.search.close();
    log.info({ assets: services.search.assetCount }, 'shutdown: search index snapshot saved');
  });
  await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
    throw listenError(error, config);
  });
  const inFlight = trackRequestsInFlight(app.server);
  services.metrics.collectProcessMetrics();
  const metricsServer = config.metricsPort ? await listenForScrapes(services.metrics, config.host, config.metricsPort) : undefined;
  process.stdout.write(`${banner(config, demo).join('\n')}\n\n`);

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'shutdown: second signal; exiting at once');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, in_flight: inFlight.count }, 'shutdown: no longer accepting connections; finishing the requests in flight');
    services.readiness.drain();
    inFlight.lastOnTheirConnections();
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    const closed = app.close();
    // Requests still running after the bound lose their connections, so that a stuck client
    // or a hung store cannot hold the shutdown past what a process manager waits.
    const timer = setTimeout(() => {
      log.warn({ in_flight: inFlight.count, seconds: config.shutdownTimeoutSeconds }, 'shutdown: requests still in flight after the shutdown timeout; closing their connections');
      app.server.closeAllConnections();
    }, config.shutdownTimeoutSeconds * 1000);
    void inFlight.drained().then(() => {
      clearTimeout(timer);
      log.info('shutdown: requests in flight finished');
    });
    closed.then(
      () => {
        log.info(config.redisUrl ? 'shutdown: modules, store and Redis closed; exiting' : 'shutdown: modules and store closed; exiting');
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'shutdown: closing failed; exiting');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

/** Whether this process runs the TypeScript sources (bin/stockroom.js found no current build, or a test), not dist/. */
function runningFromSource(): boolean {
  return import.meta.url.endsWith('.ts');
}

/**
 * What serve prints once it listens. The demo's secret and password only when they were made
 * just now (the first start): later starts would put them in every log, so they point to the
 * file that keeps them instead.
 */
function banner(config: Config, demo: DemoAccessState | undefined): string[] {
  const lines = [
    '',
    `Stockroom is serving the Stock Media Licensing API v3 at ${config.publicUrl}/v3`,
    `  store: ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}${config.redisUrl ? ', Redis' : ''}`,
    `  code:  ${runningFromSource() ? 'TypeScript sources through tsx (dist/ has no current build: npm run build)' : 'compiled JavaScript in dist/'}`,
    `  docs:  ${config.publicUrl}/docs`,
    `  browse the catalogue: ${config.publicUrl}/`,
    `  back office:          ${config.publicUrl}/admin${demo ? '' : ' (sign in as staff: stockroom admin user create --role admin)'}`,
  ];
  if (!demo) return lines;
  const { access, created, adminCreated, file } = demo;
  if (created) {
    lines.push(
      `  demo API key:    ${access.api_key}`,
      `  demo API secret: ${access.api_secret}`,
      `  demo user:       ${access.username} / ${access.password}`,
      `  (shown this once; kept in ${file}, readable by its owner only)`,
    );
  } else {
    lines.push(
      `  demo API key:    ${access.api_key}`,
      `  demo user:       ${access.username}`,
      `  the demo API secret and the demo user's password are in ${file}`,
    );
  }
  if (access.admin_username !== undefined) {
    lines.push(
      adminCreated
        ? `  demo admin:      ${access.admin_username} / ${access.admin_password} (signs in to the back office at ${config.publicUrl}/admin; shown this once, kept in ${file})`
        : `  demo admin:      ${access.admin_username} (signs in to the back office at ${config.publicUrl}/admin; the password is in ${file})`,
    );
  }
  const secret = created ? access.api_secret : '<api_secret>';
  const password = created ? access.password : '<password>';
  lines.push(
    '',
    'Try:',
    `  curl -H 'Api-Key: ${access.api_key}' '${config.publicUrl}/v3/images?ids=1000001,1000002&fields=detail_set,thumb'`,
    '',
    `A token for the demo user (then add -H "Authorization: Bearer <access_token>")${created ? '' : `, with the secret and password from ${file}`}:`,
    `  curl -u '${access.api_key}:${secret}' -d grant_type=password -d username=${access.username} -d 'password=${password}' '${config.authUrl}/oauth2/token'`,
    'Or sign in as a browser would (a local redirect URI needs no registration):',
    `  ${config.authUrl}/oauth2/auth?client_id=${access.api_key}&response_type=code&redirect_uri=${encodeURIComponent('http://localhost:8080/callback')}&state=try`,
  );
  return lines;
}

/** A failure to listen, as the setting to change: HOST or PORT. */
function listenError(error: unknown, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const { host, port } = config;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new ConfigError(`HOST: ${host} does not resolve to an address (${code})`);
    case 'EADDRNOTAVAIL':
      return new ConfigError(`HOST: ${host} is not an address of this machine`);
    case 'EADDRINUSE':
      return new ConfigError(`PORT: ${port} is in use on ${host}`);
    case 'EACCES':
      return new ConfigError(`PORT: listening on ${port} needs privileges (choose a port above 1023)`);
    default:
      return error;
  }
}

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the API server (seeds the demo catalogue on an empty store)')
    .action(serve);
}
