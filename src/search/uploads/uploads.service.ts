import { createHash } from 'node:crypto';
import type { BlobStore } from '../../platform/blobs/blob-store.js';
import { utcDateTime } from '../../platform/http/date-time.js';
import { invalidParameter, type ApiError } from '../../platform/http/errors.js';
import { uploadQuotaExceeded } from '../search.errors.js';
import type { DecodeSlots } from '../../platform/decode-slots.js';
import type { FileQuota } from '../../config/config.js';
import { computeVisualSignature, decodeStoredSignature, encodeStoredSignature } from '../../media/visual-signature.js';
import type { SearchUploadRow, UploadOwner, UploadUsage, UploadsRepository } from './uploads.repository.js';

export type { UploadOwner } from './uploads.repository.js';

/** The contract's limit: at most 10 MB per file. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** The contract's lifetime: a file expires 24 h after upload. */
export const UPLOAD_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** The media types the contract lists for the body. */
export const UPLOAD_MEDIA_TYPES = ['image/jpeg', 'image/png'] as const;
export type UploadMediaType = (typeof UPLOAD_MEDIA_TYPES)[number];

/** Where uploads live under the public URL; the full URL is what a by-image search names. */
export const UPLOADS_PATH = '/v3/search/by-image/uploads/';

// Only characters that need no escaping in a URL path, so the URL we hand out is the name
// as given; no leading dot, so no name reads as a hidden file or a relative path segment.
export const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
const MAX_IMAGE_URL_LENGTH = 2000;
const BLOB_PREFIX = 'search-uploads/';
/** How computeVisualSignature's message starts when the bytes do not decode. */
const UNREADABLE = 'Unreadable image:';

export interface UploadedFile {
  /** The request's Content-Type header, parameters and all. */
  contentType: string | undefined;
  bytes: Buffer | undefined;
}

export interface UploadReceipt {
  /** The URL to pass as image_url. */
  url: string;
  /** When the upload stops being usable (ISO 8601). */
  expires: string;
}

export interface UploadsServiceOptions {
  repository: UploadsRepository;
  blobs: BlobStore;
  /** The server's public base URL, without a trailing slash. */
  publicUrl: string;
  /** How many live uploads (and bytes) an API key may keep, all its senders together, and a user, through any key. */
  quotas: { perKey: FileQuota; perUser: FileQuota };
  /** The platform's bound on pictures decoded at once. */
  decodes: DecodeSlots;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
}

/**
 * Files stored for search by image (and as masks and reference files of generation), each
 * belonging to whoever sent it: the user whose token came with it, or the API key alone when
 * none did. Nobody else can reach it: every look-up is by the asker's own owner and the name,
 * so another's upload of the same name is simply not there for them. Each file is checked to
 * be a JPEG or PNG, its visual signature computed once on arrival, and it lives 24 hours,
 * within the quotas of its key and its user. A URL is only ever looked up here, never fetched.
 */
export class UploadsService {
  private readonly repository: UploadsRepository;
  private readonly blobs: BlobStore;
  private readonly publicUrl: URL;
  private readonly quotas: UploadsServiceOptions['quotas'];
  private readonly decodes: DecodeSlots;
  private readonly now: () => number;

  constructor(options: UploadsServiceOptions) {
    this.repository = options.repository;
    this.blobs = options.blobs;
    this.publicUrl = new URL(options.publicUrl.replace(/\/+$/, ''));
    this.quotas = options.quotas;
    this.decodes = options.decodes;
    this.now = options.now ?? Date.now;
  }

  /** The URL an upload of this name is known by (to its owner only). */
  urlOf(name: string): string {
    return `${this.publicUrl.origin}${this.basePath()}${UPLOADS_PATH}${name}`;
  }

  /** Stores (or replaces) the owner's file of this name and restarts its 24 hours. */
  async upload(owner: UploadOwner, fileName: string, file: UploadedFile): Promise<UploadReceipt> {
    const name = checkFileName(fileName);
    const { bytes, mediaType } = checkImageFile(file);
    // Refused before decoding when already over a quota; checked again, exactly, under the locks.
    await this.checkQuotas(this.repository, owner, name, bytes.length, new Date(this.now()).toISOString());
    const signature = await this.decodes.run(() => computeVisualSignature(bytes)).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (!message.startsWith(UNREADABLE)) throw error;
      throw invalidParameter('file', `the body could not be decoded as an image (${message.slice(UNREADABLE.length).trim()})`);
    });

    const now = this.now();
    await this.purgeExpired(now);

    const blobKey = `${BLOB_PREFIX}${createHash('sha256').update(bytes).digest('hex')}`;
    const uploadedAt = new Date(now).toISOString();
    const expiresAt = new Date(now + UPLOAD_LIFETIME_MS).toISOString();
    const replaced = await this.repository.withLocks({ blobKey, owner }, async (repository) => {
      const earlier = await repository.find(owner, name);
      await this.checkQuotas(repository, owner, name, bytes.length, uploadedAt);
      // Content-addressed: a blob already there holds these very bytes.
      if ((await this.blobs.size(blobKey)) !== bytes.length) await this.blobs.put(blobKey, bytes);
      await repository.upsert(owner, {
        name,
        blob_key: blobKey,
        media_type: mediaType,
        byte_size: bytes.length,
        visual_signature: encodeStoredSignature(signature),
        uploaded_at: uploadedAt,
        expires_at: expiresAt,
      });
      return earlier;
    });
    if (replaced && replaced.blob_key !== blobKey) await this.releaseBlob(replaced.blob_key);
    return { url: this.urlOf(name), expires: utcDateTime(expiresAt) };
  }

  /**
   * The visual signature of the upload an image_url names, for a by-image search. The URL
   * must be one this server handed out (its origin and path exactly; a query string or
   * fragment is ignored, as it cannot change which upload the path names), for an upload of
   * the same owner that has not expired. Nothing is ever fetched: any other URL is a 400.
   */
  async resolveImageUrl(owner: UploadOwner, imageUrl: string): Promise<Float32Array> {
    const name = this.nameInUrl(imageUrl);
    const upload = await this.liveUpload(owner, name, 'image_url');
    const stored = decodeQuietly(upload.visual_signature);
    if (stored) return stored;
    // Stored by another version of the descriptor: recompute from the file, once.
    const bytes = await this.blobs.get(upload.blob_key);
    if (!bytes) throw invalidParameter('image_url', `the file of the upload '${name}' is no longer available; upload it again`);
    const signature = await this.decodes.run(() => computeVisualSignature(bytes));
    await this.repository.updateSignature(owner, name, encodeStoredSignature(signature));
    return signature;
  }

  /**
   * The bytes of the upload a URL names, under the same rules as resolveImageUrl (a URL this
   * server handed out, the same owner, not expired); a 400 names `parameter` (mask_url, url).
   * Generative operations read their masks and reference files this way, never by fetching.
   */
  async fileOf(owner: UploadOwner, fileUrl: string, parameter: string): Promise<{ bytes: Buffer; mediaType: string }> {
    const name = this.nameInUrl(fileUrl, parameter);
    const upload = await this.liveUpload(owner, name, parameter);
    const bytes = await this.blobs.get(upload.blob_key);
    if (!bytes) throw invalidParameter(parameter, `the file of the upload '${name}' is no longer available; upload it again`);
    return { bytes, mediaType: upload.media_type };
  }

  /** Deletes the uploads whose 24 hours are over, and the blobs no other upload still holds. */
  async purgeExpired(now = this.now()): Promise<void> {
    const blobKeys = await this.repository.deleteExpired(new Date(now).toISOString());
    for (const blobKey of blobKeys) await this.releaseBlob(blobKey);
  }

  /**
   * The owner's upload of this name, not expired. Another sender's upload of the same name is
   * not found, so the answer (400 naming the parameter) is the same as for a name never
   * uploaded: it reveals nothing of what others keep.
   */
  private async liveUpload(owner: UploadOwner, name: string, parameter: string): Promise<SearchUploadRow> {
    const upload = await this.repository.find(owner, name);
    const whose = owner.userId === null ? 'of this API key sent without a token' : 'of yours';
    if (!upload) {
      throw invalidParameter(parameter, `there is no upload named '${name}' ${whose} (an upload belongs to the user whose token came with it, or to the API key alone when none did)`);
    }
    if (upload.expires_at <= new Date(this.now()).toISOString()) {
      throw invalidParameter(parameter, `the upload '${name}' expired at ${upload.expires_at}; upload the file again`);
    }
    return upload;
  }

  /** 429 UploadQuotaExceeded when storing `bytes` under this name would take the owner's key or user past a quota. */
  private async checkQuotas(repository: UploadsRepository, owner: UploadOwner, name: string, bytes: number, nowIso: string): Promise<void> {
    const replacing = { owner, name };
    const check = (usage: UploadUsage, quota: FileQuota, whose: string) => {
      if (usage.files + 1 > quota.files) throw uploadQuotaExceeded(whose, `${quota.files} files`);
      if (usage.bytes + bytes > quota.bytes) throw uploadQuotaExceeded(whose, `${formatMegabytes(quota.bytes)}`);
    };
    check(await repository.usage({ clientId: owner.clientId }, nowIso, replacing), this.quotas.perKey, 'This API key');
    if (owner.userId !== null) check(await repository.usage({ userId: owner.userId }, nowIso, replacing), this.quotas.perUser, 'You');
  }

  private async releaseBlob(blobKey: string): Promise<void> {
    await this.repository.withBlobLock(blobKey, async (repository) => {
      if (!(await repository.isBlobReferenced(blobKey))) await this.blobs.delete(blobKey);
    });
  }

  private basePath(): string {
    return this.publicUrl.pathname.replace(/\/+$/, '');
  }

  private nameInUrl(imageUrl: string, parameter = 'image_url'): string {
    const notOurs = (why: string) =>
      invalidParameter(
        parameter,
        `${why}; ${parameter} must be a URL returned by PUT /v3/search/by-image/uploads/{file-name}, such as ${this.urlOf('my-photo.jpg')}`,
      );
    if (imageUrl.length > MAX_IMAGE_URL_LENGTH) throw notOurs(`it is longer than ${MAX_IMAGE_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(imageUrl);
    } catch {
      throw notOurs(`'${imageUrl}' is not an absolute URL`);
    }
    if (url.origin !== this.publicUrl.origin) throw notOurs(`${url.origin} is not this server (${this.publicUrl.origin})`);
    const prefix = `${this.basePath()}${UPLOADS_PATH}`;
    if (!url.pathname.startsWith(prefix)) throw notOurs(`the path ${url.pathname} is not under ${prefix}`);
    const name = url.pathname.slice(prefix.length);
    if (!FILE_NAME.test(name)) throw notOurs(`'${name}' is not a file name an upload can have`);
    return name;
  }
}

function checkFileName(fileName: string): string {
  if (!FILE_NAME.test(fileName)) {
    throw invalidParameter(
      'file-name',
      'use 1 to 200 characters among letters, digits, dot, underscore and hyphen, not starting with a dot',
    );
  }
  return fileName;
}

/** The file's bytes and media type, once the body is known to be a JPEG or PNG that says so. */
function checkImageFile(file: UploadedFile): { bytes: Buffer; mediaType: UploadMediaType } {
  const declared = file.contentType?.split(';')[0]!.trim().toLowerCase();
  if (!declared || !(UPLOAD_MEDIA_TYPES as readonly string[]).includes(declared)) {
    throw unsupportedContentType(file.contentType);
  }
  const bytes = file.bytes;
  if (!bytes || bytes.length === 0) throw invalidParameter('file', 'the request has no body; send the JPEG or PNG file as the body');
  if (bytes.length > MAX_UPLOAD_BYTES) throw fileTooLarge();
  const actual = sniffMediaType(bytes);
  if (!actual) throw invalidParameter('file', 'the body is not a JPEG or PNG file');
  if (actual !== declared) throw invalidParameter('file', `the body is a ${describe(actual)} file but Content-Type says ${declared}`);
  return { bytes, mediaType: actual };
}

/** What the first bytes say, the way decoders (sharp among them) recognise these formats. */
function sniffMediaType(bytes: Buffer): UploadMediaType | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  return undefined;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function describe(mediaType: UploadMediaType): string {
  return mediaType === 'image/jpeg' ? 'JPEG' : 'PNG';
}

/**
 * 400 InvalidParameterValue rather than the framework's 413: the contract lists 400 as the
 * upload's only client error, so clients of the service already handle it.
 */
export function fileTooLarge(): ApiError {
  return invalidParameter('file', `the file is over 10 MB; uploads may be at most ${MAX_UPLOAD_BYTES} bytes`);
}

/**
 * 400 InvalidParameterValue rather than the framework's 415, for the same reason as
 * fileTooLarge: the contract's only client error for an upload is 400.
 */
export function unsupportedContentType(contentType: string | undefined): ApiError {
  const given = contentType ? `Content-Type ${contentType}` : 'no Content-Type';
  return invalidParameter('Content-Type', `the request has ${given}; send the file as image/jpeg or image/png`);
}

/** A byte count in megabytes, the unit of the quota settings. */
function formatMegabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

function decodeQuietly(stored: string): Float32Array | undefined {
  try {
    return decodeStoredSignature(stored);
  } catch {
    // A damaged value is recomputed like one of another version.
    return undefined;
  }
}
