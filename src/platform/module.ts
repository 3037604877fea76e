import type { FastifyPluginAsync } from 'fastify';

/**
 * Where a module's routes go. Each surface is its own encapsulated context with its own
 * hooks, so a module says which it serves and never sets the hooks itself.
 */
export interface ModuleRoutes {
  /** Under /v3: open CORS, then the Api-Key check and the throttle. */
  api?: FastifyPluginAsync;
  /** Under /beta (the spec's beta endpoints): the same CORS, key check and throttle as /v3. */
  beta?: FastifyPluginAsync;
  /** Open to every origin, no key: signed media URLs, whose signature is the check. */
  open?: FastifyPluginAsync;
  /** At the root with nothing in front (the OAuth endpoints answer in RFC 6749's shapes). */
  root?: FastifyPluginAsync;
}

/**
 * One domain, built: the public services it offers other modules (`exports`), its routes, and
 * how it starts serving and closes. A module is made by a function that takes the platform and
 * the exports of the modules it names; app.ts composes them in dependency order and closes them
 * in reverse.
 */
export interface StockroomModule<Exports extends object = object> {
  readonly name: string;
  readonly exports: Exports;
  readonly routes?: ModuleRoutes;
  /** Work only a serving node does, once every module is built (search builds its index). */
  start?(): Promise<void>;
  close?(): Promise<void>;
}
