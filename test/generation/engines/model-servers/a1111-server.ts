import sharp from 'sharp';
import { decode, pictureOf, startTestServer, strictBase64 } from './test-server.js';
import type { ReceivedRequest, Reply, TestServer } from './test-server.js';

/*
 * The AUTOMATIC1111 web-UI API as its FastAPI routes answer (modules/api/api.py, models.py):
 * request fields checked for their types as pydantic would (422 with a `detail` list), pictures
 * decoded as the web UI decodes them, `images` as base64 PNG and `info` as a JSON string with the
 * seeds, ControlNet's detected map appended after the batch, errors as `{error, detail, body, errors}`.
 */

export interface A1111Call {
  endpoint: 'txt2img' | 'img2img' | 'extra-single-image';
  body: Record<string, unknown>;
}

export interface A1111TestServer extends TestServer {
  calls: A1111Call[];
}

const INTEGER_FIELDS = ['seed', 'batch_size', 'n_iter', 'steps', 'width', 'height', 'mask_blur', 'inpainting_fill', 'inpainting_mask_invert', 'resize_mode'];
const NUMBER_FIELDS = ['cfg_scale', 'denoising_strength'];
const STRING_FIELDS = ['prompt', 'negative_prompt', 'sampler_name'];

/** `delayMs`: how long the server works on a request before it answers, as a GPU would (default none). */
export async function startA1111Server(options: { basicAuth?: string; delayMs?: (body: Record<string, unknown>) => number } = {}): Promise<A1111TestServer> {
  const calls: A1111Call[] = [];

  const authorized = (request: ReceivedRequest): Reply | undefined => {
    if (!options.basicAuth) return undefined;
    const expected = `Basic ${Buffer.from(options.basicAuth).toString('base64')}`;
    return request.headers.authorization === expected ? undefined : { status: 401, json: { detail: 'Incorrect username or password' } };
  };

  const generation = (endpoint: 'txt2img' | 'img2img') => async (request: ReceivedRequest): Promise<Reply> => {
    const refused = authorized(request);
    if (refused) return refused;
    const body = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
    calls.push({ endpoint, body });
    const delay = options.delayMs?.(body) ?? 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    const invalid = typeErrors(body);
    if (invalid.length > 0) return { status: 422, json: { detail: invalid } };
    const width = (body.width as number | undefined) ?? 512;
    const height = (body.height as number | undefined) ?? 512;
    if (width % 8 !== 0 || height % 8 !== 0) return apiError(500, 'RuntimeError', `width and height must be multiples of 8, got ${width}x${height}`);

    if (endpoint === 'img2img') {
      const initImages = body.init_images;
      if (!Array.isArray(initImages) || initImages.length === 0) return apiError(404, 'HTTPException', 'Init image not found');
      const init = await decodedOrNull(initImages[0]);
      if (!init) return apiError(500, 'HTTPException', 'Invalid encoded image');
      if (body.mask !== undefined && body.mask !== null) {
        const mask = await decodedOrNull(body.mask);
        if (!mask) return apiError(500, 'HTTPException', 'Invalid encoded image');
        if (mask.width !== init.width || mask.height !== init.height) {
          return apiError(500, 'ValueError', `mask is ${mask.width}x${mask.height}, the image ${init.width}x${init.height}`);
        }
      }
    }

    const scripts = (body.alwayson_scripts ?? {}) as Record<string, { args?: Array<Record<string, unknown>> }>;
    let detectedMaps = 0;
    for (const [name, script] of Object.entries(scripts)) {
      if (name.toLowerCase() !== 'controlnet') return apiError(422, 'HTTPException', `always on script ${name} not found`);
      for (const unit of script.args ?? []) {
        if (unit.enabled === false) continue;
        if (typeof unit.module !== 'string' || typeof unit.model !== 'string') return apiError(500, 'RuntimeError', 'ControlNet unit without module or model');
        if (!(await decodedOrNull(unit.image))) return apiError(500, 'RuntimeError', 'ControlNet unit image is not a picture');
        detectedMaps += 1;
      }
    }

    const count = (body.batch_size as number | undefined) ?? 1;
    const seed = (body.seed as number | undefined) ?? -1;
    const firstSeed = seed === -1 ? 1_000_000 + Math.floor(Math.random() * 1000) : seed;
    const allSeeds = Array.from({ length: count }, (_, index) => firstSeed + index);
    const images: string[] = [];
    for (let index = 0; index < count + detectedMaps; index += 1) {
      const ground = index < count ? `#${(0x204060 + index * 0x101010).toString(16)}` : '#000000';
      images.push((await pictureOf(width, height, ground)).toString('base64'));
    }
    const info = JSON.stringify({ prompt: body.prompt, seed: firstSeed, all_seeds: allSeeds, width, height, batch_size: count });
    return { json: { images, parameters: { ...body, init_images: null, mask: null }, info } };
  };

  const server = await startTestServer({
    'POST /sdapi/v1/txt2img': generation('txt2img'),
    'POST /sdapi/v1/img2img': generation('img2img'),
    'POST /sdapi/v1/extra-single-image': async (request) => {
      const refused = authorized(request);
      if (refused) return refused;
      const body = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
      calls.push({ endpoint: 'extra-single-image', body });
      const image = await decodedOrNull(body.image);
      if (!image) return apiError(500, 'HTTPException', 'Invalid encoded image');
      const [width, height] =
        body.resize_mode === 1
          ? [body.upscaling_resize_w as number, body.upscaling_resize_h as number]
          : [Math.round(image.width * Number(body.upscaling_resize ?? 2)), Math.round(image.height * Number(body.upscaling_resize ?? 2))];
      const upscaled = await sharp(strictBase64(body.image)).resize(width, height, { fit: 'fill' }).png().toBuffer();
      return { json: { html_info: '<p>upscaled</p>', image: upscaled.toString('base64') } };
    },
  });
  return Object.assign(server, { calls });
}

function typeErrors(body: Record<string, unknown>): Array<{ loc: string[]; msg: string; type: string }> {
  const errors = [];
  for (const field of INTEGER_FIELDS) {
    if (body[field] !== undefined && body[field] !== null && !Number.isInteger(body[field])) {
      errors.push({ loc: ['body', field], msg: 'value is not a valid integer', type: 'type_error.integer' });
    }
  }
  for (const field of NUMBER_FIELDS) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'number') {
      errors.push({ loc: ['body', field], msg: 'value is not a valid float', type: 'type_error.float' });
    }
  }
  for (const field of STRING_FIELDS) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'string') {
      errors.push({ loc: ['body', field], msg: 'str type expected', type: 'type_error.str' });
    }
  }
  return errors;
}

async function decodedOrNull(value: unknown) {
  try {
    return await decode(strictBase64(value));
  } catch {
    return null;
  }
}

/** The web UI's exception handler's body. */
function apiError(status: number, error: string, detail: string): Reply {
  return { status, json: { error, detail, body: '', errors: detail } };
}
