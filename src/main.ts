import readline from 'node:readline';
import v8 from 'node:v8';
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { buildApp, createServices, type Services } from './app.js';
import { DEFAULT_DEMO, seedDemo } from './catalog/demo/demo-catalog.js';
import { IngestService } from './catalog/ingest/ingest.service.js';
import { ensureDemoAccess } from './cli/demo-access.js';
import { progressBar } from './cli/progress.js';
import { keepRequestGarbageYoung } from './platform/serving-heap.js';
import { GRANT_TYPES, type GrantType } from './oauth/oauth.types.js';
import { PRODUCT_TYPES } from './licensing/product-types.js';
import { DOWNLOAD_LIMIT_DURATIONS, RESOLUTIONS } from './licensing/licensing-policy.js';

function count(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** A demo size: whole, and small enough that the plan of it fits in memory. */
function demoCount(max: number) {
  return (value: string): number => {
    const n = count(value);
    if (n > max) throw new InvalidArgumentError(`must be at most ${max}`);
    return n;
  };
}

/** For repeatable options: each use adds one value. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The first line of standard input (a password piped in stays out of the process list and shell history). */
async function firstLineOfStdin(): Promise<string> {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  try {
    for await (const line of lines) return line;
    return '';
  } finally {
    lines.close();
  }
}

function positive(value: string): number {
  const n = count(value);
  if (n < 1) throw new InvalidArgumentError('must be at least 1');
  return n;
}

/** Runs a command with the services of the configured store, closing them afterwards. */
async function withServices<T>(run: (services: Services, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const services = await createServices(config);
  try {
    return await run(services, config);
  } finally {
    await services.close();
  }
}

async function seed(services: Services, amounts: { images: number; videos: number; events: number }) {
  const bar = progressBar('Seeding demo catalogue');
  try {
    return await seedDemo({ catalog: services.catalog, blobs: services.blobs }, { ...amounts, onProgress: bar.update });
  } finally {
    bar.stop();
  }
}

async function serve(): Promise<void> {
  const config = loadConfig();
  // A server's heap holds a large, stable live set (the search index's strings, the record
  // cache) and makes garbage with every request; left to itself V8 lets the heap grow to about
  // four times the live set between full collections. A tighter bound trades a little
  // collector time on the other core for hundreds of megabytes (see the README's design notes).
  if (config.heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  keepRequestGarbageYoung();
  const { app, services } = await buildApp(config);
  if (config.seedDemoOnEmptyStore && (await services.catalog.countAssets()) === 0) {
    const started = Date.now();
    const seeded = await seed(services, DEFAULT_DEMO);
    app.log.info({ ...seeded, seconds: (Date.now() - started) / 1000 }, 'seeded the demo catalogue');
  }
  const demo = config.seedDemoOnEmptyStore ? await ensureDemoAccess(services) : undefined;
  await app.listen({ port: config.port, host: config.host });
  const lines = [
    '',
    `Stockroom is serving the Stock Media Licensing API v3 at ${config.publicUrl}/v3`,
    `  store: ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}${config.redisUrl ? ', Redis' : ''}`,
    `  docs:  ${config.publicUrl}/docs`,
  ];
  if (demo) {
    lines.push(
      `  demo API key:    ${demo.api_key}`,
      `  demo API secret: ${demo.api_secret}`,
      `  demo user:       ${demo.username} / ${demo.password}`,
      '',
      'Try:',
      `  curl -H 'Api-Key: ${demo.api_key}' '${config.publicUrl}/v3/images?ids=1000001,1000002&fields=detail_set,thumb'`,
      '',
      'A token for the demo user (then add -H "Authorization: Bearer <access_token>"):',
      `  curl -u '${demo.api_key}:${demo.api_secret}' -d grant_type=password -d username=${demo.username} -d 'password=${demo.password}' '${config.authUrl}/oauth2/token'`,
      'Or sign in as a browser would (a local redirect URI needs no registration):',
      `  ${config.authUrl}/oauth2/auth?client_id=${demo.api_key}&response_type=code&redirect_uri=${encodeURIComponent('http://localhost:8080/callback')}&state=try`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
  const shutdown = () => {
    void app.close().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

const program = new Command()
  .name('stockroom')
  .description('A self-hostable server that speaks the Stock Media Licensing API v3.')
  .showHelpAfterError();

program
  .command('serve')
  .description('start the API server (seeds the demo catalogue on an empty store)')
  .action(serve);

program
  .command('seed-demo')
  .description('add the deterministic demo catalogue to the store')
  .option('--images <n>', 'number of images (at most 100000)', demoCount(100_000), DEFAULT_DEMO.images)
  .option('--videos <n>', 'number of videos (at most 10000)', demoCount(10_000), DEFAULT_DEMO.videos)
  .option('--events <n>', 'number of events (at most 10000)', demoCount(10_000), DEFAULT_DEMO.events)
  .action(async (options: { images: number; videos: number; events: number }) => {
    await withServices(async (services) => {
      const seeded = await seed(services, options);
      const demo = await ensureDemoAccess(services);
      process.stdout.write(
        `Seeded ${seeded.images} images, ${seeded.videos} videos and ${seeded.events} events.\n` +
          `Demo API key: ${demo.api_key}\n`,
      );
    });
  });

program
  .command('ingest')
  .description('add or update catalogue records from a JSON-lines manifest')
  .argument('<manifest>', 'file with one JSON object per line')
  .option('--media <dir>', 'folder that the records’ `file` paths are relative to')
  .action(async (manifest: string, options: { media?: string }) => {
    await withServices(async (services) => {
      const ingest = new IngestService({ catalog: services.catalog, blobs: services.blobs });
      const bar = progressBar('Ingesting');
      let report;
      try {
        report = await ingest.ingestFile(manifest, { mediaDir: options.media, onProgress: bar.update });
      } finally {
        bar.stop();
      }
      for (const failure of report.failed) process.stderr.write(`line ${failure.line}: ${failure.reason}\n`);
      process.stdout.write(
        `${report.inserted} inserted, ${report.updated} updated, ${report.failed.length} failed\n`,
      );
      if (report.failed.length > 0) process.exitCode = 1;
    });
  });

const admin = program.command('admin').description('manage API clients, the users who sign in to authorize them, and their products');
const client = admin.command('client').description('API clients (applications that hold an API key)');

client
  .command('create')
  .description('create an API client; prints its key (and, for a confidential client, its secret) once')
  .requiredOption('--name <name>', 'name of the application')
  .option('--sandbox', 'a sandbox application (client-credentials grant only)', false)
  .option('--public', 'a public client (browser or mobile app): no secret, PKCE required for codes', false)
  .option('--redirect-uri <uri>', 'a redirect URI to register (repeatable; https, or any local http URI, which needs no registration)', collect, [])
  .option('--grants <list>', `comma-separated grants, replacing the defaults of the kind of client (${GRANT_TYPES.join(', ')}; authorization_code and password bring refresh_token)`, commaList)
  .option('--qps <n>', 'calls allowed per second (default: STOCKROOM_THROTTLE_PER_SECOND)', positive)
  .option('--per-day <n>', 'calls allowed per day (default: STOCKROOM_THROTTLE_PER_DAY)', positive)
  .option('--json', 'print {"api_key": …, "api_secret": …} (no api_secret for a public client)', false)
  .action(
    async (options: {
      name: string;
      sandbox: boolean;
      public: boolean;
      redirectUri: string[];
      grants?: string[];
      qps?: number;
      perDay?: number;
      json: boolean;
    }) => {
      await withServices(async (services) => {
        const created = await services.clients.create({
          name: options.name,
          sandbox: options.sandbox,
          confidential: !options.public,
          redirectUris: options.redirectUri,
          // Checked by the service, whose one-line error names the unknown grant.
          grantTypes: options.grants as GrantType[] | undefined,
          queriesPerSecond: options.qps ?? null,
          queriesPerDay: options.perDay ?? null,
        });
        const { client: registered, apiKey, apiSecret } = created;
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ api_key: apiKey, ...(apiSecret === undefined ? {} : { api_secret: apiSecret }) })}\n`);
          return;
        }
        const kind = registered.sandbox ? ' (sandbox)' : registered.confidential ? '' : ' (public: no secret)';
        const lines = [`Created client ${registered.id} “${registered.name}”${kind}.`, `API key:    ${apiKey}`];
        if (apiSecret !== undefined) lines.push(`API secret: ${apiSecret}`);
        lines.push(`Grants:     ${registered.grantTypes.join(', ')}`);
        if (registered.redirectUris.length > 0) lines.push(`Redirect URIs: ${registered.redirectUris.join(' ')}`);
        lines.push(apiSecret === undefined ? 'Keep the key now: only its hash is stored.' : 'Keep them now: only their hashes are stored.');
        process.stdout.write(`${lines.join('\n')}\n`);
      });
    },
  );

client
  .command('disable')
  .description('disable the client holding an API key; its requests answer 403 Account Inactive')
  .argument('<key>', 'the API key')
  .action(async (key: string) => {
    await withServices(async (services) => {
      if (!(await services.clients.disable(key))) {
        process.stderr.write('stockroom: no client holds that API key\n');
        process.exitCode = 1;
        return;
      }
      process.stdout.write('Disabled.\n');
    });
  });

const user = admin.command('user').description('users who sign in to authorize applications');

user
  .command('create')
  .description('create a user')
  .requiredOption('--username <name>', 'the name the user signs in with')
  .requiredOption('--password <password>', 'at least 8 characters')
  .option('--team <team>', 'the team the user belongs to')
  .option('--partner-credit', 'a user of a partner site who holds credits', false)
  .option('--json', 'print {"id": …, "username": …}', false)
  .action(async (options: { username: string; password: string; team?: string; partnerCredit: boolean; json: boolean }) => {
    await withServices(async (services) => {
      if (await services.users.findByUsername(options.username.trim())) {
        throw new Error(`a user named ${options.username.trim()} already exists`);
      }
      const created = await services.users.create({
        username: options.username,
        password: options.password,
        team: options.team ?? null,
        partnerCredit: options.partnerCredit,
      });
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ id: created.id, username: created.username })}\n`
          : `Created user ${created.id} “${created.username}”${created.team ? ` of team ${created.team}` : ''}${created.partnerCredit ? ' (partner credit)' : ''}.\n`,
      );
    });
  });

user
  .command('password')
  .description('set a new password for a user; revokes every token the user holds')
  .argument('<username>', 'the user')
  .option('--password <password>', 'the new password (default: the first line of standard input)')
  .action(async (username: string, options: { password?: string }) => {
    const password = options.password ?? (await firstLineOfStdin());
    if (!password) throw new Error('no new password: give --password or write it on the first line of standard input');
    await withServices(async (services) => {
      if (!(await services.users.changePassword(username, password))) {
        process.stderr.write(`stockroom: no user named ${username}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`Changed the password of ${username}; every token the user held is revoked.\n`);
    });
  });

const product = admin.command('product').description('products users hold: what they may license, with credits and download limits');

/** A date (YYYY-MM-DD, the end of that day UTC) or an ISO 8601 date-time. */
function expiryDate(value: string): string {
  const text = value.trim();
  const instant = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T23:59:59Z` : text;
  if (!/^\d{4}-\d{2}-\d{2}/.test(instant) || Number.isNaN(Date.parse(instant))) {
    throw new InvalidArgumentError('must be a date (YYYY-MM-DD) or an ISO 8601 date-time');
  }
  return new Date(Date.parse(instant)).toISOString();
}

product
  .command('grant')
  .description('give a user a product; prints it as GET /v3/products shows it')
  .requiredOption('--user <user>', 'username (or id) of the user')
  .requiredOption('--type <type>', `product type: ${PRODUCT_TYPES.join(', ')}`)
  .option('--credits <n>', 'credits of a credit pack (creditpack)', count)
  .option('--team', 'the credits go to the team of the user (spent with use_team_credits=true)', false)
  .option('--downloads <n>', 'downloads allowed: per --period, or in all without one', count)
  .option('--period <period>', `when the download limit starts again: ${DOWNLOAD_LIMIT_DURATIONS.join(', ')}`)
  .option('--overage <n>', 'downloads allowed beyond the limit in a period', count)
  .option('--expires <date>', 'when it expires: YYYY-MM-DD (end of that day, UTC) or an ISO 8601 date-time', expiryDate)
  .option('--name <name>', 'name shown in GET /products (default: the type’s own)')
  .option('--agreement <name>', 'agreement_name')
  .option('--resolution <size>', `imagepack_resolution, the largest size a download may have: ${RESOLUTIONS.join(', ')}`)
  .option('--website <url>', 'application_website')
  .option('--require-notes', 'downloads must carry download_notes', false)
  .option('--require-project-code', 'downloads must carry a project_code', false)
  .option('--project-codes <list>', 'comma-separated project codes a download may name', commaList)
  .option('--json', 'print the product as JSON', false)
  .action(
    async (options: {
      user: string;
      type: string;
      credits?: number;
      team: boolean;
      downloads?: number;
      period?: string;
      overage?: number;
      expires?: string;
      name?: string;
      agreement?: string;
      resolution?: string;
      website?: string;
      requireNotes: boolean;
      requireProjectCode: boolean;
      projectCodes?: string[];
      json: boolean;
    }) => {
      await withServices(async (services) => {
        const customer = await services.products.findCustomerByName(options.user.trim());
        if (!customer) throw new Error(`no user named ${options.user}`);
        const granted = await services.products.grant({
          userId: customer.id,
          type: options.type,
          name: options.name,
          expiresAt: options.expires,
          credits: options.credits,
          team: options.team,
          downloads: options.downloads,
          period: options.period,
          overage: options.overage,
          agreementName: options.agreement,
          imagepackResolution: options.resolution,
          applicationWebsite: options.website,
          noteRequired: options.requireNotes,
          projectCodeRequired: options.requireProjectCode,
          projectCodes: options.projectCodes,
        });
        const record = (await services.products.productRecords(customer)).find((p) => p.id === granted.id)!;
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ ...record, user_id: customer.id, username: customer.username })}\n`);
          return;
        }
        const terms = [
          record.credits_remaining !== null && !options.team ? `${record.credits_remaining} credits` : '',
          options.team ? `${options.credits ?? 0} credits to team ${customer.team} (now ${record.team_credits})` : '',
          record.download_limit !== null ? `${record.download_limit} downloads${record.download_limit_duration ? ` a ${record.download_limit_duration}` : ''}` : '',
          record.expiration_utc_date ? `until ${record.expiration_utc_date}` : '',
        ].filter((term) => term !== '');
        process.stdout.write(`Granted product ${record.id} “${record.name}” (${record.type}) to ${customer.username}${terms.length ? `: ${terms.join(', ')}` : ''}.\n`);
      });
    },
  );

product
  .command('list')
  .description('the products of a user, as GET /v3/products shows them')
  .requiredOption('--user <user>', 'username (or id) of the user')
  .option('--json', 'print them as JSON', false)
  .action(async (options: { user: string; json: boolean }) => {
    await withServices(async (services) => {
      const customer = await services.products.findCustomerByName(options.user.trim());
      if (!customer) throw new Error(`no user named ${options.user}`);
      const records = await services.products.productRecords(customer, { downloadRequirements: true });
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ products: records })}\n`);
        return;
      }
      if (records.length === 0) process.stdout.write(`${customer.username} holds no product.\n`);
      for (const record of records) {
        const left = [
          record.credits_remaining !== null ? `${record.credits_remaining} credits` : '',
          record.team_credits !== null ? `${record.team_credits} team credits` : '',
          record.downloads_remaining !== null ? `${record.downloads_remaining} of ${record.download_limit} downloads left` : '',
        ].filter((term) => term !== '');
        process.stdout.write(`${record.id}\t${record.type}\t${record.status}\t${record.name}${left.length ? `\t${left.join(', ')}` : ''}\n`);
      }
    });
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // One line, no stack: a bad setting or a busy port is the operator's to fix, not a crash.
  process.stderr.write(`stockroom: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}
