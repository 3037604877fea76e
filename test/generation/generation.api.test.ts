import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { STORES } from '../helpers/test-store.js';
import { addAssets, creativeImageFields } from '../licensing/licensing-fixtures.js';
import { DrawingEngine } from './drawing-engine.js';
import { createGenerationApp, settle, type GenerationTestApp, type Person } from './generation-fixtures.js';

interface Answer {
  generation_request_id: string;
  seed: number;
  results: Array<{ index: number; is_blocked: boolean; preview_urls: Array<{ preview_size: string; image_url: string; width: number; height: number }> }>;
  original_asset: { id: string | null };
}

describe.each(STORES)('generation, on $name', ({ url }) => {
  let t: GenerationTestApp;
  const engine = new DrawingEngine();

  beforeAll(async () => {
    t = await createGenerationApp(url, { builtin: engine }, { STOCKROOM_GENERATION_BLOCKED_TERMS: 'forbidden thing,gore', STOCKROOM_GENERATION_MAX_PER_USER: '2' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function customer(grant: Record<string, unknown> = {}, team?: string): Promise<Person & { productId: number }> {
    const person = await t.person(team === undefined ? {} : { team });
    const product = await t.services.products.grant({ userId: person.userId, type: 'aigen', ...grant });
    return { ...person, productId: product.id };
  }
  const generate = (as: Person, body: Record<string, unknown>, contentType?: string) =>
    t.call('POST', '/v3/ai/image-generations', { token: as.token, body, ...(contentType ? { contentType } : {}) });

  it('text to image: 200 with four watermarked 612 px previews behind signed URLs, the seed, nothing blocked', async () => {
    const alice = await customer();
    const response = await generate(alice, { prompt: 'a red barn at dawn', seed: 42, aspect_ratio: '16:9' });
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json<Answer>();
    expect(answer.seed).toBe(42);
    expect(answer.results).toHaveLength(4);
    expect(answer.results.map((result) => result.is_blocked)).toEqual([false, false, false, false]);
    const preview = answer.results[0]!.preview_urls[0]!;
    expect(preview).toMatchObject({ width: 612, height: 344 });
    const file = await t.app.inject({ method: 'GET', url: preview.image_url.replace('http://stockroom.test', '') });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(file.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([612, 344]);
    const tampered = await t.app.inject({ method: 'GET', url: preview.image_url.replace('http://stockroom.test', '').replace('/0.jpg', '/1.jpg') });
    expect(tampered.statusCode).toBe(403);
    // Polling a finished request gives the same answer.
    const polled = await t.call('GET', `/v3/ai/image-generations/${answer.generation_request_id}`, { token: alice.token });
    expect(polled.statusCode).toBe(200);
    expect(polled.json<Answer>().results).toHaveLength(4);
  });

  it('text to image under /beta, which the spec keeps during the move to v3, answers as under /v3 and is polled there', async () => {
    const alice = await customer();
    const body = { prompt: 'a red barn at dawn', seed: 42, aspect_ratio: '16:9' };
    const beta = await t.call('POST', '/beta/ai/image-generations', { token: alice.token, body });
    expect(beta.statusCode, beta.body).toBe(200);
    const answer = beta.json<Answer>();
    const v3 = (await generate(alice, body)).json<Answer>();
    expect(answer.seed).toBe(v3.seed);
    expect(answer.results.map((result) => [result.index, result.is_blocked, result.preview_urls.map(({ width, height }) => [width, height])])).toEqual(
      v3.results.map((result) => [result.index, result.is_blocked, result.preview_urls.map(({ width, height }) => [width, height])]),
    );
    const polled = await t.call('GET', `/beta/ai/image-generations/${answer.generation_request_id}`, { token: alice.token });
    expect(polled.statusCode).toBe(200);
    expect(polled.json<Answer>().generation_request_id).toBe(answer.generation_request_id);
    // The same rules: a token is required, an AI product too, and the body is checked.
    expect((await t.call('POST', '/beta/ai/image-generations', { body })).statusCode).toBe(401);
    expect((await t.call('POST', '/beta/ai/image-generations', { token: (await t.person()).token, body })).json()).toMatchObject({ code: 'AiGenerationProductRequired' });
    expect((await t.call('POST', '/beta/ai/image-generations', { token: alice.token, body: {} })).json()).toMatchObject({ code: 'InvalidParameterValue' });
    // The history is one: both requests are in it, whichever path made them.
    const history = (await t.call('GET', '/beta/ai/generation-history', { token: alice.token })).json<{ generations: Array<{ generation_request_id: string }> }>();
    expect(history.generations.map((item) => item.generation_request_id)).toEqual(expect.arrayContaining([answer.generation_request_id, v3.generation_request_id]));
  });

  it('takes text/json and application/*+json bodies too', async () => {
    const alice = await customer();
    expect((await generate(alice, { prompt: 'a fox' }, 'text/json')).statusCode).toBe(200);
    expect((await generate(alice, { prompt: 'a fox' }, 'application/vnd.partner+json')).statusCode).toBe(200);
  });

  it('refuses a missing prompt, an unknown aspect ratio, a client token and a user without an AI product', async () => {
    const alice = await customer();
    expect((await generate(alice, {})).json()).toMatchObject({ code: 'InvalidParameterValue' });
    expect((await generate(alice, { prompt: 'x', aspect_ratio: '2:1' })).statusCode).toBe(400);
    // Bodies are typed as sent (the typed-body validator, no coercion): a number is not a prompt, nor text an index.
    const typed = await generate(alice, { prompt: 12345 });
    expect(typed.statusCode).toBe(400);
    expect(typed.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'prompt'") });
    const textIndex = await t.call('POST', '/v3/ai/image-generations/background-removal', { token: alice.token, body: { reference_generation: { generation_request_id: 'f'.repeat(32), index: '0' } } });
    expect(textIndex.statusCode).toBe(400);
    expect(textIndex.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'reference_generation'") });
    const redownload = await t.call('POST', '/v3/ai/redownloads', { token: alice.token, body: { generated_asset_id: `${'f'.repeat(32)}-0`, product_id: '1', size_name: '1k' } });
    expect(redownload.json()).toMatchObject({ code: 'InvalidParameterValue', message: expect.stringContaining("'product_id'") });
    const plain = await t.person();
    const refused = await generate(plain, { prompt: 'a fox' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'AiGenerationProductRequired' });
  });

  it('product_id is required with several AI products, must be one of them, and the project code rules apply', async () => {
    const bob = await customer();
    const second = await t.services.products.grant({ userId: bob.userId, type: 'aigen', projectCodeRequired: true, projectCodes: ['P1'] });
    expect((await generate(bob, { prompt: 'a fox' })).json()).toMatchObject({ code: 'InvalidProduct' });
    expect((await generate(bob, { prompt: 'a fox', product_id: 999_999 })).json()).toMatchObject({ code: 'InvalidProduct' });
    expect((await generate(bob, { prompt: 'a fox', product_id: second.id })).json()).toMatchObject({ code: 'ProjectCodeRequired' });
    expect((await generate(bob, { prompt: 'a fox', product_id: second.id, project_code: 'P2' })).statusCode).toBe(400);
    expect((await generate(bob, { prompt: 'a fox', product_id: second.id, project_code: 'P1' })).statusCode).toBe(200);
    expect((await generate(bob, { prompt: 'a fox', product_id: bob.productId, project_code: 'P1' })).json()).toMatchObject({ code: 'InvalidParameterValue' });
    const products = await t.call('GET', '/v3/products', { token: bob.token });
    const listed = products.json<{ products: Array<{ id: number; ai_gen_requirements?: unknown }> }>().products;
    expect(listed.find((p) => p.id === second.id)?.ai_gen_requirements).toEqual({ is_note_required: false, is_project_code_required: true, project_codes: ['P1'], asset_edit_cost: 1 });
  });

  it('an allowance used up is 403 ProductQuotaExceeded; a failed job gives its charge back', async () => {
    const carol = await customer({ generations: 2, period: 'month' });
    const failed = await generate(carol, { prompt: 'please fail now' });
    expect(failed.statusCode, failed.body).toBe(502);
    expect(failed.json()).toMatchObject({ code: 'GenerationFailed' });
    expect((await generate(carol, { prompt: 'one' })).statusCode).toBe(200);
    expect((await generate(carol, { prompt: 'two' })).statusCode).toBe(200);
    const refused = await generate(carol, { prompt: 'three' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'ProductQuotaExceeded' });
    const history = await t.call('GET', '/v3/ai/generation-history', { token: carol.token });
    const items = history.json<{ result_count: number; generations: Array<{ status: string; failure: string | null; prompt: string }> }>();
    expect(items.result_count).toBe(3);
    expect(items.generations.at(-1)).toMatchObject({ status: 'failed', failure: 'the test server refused the prompt', prompt: 'please fail now' });
  });

  it('a prompt with a blocked term gets blocked results and no pixels; the engine never runs', async () => {
    const dave = await customer();
    const before = engine.runs;
    const response = await generate(dave, { prompt: 'a FORBIDDEN   thing in a field' });
    expect(response.statusCode).toBe(200);
    const answer = response.json<Answer>();
    expect(answer.results.every((result) => result.is_blocked && result.preview_urls.length === 0)).toBe(true);
    expect(engine.runs).toBe(before);
    expect((await generate(dave, { prompt: 'goretex jacket' })).json<Answer>().results[0]!.is_blocked).toBe(false);
  });

  it('an operation no configured engine does is 503 naming the setting, and charges nothing', async () => {
    const erin = await customer({ generations: 1 });
    const first = (await generate(erin, { prompt: 'a cat' })).json<Answer>();
    const response = await t.call('POST', '/v3/ai/image-generations/extend', {
      token: erin.token,
      body: { reference_generation: { generation_request_id: first.generation_request_id, index: 0 }, left_percentage: 10 },
    });
    expect(response.statusCode, response.body).toBe(503);
    expect(response.json<{ message: string }>().message).toContain('STOCKROOM_GENERATION_SERVER');
  });

  it('background removal of an earlier result and of a licensed catalogue image; exactly one reference', async () => {
    const frank = await customer();
    const first = (await generate(frank, { prompt: 'a cat', seed: 7 })).json<Answer>();
    const removal = (body: Record<string, unknown>) => t.call('POST', '/v3/ai/image-generations/background-removal', { token: frank.token, body });
    const fromResult = await removal({ reference_generation: { generation_request_id: first.generation_request_id, index: 1 } });
    expect(fromResult.statusCode, fromResult.body).toBe(200);
    expect(fromResult.json<Answer>().results).toHaveLength(1);
    const history = await t.call('GET', `/v3/ai/generation-history/${fromResult.json<Answer>().generation_request_id}`, { token: frank.token });
    expect(history.json()).toMatchObject({
      generation_type: 'background_removal',
      source_generation_request: { source_generation_request_id: first.generation_request_id, source_generation_result_index: 1 },
    });

    expect((await removal({})).json()).toMatchObject({ code: 'InvalidReference' });
    expect((await removal({ reference_asset_id: 'g1', reference_generation: { generation_request_id: first.generation_request_id, index: 0 } })).json()).toMatchObject({ code: 'InvalidReference' });
    expect((await removal({ reference_generation: { generation_request_id: first.generation_request_id, index: 9 } })).statusCode).toBe(404);
    expect((await removal({ reference_asset_id: 'no-such-image' })).statusCode).toBe(404);

    await addAssets(t.services, 'image', ['g1'], creativeImageFields());
    const unlicensed = await removal({ reference_asset_id: 'g1' });
    expect(unlicensed.statusCode).toBe(403);
    expect(unlicensed.json()).toMatchObject({ code: 'AssetNotLicensed' });
    await t.services.products.grant({ userId: frank.userId, type: 'premiumaccess' });
    await t.services.downloads.download({ grant: { clientId: t.clientId, userId: frank.userId, issuedAt: new Date() }, assetType: 'image', assetId: 'g1', useTeamCredits: false });
    const licensed = await removal({ reference_asset_id: 'g1' });
    expect(licensed.statusCode, licensed.body).toBe(200);
    expect(licensed.json<Answer>().original_asset).toEqual({ id: 'g1' });
  });

  it('each operation’s body is judged by the schema it documents, in words that name what is wrong', async () => {
    const gina = await customer();
    const first = (await generate(gina, { prompt: 'a cat' })).json<Answer>();
    const earlier = { generation_request_id: first.generation_request_id, index: 0 };
    const post = (operation: string, body?: Record<string, unknown>) => t.call('POST', `/v3/ai/image-generations/${operation}`, { token: gina.token, ...(body ? { body } : {}) });
    const refused = async (operation: string, body: Record<string, unknown>, expected: { code: string; message: string | RegExp }) => {
      const response = await post(operation, body);
      expect(response.statusCode, `${operation} ${JSON.stringify(body)}`).toBe(400);
      const message = typeof expected.message === 'string' ? expected.message : expect.stringMatching(expected.message);
      expect(response.json(), `${operation} ${JSON.stringify(body)}`).toEqual({ code: expected.code, message });
    };
    const ASSET_OR_GENERATION = { code: 'InvalidReference', message: 'Give exactly one reference: reference_asset_id or reference_generation' };
    const ANY_REFERENCE = { code: 'InvalidReference', message: 'Give exactly one reference: reference_asset_id, reference_generation or reference_file_registration_id' };
    // Exactly one reference: none, two, or only nulls and blanks is InvalidReference, whatever else is wrong.
    for (const operation of ['refine', 'extend', 'background-removal', 'object-removal']) {
      await refused(operation, {}, ASSET_OR_GENERATION);
      await refused(operation, { reference_asset_id: 'g1', reference_generation: earlier, left_percentage: 10, mask_url: 'x' }, ASSET_OR_GENERATION);
      await refused(operation, { reference_asset_id: '  ', reference_generation: null }, ASSET_OR_GENERATION);
      // A file registration is not a reference these operations take.
      await refused(operation, { reference_file_registration_id: `fr_${'0'.repeat(32)}` }, ASSET_OR_GENERATION);
    }
    for (const operation of ['influence-color-by-image', 'influence-composition-by-image']) {
      await refused(operation, { prompt: 'x', noise_level: 0.5, influence_level: 0.5 }, ANY_REFERENCE);
      await refused(operation, { prompt: 'x', noise_level: 0.5, influence_level: 0.5, reference_generation: earlier, reference_file_registration_id: 'fr_1' }, ANY_REFERENCE);
    }
    // A reference of the wrong kind of value is named as such, not as a count of references.
    await refused('background-removal', { reference_asset_id: 5 }, { code: 'InvalidParameterValue', message: /^Invalid value for parameter 'reference_asset_id'/ });
    await refused('background-removal', { reference_generation: { index: 0 } }, { code: 'InvalidParameterValue', message: "Missing required parameter 'generation_request_id'" });
    // Required fields, ranges and the extend rule.
    await refused('refine', { reference_generation: earlier }, { code: 'InvalidParameterValue', message: "Missing required parameter 'mask_url'" });
    await refused('object-removal', { reference_generation: earlier, mask_url: ' ' }, { code: 'InvalidParameterValue', message: "Missing required parameter 'mask_url'" });
    await refused('influence-color-by-image', { reference_generation: earlier, prompt: 'x' }, { code: 'InvalidParameterValue', message: "Missing required parameter 'noise_level'" });
    await refused('influence-color-by-image', { reference_generation: earlier, prompt: 'x', noise_level: 2 }, { code: 'InvalidParameterValue', message: /^Invalid value for parameter 'noise_level': '2' is not a number from 0 to 1/ });
    await refused('influence-composition-by-image', { reference_generation: earlier, influence_level: 0.5 }, { code: 'InvalidParameterValue', message: "Missing required parameter 'prompt'" });
    await refused('extend', { reference_generation: earlier, left_percentage: 0, top_percentage: null }, { code: 'InvalidParameterValue', message: 'At least one of left, right, top and bottom_percentage must be above 0' });
    await refused('extend', { reference_generation: earlier, left_percentage: 150 }, { code: 'InvalidParameterValue', message: /^Invalid value for parameter 'left_percentage'/ });
    expect((await generate(gina, { prompt: '   ' })).json()).toEqual({ code: 'InvalidParameterValue', message: "Missing required parameter 'prompt'" });
    // Every body takes only its own fields (the contract's object schemas allow no others): a text
    // prompt that names a catalogue image is refused, not charged as an edit of that image.
    expect((await generate(gina, { prompt: 'a cat', reference_asset_id: '1000001' })).json()).toEqual({ code: 'MalformedRequest', message: "Unknown parameter 'reference_asset_id'" });
    await refused('refine', { reference_generation: earlier, mask_url: 'x', left_percentage: 10 }, { code: 'MalformedRequest', message: "Unknown parameter 'left_percentage'" });
    await refused('background-removal', { reference_generation: { ...earlier, seed: 1 } }, { code: 'MalformedRequest', message: "Unknown parameter 'seed'" });
    const background = await t.call('POST', '/beta/ai/image-generations/background-generations', { token: gina.token, body: { prompt: 'a beach' } });
    expect(background.json()).toEqual({ code: 'InvalidParameterValue', message: "Missing required parameter 'reference_file_registration_id'" });
    expect((await post('refine')).json()).toEqual({ code: 'InvalidParameterValue', message: 'This request needs a JSON body' });
    // A null reference is an absent one: the other is the reference.
    const removal = await post('background-removal', { reference_asset_id: null, reference_generation: earlier });
    expect(removal.statusCode, removal.body).toBe(200);
  });

  it('another user’s request is 403; an unknown one 404; after the retention 410', async () => {
    const gina = await customer();
    const other = await customer();
    const answer = (await generate(gina, { prompt: 'a boat' })).json<Answer>();
    expect((await t.call('GET', `/v3/ai/image-generations/${answer.generation_request_id}`, { token: other.token })).statusCode).toBe(403);
    expect((await t.call('GET', `/v3/ai/image-generations/${'0'.repeat(32)}`, { token: gina.token })).statusCode).toBe(404);
    const row = await t.services.database.db.selectFrom('generation_requests').select(['created_at', 'expires_at']).where('id', '=', answer.generation_request_id).executeTakeFirstOrThrow();
    // Six months by default (STOCKROOM_GENERATION_RETENTION_DAYS): the day before it ends, the results are there.
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(183 * 86_400_000);
    await t.services.database.db.updateTable('generation_requests').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', answer.generation_request_id).execute();
    const gone = await t.call('GET', `/v3/ai/image-generations/${answer.generation_request_id}`, { token: gina.token });
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ code: 'GenerationRequestGone' });
    const preview = answer.results[0]!.preview_urls[0]!.image_url.replace('http://stockroom.test', '');
    expect((await t.app.inject({ method: 'GET', url: preview })).statusCode).toBe(404);
  });

  it('history: pages, dates, product_ids, and a team’s with company_generations', async () => {
    const team = `team-${Math.random().toString(36).slice(2)}`;
    const hana = await customer({}, team);
    const ivan = await customer({}, team);
    await generate(hana, { prompt: 'one', media_type: 'photography' });
    await generate(hana, { prompt: 'two', media_type: 'illustration' });
    await generate(ivan, { prompt: 'three' });
    const page = await t.call('GET', '/v3/ai/generation-history?page_size=1&page=2', { token: hana.token });
    expect(page.json()).toMatchObject({ result_count: 2, generations: [{ prompt: 'one' }] });
    expect((await t.call('GET', '/v3/ai/generation-history?media_type=illustration', { token: hana.token })).json()).toMatchObject({ result_count: 1 });
    expect((await t.call('GET', `/v3/ai/generation-history?product_ids=${ivan.productId}`, { token: hana.token })).json()).toMatchObject({ result_count: 0 });
    expect((await t.call('GET', '/v3/ai/generation-history?company_generations=true', { token: hana.token })).json()).toMatchObject({ result_count: 3 });
    expect((await t.call('GET', '/v3/ai/generation-history?date_start=2999-01-01', { token: hana.token })).json()).toMatchObject({ result_count: 0 });
    expect((await t.call('GET', '/v3/ai/generation-history?date_start=yesterday', { token: hana.token })).statusCode).toBe(400);
    const loner = await customer();
    expect((await t.call('GET', '/v3/ai/generation-history?company_generations=true', { token: loner.token })).statusCode).toBe(403);
  });
});

describe.each(STORES)('generation jobs, on $name', ({ url }) => {
  let t: GenerationTestApp;
  const engine = new DrawingEngine(['generate', 'remove_background'], 300);

  beforeAll(async () => {
    t = await createGenerationApp(url, { builtin: engine }, { STOCKROOM_GENERATION_WAIT_MS: '0', STOCKROOM_GENERATION_MAX_PER_USER: '2' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('202 with the id, 202 while pending, then 200; a third running request of one user is 429', async () => {
    const person = await t.person();
    await t.services.products.grant({ userId: person.userId, type: 'aigen' });
    const first = await t.call('POST', '/v3/ai/image-generations', { token: person.token, body: { prompt: 'slow' } });
    expect(first.statusCode).toBe(202);
    const id = first.json<{ generation_request_id: string }>().generation_request_id;
    expect((await t.call('POST', '/v3/ai/image-generations', { token: person.token, body: { prompt: 'slow too' } })).statusCode).toBe(202);
    const third = await t.call('POST', '/v3/ai/image-generations', { token: person.token, body: { prompt: 'one too many' } });
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({ code: 'TooManyConcurrentGenerations' });
    expect((await t.call('GET', `/v3/ai/image-generations/${id}`, { token: person.token })).statusCode).toBe(202);
    const done = await settle(t, id, person.token);
    expect(done.statusCode).toBe(200);
    expect(done.json<Answer>().results).toHaveLength(4);
  });
});
