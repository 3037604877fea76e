import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, STORES, type TestApp } from '../helpers/test-app.js';
import { feed, partnerClient, putAsset, setOf, type Caller, type Notice } from './asset-changes-fixtures.js';

/*
 * The asset-change feed on SQLite and PostgreSQL: channels and their counts, change sets built
 * from the catalogue's change log (New with its download link, Update, Delete), a set handed out
 * again until confirmed and never after, the 60-day lifetime, registrations, bad input, and
 * consumers of one channel at once.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(STORES)('asset changes on $name', ({ url }) => {
  let t: TestApp;
  let caller: Caller;
  let api: ReturnType<typeof feed>;

  beforeEach(async () => {
    t = await createTestApp({ databaseUrl: url });
    caller = { apiKey: t.apiKey, token: await t.issueToken() };
    api = feed(t, caller);
  });
  afterEach(async () => {
    await t.close();
  });

  const channel = (family: string, type = 'image', clientId = t.clientId) =>
    t.services.assetChanges.createChannel({ clientId, assetFamily: family, assetType: type });

  /** Hands out and confirms sets until the channel is empty; every notice, in order. */
  async function drain(channelId: number, batchSize = 2200): Promise<Notice[]> {
    const notices: Notice[] = [];
    for (;;) {
      const set = setOf(await api.handOut(`channel_id=${channelId}&batch_size=${batchSize}`));
      if (!set) return notices;
      notices.push(...set.changed_assets);
      expect((await api.confirm(set.change_set_id)).statusCode).toBe(200);
    }
  }

  it('rule: a client without channels gets 404 ChannelsNotFound; its channels list in the contract’s shape with live counts', async () => {
    const none = await api.channels();
    expect(none.statusCode).toBe(404);
    expect(none.json().code).toBe('ChannelsNotFound');

    const creative = await channel('creative', 'image');
    await channel('both', 'film');
    const other = await partnerClient(t, 'Other partner');
    await channel('both', 'image', other.clientId);
    await putAsset(t.services, 'c1');
    await putAsset(t.services, 'c2');
    await putAsset(t.services, 'e1', { family: 'editorial' });
    await putAsset(t.services, 'v1', { type: 'video', family: 'editorial' });

    const listed = await api.channels();
    expect(listed.statusCode).toBe(200);
    const channels = listed.json() as Array<Record<string, unknown>>;
    expect(channels).toHaveLength(2);
    expect(channels[0]).toEqual({
      ChannelId: creative.id,
      AssetFamily: 'Creative',
      AssetChangeType: null,
      CreateDateUtc: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      NotificationCount: 2,
      AssetType: 'Image',
      OldestChangeNotificationDateUtc: expect.stringMatching(/Z$/),
      Metadata: null,
    });
    expect(channels[1]).toMatchObject({ AssetFamily: 'Both', AssetType: 'Film', NotificationCount: 1 });

    await drain(creative.id);
    expect(((await api.channels()).json() as Array<{ NotificationCount: number }>)[0]!.NotificationCount).toBe(0);
  });

  it('rule: notices follow the change log — New with the download link, Update, Delete — filtered by the channel’s type and family', async () => {
    const creative = await channel('creative');
    const both = await channel('both');
    const films = await channel('creative', 'film');
    await putAsset(t.services, 'c1');
    await putAsset(t.services, 'e1', { family: 'editorial' });
    await putAsset(t.services, 'c1', { title: 'Retitled' });
    // A download changes the asset's counters, not the asset: no notice.
    await t.services.catalog.countDownload('image', 'c1');
    await putAsset(t.services, 'e1', { family: 'editorial', title: 'Retitled' });
    await putAsset(t.services, 'v1', { type: 'video' });

    const summary = (notices: Notice[]) => notices.map((n) => `${n.asset_lifecycle} ${n.asset_type} ${n.id}`);
    const creativeNotices = await drain(creative.id);
    expect(summary(creativeNotices)).toEqual(['New Image c1', 'Update Image c1']);
    expect(creativeNotices[0]!.uri).toBe('http://stockroom.test/v3/downloads/images/c1');
    expect(creativeNotices[1]!.uri).toBeNull();
    expect(creativeNotices.every((n) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(n.asset_changed_utc_datetime))).toBe(true);
    expect(summary(await drain(both.id))).toEqual(['New Image c1', 'New Image e1', 'Update Image c1', 'Update Image e1']);

    await t.services.catalog.deleteAsset('image', 'e1');
    await t.services.catalog.deleteAsset('image', 'c1');
    await putAsset(t.services, 'c2');
    await t.services.catalog.deleteAsset('image', 'c2');
    // A withdrawn asset's family is gone with it: every withdrawal of the channel's type reaches it.
    // An addition whose asset is withdrawn before it was handed out is not announced: its Delete is.
    expect(summary(await drain(creative.id))).toEqual(['Delete Image e1', 'Delete Image c1', 'Delete Image c2']);
    expect(summary(await drain(both.id))).toEqual(['Delete Image e1', 'Delete Image c1', 'Delete Image c2']);
    const filmNotices = await drain(films.id);
    expect(summary(filmNotices)).toEqual(['New Film v1']);
    expect(filmNotices[0]!.uri).toBe('http://stockroom.test/v3/downloads/videos/v1');
  });

  it('rule: the open set is handed out again (200), unchanged, until confirmed; then the next (201); an empty channel gives an empty body', async () => {
    const { id } = await channel('both');
    for (let n = 0; n < 5; n++) await putAsset(t.services, `a${n}`);

    const first = await api.handOut(`channel_id=${id}&batch_size=2`);
    expect(first.statusCode).toBe(201);
    const set = setOf(first)!;
    expect(set.changed_assets.map((n) => n.id)).toEqual(['a0', 'a1']);

    // New changes and another batch size do not change a set handed out.
    await putAsset(t.services, 'a0', { title: 'Changed meanwhile' });
    const again = await api.handOut(`channel_id=${id}&batch_size=100`);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(set);

    expect((await api.confirm(set.change_set_id)).statusCode).toBe(200);
    // Confirming again changes nothing.
    expect((await api.confirm(set.change_set_id)).statusCode).toBe(200);

    const next = await api.handOut(`channel_id=${id}&batch_size=2`);
    expect(next.statusCode).toBe(201);
    const second = setOf(next)!;
    expect(Number(second.change_set_id)).toBeGreaterThan(Number(set.change_set_id));
    expect(second.changed_assets.map((n) => n.id)).toEqual(['a2', 'a3']);
    await api.confirm(second.change_set_id);

    const rest = await drain(id);
    expect(rest.map((n) => `${n.asset_lifecycle} ${n.id}`)).toEqual(['New a4', 'Update a0']);

    const empty = await api.handOut(`channel_id=${id}`);
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toBe('');
    // A confirmed set is never handed out again, and its confirmation stays accepted.
    expect((await api.confirm(set.change_set_id)).statusCode).toBe(200);
    expect(await drain(id)).toEqual([]);
  });

  it('rule: an asset of no family is news to a channel of both families only', async () => {
    const both = await channel('both');
    const creative = await channel('creative');
    await t.services.catalog.upsertAsset({ asset_type: 'image', id: 'nf1', fields: { title: 'No family', license_model: 'royaltyfree' } });
    expect((await drain(both.id)).map((n) => `${n.asset_lifecycle} ${n.id}`)).toEqual(['New nf1']);
    expect(await drain(creative.id)).toEqual([]);
  });

  it('rule: notices older than 60 days are dropped', async () => {
    const { id } = await channel('both');
    await putAsset(t.services, 'old');
    await putAsset(t.services, 'recent');
    const longAgo = new Date(Date.now() - 61 * DAY_MS).toISOString();
    await t.services.database.db.updateTable('change_log').set({ changed_at: longAgo }).where('entity_id', '=', 'old').execute();
    expect((await drain(id)).map((n) => n.id)).toEqual(['recent']);
  });

  it('rule: a registered asset’s changes reach every channel of the client of its type, whatever the family; unknown ids are not registered', async () => {
    const creative = await channel('creative');
    await putAsset(t.services, 'kept', { family: 'editorial' });
    await putAsset(t.services, 'other', { family: 'editorial' });
    expect(await drain(creative.id)).toEqual([]);

    const registered = await api.register({ asset_ids: ['kept', 'kept', 'nowhere'] });
    expect(registered.statusCode).toBe(200);
    expect(registered.json()).toEqual({ registered_asset_ids: ['kept'], invalid_assets: ['nowhere'] });
    expect((await api.register({ asset_ids: ['kept'] })).json()).toEqual({ registered_asset_ids: ['kept'], invalid_assets: [] });

    await putAsset(t.services, 'kept', { family: 'editorial', title: 'Changed' });
    await putAsset(t.services, 'other', { family: 'editorial', title: 'Changed' });
    expect((await drain(creative.id)).map((n) => `${n.asset_lifecycle} ${n.id}`)).toEqual(['Update kept']);
    await t.services.catalog.deleteAsset('image', 'kept');
    expect((await drain(creative.id)).map((n) => `${n.asset_lifecycle} ${n.id}`)).toEqual(['Delete kept']);

    // Another client's registrations are its own.
    const other = await partnerClient(t);
    const otherChannel = await channel('creative', 'image', other.clientId);
    await putAsset(t.services, 'theirs', { family: 'editorial' });
    await feed(t, other).register({ asset_ids: ['theirs'] });
    await putAsset(t.services, 'theirs', { family: 'editorial', title: 'Changed' });
    expect(await drain(creative.id)).toEqual([]);
    expect(await t.services.assetChanges.registeredCount(other.clientId)).toBe(1);
    expect(otherChannel.clientId).toBe(other.clientId);
  });

  it('rule: bad input gets a named 4xx — channel id, batch size, change set id, another client’s channel or set, no token, registration body', async () => {
    const { id } = await channel('both');
    await putAsset(t.services, 'a1');
    const code = async (response: Promise<{ statusCode: number; json(): unknown }>) => {
      const answered = await response;
      return `${answered.statusCode} ${(answered.json() as { code: string }).code}`;
    };
    expect(await code(api.handOut(''))).toBe('400 InvalidChannelIdException');
    expect(await code(api.handOut('channel_id=abc'))).toBe('400 InvalidChannelIdException');
    expect(await code(api.handOut('channel_id=1.5'))).toBe('400 InvalidChannelIdException');
    expect(await code(api.handOut('channel_id=0'))).toBe('400 InvalidChannelIdException');
    expect(await code(api.handOut(`channel_id=${id + 1000}`))).toBe('404 ChannelNotFound');
    expect(await code(api.handOut(`channel_id=${id}&batch_size=2201`))).toBe('400 InvalidParameterValue');
    expect(await code(api.handOut(`channel_id=${id}&batch_size=0`))).toBe('400 InvalidParameterValue');
    expect(await code(api.confirm('abc'))).toBe('400 InvalidChangeSetId');
    expect(await code(api.confirm('99999'))).toBe('404 ChangeSetNotFound');

    const set = setOf(await api.handOut(`channel_id=${id}`))!;
    const stranger = feed(t, await partnerClient(t, 'Stranger'));
    expect(await code(stranger.handOut(`channel_id=${id}`))).toBe('403 UnauthorizedToAccessResource');
    expect(await code(stranger.confirm(set.change_set_id))).toBe('403 UnauthorizedToAccessResource');
    // The stranger's refusal confirmed nothing.
    expect((await api.handOut(`channel_id=${id}`)).json()).toEqual(set);

    const noToken = await t.app.inject({ method: 'PUT', url: `/v3/asset-changes/change-sets?channel_id=${id}`, headers: { 'api-key': t.apiKey } });
    expect(noToken.statusCode).toBe(401);
    // A token of another client does not count for this key.
    const otherToken = await t.app.inject({
      method: 'GET',
      url: '/v3/asset-changes/channels',
      headers: { 'api-key': t.apiKey, authorization: `Bearer ${(await partnerClient(t, 'Third')).token}` },
    });
    expect(otherToken.statusCode).toBe(401);

    expect((await api.register({ asset_ids: [] })).statusCode).toBe(400);
    expect((await api.register({ asset_ids: Array.from({ length: 1001 }, (_, n) => `x${n}`) })).statusCode).toBe(400);
    expect(await code(api.register({ asset_ids: 'a1' }))).toBe('400 InvalidRequest');
    expect(await code(api.register({ asset_ids: [12345] }))).toBe('400 InvalidRequest');
    expect(await code(api.register({}))).toBe('400 InvalidRequest');
    expect(await code(api.register({ asset_ids: ['  '] }))).toBe('400 InvalidRequest');
  });

  it('rule: consumers of one channel at once are handed the same open set, and together see every notice exactly once', async () => {
    const { id } = await channel('both');
    const total = 230;
    for (let n = 0; n < total; n++) await putAsset(t.services, `n${n}`);

    // Ten hand-outs at once: one set is made, and all ten get it.
    const burst = await Promise.all(Array.from({ length: 10 }, () => api.handOut(`channel_id=${id}&batch_size=25`)));
    expect(burst.filter((response) => response.statusCode === 201)).toHaveLength(1);
    expect(new Set(burst.map((response) => setOf(response)!.change_set_id)).size).toBe(1);

    // Four consumers hand out and confirm until the channel is empty.
    const seen = new Map<string, string[]>();
    const consumer = async () => {
      for (;;) {
        const set = setOf(await api.handOut(`channel_id=${id}&batch_size=25`));
        if (!set) return;
        const ids = set.changed_assets.map((notice) => notice.id);
        const earlier = seen.get(set.change_set_id);
        if (earlier) expect(ids).toEqual(earlier);
        seen.set(set.change_set_id, ids);
        expect((await api.confirm(set.change_set_id)).statusCode).toBe(200);
      }
    };
    await Promise.all([consumer(), consumer(), consumer(), consumer()]);
    const all = [...seen.values()].flat();
    expect(all).toHaveLength(total);
    expect(new Set(all)).toEqual(new Set(Array.from({ length: total }, (_, n) => `n${n}`)));
  });
});

describe('the OpenAPI document describes the feed’s answers', () => {
  it('rule: hand-outs (201 and 200), the channel list and a registration validate against the document’s schemas', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const addFormats = (await import('ajv-formats')).default;
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const t = await createTestApp();
    try {
      const api = feed(t, { apiKey: t.apiKey, token: await t.issueToken() });
      const document = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json() as {
        paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
      };
      const check = (path: string, method: string, response: { statusCode: number; json(): unknown }) => {
        const schema = document.paths[path]![method]!.responses[String(response.statusCode)]!.content!['application/json']!.schema;
        const validate = ajv.compile(schema);
        expect(validate(response.json()), ajv.errorsText(validate.errors)).toBe(true);
      };
      const { id } = await t.services.assetChanges.createChannel({ clientId: t.clientId, assetFamily: 'both', assetType: 'image' });
      await putAsset(t.services, 'd1');
      await putAsset(t.services, 'd1', { title: 'Changed' });
      await t.services.catalog.deleteAsset('image', 'd1');
      await putAsset(t.services, 'd2');
      const created = await api.handOut(`channel_id=${id}`);
      expect(created.statusCode).toBe(201);
      check('/v3/asset-changes/change-sets', 'put', created);
      const again = await api.handOut(`channel_id=${id}`);
      expect(again.statusCode).toBe(200);
      check('/v3/asset-changes/change-sets', 'put', again);
      check('/v3/asset-changes/channels', 'get', await api.channels());
      check('/v3/asset-registrations', 'post', await api.register({ asset_ids: ['d2', 'none'] }));
    } finally {
      await t.close();
    }
  });
});
