import type { FastifyInstance, FastifyRequest } from 'fastify';
import { malformedForm } from '../web/web.errors.js';
import { fileTooLarge, formExpired } from './back-office.errors.js';

/*
 * A form with a file (`multipart/form-data`), read with the platform's own reader (Node's
 * fetch Response.formData, undici's parser: no dependency of ours). Its text fields become the
 * form's fields, as a urlencoded form's do (so the CSRF check reads them the same way); its
 * file is kept for the route beside the request. The whole body is held in memory, so the
 * largest body is small beside the resumable uploads' (which stream): this is for replacing
 * one asset's file from its page, not for bringing in footage.
 */

/** The largest body a file form takes: a picture or a short clip. */
export const FILE_FORM_LARGEST_BYTES = 64 * 1024 * 1024;

export const MULTIPART_CONTENT_TYPE = 'multipart/form-data';

/** A file a form gave: its name as the browser sent it, and its bytes. */
export interface FormFile {
  name: string;
  data: Buffer;
}

/** The files of each request read here, by field name. */
const filesOf = new WeakMap<FastifyRequest, ReadonlyMap<string, FormFile>>();

/** Reads file forms in this plugin's routes; a field given twice, or a body that is not one, is a 400 page. */
export function registerFileForm(app: FastifyInstance, hasSession: (request: FastifyRequest) => Promise<boolean>): void {
  // Up to 64 MB is read only for a browser that has a session; the form's own checks (its token, the role) follow.
  app.addHook('preParsing', async (request) => {
    if (request.headers['content-type']?.toLowerCase().startsWith(MULTIPART_CONTENT_TYPE) && !(await hasSession(request))) throw formExpired();
  });
  app.addContentTypeParser(MULTIPART_CONTENT_TYPE, async (request: FastifyRequest, payload: NodeJS.ReadableStream) => {
    const declared = Number(request.headers['content-length']);
    if (declared > FILE_FORM_LARGEST_BYTES) throw fileTooLarge(FILE_FORM_LARGEST_BYTES);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of payload as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > FILE_FORM_LARGEST_BYTES) throw fileTooLarge(FILE_FORM_LARGEST_BYTES);
      chunks.push(chunk);
    }
    let form: FormData;
    try {
      form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': request.headers['content-type'] ?? '' } }).formData();
    } catch {
      throw malformedForm('The form cannot be read');
    }
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    const files = new Map<string, FormFile>();
    for (const [name, value] of form.entries()) {
      if (name in fields || files.has(name)) throw malformedForm(`The form sent ${name} twice`);
      if (typeof value === 'string') fields[name] = value;
      // A file input left empty is sent as a file with no name and no bytes: no file was chosen.
      else if (value.size > 0 || value.name !== '') files.set(name, { name: value.name, data: Buffer.from(await value.arrayBuffer()) });
    }
    filesOf.set(request, files);
    return fields;
  });
}

/** The file a file form gave under `name`; undefined when none was chosen (or the form had no files). */
export function formFile(request: FastifyRequest, name: string): FormFile | undefined {
  return filesOf.get(request)?.get(name);
}
