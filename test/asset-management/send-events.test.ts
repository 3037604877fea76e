import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES } from '../helpers/test-store.js';
import { addCatalog, createBoardsApp, type BoardsTestApp, type Person } from '../boards/boards-fixtures.js';
import { parseOffset, timeText } from '../../src/asset-management/asset-sends.service.js';

interface SendEventsBody {
  last_offset: string | null;
  asset_send_events: Array<{ timestamp: string; asset_id: string; email_address: string }>;
}

const FEED = '/v3/asset-management/assets/send-events';

describe('offsets of the send-event feed', () => {
  it('rule: times are written to the microsecond and read back from any RFC 3339 form', () => {
    const micros = Date.parse('2026-03-09T10:00:00.123Z') * 1000 + 456;
    expect(timeText(micros)).toBe('2026-03-09T10:00:00.123456Z');
    expect(parseOffset('2026-03-09T10:00:00.123456Z')).toBe(micros);
    expect(parseOffset('2026-03-09T12:00:00.123456789+02:00')).toBe(micros);
    expect(parseOffset('2026-03-09T10:00Z')).toBe(Date.parse('2026-03-09T10:00:00Z') * 1000);
    for (const bad of ['2026-03-09', '2026-03-09T10:00:00', 'yesterday', '2026-02-30T00:00:00Z']) expect(parseOffset(bad), bad).toBeUndefined();
  });
});

describe.each(STORES)('send events, on $name', ({ url }) => {
  let t: BoardsTestApp;
  let owner: Person;
  let boardId: string;
  const images = Array.from({ length: 120 }, (_, n) => `s${n}`);

  const feed = async (query = '', options: { apiKey?: string } = {}) => {
    const response = await t.call('GET', `${FEED}${query}`, options);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<SendEventsBody>();
  };

  beforeAll(async () => {
    t = await createBoardsApp(url);
    await addCatalog(t.services, images);
    owner = await t.person();
    boardId = (await t.services.boards.create(owner.userId, { name: 'Shortlist' })).id;
    await t.services.boards.addAssets(owner.userId, boardId, images.slice(0, 3));
  });
  afterAll(() => t.close());

  it('rule: sending a board records each of its assets for that person, and the client reads them in order', async () => {
    const response = await t.call('POST', `/v3/boards/${boardId}/sends`, { token: owner.token, body: { email_address: 'client@example.com' } });
    expect(response.statusCode, response.body).toBe(201);
    const sent = response.json<{ email_address: string; assets_sent: number; share_link: string }>();
    expect(sent).toEqual({ email_address: 'client@example.com', assets_sent: 3, share_link: expect.stringMatching(/^http:\/\/stockroom\.test\/shared\/boards\//) });

    const first = await feed();
    expect(first.asset_send_events.map((event) => [event.asset_id, event.email_address]).sort()).toEqual(
      images.slice(0, 3).map((id) => [id, 'client@example.com']),
    );
    const times = first.asset_send_events.map((event) => event.timestamp);
    expect(times).toEqual([...times].sort());
    // Timestamps in the spec's form, whole seconds; the offset is the feed's cursor, to the
    // microsecond (one send's assets share a second), and names the last event's instant.
    for (const time of times) expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(first.last_offset!.slice(0, 19)).toBe(times[2]!.slice(0, 19));
    // Nothing after the last one; the offset stays where it was.
    expect(await feed(`?last_offset=${encodeURIComponent(first.last_offset!)}`)).toEqual({ last_offset: first.last_offset, asset_send_events: [] });
  });

  it('rule: pages of event_count never lose or repeat an event, even when every send happens at the same instant', async () => {
    const big = (await t.services.boards.create(owner.userId, { name: 'Everything' })).id;
    await t.services.boards.addAssets(owner.userId, big, images.slice(0, 100));
    await t.services.boards.addAssets(owner.userId, big, images.slice(100));
    const before = (await feed('?event_count=100')).last_offset!;
    // The clock is held still: two sends of 120 assets each fall on one instant.
    await Promise.all([
      t.call('POST', `/v3/boards/${big}/sends`, { token: owner.token, body: { email_address: 'a@example.com' } }),
      t.call('POST', `/v3/boards/${big}/sends`, { token: owner.token, body: { email_address: 'b@example.com' } }),
    ]);
    const seen: SendEventsBody['asset_send_events'] = [];
    let offset = before;
    for (let page = 0; page < 10; page++) {
      const body = await feed(`?event_count=50&last_offset=${encodeURIComponent(offset)}`);
      if (body.asset_send_events.length === 0) break;
      expect(body.asset_send_events.length).toBeLessThanOrEqual(50);
      seen.push(...body.asset_send_events);
      offset = body.last_offset!;
    }
    expect(seen).toHaveLength(240);
    expect(new Set(seen.map((event) => `${event.email_address} ${event.asset_id}`)).size).toBe(240);
    for (const email of ['a@example.com', 'b@example.com']) {
      expect(seen.filter((event) => event.email_address === email).map((event) => event.asset_id).sort()).toEqual([...images].sort());
    }
  });

  it('rule: a client reads only the sends made through it', async () => {
    const other = await t.services.clients.create({ name: 'Another application', queriesPerSecond: 1000, queriesPerDay: 100_000 });
    expect(await feed('', { apiKey: other.apiKey })).toEqual({ last_offset: null, asset_send_events: [] });
  });

  it('rule: event_count outside 1–100 is 400 EventCountOutOfRange; an offset without a zone is 400 naming last_offset', async () => {
    for (const count of ['0', '101', 'ten', '1.5']) {
      const response = await t.call('GET', `${FEED}?event_count=${count}`);
      expect(response.statusCode, count).toBe(400);
      expect(response.json().code).toBe('EventCountOutOfRange');
    }
    const response = await t.call('GET', `${FEED}?last_offset=2026-03-09T10:00:00`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining('last_offset') });
  });

  it('rule: only the owner sends a board; a bad address is 400 naming email_address; nothing is recorded for a refusal', async () => {
    const before = (await feed('?event_count=100')).asset_send_events.length;
    const editor = await t.person();
    const { links } = (await t.call('GET', `/v3/boards/${boardId}`, { token: owner.token })).json<{ links: { invitation: string } }>();
    await t.services.boards.acceptInvitation(editor.userId, links.invitation.split('/').pop()!);
    const stranger = await t.person();
    const send = (token: string | null, email = 'x@example.com') => t.call('POST', `/v3/boards/${boardId}/sends`, { token, body: { email_address: email } });

    expect((await send(editor.token)).json()).toMatchObject({ code: 'InsufficientAccess' });
    expect((await send(stranger.token)).statusCode).toBe(404);
    expect((await send(null)).statusCode).toBe(401);
    expect((await send(await t.clientToken())).json()).toMatchObject({ code: 'UserTokenRequired' });
    for (const email of ['not-an-address', 'a@b', `${'x'.repeat(65)}@example.com`, 'two@@example.com']) {
      const response = await send(owner.token, email);
      expect(response.statusCode, email).toBe(400);
      expect(response.json().message).toContain('email_address');
    }
    expect((await feed('?event_count=100')).asset_send_events.length).toBe(before);
  });
});
