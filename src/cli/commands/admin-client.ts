import type { Command } from 'commander';
import type { GrantType } from '../../oauth/oauth.types.js';
import { GRANT_TYPES } from '../../oauth/oauth.types.js';
import { collect, commaList, positive, withServices } from '../options.js';

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
}
