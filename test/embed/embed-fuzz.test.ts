import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { addEmbedCatalog, EMBEDDABLE, NO_ORIGINAL, NOT_EMBEDDABLE, VIDEO } from './embed-fixtures.js';

/*
 * The keyless routes (oEmbed, the embed page, short links) take what any page on the web sends
 * them: odd percent-encoding, any Unicode, repeated or unknown parameters, long values, odd Host
 * headers. Whatever comes, the answer is a 2xx, 3xx or 4xx (or oEmbed's 501 for a format other than
 * json), never another 5xx, and a JSON error is
 * `{message, code}`. A fixed seed keeps CI repeatable; the conformance fuzzer does not reach these
 * routes (they are not in the OpenAPI document).
 */

const PUBLIC = 'http://stockroom.test';
const RUNS = 200;

/** Text as a hostile or clumsy client might send it: any Unicode, % signs, slashes, known ids. */
const oddText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.stringMatching(/^[%/.?#&=+;@:\\ a-f0-9]{0,30}$/),
  fc.constantFrom(EMBEDDABLE, NOT_EMBEDDABLE, VIDEO, 'nope', '', '%', '%ZZ', '%C0%AF', '..', '//', `${EMBEDDABLE}/x`),
  fc.string({ minLength: 190, maxLength: 3000 }),
);

/** The value of a parameter: a plausible one or anything. */
const parameterValue = (plausible: readonly string[]) => fc.oneof(fc.constantFrom(...plausible), oddText, fc.integer().map(String));

/** A value for `url`: mostly a short link of a known asset or with something odd after it, sometimes anything at all. */
const urlValue = (shortUrl: string) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(EMBEDDABLE, NOT_EMBEDDABLE, NO_ORIGINAL, VIDEO).map((id) => `${shortUrl}/${id}`) },
    { weight: 3, arbitrary: oddText.map((rest) => `${shortUrl}/${rest}`) },
    { weight: 2, arbitrary: oddText.map((rest) => `${shortUrl}/${encodeURIComponent(rest)}`) },
    { weight: 1, arbitrary: oddText },
    { weight: 1, arbitrary: fc.webUrl() },
  );

/**
 * A query that mostly gets past validation, so the odd `url` reaches the handler: one url, the
 * known parameters with plausible or odd values, and now and then an unknown or repeated one.
 * Each value is URL-encoded or sent raw.
 */
const queryString = (shortUrl: string) =>
  fc
    .record({
      url: urlValue(shortUrl),
      format: fc.option(parameterValue(['json', 'JSON', 'xml', '']), { freq: 2 }),
      caller: fc.option(oddText, { freq: 3 }),
      maxwidth: fc.option(parameterValue(['100', '612', '5000', '1e3', '-1', '0x64']), { freq: 2 }),
      maxheight: fc.option(parameterValue(['100', '300', '5000']), { freq: 3 }),
      dnt: fc.option(parameterValue(['1', '0', 'true']), { freq: 3 }),
      extra: fc.option(fc.array(fc.tuple(fc.oneof(fc.constantFrom('url', 'format', 'maxwidth'), fc.string({ maxLength: 8 })), oddText), { minLength: 1, maxLength: 3 }), {
        freq: 5,
      }),
      raw: fc.boolean(),
    })
    .map(({ extra, raw, ...known }) => {
      const pairs = [...Object.entries(known).filter((pair): pair is [string, string] => pair[1] !== null), ...(extra ?? [])];
      return pairs.map(([key, value]) => (raw ? `${key}=${value}` : `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)).join('&');
    });

/** A Host header: mostly the one the routes answer on, else odd spellings of hosts or anything. */
const hostHeader = (ownHost: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(ownHost) },
    { weight: 2, arbitrary: fc.constantFrom('stockroom.test', 'STOCKROOM.TEST', 'stockroom.test:80', 'stockroom.test.', 'embed.test', 'sho.rt', 'sho.rt:443', '[::1]', 'a@sho.rt', '') },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  );

interface Placement {
  name: string;
  env: Record<string, string>;
  embed: { prefix: string; host: string };
  short: { prefix: string; host: string; url: string };
}

describe.each<Placement>([
  { name: 'on the public URL', env: {}, embed: { prefix: '/embed', host: 'stockroom.test' }, short: { prefix: '/s', host: 'stockroom.test', url: `${PUBLIC}/s` } },
  {
    name: 'on hosts of their own',
    env: { STOCKROOM_EMBED_URL: 'https://embed.test', STOCKROOM_SHORT_URL: 'https://sho.rt' },
    embed: { prefix: '', host: 'embed.test' },
    short: { prefix: '', host: 'sho.rt', url: 'https://sho.rt' },
  },
])('the keyless embed routes never answer 5xx, $name', ({ env, embed, short }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: PUBLIC, ...env } });
    await addEmbedCatalog(t.services);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The answer's status and code; undefined when the request never reached the server. */
  async function send(url: string, host: string): Promise<string | undefined> {
    let response: LightMyRequestResponse;
    try {
      response = await t.app.inject({ method: 'GET', url, headers: host === '' ? {} : { host } });
    } catch (error) {
      // light-my-request refuses some URLs and headers before the server sees them (as Node's HTTP parser would).
      if (error instanceof TypeError || (error as { code?: string }).code === 'ERR_INVALID_CHAR') return undefined;
      throw error;
    }
    const what = `GET ${url} (Host: ${host}) → ${response.statusCode} ${response.body.slice(0, 300)}`;
    // 501 is oEmbed's answer to a format other than json; any other 5xx is a failure.
    const expected501 = response.statusCode === 501 && response.body.includes('"code":"FormatNotImplemented"');
    if (!expected501) expect(response.statusCode, what).toBeLessThan(500);
    if (response.statusCode < 400 || !String(response.headers['content-type']).startsWith('application/json')) return String(response.statusCode);
    const body = response.json<{ message: unknown; code: unknown }>();
    expect(body, what).toMatchObject({ message: expect.any(String), code: expect.any(String) });
    return `${response.statusCode} ${String(body.code)}`;
  }

  it('oEmbed, whatever the query and the Host', async () => {
    const seen = new Set<string | undefined>();
    await fc.assert(
      fc.asyncProperty(queryString(short.url), hostHeader(embed.host), async (query, host) => {
        seen.add(await send(`${embed.prefix}/oembed?${query}`, host));
      }),
      { numRuns: RUNS, seed: 1 },
    );
    // The odd values reached every outcome of the handler, not only the validation in front of it.
    expect([...seen]).toEqual(expect.arrayContaining(['200', '404 AssetNotFound', '404 AssetNotEmbeddable', '404 UnknownProviderUri', '400 IncorrectlyFormedUri', '501 FormatNotImplemented']));
  });

  it('the embed page and the short link, whatever the id (encoded or not) and the Host', async () => {
    const seen = new Set<string | undefined>();
    await fc.assert(
      fc.asyncProperty(oddText, fc.boolean(), hostHeader(short.host), async (id, encode, host) => {
        const segment = encode ? encodeURIComponent(id) : id.replace(/[\s#?]/g, encodeURIComponent);
        seen.add(await send(`${embed.prefix}/frame/${segment}`, host === short.host ? embed.host : host));
        seen.add(await send(`${short.prefix}/${segment}`, host));
        seen.add(await send(`${short.prefix}/${segment}/`, host));
      }),
      { numRuns: RUNS, seed: 1 },
    );
    expect([...seen]).toEqual(expect.arrayContaining(['200', '302', '404', '404 AssetNotFound']));
  });
});
