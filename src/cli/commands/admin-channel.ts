import type { Command } from 'commander';
import type { Services } from '../../app.js';
import type { Channel } from '../../asset-changes/asset-changes.service.js';
import { ASSET_FAMILIES, CHANNEL_ASSET_TYPES } from '../../asset-changes/asset-changes.service.js';
import { positive, print, withServices } from '../options.js';

/** The client an operator names by its API key or its id (as `admin client list` shows it). */
async function findClient(services: Services, keyOrId: string): Promise<{ id: number; name: string }> {
  const reference = keyOrId.trim();
  const client = /^[1-9][0-9]{0,14}$/.test(reference)
    ? (await services.clients.list()).find((entry) => entry.id === Number(reference))
    : await services.clients.find(reference);
  if (!client) throw new Error(`no enabled client has the API key or id ${reference}`);
  return client;
}

const asJson = (channel: Channel) => ({
  id: channel.id,
  client_id: channel.clientId,
  asset_family: channel.assetFamily,
  asset_type: channel.assetType,
  metadata: channel.metadata,
  created_at: channel.createdAt,
});

const line = (channel: Channel) =>
  `${channel.id}\tclient ${channel.clientId}\t${channel.assetFamily}\t${channel.assetType}\t${channel.createdAt}${channel.metadata ? `\t${channel.metadata}` : ''}`;

export function addChannelCommands(admin: Command): void {
  const channel = admin.command('channel').description('asset-change channels: the feeds partner clients keep their copies of the catalogue in step with');

  channel
    .command('create')
    .description('give a partner client a channel; it carries the changes of the last 60 days on')
    .requiredOption('--client <key>', 'API key (or id) of the client')
    .requiredOption('--asset-family <family>', `${ASSET_FAMILIES.join(', ')}`)
    .requiredOption('--asset-type <type>', `${CHANNEL_ASSET_TYPES.join(', ')}`)
    .option('--metadata <text>', 'a note the channel shows as Metadata')
    .option('--json', 'print the channel as JSON', false)
    .action(async (options: { client: string; assetFamily: string; assetType: string; metadata?: string; json: boolean }) => {
      await withServices(async (services) => {
        const client = await findClient(services, options.client);
        const created = await services.assetChanges.createChannel({
          clientId: client.id,
          assetFamily: options.assetFamily,
          assetType: options.assetType,
          metadata: options.metadata,
        });
        if (options.json) return print(JSON.stringify(asJson(created)));
        print(`Created channel ${created.id} (${created.assetFamily} ${created.assetType}) for client ${client.id} “${client.name}”.`);
      });
    });

  channel
    .command('list')
    .description('every channel, or those of one client')
    .option('--client <key>', 'API key (or id) of the client')
    .option('--json', 'print {"channels": [...]} as JSON', false)
    .action(async (options: { client?: string; json: boolean }) => {
      await withServices(async (services) => {
        const clientId = options.client === undefined ? undefined : (await findClient(services, options.client)).id;
        const channels = await services.assetChanges.listChannels(clientId);
        if (options.json) return print(JSON.stringify({ channels: channels.map(asJson) }));
        if (channels.length === 0) print('There is no channel (create one with: stockroom admin channel create --client <key> --asset-family <family> --asset-type <type>).');
        for (const entry of channels) print(line(entry));
      });
    });

  channel
    .command('delete')
    .description('remove a channel and its change sets; its client stops hearing of changes on it')
    .argument('<channel-id>', 'the channel (see admin channel list)', positive)
    .action(async (channelId: number) => {
      await withServices(async (services) => {
        if (!(await services.assetChanges.deleteChannel(channelId))) throw new Error(`no channel has the id ${channelId}`);
        print(`Deleted channel ${channelId}.`);
      });
    });
}
