import type { Command } from 'commander';
import { DOWNLOAD_LIMIT_DURATIONS, RESOLUTIONS } from '../../licensing/licensing-policy.js';
import { PRODUCT_TYPES } from '../../catalog/product-types.js';
import { commaList, count, expiryDate, positive, print, withServices } from '../options.js';

export function addProductCommands(admin: Command): void {
  const product = admin.command('product').description('products users hold: what they may license, with credits and download limits');

  product
    .command('grant')
    .description('give a user a product; prints it as GET /v3/products shows it')
    .requiredOption('--user <user>', 'username (or id) of the user')
    .requiredOption('--type <type>', `product type: ${PRODUCT_TYPES.join(', ')}`)
    .option('--credits <n>', 'credits of a credit pack (creditpack)', count)
    .option('--team', 'the credits go to the team of the user (spent with use_team_credits=true)', false)
    .option('--downloads <n>', 'downloads allowed: per --period, or in all without one', count)
    .option('--generations <n>', 'AI generation products (aigen): generation requests allowed, per --period or in all', count)
    .option(
      '--asset-edit-cost <n>',
      'AI generation products (aigen): generations an edit of a catalogue asset (reference_asset_id, background generation) uses; default 1, 0: free',
      count,
    )
    .option('--period <period>', `when the download (or generation) limit starts again: ${DOWNLOAD_LIMIT_DURATIONS.join(', ')}`)
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
        generations?: number;
        assetEditCost?: number;
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
            generations: options.generations,
            assetEditCost: options.assetEditCost,
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
            record.download_limit !== null ? `${record.download_limit} ${record.type === 'aigen' ? 'generations' : 'downloads'}${record.download_limit_duration ? ` a ${record.download_limit_duration}` : ''}` : '',
            record.ai_gen_requirements && record.ai_gen_requirements.asset_edit_cost !== 1
              ? `an edit of a catalogue asset uses ${record.ai_gen_requirements.asset_edit_cost === 0 ? 'none' : record.ai_gen_requirements.asset_edit_cost}`
              : '',
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
            record.downloads_remaining !== null ? `${record.downloads_remaining} of ${record.download_limit} ${record.type === 'aigen' ? 'generations' : 'downloads'} left` : '',
            record.ai_gen_requirements ? `an edit of a catalogue asset uses ${record.ai_gen_requirements.asset_edit_cost}` : '',
          ].filter((term) => term !== '');
          process.stdout.write(`${record.id}\t${record.type}\t${record.status}\t${record.name}${left.length ? `\t${left.join(', ')}` : ''}\n`);
        }
      });
    });
  product
    .command('revoke')
    .description('take a product back: it stops counting for searches and downloads; its downloads and ledger stay')
    .argument('<product-id>', 'the product (see admin product list)', positive)
    .option('--user <user>', 'username (or id) of the user: the product must be theirs')
    .option('--json', 'print the product as JSON', false)
    .action(async (productId: number, options: { user?: string; json: boolean }) => {
      await withServices(async (services) => {
        let userId: number | undefined;
        if (options.user !== undefined) {
          const customer = await services.products.findCustomerByName(options.user.trim());
          if (!customer) throw new Error(`no user named ${options.user}`);
          userId = customer.id;
        }
        const revoked = await services.products.revoke(productId, { userId });
        const owner = await services.products.findCustomer(revoked.userId);
        const record = owner ? (await services.products.productRecords(owner)).find((p) => p.id === revoked.id) : undefined;
        if (options.json) {
          print(JSON.stringify({ ...record, user_id: revoked.userId, username: owner?.username ?? null }));
          return;
        }
        print(`Revoked product ${revoked.id} “${revoked.name}” (${revoked.type}) of ${owner?.username ?? `user ${revoked.userId}`}; its downloads and ledger stay.`);
      });
    });
}
