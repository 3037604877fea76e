import type { Command } from 'commander';
import { GRANT_TYPES, type GrantType } from '../../oauth/oauth.types.js';
import { InvalidArgumentError } from 'commander';
import { collect, commaList, positive, print, withServices } from '../options.js';

function yesNo(value: string): boolean {
  const word = value.trim().toLowerCase();
  if (['yes', 'true', 'on'].includes(word)) return true;
  if (['no', 'false', 'off'].includes(word)) return false;
  throw new InvalidArgumentError('must be yes or no');
}

/** What a client is enabled for beyond the API: "usage reporting, order metadata", or "none". */
function permissionWords(client: { usageReporting: boolean; orderMetadata: boolean }): string {
  const words = [client.usageReporting ? 'usage reporting' : '', client.orderMetadata ? 'order metadata' : ''].filter(Boolean);
  return words.length > 0 ? words.join(', ') : 'none';
}

export function addClientCommands(admin: Command): void {
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
    .option('--usage-reporting', 'may report usage of licensed assets (PUT /v3/usage-batches)', false)
    .option('--order-metadata', 'may read order metadata (GET /v3/orders/{id})', false)
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
        usageReporting: boolean;
        orderMetadata: boolean;
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
            usageReporting: options.usageReporting,
            orderMetadata: options.orderMetadata,
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
          const permissions = permissionWords(registered);
          if (permissions !== 'none') lines.push(`Enabled for: ${permissions}`);
          if (registered.redirectUris.length > 0) lines.push(`Redirect URIs: ${registered.redirectUris.join(' ')}`);
          lines.push(apiSecret === undefined ? 'Keep the key now: only its hash is stored.' : 'Keep them now: only their hashes are stored.');
          process.stdout.write(`${lines.join('\n')}\n`);
        });
      },
    );

  client
    .command('set')
    .description('enable or disable usage reporting and order metadata for a client')
    .argument('<key-or-id>', 'the API key of the client, or its id (see admin client list)')
    .option('--usage-reporting <yes|no>', 'may report usage of licensed assets (PUT /v3/usage-batches)', yesNo)
    .option('--order-metadata <yes|no>', 'may read order metadata (GET /v3/orders/{id})', yesNo)
    .action(async (reference: string, options: { usageReporting?: boolean; orderMetadata?: boolean }) => {
      if (options.usageReporting === undefined && options.orderMetadata === undefined) {
        process.stderr.write('stockroom: say what to set: --usage-reporting yes|no, --order-metadata yes|no\n');
        process.exitCode = 1;
        return;
      }
      await withServices(async (services) => {
        const updated = await services.clients.setPermissions(reference, options);
        if (!updated) {
          const id = reference.trim();
          process.stderr.write(`stockroom: ${/^\d+$/.test(id) ? `no client has the id ${id}` : 'no client holds that API key'}\n`);
          process.exitCode = 1;
          return;
        }
        print(`Client ${updated.id} “${updated.name}” is enabled for: ${permissionWords(updated)}.`);
      });
    });

  client
    .command('list')
    .description('every client: id, name, kind, state, the end of its key, grants, limits and what it is enabled for')
    .option('--json', 'print {"clients": [...]} as JSON', false)
    .action(async (options: { json: boolean }) => {
      await withServices(async (services, config) => {
        const clients = await services.clients.list();
        if (options.json) {
          const listed = clients.map((entry) => ({
            id: entry.id,
            name: entry.name,
            kind: entry.kind,
            enabled: !entry.disabled,
            key_hint: entry.keyHint,
            grants: entry.grantTypes,
            redirect_uris: entry.redirectUris,
            queries_per_second: entry.queriesPerSecond,
            queries_per_day: entry.queriesPerDay,
            usage_reporting: entry.usageReporting,
            order_metadata: entry.orderMetadata,
            created_at: entry.createdAt,
          }));
          print(JSON.stringify({ clients: listed }));
          return;
        }
        if (clients.length === 0) print('There is no client yet (create one with: stockroom admin client create --name <name>).');
        const limit = (own: number | null, fallback: number, unit: string) => (own === null ? `${fallback}/${unit} (default)` : `${own}/${unit}`);
        for (const entry of clients) {
          print(
            [
              entry.id,
              entry.name,
              entry.kind,
              entry.disabled ? 'disabled' : 'enabled',
              `key …${entry.keyHint}`,
              entry.grantTypes.join(','),
              `${limit(entry.queriesPerSecond, config.throttle.perSecond, 's')}, ${limit(entry.queriesPerDay, config.throttle.perDay, 'day')}`,
              `enabled for: ${permissionWords(entry)}`,
            ].join('\t'),
          );
        }
      });
    });

  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    client
      .command(name)
      .description(
        disabled
          ? 'disable a client; its requests answer 403 Account Inactive and it can get no token'
          : 'enable a disabled client again',
      )
      .argument('<key-or-id>', 'the API key of the client, or its id (see admin client list)')
      .action(async (reference: string) => {
        await withServices(async (services) => {
          const done = disabled ? await services.clients.disable(reference) : await services.clients.enable(reference);
          if (!done) {
            const id = reference.trim();
            process.stderr.write(`stockroom: ${/^\d+$/.test(id) ? `no client has the id ${id}` : 'no client holds that API key'}\n`);
            process.exitCode = 1;
            return;
          }
          print(disabled ? 'Disabled.' : 'Enabled.');
        });
      });
  }
}
