import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineFailedError } from '../../../../src/generation/engines/engine.js';
import { OpenAIImagesEngine } from '../../../../src/generation/engines/openai.js';
import { closedPortUrl, expectPng } from './expectations.js';
import { TEST_API_KEY, startOpenAIServer } from './openai-server.js';
import type { OpenAITestServer } from './openai-server.js';
import { cutOut, jpegMask, pictureOf } from './test-server.js';

let server: OpenAITestServer;

beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(() => server.close());

const engineFor = (model: string, extra: Partial<ConstructorParameters<typeof OpenAIImagesEngine>[0]> = {}) =>
  new OpenAIImagesEngine({ url: server.url, apiKey: TEST_API_KEY, model, timeoutMs: 10_000, ...extra });
const lastCall = () => server.calls.at(-1)!;
const alphaAt = (call: typeof server.calls[number], x: number, y: number) => call.mask!.pixels[(y * call.mask!.width + x) * 4 + 3];

describe('OpenAI-compatible Images engine', () => {
  it('text to image posts the prompt, its style and what to avoid, at the accepted size nearest in shape, without response_format for gpt-image models', async () => {
    const result = await engineFor('gpt-image-1').run({
      operation: 'generate',
      prompt: 'a lighthouse',
      negativePrompt: 'people',
      style: { mood: 'warm' },
      seed: 77,
      count: 2,
      width: 1200,
      height: 800,
    });
    expect(lastCall()).toMatchObject({ endpoint: 'generations', fields: { model: 'gpt-image-1', prompt: 'a lighthouse, warm tones. Avoid: people', n: '2', size: '1536x1024' } });
    expect(lastCall().fields.response_format).toBeUndefined();
    expect(result.pictures.map((picture) => picture.seed)).toEqual([77, 77]);
    for (const picture of result.pictures) await expectPng(picture.data, 1200, 800);
  });

  it('asks for b64_json where the model takes response_format, and one picture per request where the model makes one at a time', async () => {
    const before = server.calls.length;
    const result = await engineFor('dall-e-3').run({ operation: 'generate', prompt: 'a fox', seed: 1, count: 2, width: 1024, height: 1024 });
    const calls = server.calls.slice(before);
    expect(calls.map((call) => call.fields)).toEqual([
      expect.objectContaining({ n: '1', size: '1024x1024', response_format: 'b64_json' }),
      expect.objectContaining({ n: '1', size: '1024x1024', response_format: 'b64_json' }),
    ]);
    expect(result.pictures).toHaveLength(2);
  });

  it('refine sends the picture fitted on the smallest square canvas that holds it for dall-e-2 and a PNG mask transparent exactly where the JPEG mask is white', async () => {
    const source = { data: await pictureOf(400, 200, '#556b2f', 'jpeg'), mediaType: 'image/jpeg' as const };
    const mask = { data: await jpegMask(400, 200, { left: 100, top: 50, width: 100, height: 50 }), mediaType: 'image/jpeg' as const };
    const result = await engineFor('dall-e-2').run({ operation: 'refine', source, mask, prompt: 'a red kite', seed: 4, count: 1 });
    const call = lastCall();
    expect(call).toMatchObject({ endpoint: 'edits', fields: { prompt: 'a red kite', size: '512x512', response_format: 'b64_json' } });
    expect([call.image!.width, call.mask!.width, call.mask!.channels]).toEqual([512, 512, 4]);
    // 400x200 scaled to 512x256, centred: the picture spans rows 128..383, the mask's rectangle x 128..255, y 192..255.
    expect(alphaAt(call, 190, 220)).toBe(0);
    expect(alphaAt(call, 50, 220)).toBe(255);
    expect(alphaAt(call, 190, 50)).toBe(255);
    expect(alphaAt(call, 190, 450)).toBe(255);
    await expectPng(result.pictures[0]!.data, 400, 200);
  });

  it('object removal is an edit of the masked area with the removal prompt', async () => {
    const source = { data: await pictureOf(256, 256), mediaType: 'image/png' as const };
    const mask = { data: await jpegMask(256, 256, { left: 96, top: 96, width: 64, height: 64 }), mediaType: 'image/jpeg' as const };
    const result = await engineFor('gpt-image-1').run({ operation: 'remove_object', source, mask, seed: 0, count: 4 });
    expect(lastCall().endpoint).toBe('edits');
    expect(lastCall().fields.prompt).toMatch(/background/);
    // The four fills the API answers are asked of the model as n pictures of one edit.
    expect(result.pictures).toHaveLength(4);
    expect(alphaAt(lastCall(), 512, 512)).toBe(0);
    expect(alphaAt(lastCall(), 50, 50)).toBe(255);
    await expectPng(result.pictures[0]!.data, 256, 256);
  });

  it('extend edits the grown canvas with the new area transparent and returns the grown picture', async () => {
    const source = { data: await pictureOf(512, 512), mediaType: 'image/png' as const };
    const result = await engineFor('gpt-image-1').run({ operation: 'extend', source, margins: { left: 256, right: 0, top: 0, bottom: 0 }, seed: 2, count: 1 });
    const call = lastCall();
    expect(call.fields.size).toBe('1536x1024');
    expect(alphaAt(call, 100, 500)).toBe(0);
    expect(alphaAt(call, 1000, 500)).toBe(255);
    await expectPng(result.pictures[0]!.data, 768, 512);
  });

  it('background generation edits where the cut-out is transparent', async () => {
    const source = { data: await cutOut(300, 300), mediaType: 'image/png' as const };
    await engineFor('gpt-image-1').run({ operation: 'generate_background', source, prompt: 'a beach', seed: 2, count: 1 });
    expect(alphaAt(lastCall(), 10, 10)).toBe(0);
    expect(alphaAt(lastCall(), 512, 512)).toBe(255);
  });

  it('variations go to /v1/images/variations where the model has them; gpt-image-1 has none and says so', async () => {
    const source = { data: await pictureOf(300, 300), mediaType: 'image/png' as const };
    const result = await engineFor('dall-e-2').run({ operation: 'variations', source, seed: 8, count: 3 });
    expect(lastCall()).toMatchObject({ endpoint: 'variations', fields: { n: '3', size: '512x512' } });
    expect(result.pictures).toHaveLength(3);
    await expectPng(result.pictures[0]!.data, 300, 300);
    const gptImage = engineFor('gpt-image-1');
    expect(gptImage.supports('variations')).toBe(false);
    await expect(gptImage.run({ operation: 'variations', source, seed: 8, count: 1 })).rejects.toThrow(/openai \(gpt-image-1\) does not serve variations/);
  });

  it('serves no background removal, upscale or influence operation; a server of another model name takes any size in steps of 64', async () => {
    const local = engineFor('stablediffusion');
    for (const operation of ['remove_background', 'upscale', 'influence_color', 'influence_composition'] as const) expect(local.supports(operation)).toBe(false);
    const result = await local.run({ operation: 'generate', prompt: 'a tree', seed: 1, count: 1, width: 1000, height: 600 });
    expect(lastCall().fields).toMatchObject({ size: '1024x576', response_format: 'b64_json' });
    await expectPng(result.pictures[0]!.data, 1000, 600);
  });

  it('a base URL ending in /v1 is used as it is', async () => {
    await new OpenAIImagesEngine({ url: `${server.url}/v1`, apiKey: TEST_API_KEY, model: 'dall-e-2', timeoutMs: 5000 }).run({
      operation: 'generate',
      prompt: 'x',
      seed: 1,
      count: 1,
      width: 512,
      height: 512,
    });
    expect(lastCall().fields.size).toBe('512x512');
  });
});

describe('OpenAI-compatible engine failures', () => {
  const request = { operation: 'generate' as const, prompt: 'x', seed: 1, count: 1, width: 64, height: 64 };

  it('an error answer becomes EngineFailedError with the status and the error message', async () => {
    const failure = await new OpenAIImagesEngine({ url: server.url, apiKey: 'sk-wrong', timeoutMs: 5000 }).run(request).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EngineFailedError);
    expect((failure as Error).message).toMatch(/openai at http:\/\/127\.0\.0\.1:\d+\/v1: answered 401 to POST \/v1\/images\/generations: Incorrect API key provided\./);
  });

  it('an answer with URLs instead of b64_json, or too few pictures, fails saying what was wrong', async () => {
    server.routes.set('POST /v1/images/generations', () => ({ json: { created: 1, data: [{ url: 'https://example.test/a.png' }] } }));
    await expect(engineFor('dall-e-2').run(request)).rejects.toThrow(/answered a URL instead of b64_json/);
    server.routes.set('POST /v1/images/generations', () => ({ json: { created: 1, data: [] } }));
    await expect(engineFor('dall-e-2').run(request)).rejects.toThrow(/answered 0 pictures where 1 were asked/);
    server.routes.delete('POST /v1/images/generations');
  });

  it('a slow server fails at the time limit, an unreachable one naming its URL', async () => {
    server.routes.set('POST /v1/images/generations', () => ({ delayMs: 2000, json: {} }));
    try {
      await expect(engineFor('dall-e-2', { timeoutMs: 300 }).run(request)).rejects.toThrow(/no answer to POST \/v1\/images\/generations within 0\.3 s/);
    } finally {
      server.routes.delete('POST /v1/images/generations');
    }
    const url = await closedPortUrl();
    await expect(new OpenAIImagesEngine({ url, timeoutMs: 5000 }).run(request)).rejects.toThrow(`openai at ${url}/v1: cannot be reached`);
  });

  it('a configured size that is not WIDTHxHEIGHT is refused at construction', () => {
    expect(() => engineFor('x', { sizes: ['large'] })).toThrow(/size "large" is not WIDTHxHEIGHT/);
  });
});
