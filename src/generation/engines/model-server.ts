/*
 * What the three model-server engines (AUTOMATIC1111/Forge, ComfyUI, OpenAI-compatible) share:
 * one HTTP client that turns every way a call can go wrong into an EngineFailedError a person can
 * act on, and the picture conversions each API needs (binary masks, transparent-is-edit masks,
 * canvases padded for outpainting).
 */
import sharp from 'sharp';
import { EngineFailedError } from './engine.js';
import type { EngineImage, Margins, StyleHints } from './engine.js';

/** The settings every model-server engine takes; the generation module reads them from the configuration. */
export interface ModelServerOptions {
  /** The server's base URL, e.g. http://gpu-box:7860. */
  url: string;
  /** How long one operation may take, all its calls together. */
  timeoutMs: number;
  /** How long one HTTP call may take (unset: only the operation's timeoutMs bounds it). */
  requestTimeoutMs?: number | undefined;
  /**
   * Cuts the subject out of an opaque picture (PNG, background transparent), for background
   * generation: the built-in engine's background removal, handed in by the router. Without it,
   * background generation takes only pictures already cut out.
   */
  cutOut?: SubjectCutter | undefined;
}

export type SubjectCutter = (source: EngineImage, signal?: AbortSignal) => Promise<EngineImage>;

/** The subject on a transparent ground: as given when it already is, else cut out by the cutter the settings name. */
export async function cutOutSubject(source: EngineImage, cutOut: SubjectCutter | undefined, client: ModelServerClient, signal?: AbortSignal): Promise<EngineImage> {
  if (await hasTransparency(source)) return source;
  if (!cutOut) throw client.failed('background generation needs the subject cut out (a PNG whose background is transparent), and no background remover is configured');
  const cut = await cutOut(source, signal);
  if (!(await hasTransparency(cut))) throw client.failed('background generation: the background remover found no background to replace');
  return cut;
}

/** How much of a server's error body reaches a message: enough to act on, never a whole traceback. */
const MAX_DETAIL_CHARS = 300;

/**
 * An HTTP client of one model server. Each call takes the operation's signal, which ends at the
 * operation's deadline or when the caller stops waiting; a deadline becomes an EngineFailedError
 * saying so, the caller's own abort passes its reason through untouched.
 */
/**
 * How a server takes the operator's key: as a bearer token (ComfyUI behind a proxy, OpenAI), or
 * as HTTP Basic's "user:password" (the AUTOMATIC1111 web UI's --api-auth).
 */
export type KeyScheme = 'Bearer' | 'Basic';

function authorization(apiKey: string, scheme: KeyScheme): string {
  return scheme === 'Basic' ? `Basic ${Buffer.from(apiKey).toString('base64')}` : `Bearer ${apiKey}`;
}

export class ModelServerClient {
  private readonly base: URL;

  private readonly headers: Readonly<Record<string, string>>;

  constructor(
    private readonly engineName: string,
    url: string,
    /** The operator's key for the server, sent with every call; unset: none. */
    key: { apiKey?: string | undefined; scheme: KeyScheme },
    /** How long one call may take, its answer's body read too; unset: the operation's deadline alone. */
    private readonly requestTimeoutMs?: number | undefined,
  ) {
    this.base = new URL(url.endsWith('/') ? url : `${url}/`);
    this.headers = key.apiKey ? { authorization: authorization(key.apiKey, key.scheme) } : {};
  }

  /** The server's address for messages: no credentials, no query. */
  get address(): string {
    return `${this.base.protocol}//${this.base.host}${this.base.pathname.replace(/\/$/, '')}`;
  }

  /** A URL of the server: `path` is relative to the base URL's path. */
  urlOf(path: string, query?: Record<string, string>): URL {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
    return url;
  }

  /** Posts JSON and answers the JSON answer (or nothing, for endpoints that answer an empty 200). */
  async postJson(path: string, body: unknown, deadline: Deadline, { answerIsJson = true } = {}): Promise<unknown> {
    const url = this.urlOf(path);
    const call = new CallDeadline(deadline, this.requestTimeoutMs);
    const response = await this.send('POST', url, JSON.stringify(body), { 'content-type': 'application/json' }, call);
    if (!answerIsJson) {
      await response.arrayBuffer().catch(() => undefined);
      return undefined;
    }
    return this.jsonOf(response, 'POST', url.pathname, call);
  }

  async postForm(path: string, form: FormData, deadline: Deadline): Promise<unknown> {
    const url = this.urlOf(path);
    const call = new CallDeadline(deadline, this.requestTimeoutMs);
    const response = await this.send('POST', url, form, {}, call);
    return this.jsonOf(response, 'POST', url.pathname, call);
  }

  async getJson(path: string, deadline: Deadline, query?: Record<string, string>): Promise<unknown> {
    const url = this.urlOf(path, query);
    const call = new CallDeadline(deadline, this.requestTimeoutMs);
    const response = await this.send('GET', url, undefined, {}, call);
    return this.jsonOf(response, 'GET', url.pathname, call);
  }

  async getBytes(path: string, deadline: Deadline, query?: Record<string, string>): Promise<Buffer> {
    const url = this.urlOf(path, query);
    const call = new CallDeadline(deadline, this.requestTimeoutMs);
    const response = await this.send('GET', url, undefined, {}, call);
    try {
      return Buffer.from(await response.arrayBuffer());
    } catch (error) {
      throw this.failureOf(error, 'GET', url.pathname, call);
    }
  }

  /** An EngineFailedError naming this engine and its server. */
  failed(message: string): EngineFailedError {
    return new EngineFailedError(`${this.engineName} at ${this.address}: ${message}`);
  }

  private async send(
    method: string,
    url: URL,
    body: string | FormData | undefined,
    headers: Record<string, string>,
    call: CallDeadline,
  ): Promise<Response> {
    const path = url.pathname;
    let response: Response;
    try {
      response = await fetch(url, { method, body, headers: { ...this.headers, ...headers }, signal: call.signal });
    } catch (error) {
      throw this.failureOf(error, method, path, call);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw this.failed(`answered ${response.status} to ${method} ${path}${detailOf(text)}`);
    }
    return response;
  }

  private async jsonOf(response: Response, method: string, path: string, call: CallDeadline): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.failureOf(error, method, path, call);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw this.failed(`answered ${method} ${path} with a body that is not JSON: ${trimmed(text) || '(empty)'}`);
    }
  }

  private failureOf(error: unknown, method: string, path: string, call: CallDeadline): Error {
    const deadline = call.operation;
    if (deadline.callerSignal?.aborted) return asError(deadline.callerSignal.reason);
    if (deadline.signal.aborted) return this.failed(`no answer to ${method} ${path} within ${deadline.timeoutMs / 1000} s`);
    if (call.timedOut) return this.failed(`no answer to ${method} ${path} within ${call.timeoutMs! / 1000} s (STOCKROOM_GENERATION_REQUEST_TIMEOUT, one call)`);
    const code = causeCodeOf(error);
    return this.failed(`cannot be reached (${method} ${path}: ${code ?? (error instanceof Error ? error.message : String(error))})`);
  }
}

/** One HTTP call's own time limit, within its operation's deadline. */
class CallDeadline {
  readonly signal: AbortSignal;
  private readonly timer: AbortSignal | undefined;

  constructor(
    readonly operation: Deadline,
    readonly timeoutMs: number | undefined,
  ) {
    this.timer = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    this.signal = this.timer ? AbortSignal.any([operation.signal, this.timer]) : operation.signal;
  }

  /** The call's own limit ended it (not the operation's, nor the caller). */
  get timedOut(): boolean {
    return this.timer?.aborted === true && !this.operation.signal.aborted;
  }
}

/** One operation's time limit joined with the caller's signal. */
export class Deadline {
  readonly signal: AbortSignal;

  constructor(
    readonly timeoutMs: number,
    readonly callerSignal?: AbortSignal,
  ) {
    const timeout = AbortSignal.timeout(timeoutMs);
    this.signal = callerSignal ? AbortSignal.any([timeout, callerSignal]) : timeout;
  }

  /** Waits, unless the deadline or the caller ends the wait first. */
  async sleep(ms: number, client: ModelServerClient, waitingFor: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      if (this.signal.aborted) return reject(this.reasonFor(client, waitingFor));
      const timer = setTimeout(() => {
        this.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(this.reasonFor(client, waitingFor));
      };
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private reasonFor(client: ModelServerClient, waitingFor: string): Error {
    if (this.callerSignal?.aborted) return asError(this.callerSignal.reason);
    return client.failed(`${waitingFor} did not finish within ${this.timeoutMs / 1000} s`);
  }
}

/** A server's error body as the clause of a message: the message it carries, else its text, trimmed. */
function detailOf(text: string): string {
  if (text.trim() === '') return '';
  let said: string | undefined;
  try {
    said = messageIn(JSON.parse(text) as unknown);
  } catch {
    said = undefined;
  }
  return `: ${trimmed(said ?? text)}`;
}

/**
 * The human message inside the error bodies these servers send: OpenAI `{error: {message}}`,
 * ComfyUI `{error: {message, details}}`, FastAPI and AUTOMATIC1111 `{detail}` or `{error, errors}`.
 */
function messageIn(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body === null || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (error !== null && typeof error === 'object') {
    const inner = error as Record<string, unknown>;
    const message = typeof inner.message === 'string' ? inner.message : undefined;
    const details = typeof inner.details === 'string' && inner.details !== '' ? inner.details : undefined;
    if (message !== undefined) return details === undefined ? message : `${message}: ${details}`;
  }
  if (typeof record.detail === 'string' && record.detail !== '') return record.detail;
  if (Array.isArray(record.detail)) return JSON.stringify(record.detail);
  if (typeof record.errors === 'string' && record.errors !== '') return record.errors;
  if (typeof error === 'string') return error;
  if (typeof record.message === 'string') return record.message;
  return undefined;
}

function trimmed(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_DETAIL_CHARS ? `${oneLine.slice(0, MAX_DETAIL_CHARS)}…` : oneLine;
}

function causeCodeOf(error: unknown): string | undefined {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

// --- Pictures -------------------------------------------------------------------------------

export interface PictureSize {
  width: number;
  height: number;
}

export async function sizeOf(image: EngineImage | Buffer): Promise<PictureSize> {
  const data = Buffer.isBuffer(image) ? image : image.data;
  const { width, height } = await sharp(data).metadata();
  if (!width || !height) throw new EngineFailedError('a picture without a size');
  return { width, height };
}

export async function hasTransparency(image: EngineImage): Promise<boolean> {
  const data = sharp(image.data);
  const { hasAlpha } = await data.metadata();
  if (!hasAlpha) return false;
  const { channels } = await data.stats();
  return (channels[3]?.min ?? 255) < 255;
}

/** A server's picture as PNG; anything that does not decode is the server's failure. */
export async function pngOf(data: Buffer, client: ModelServerClient, what: string): Promise<Buffer> {
  try {
    return await sharp(data).png().toBuffer();
  } catch {
    throw client.failed(`${what} is not a picture (${data.length} bytes)`);
  }
}

/** Standard base64 with an optional data-URL prefix, as these APIs send pictures; anything else is refused. */
export function bytesOfBase64(text: unknown, client: ModelServerClient, what: string): Buffer {
  if (typeof text !== 'string') throw client.failed(`${what} is missing`);
  const payload = text.replace(/^data:image\/[a-z+.-]+;base64,/i, '').replace(/\s+/g, '');
  if (payload === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(payload) || payload.length % 4 === 1) {
    throw client.failed(`${what} is not base64`);
  }
  return Buffer.from(payload, 'base64');
}

/**
 * The mask as exact black and white at the given size: a JPEG mask's ringing and a resize's soft
 * edge would otherwise become half-edited pixels. White is where the operation acts.
 */
export async function binaryMask(mask: EngineImage, size: PictureSize): Promise<Buffer> {
  return sharp(mask.data)
    .flatten({ background: '#000000' })
    .greyscale()
    .resize(size.width, size.height, { fit: 'fill' })
    .threshold(128)
    .png()
    .toBuffer();
}

/** Where a picture is transparent, as a white-is-edit mask (a cut-out subject's background). */
export async function maskOfTransparency(image: EngineImage): Promise<Buffer> {
  const size = await sizeOf(image);
  const alpha = await sharp(image.data).ensureAlpha().extractChannel(3).raw().toBuffer();
  return sharp(alpha, { raw: { ...size, channels: 1 } })
    .negate()
    .threshold(128)
    .png()
    .toBuffer();
}

/** The picture on an opaque white ground, for APIs that take no alpha. */
export async function flattened(image: EngineImage): Promise<Buffer> {
  return sharp(image.data).flatten({ background: '#ffffff' }).png().toBuffer();
}


/**
 * The picture on a canvas grown by the margins, the new area filled by mirroring the picture's
 * edge (a diffusion model repaints it from there far better than from a flat colour), and the
 * white-is-edit mask of the new area.
 */
export async function outpaintCanvas(source: EngineImage, margins: Margins): Promise<{ canvas: Buffer; mask: Buffer; size: PictureSize }> {
  const { width, height } = await sizeOf(source);
  const grown = { width: width + margins.left + margins.right, height: height + margins.top + margins.bottom };
  const canvas = await sharp(source.data)
    .removeAlpha()
    .extend({ ...margins, extendWith: 'mirror' })
    .png()
    .toBuffer();
  const mask = await sharp({ create: { ...grown, channels: 3, background: '#ffffff' } })
    .composite([
      {
        input: { create: { width, height, channels: 3, background: '#000000' } },
        left: margins.left,
        top: margins.top,
      },
    ])
    .greyscale()
    .png()
    .toBuffer();
  return { canvas, mask, size: grown };
}

/** Exactly width × height, cropped from the centre where the aspect differs (a server's nearest size to the one asked). */
export async function coverTo(png: Buffer, size: PictureSize): Promise<Buffer> {
  const actual = await sizeOf(png);
  if (actual.width === size.width && actual.height === size.height) return png;
  return sharp(png).resize(size.width, size.height, { fit: 'cover', position: 'centre' }).png().toBuffer();
}

/** The size of the given aspect whose longest side is `longestSide`, in multiples of `step` (latent models need 8 or 64). */
export function sizeForAspect(aspect: PictureSize, longestSide: number, step = 8): PictureSize {
  const scale = longestSide / Math.max(aspect.width, aspect.height);
  const snap = (value: number) => Math.max(step, Math.round((value * scale) / step) * step);
  return { width: snap(aspect.width), height: snap(aspect.height) };
}

/** The size rounded to multiples of `step`. */
export function snappedSize(size: PictureSize, step = 8): PictureSize {
  const snap = (value: number) => Math.max(step, Math.round(value / step) * step);
  return { width: snap(size.width), height: snap(size.height) };
}

// --- Prompts -------------------------------------------------------------------------------

/** The API's style hints as words a text-to-image model follows. */
const STYLE_WORDS = {
  mediaType: { photography: 'photograph', illustration: 'illustration' },
  mood: {
    black_and_white: 'black and white',
    warm: 'warm tones',
    cool: 'cool tones',
    natural: 'natural colours',
    vivid: 'vivid colours',
    dramatic: 'dramatic lighting',
    bold: 'bold colours',
  },
  lensType: { wide_angle: 'wide-angle lens', telephoto: 'telephoto lens' },
  depthOfField: { shallow: 'shallow depth of field', deep: 'deep focus' },
} as const;

export function promptWithStyle(prompt: string, style: StyleHints | undefined): string {
  const words = [
    style?.mediaType && STYLE_WORDS.mediaType[style.mediaType],
    style?.mood && STYLE_WORDS.mood[style.mood],
    style?.lensType && STYLE_WORDS.lensType[style.lensType],
    style?.depthOfField && STYLE_WORDS.depthOfField[style.depthOfField],
  ].filter((word): word is NonNullable<typeof word> => Boolean(word));
  return words.length === 0 ? prompt : `${prompt}, ${words.join(', ')}`;
}

/** What object removal asks a model for: the surroundings carried on, nothing new in their place. */
export const OBJECT_REMOVAL_PROMPT = 'empty background, the surroundings continued seamlessly';
export const OBJECT_REMOVAL_NEGATIVE_PROMPT = 'object, person, animal, text, watermark, logo';
