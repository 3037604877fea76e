import { decode, formOf, pictureOf, startTestServer } from './test-server.js';
import type { Decoded, ReceivedRequest, Reply, TestServer } from './test-server.js';

/*
 * OpenAI's Images API as its reference describes it: a bearer key, JSON generations and multipart
 * edits and variations, the sizes and `n` each model accepts, `response_format` refused by
 * gpt-image models, an edit's mask a PNG with an alpha channel the size of the image, dall-e-2's
 * images square; answers `{created, data: [{b64_json}]}`, errors `{error: {message, type, param, code}}`.
 */

const SIZES: Record<string, string[]> = {
  'dall-e-2': ['256x256', '512x512', '1024x1024'],
  'dall-e-3': ['1024x1024', '1792x1024', '1024x1792'],
  'gpt-image-1': ['1024x1024', '1536x1024', '1024x1536', 'auto'],
};
const MAX_N: Record<string, number> = { 'dall-e-3': 1 };

export interface OpenAICall {
  endpoint: 'generations' | 'edits' | 'variations';
  fields: Record<string, string>;
  image?: Decoded;
  mask?: Decoded;
}

export interface OpenAITestServer extends TestServer {
  calls: OpenAICall[];
}

export const TEST_API_KEY = 'sk-test-stockroom';

export async function startOpenAIServer(): Promise<OpenAITestServer> {
  const calls: OpenAICall[] = [];

  const answer = async (model: string, n: number, size: string): Promise<Reply> => {
    const [width, height] = size === 'auto' ? [1024, 1024] : size.split('x').map(Number);
    const data = [];
    for (let index = 0; index < n; index += 1) data.push({ b64_json: (await pictureOf(width!, height!)).toString('base64') });
    return { json: { created: Math.floor(Date.now() / 1000), data } };
  };

  const checkCommon = (fields: Record<string, string>): Reply | undefined => {
    const model = fields.model ?? 'dall-e-2';
    const n = Number(fields.n ?? '1');
    if (!Number.isInteger(n) || n < 1 || n > (MAX_N[model] ?? 10)) return invalid(`Invalid 'n': must be between 1 and ${MAX_N[model] ?? 10}.`, 'n');
    const sizes = SIZES[model];
    const size = fields.size ?? '1024x1024';
    if (sizes ? !sizes.includes(size) : !/^\d+x\d+$/.test(size)) return invalid(`Invalid value: '${size}'. Supported values are: ${(sizes ?? ['WxH']).join(', ')}.`, 'size');
    if (fields.response_format !== undefined) {
      if (model.startsWith('gpt-image')) return invalid("Unknown parameter: 'response_format'.", 'response_format');
      if (!['url', 'b64_json'].includes(fields.response_format)) return invalid(`Invalid value: '${fields.response_format}'.`, 'response_format');
    }
    return undefined;
  };

  const authorized = (request: ReceivedRequest): Reply | undefined =>
    request.headers.authorization === `Bearer ${TEST_API_KEY}`
      ? undefined
      : { status: 401, json: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } };

  const multipart = (endpoint: 'edits' | 'variations') => async (request: ReceivedRequest): Promise<Reply> => {
    const refused = authorized(request);
    if (refused) return refused;
    if (!String(request.headers['content-type']).startsWith('multipart/form-data')) return invalid('Expected multipart/form-data', null);
    const form = await formOf(request);
    const fields: Record<string, string> = {};
    for (const [name, value] of form.entries()) if (typeof value === 'string') fields[name] = value;
    const call: OpenAICall = { endpoint, fields };
    calls.push(call);
    const imageFile = form.get('image');
    if (!(imageFile instanceof File)) return invalid("Missing required parameter: 'image'.", 'image');
    call.image = await decode(Buffer.from(await imageFile.arrayBuffer()));
    if (call.image.format !== 'png') return invalid('Invalid input image - format must be in [png].', 'image');
    const model = fields.model ?? 'dall-e-2';
    if (model === 'dall-e-2' && call.image.width !== call.image.height) return invalid('Invalid input image - image must be square.', 'image');
    if (endpoint === 'edits') {
      if (!fields.prompt) return invalid("Missing required parameter: 'prompt'.", 'prompt');
      const maskFile = form.get('mask');
      if (maskFile instanceof File) {
        call.mask = await decode(Buffer.from(await maskFile.arrayBuffer()));
        if (call.mask.format !== 'png' || call.mask.channels !== 4) return invalid('Invalid mask image - mask must be a PNG with an alpha channel.', 'mask');
        if (call.mask.width !== call.image.width || call.mask.height !== call.image.height) return invalid('Invalid mask image - mask size does not match image size.', 'mask');
      } else if (call.image.channels !== 4) {
        return invalid('Invalid input image - when no mask is given the image must have transparency.', 'image');
      }
    }
    const problem = checkCommon(fields);
    if (problem) return problem;
    return answer(model, Number(fields.n ?? '1'), fields.size ?? '1024x1024');
  };

  const server = await startTestServer({
    'POST /v1/images/generations': async (request) => {
      const refused = authorized(request);
      if (refused) return refused;
      const body = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
      const fields = Object.fromEntries(Object.entries(body).map(([key, value]) => [key, String(value)]));
      calls.push({ endpoint: 'generations', fields });
      if (typeof body.prompt !== 'string' || body.prompt === '') return invalid("Missing required parameter: 'prompt'.", 'prompt');
      if (body.n !== undefined && typeof body.n !== 'number') return invalid("Invalid type for 'n': expected an integer.", 'n');
      const problem = checkCommon(fields);
      if (problem) return problem;
      return answer(fields.model ?? 'dall-e-2', Number(fields.n ?? '1'), fields.size ?? '1024x1024');
    },
    'POST /v1/images/edits': multipart('edits'),
    'POST /v1/images/variations': multipart('variations'),
  });
  return Object.assign(server, { calls });
}

function invalid(message: string, param: string | null): Reply {
  return { status: 400, json: { error: { message, type: 'invalid_request_error', param, code: null } } };
}
