import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { justifiedRowRules } from './web.pages.js';

/** A static file of the browser, served with a long cache life under a name that changes with its content. */
export interface StaticFile {
  body: Buffer;
  contentType: string;
  /** Its address, with the content's version: `/static/web.css?v=…`. */
  path: string;
}

/** The files every page links to. */
export interface SiteFiles {
  css: StaticFile;
  script: StaticFile;
  icon: StaticFile;
}

function staticFile(name: string, contentType: string, generated = ''): StaticFile {
  const body = Buffer.concat([fs.readFileSync(new URL(`./static/${name}`, import.meta.url)), Buffer.from(generated)]);
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { body, contentType, path: `/static/${name}?v=${version}` };
}

/** The stylesheet (with the justified rows' rules, which are generated), the script and the icon. */
export function siteFiles(): SiteFiles {
  return {
    css: staticFile('web.css', 'text/css; charset=utf-8', justifiedRowRules()),
    script: staticFile('web.js', 'text/javascript; charset=utf-8'),
    icon: staticFile('favicon.svg', 'image/svg+xml'),
  };
}

const hidden = { schema: { hide: true } };
// The version is in the address: a file's content never changes under it.
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The static files, at their addresses without the version. */
export async function staticRoutes(app: FastifyInstance, { files }: { files: SiteFiles }): Promise<void> {
  for (const file of [files.css, files.script, files.icon]) {
    app.get(file.path.split('?')[0]!, hidden, async (_request, reply) =>
      reply.headers({ 'content-type': file.contentType, 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff' }).send(file.body),
    );
  }
  // Browsers ask for /favicon.ico of every site whatever the page says: the same icon.
  app.get('/favicon.ico', hidden, async (_request, reply) =>
    reply.headers({ 'content-type': files.icon.contentType, 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' }).send(files.icon.body),
  );
}
