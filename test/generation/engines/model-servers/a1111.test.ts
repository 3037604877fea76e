import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A1111Engine } from '../../../../src/generation/engines/a1111.js';
import { EngineFailedError } from '../../../../src/generation/engines/engine.js';
import { startA1111Server } from './a1111-server.js';
import type { A1111TestServer } from './a1111-server.js';
import { cutOut, decode, jpegMask, pictureOf, strictBase64 } from './test-server.js';
import { closedPortUrl, expectPng } from './expectations.js';

let server: A1111TestServer;
let engine: A1111Engine;

beforeAll(async () => {
  server = await startA1111Server();
  engine = new A1111Engine({ url: server.url, timeoutMs: 10_000 });
});
afterAll(() => server.close());

const lastCall = () => server.calls.at(-1)!;

describe('AUTOMATIC1111 / Forge engine', () => {
  it('text to image posts txt2img with the prompt, its style words, seed and batch, and returns each picture with its seed', async () => {
    const result = await engine.run({
      operation: 'generate',
      prompt: 'a lighthouse at dusk',
      negativePrompt: 'people',
      style: { mood: 'dramatic', mediaType: 'photography' },
      seed: 1234,
      count: 2,
      width: 1024,
      height: 768,
    });
    const { endpoint, body } = lastCall();
    expect(endpoint).toBe('txt2img');
    expect(body).toMatchObject({ prompt: 'a lighthouse at dusk, photograph, dramatic lighting', negative_prompt: 'people', seed: 1234, batch_size: 2, width: 1024, height: 768 });
    expect(result.pictures.map((picture) => picture.seed)).toEqual([1234, 1235]);
    for (const picture of result.pictures) await expectPng(picture.data, 1024, 768);
  });

  it('a size that is not a multiple of 8 is asked at the nearest one and delivered at the size requested', async () => {
    const result = await engine.run({ operation: 'generate', prompt: 'a field', seed: 1, count: 1, width: 1021, height: 574 });
    expect(lastCall().body).toMatchObject({ width: 1024, height: 576 });
    await expectPng(result.pictures[0]!.data, 1021, 574);
  });

  it('variations send img2img from the source at its own size, with its prompt, and keep near it', async () => {
    const source = { data: await pictureOf(300, 200, '#8b4513', 'jpeg'), mediaType: 'image/jpeg' as const };
    const result = await engine.run({ operation: 'variations', source, prompt: 'a barn', seed: 21, count: 3 });
    const { endpoint, body } = lastCall();
    expect(endpoint).toBe('img2img');
    expect(body).toMatchObject({ prompt: 'a barn', seed: 21, batch_size: 3, width: 304, height: 200, denoising_strength: 0.6 });
    expect(body.mask).toBeUndefined();
    expect((await decode(strictBase64((body.init_images as string[])[0]))).format).toBe('jpeg');
    expect(result.pictures.map((picture) => picture.seed)).toEqual([21, 22, 23]);
    for (const picture of result.pictures) await expectPng(picture.data, 300, 200);
  });

  it('refine sends img2img with the source, an exact black-and-white mask of its size, white where the JPEG mask is', async () => {
    const source = { data: await pictureOf(320, 240, '#556b2f', 'jpeg'), mediaType: 'image/jpeg' as const };
    const mask = { data: await jpegMask(320, 240, { left: 40, top: 40, width: 80, height: 60 }), mediaType: 'image/jpeg' as const };
    const result = await engine.run({ operation: 'refine', source, mask, prompt: 'a red kite', seed: 7, count: 1 });
    const { endpoint, body } = lastCall();
    expect(endpoint).toBe('img2img');
    expect(body).toMatchObject({ prompt: 'a red kite', seed: 7, inpainting_fill: 1, inpainting_mask_invert: 0, width: 320, height: 240 });
    const sentMask = await decode(strictBase64(body.mask));
    expect([sentMask.width, sentMask.height]).toEqual([320, 240]);
    expect(new Set(sentMask.pixels)).toEqual(new Set([0, 255]));
    const at = (x: number, y: number) => sentMask.pixels[(y * 320 + x) * sentMask.channels];
    expect(at(80, 70)).toBe(255);
    expect(at(10, 10)).toBe(0);
    expect(at(200, 200)).toBe(0);
    await expectPng(result.pictures[0]!.data, 320, 240);
  });

  it('object removal repaints the masked area from a neutral fill with the removal prompt, one picture per seed of a batch', async () => {
    const source = { data: await pictureOf(256, 256), mediaType: 'image/png' as const };
    const mask = { data: await jpegMask(256, 256, { left: 96, top: 96, width: 64, height: 64 }), mediaType: 'image/jpeg' as const };
    const result = await engine.run({ operation: 'remove_object', source, mask, seed: 40, count: 4 });
    expect(lastCall().body).toMatchObject({ seed: 40, batch_size: 4, inpainting_fill: 0 });
    expect(lastCall().body.prompt).toMatch(/background/);
    expect(result.pictures.map((picture) => picture.seed)).toEqual([40, 41, 42, 43]);
  });

  it('extend sends the grown canvas with the new area masked white and returns the grown picture', async () => {
    const source = { data: await pictureOf(200, 100), mediaType: 'image/png' as const };
    const margins = { left: 40, right: 0, top: 0, bottom: 20 };
    const result = await engine.run({ operation: 'extend', source, margins, prompt: 'more sky', seed: 3, count: 1 });
    const { body } = lastCall();
    const canvas = await decode(strictBase64((body.init_images as string[])[0]));
    const mask = await decode(strictBase64(body.mask));
    expect([canvas.width, canvas.height, mask.width, mask.height]).toEqual([240, 120, 240, 120]);
    const at = (x: number, y: number) => mask.pixels[(y * 240 + x) * mask.channels];
    expect([at(10, 50), at(100, 110), at(100, 50), at(239, 0)]).toEqual([255, 255, 0, 0]);
    await expectPng(result.pictures[0]!.data, 240, 120);
  });

  it('background generation repaints where the cut-out subject is transparent, and refuses a picture with no transparency', async () => {
    const source = { data: await cutOut(240, 240), mediaType: 'image/png' as const };
    await engine.run({ operation: 'generate_background', source, prompt: 'a beach', seed: 5, count: 1 });
    const mask = await decode(strictBase64(lastCall().body.mask));
    const at = (x: number, y: number) => mask.pixels[(y * 240 + x) * mask.channels];
    expect([at(5, 5), at(120, 120)]).toEqual([255, 0]);
    expect(lastCall().body).toMatchObject({ inpainting_fill: 2, denoising_strength: 1 });

    const opaque = { data: await pictureOf(64, 64), mediaType: 'image/png' as const };
    await expect(engine.run({ operation: 'generate_background', source: opaque, prompt: 'a beach', seed: 5, count: 1 })).rejects.toThrow(
      /needs the subject cut out .* no background remover is configured/,
    );
  });

  it('an opaque picture goes through the background remover the settings hand in, and the background it found is repainted', async () => {
    const cutOutCentre = async () => ({ data: await cutOut(240, 240), mediaType: 'image/png' as const });
    const withRemover = new A1111Engine({ url: server.url, timeoutMs: 10_000, cutOut: cutOutCentre });
    const opaque = { data: await pictureOf(240, 240), mediaType: 'image/png' as const };
    await withRemover.run({ operation: 'generate_background', source: opaque, prompt: 'a beach', seed: 5, count: 1 });
    const mask = await decode(strictBase64(lastCall().body.mask));
    expect([mask.pixels[(5 * 240 + 5) * mask.channels], mask.pixels[(120 * 240 + 120) * mask.channels]]).toEqual([255, 0]);

    const findsNothing = new A1111Engine({ url: server.url, timeoutMs: 10_000, cutOut: async (source) => source });
    await expect(findsNothing.run({ operation: 'generate_background', source: opaque, prompt: 'a beach', seed: 5, count: 1 })).rejects.toThrow(/found no background/);
  });

  it('composition goes through a ControlNet unit weighted by influence_level; the detected map the extension appends is not a result', async () => {
    const reference = { data: await pictureOf(300, 200), mediaType: 'image/png' as const };
    const result = await engine.run({ operation: 'influence_composition', reference, influenceLevel: 0.8, prompt: 'a cat', seed: 11, count: 2 });
    const { endpoint, body } = lastCall();
    expect(endpoint).toBe('txt2img');
    expect(body).toMatchObject({ width: 1024, height: 680 });
    const unit = (body.alwayson_scripts as { controlnet: { args: Array<Record<string, unknown>> } }).controlnet.args[0]!;
    expect(unit).toMatchObject({ enabled: true, module: 'canny', model: 'control_v11p_sd15_canny', weight: 0.8 });
    expect((await decode(strictBase64(unit.image))).width).toBe(300);
    expect(result.pictures).toHaveLength(2);
  });

  it('colour follows the reference through the colour-grid unit, weighted the other way from noise_level', async () => {
    const reference = { data: await pictureOf(256, 256), mediaType: 'image/png' as const };
    await engine.run({ operation: 'influence_color', reference, noiseLevel: 0.25, prompt: 'a vase', seed: 2, count: 1 });
    const unit = (lastCall().body.alwayson_scripts as { controlnet: { args: Array<Record<string, unknown>> } }).controlnet.args[0]!;
    expect(unit).toMatchObject({ module: 't2ia_color_grid', weight: 0.75 });
  });

  it('upscale asks extra-single-image for the target size and returns the picture at the longest side wanted', async () => {
    const source = { data: await pictureOf(300, 200), mediaType: 'image/png' as const };
    const result = await engine.run({ operation: 'upscale', source, longestSide: 1200 });
    expect(lastCall()).toMatchObject({ endpoint: 'extra-single-image', body: { resize_mode: 1, upscaling_resize_w: 1200, upscaling_resize_h: 800, upscaler_1: 'R-ESRGAN 4x+' } });
    await expectPng(result.pictures[0]!.data, 1200, 800);
  });

  it('serves every operation but background removal', () => {
    expect(engine.supports('remove_background')).toBe(false);
    for (const operation of ['generate', 'variations', 'refine', 'extend', 'remove_object', 'influence_color', 'influence_composition', 'generate_background', 'upscale'] as const) {
      expect(engine.supports(operation)).toBe(true);
    }
  });

  it('the checkpoint and --api-auth credentials of the settings go with every request', async () => {
    const guarded = await startA1111Server({ basicAuth: 'painter:secret' });
    try {
      const request = { operation: 'generate' as const, prompt: 'x', seed: 1, count: 1, width: 64, height: 64 };
      await expect(new A1111Engine({ url: guarded.url, timeoutMs: 5000 }).run(request)).rejects.toThrow(/401.*Incorrect username or password/);
      await new A1111Engine({ url: guarded.url, timeoutMs: 5000, apiKey: 'painter:secret', model: 'sdxl_base.safetensors' }).run(request);
      expect(guarded.calls.at(-1)!.body.override_settings).toEqual({ sd_model_checkpoint: 'sdxl_base.safetensors' });
    } finally {
      await guarded.close();
    }
  });
});

describe('AUTOMATIC1111 engine failures', () => {
  const request = { operation: 'generate' as const, prompt: 'x', seed: 1, count: 1, width: 64, height: 64 };

  it("a server error becomes EngineFailedError with the status and what the server said", async () => {
    server.routes.set('POST /sdapi/v1/txt2img', () => ({ status: 500, json: { error: 'OutOfMemoryError', detail: '', body: '', errors: 'CUDA out of memory. Tried to allocate 2.00 GiB' } }));
    try {
      const failure = await engine.run(request).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EngineFailedError);
      expect((failure as Error).message).toMatch(/a1111 at http:\/\/127\.0\.0\.1:\d+: answered 500 to POST \/sdapi\/v1\/txt2img: CUDA out of memory/);
    } finally {
      server.routes.delete('POST /sdapi/v1/txt2img');
    }
  });

  it('an answer that is not JSON, or whose images are not base64 pictures, fails naming what was wrong', async () => {
    server.routes.set('POST /sdapi/v1/txt2img', () => ({ body: '<html>Gateway</html>', contentType: 'text/html' }));
    await expect(engine.run(request)).rejects.toThrow(/not JSON: <html>Gateway<\/html>/);
    server.routes.set('POST /sdapi/v1/txt2img', () => ({ json: { images: ['***'], parameters: {}, info: '{}' } }));
    await expect(engine.run(request)).rejects.toThrow(/txt2img image 1 is not base64/);
    server.routes.set('POST /sdapi/v1/txt2img', () => ({ json: { images: [Buffer.from('not a picture').toString('base64')], parameters: {}, info: '{}' } }));
    await expect(engine.run(request)).rejects.toThrow(/txt2img image 1 is not a picture/);
    server.routes.set('POST /sdapi/v1/txt2img', () => ({ json: { images: [], parameters: {}, info: '{}' } }));
    await expect(engine.run(request)).rejects.toThrow(/0 images where 1 were asked/);
    server.routes.delete('POST /sdapi/v1/txt2img');
  });

  it('a server slower than the time limit fails saying so', async () => {
    server.routes.set('POST /sdapi/v1/txt2img', () => ({ delayMs: 2000, json: {} }));
    try {
      const impatient = new A1111Engine({ url: server.url, timeoutMs: 300 });
      await expect(impatient.run(request)).rejects.toThrow(/no answer to POST \/sdapi\/v1\/txt2img within 0\.3 s/);
    } finally {
      server.routes.delete('POST /sdapi/v1/txt2img');
    }
  });

  it('an unreachable server fails naming its URL', async () => {
    const url = await closedPortUrl();
    const failure = await new A1111Engine({ url, timeoutMs: 5000 }).run(request).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EngineFailedError);
    expect((failure as Error).message).toContain(`a1111 at ${url}: cannot be reached`);
    expect((failure as Error).message).toContain('ECONNREFUSED');
  });

  it("the caller's abort stops waiting and passes its reason through", async () => {
    server.routes.set('POST /sdapi/v1/txt2img', () => ({ delayMs: 2000, json: {} }));
    try {
      const controller = new AbortController();
      const reason = new Error('job cancelled');
      setTimeout(() => controller.abort(reason), 100);
      await expect(engine.run(request, controller.signal)).rejects.toBe(reason);
    } finally {
      server.routes.delete('POST /sdapi/v1/txt2img');
    }
  });
});
